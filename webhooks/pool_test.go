package webhooks

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/rs/zerolog"

	"github.com/payledger/payledger/eventstore/postgres"
	"github.com/payledger/payledger/internal/pgarrays"
	"github.com/payledger/payledger/internal/secrets"
	"github.com/payledger/payledger/internal/wait"
	"github.com/payledger/payledger/migrations/pgtest"
	"github.com/payledger/payledger/readmodels"
)

// TestAttemptsEndingTogetherLeaveConnectionsFree: many endpoint attempts whose receivers answer
// at the same moment (hanging receivers reaching the timeout) record their outcomes without ever
// holding every connection of the service's pool, which the API shares: each attempt used to
// take a connection for its recording at once, so a pool of 32 served 256 recordings and API
// requests queued behind them.
func TestAttemptsEndingTogetherLeaveConnectionsFree(t *testing.T) {
	t.Parallel()
	const maxConns = 8
	cfg, err := pgxpool.ParseConfig(pgtest.URL(t))
	if err != nil {
		t.Fatal(err)
	}
	held := &heldConns{}
	cfg.MaxConns, cfg.AfterConnect, cfg.ConnConfig.Tracer = maxConns, pgarrays.AfterConnect, held
	bg := context.Background()
	pool, err := pgxpool.NewWithConfig(bg, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	keys, err := secrets.NewWebhookKeys(pool, bytes.Repeat([]byte{9}, 32))
	if err != nil {
		t.Fatal(err)
	}
	store := readmodels.NewEndpoints(pool, keys)

	hits, release := &atomic.Int32{}, make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		select {
		case <-r.Context().Done():
		case <-release:
		}
	}))
	t.Cleanup(srv.Close)
	const endpoints = 16 // each with its share in flight
	const messages = endpoints * endpointShare
	for i := range endpoints {
		secret, _ := NewSecret()
		ep, err := store.Create(bg, fmt.Sprintf("0xm%d", i), srv.URL, []string{"*"}, secret, time.Now())
		if err != nil {
			t.Fatal(err)
		}
		if _, err := pool.Exec(bg, `WITH ev AS (
				INSERT INTO webhook_events (seq, id, event_key, merchant_wallet, type, data, occurred_at)
				SELECT nextval('webhook_events_seq'), gen_random_uuid(), $1::text || '-' || i, $1, $2, '{}', now()
				FROM generate_series(1, $3) AS i RETURNING id)
			INSERT INTO webhook_endpoint_messages (endpoint_id, event_id) SELECT $4, id FROM ev`,
			ep.Merchant, TypeTest, endpointShare, ep.ID); err != nil {
			t.Fatal(err)
		}
	}
	d := (&Dispatcher{Outbox: readmodels.NewOutbox(pool), Keys: keys, Events: postgres.New(pool), Log: zerolog.Nop(),
		Endpoints: store, Workers: -1, Timeout: 20 * time.Second}).Init()
	ctx, cancel := context.WithCancel(bg)
	done := make(chan struct{})
	go func() { defer close(done); _ = d.Run(ctx) }()
	t.Cleanup(func() { cancel(); <-done })
	wait.Until(t, "every attempt on the wire", 10*time.Second, func() bool { return hits.Load() == messages })
	held.most.Store(held.n.Load())
	close(release) // every receiver answers 200 at once
	wait.Until(t, "every attempt recorded", 10*time.Second, func() bool {
		var n int
		_ = pool.QueryRow(bg, `SELECT count(*) FROM webhook_endpoint_messages WHERE state = 'delivered'`).Scan(&n)
		return n == messages
	})
	if m := held.most.Load(); m >= maxConns {
		t.Fatalf("the recordings held %d of the pool's %d connections at once", m, maxConns)
	}
}

// heldConns counts a pool's connections in use (acquired, not yet released) and the most at once.
type heldConns struct{ n, most atomic.Int32 }

func (h *heldConns) TraceAcquireStart(ctx context.Context, _ *pgxpool.Pool, _ pgxpool.TraceAcquireStartData) context.Context {
	return ctx
}

func (h *heldConns) TraceAcquireEnd(_ context.Context, _ *pgxpool.Pool, data pgxpool.TraceAcquireEndData) {
	if data.Err != nil {
		return
	}
	n := h.n.Add(1)
	for m := h.most.Load(); n > m && !h.most.CompareAndSwap(m, n); m = h.most.Load() {
	}
}

func (h *heldConns) TraceRelease(*pgxpool.Pool, pgxpool.TraceReleaseData) { h.n.Add(-1) }

func (h *heldConns) TraceQueryStart(ctx context.Context, _ *pgx.Conn, _ pgx.TraceQueryStartData) context.Context {
	return ctx
}

func (h *heldConns) TraceQueryEnd(context.Context, *pgx.Conn, pgx.TraceQueryEndData) {}
