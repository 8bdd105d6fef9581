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

// Turn is one instance's turn at a job every instance runs but one at a time should do: a
// PostgreSQL advisory lock, held by one instance at a time. The lock lives on a connection of
// its own, opened when the turn is taken (Take) and closed when it is given back (Give): it lasts
// no longer than the session, and the session's idle limit ends the turn of an instance that
// stopped taking it (frozen, cut off), so another takes it. Two turns: the window's asks at
// windows' ends (NewWindowAskTurn) and the background onramp reconciliation
// (NewReconcileTurn), each with its own key.
type Turn struct {
	pool *pgxpool.Pool
	key  int64
	idle time.Duration // the session's idle limit
	mu   sync.Mutex
	conn *pgx.Conn // nil: no connection open
	ours bool      // the lock is held on conn
}

var _ settlement.AskTurn = (*Turn)(nil)

// windowAskIdleLimit ends the session of an instance that holds the window's turn and no longer
// uses it: a holder pings it at every pass (a second) while there are receipts to ask about.
const windowAskIdleLimit = 30 * time.Second

// lockKey is the advisory lock's key for name.
func lockKey(name string) int64 {
	h := fnv.New64a()
	h.Write([]byte(name))
	return int64(h.Sum64())
}

// NewWindowAskTurn is the turn at asking the onramp processor at windows' ends
// (settlement.PaymentWindowHandler.AskingInTurn) over pool's database (its connection settings).
// Every instance runs the window's passes, and each asked the processor about the same held
// receipts, every instance's backoff apart.
func NewWindowAskTurn(pool *pgxpool.Pool) *Turn {
	return &Turn{pool: pool, key: lockKey("payledger-payment-window:ask-at-end"), idle: windowAskIdleLimit}
}

// NewReconcileTurn is the turn at the background onramp reconciliation
// (settlement.OnrampReconciler.InTurn), whose passes come every interval: the holder keeps it
// from pass to pass, so its session's idle limit is two intervals (at least windowAskIdleLimit),
// and an instance that stopped passing loses it within that. Every instance asked the processor
// about every open attempt once per interval.
func NewReconcileTurn(pool *pgxpool.Pool, interval time.Duration) *Turn {
	return &Turn{pool: pool, key: lockKey("payledger-onramp:reconcile"), idle: max(2*interval, windowAskIdleLimit)}
}

// Take reports whether the turn is this instance's: it tries the lock when it is not held, and
// checks that the session holding it still answers when it is (a lost session lost the lock; it
// is tried again on a new one). An instance without the turn keeps its connection to try again
// at its next pass; one the server closed meanwhile (its idle limit) is replaced once. Errors:
// the database's (the turn is not this instance's then).
func (t *Turn) Take(ctx context.Context) (bool, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.conn != nil && t.ours {
		if _, err := t.conn.Exec(ctx, "SELECT 1"); err == nil {
			return true, nil
		}
		t.drop()
	}
	kept := t.conn != nil
	err := t.try(ctx)
	if err != nil && kept && ctx.Err() == nil {
		err = t.try(ctx) // the kept connection was closed under us: a new one
	}
	return t.ours, err
}

// try tries the lock, on a new connection when none is open; a failure drops the connection.
// t.mu held.
func (t *Turn) try(ctx context.Context) error {
	if t.conn == nil {
		conn, err := pgx.ConnectConfig(ctx, t.pool.Config().ConnConfig.Copy())
		if err != nil {
			return fmt.Errorf("connect for the turn: %w", err)
		}
		t.conn = conn
		// Best effort: without the limit a vanished holder keeps the turn until TCP keepalive.
		_, _ = conn.Exec(ctx, `SELECT set_config('idle_session_timeout', $1, false)`, fmt.Sprint(t.idle.Milliseconds()))
	}
	if err := t.conn.QueryRow(ctx, `SELECT pg_try_advisory_lock($1)`, t.key).Scan(&t.ours); err != nil {
		t.drop()
		return fmt.Errorf("take the turn: %w", err)
	}
	return nil
}

// Give gives the turn back, if held, and closes its connection.
func (t *Turn) Give() {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.drop()
}

// drop closes the connection (the server frees the lock with the session); t.mu held.
func (t *Turn) drop() {
	if t.conn != nil {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		_ = t.conn.Close(ctx)
		cancel()
	}
	t.conn, t.ours = nil, false
}
