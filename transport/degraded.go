package transport

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"sync"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/rs/zerolog"

	"github.com/payledger/payledger/eventstore"
	"github.com/payledger/payledger/eventstore/journal"
	"github.com/payledger/payledger/readmodels"
)

// Journal keeps orders accepted while the datastore does not answer.
type Journal interface {
	Append(e journal.Entry) error
}

// errUnavailable is the answer of every route that needs the datastore while it is down.
var errUnavailable = NewError(http.StatusServiceUnavailable, "datastore_unavailable", "The datastore is unavailable; retry shortly")

// unavailable reports an error that means the datastore could not be reached (as opposed to it
// refusing a statement).
func unavailable(err error) bool {
	if err == nil {
		return false
	}
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		return pgErr.Code == "57P01" || pgErr.Code == "57P03" || pgErr.Code[:2] == "08" // shutdown, cannot connect now, connection exceptions
	}
	var ce *pgconn.ConnectError
	var ne net.Error
	return errors.As(err, &ce) || errors.As(err, &ne) || errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.ECONNRESET) ||
		errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) || pgconn.Timeout(err) || errors.Is(err, net.ErrClosed) ||
		errors.Is(err, context.DeadlineExceeded)
}

// lastKnown remembers what order creation read from the datastore, so that an order can still
// be priced and journaled while the datastore is down. Entries are only used then.
type lastKnown struct {
	mu      sync.Mutex
	keys    map[[32]byte]Principal // by SHA-256 of the presented key
	items   map[string]map[string]readmodels.Item
	pricing map[string]merchantPricing
}

func newLastKnown() *lastKnown {
	return &lastKnown{keys: map[[32]byte]Principal{}, items: map[string]map[string]readmodels.Item{}, pricing: map[string]merchantPricing{}}
}

func (l *lastKnown) key(secret string, p *Principal) (Principal, bool) {
	h := sha256.Sum256([]byte(secret))
	l.mu.Lock()
	defer l.mu.Unlock()
	if p != nil {
		if len(l.keys) > 10_000 {
			clear(l.keys)
		}
		l.keys[h] = *p
		return *p, true
	}
	got, ok := l.keys[h]
	return got, ok
}

func (l *lastKnown) rememberItems(wallet string, items []readmodels.Item) {
	l.mu.Lock()
	defer l.mu.Unlock()
	m := l.items[wallet]
	if m == nil {
		if len(l.items) > 10_000 {
			clear(l.items)
		}
		m = map[string]readmodels.Item{}
		l.items[wallet] = m
	}
	for _, it := range items {
		m["id:"+it.ID.String()], m["sku:"+it.SKU] = it, it
	}
}

func (l *lastKnown) item(wallet, ref string) (readmodels.Item, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	it, ok := l.items[wallet][ref]
	return it, ok
}

func (l *lastKnown) rememberPricing(wallet string, mp merchantPricing) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.pricing) > 10_000 {
		clear(l.pricing)
	}
	l.pricing[wallet] = mp
}

func (l *lastKnown) pricingOf(wallet string) (merchantPricing, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	mp, ok := l.pricing[wallet]
	return mp, ok
}

// sealedKey is journal side data: a webhook signing key sealed with SECRETS_KEY.
type sealedKey struct {
	ReceiptID string `json:"receiptId"`
	Nonce     []byte `json:"nonce"`
	Sealed    []byte `json:"sealed"`
}

func marshalSide(v any) json.RawMessage {
	b, _ := json.Marshal(v)
	return b
}

// SealedKeyStore stores webhook keys sealed in degraded mode.
type SealedKeyStore interface {
	SaveSealed(ctx context.Context, receiptID string, nonce, sealed []byte) error
}

// Appender appends events.
type Appender interface {
	Append(ctx context.Context, stream string, expected eventstore.ExpectedVersion, events ...eventstore.EventData) (eventstore.AppendResult, error)
}

// JournalReplayer puts journaled receipts into the event store once the datastore answers:
// the sealed webhook key first, then the events under their original ids (so a replay after a
// crash mid-drain stores nothing twice).
type JournalReplayer struct {
	Journal interface {
		Drain(ctx context.Context, apply func(context.Context, journal.Entry) error) (int, error)
	}
	Store Appender
	Keys  SealedKeyStore
	Log   zerolog.Logger
	Every time.Duration
}

// Apply replays one entry.
func (r JournalReplayer) Apply(ctx context.Context, e journal.Entry) error {
	if raw, ok := e.Side["webhookKey"]; ok {
		var k sealedKey
		if err := json.Unmarshal(raw, &k); err != nil {
			return fmt.Errorf("journal side data: %w", err)
		}
		if err := r.Keys.SaveSealed(ctx, k.ReceiptID, k.Nonce, k.Sealed); err != nil {
			return err
		}
	}
	_, err := r.Store.Append(ctx, e.Stream, eventstore.NoStream(), e.Events...)
	return err
}

// DrainOnce replays everything journaled; it reports how many entries went in.
func (r JournalReplayer) DrainOnce(ctx context.Context) (int, error) {
	n, err := r.Journal.Drain(ctx, r.Apply)
	if n > 0 {
		r.Log.Info().Int("entries", n).Msg("journal replayed into the event store")
	}
	return n, err
}

// Run replays the journal every interval until ctx ends.
func (r JournalReplayer) Run(ctx context.Context) error {
	return every(ctx, r.Every, func(ctx context.Context) {
		if _, err := r.DrainOnce(ctx); err != nil && ctx.Err() == nil {
			r.Log.Warn().Err(err).Msg("journal replay: will retry")
		}
	})
}

// every runs fn at each tick of interval until ctx ends, and returns ctx.Err().
func every(ctx context.Context, interval time.Duration, fn func(context.Context)) error {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-t.C:
			fn(ctx)
		}
	}
}
