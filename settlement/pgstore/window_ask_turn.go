package pgstore

import (
	"context"
	"fmt"
	"hash/fnv"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/payledger/payledger/settlement"
)

// WindowAskTurn is one instance's turn at asking the onramp processor at windows' ends
// (settlement.PaymentWindowHandler.AskingInTurn): a PostgreSQL advisory lock, held by one
// instance at a time. Every instance runs the window's passes, and each asked the processor about
// the same held receipts, every instance's backoff apart. The lock lives on a connection of its
// own, opened while there are receipts to ask about (Take) and closed when the turn is given back
// (Give): it lasts no longer than the session, and the session's idle limit ends the turn of an
// instance that stopped passing (frozen, cut off), so another takes it.
type WindowAskTurn struct {
	pool *pgxpool.Pool
	mu   sync.Mutex
	conn *pgx.Conn // nil: no connection open
	ours bool      // the lock is held on conn
}

var _ settlement.AskTurn = (*WindowAskTurn)(nil)

// windowAskIdleLimit ends the session of an instance that holds the turn and no longer uses it:
// a holder pings it at every pass (a second) while there are receipts to ask about.
const windowAskIdleLimit = 30 * time.Second

// windowAskLock is the advisory lock's key.
var windowAskLock = func() int64 {
	h := fnv.New64a()
	h.Write([]byte("payledger-payment-window:ask-at-end"))
	return int64(h.Sum64())
}()

// NewWindowAskTurn returns the turn over pool's database (its connection settings).
func NewWindowAskTurn(pool *pgxpool.Pool) *WindowAskTurn { return &WindowAskTurn{pool: pool} }

// Take reports whether the turn is this instance's: it tries the lock when it is not held, and
// checks that the session holding it still answers when it is (a lost session lost the lock; it
// is tried again on a new one). Errors: the database's (the turn is not this instance's then).
func (t *WindowAskTurn) Take(ctx context.Context) (bool, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.conn != nil && t.ours {
		if _, err := t.conn.Exec(ctx, "SELECT 1"); err == nil {
			return true, nil
		}
		t.drop()
	}
	if t.conn == nil {
		conn, err := pgx.ConnectConfig(ctx, t.pool.Config().ConnConfig.Copy())
		if err != nil {
			return false, fmt.Errorf("connect for the window's ask turn: %w", err)
		}
		t.conn = conn
		// Best effort: without the limit a vanished holder keeps the turn until TCP keepalive.
		_, _ = conn.Exec(ctx, `SELECT set_config('idle_session_timeout', $1, false)`, fmt.Sprint(windowAskIdleLimit.Milliseconds()))
	}
	if err := t.conn.QueryRow(ctx, `SELECT pg_try_advisory_lock($1)`, windowAskLock).Scan(&t.ours); err != nil {
		t.drop()
		return false, fmt.Errorf("the window's ask turn: %w", err)
	}
	return t.ours, nil
}

// Give gives the turn back, if held, and closes its connection.
func (t *WindowAskTurn) Give() {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.drop()
}

// drop closes the connection (the server frees the lock with the session); t.mu held.
func (t *WindowAskTurn) drop() {
	if t.conn != nil {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		_ = t.conn.Close(ctx)
		cancel()
	}
	t.conn, t.ours = nil, false
}
