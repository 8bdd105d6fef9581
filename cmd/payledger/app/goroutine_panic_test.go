package app_test

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/payledger/payledger/cmd/payledger/app"
	"github.com/payledger/payledger/eventstore/postgres"
	"github.com/payledger/payledger/internal/syncbuf"
	"github.com/payledger/payledger/internal/wait"
	"github.com/payledger/payledger/migrations/pgtest"
	"github.com/payledger/payledger/readmodels"
	"github.com/payledger/payledger/webhooks"
)

// TestPanickingWebhookAttemptIsTheDispatchersFailure: a panic in a webhook attempt (a goroutine
// the dispatcher starts itself, here in the hook that names the merchant told before the send)
// ended the whole process. It is now recovered where the attempt is launched, logged with its
// stack, and counted as the dispatcher's failure (stuck in /healthz); the dispatcher goes on, and
// the message, still leased and its attempt not recorded, is delivered once when the lease runs
// out.
func TestPanickingWebhookAttemptIsTheDispatchersFailure(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := pgtest.Pool(t)
	var panicked atomic.Bool
	logs := &syncbuf.Buffer{}
	svc, err := app.Build(ctx, app.Config{Store: postgres.New(pool), Pool: pool, Now: time.Now, Log: zerolog.New(logs), Metrics: noMetrics{},
		SecretsKey: bytes.Repeat([]byte{7}, 32), JournalPath: filepath.Join(t.TempDir(), "journal.jsonl"),
		Dispatch: func(d *webhooks.Dispatcher) {
			d.Telling = func(string) {
				if panicked.CompareAndSwap(false, true) {
					var m map[string]int
					m["poison message"]++ // a nil map: the first attempt panics
				}
			}
		}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = svc.Journal.Close() })
	var hits atomic.Int32
	recv := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { hits.Add(1) }))
	t.Cleanup(recv.Close)
	merchant := "0x" + strings.Repeat("c", 40)
	secret, err := webhooks.NewSecret()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := svc.Endpoints.Create(ctx, merchant, recv.URL, []string{"*"}, secret, time.Now()); err != nil {
		t.Fatal(err)
	}

	runWorkers(t, svc)
	if err := svc.Endpoints.Record(ctx, readmodels.NewEvent{Key: "panic-1", Merchant: merchant, Type: webhooks.TypeTest,
		At: time.Now(), Data: map[string]any{}}); err != nil {
		t.Fatal(err)
	}
	svc.Dispatcher.Wake()

	wait.Until(t, "the panicking attempt counted as the dispatcher's failure", 30*time.Second, func() bool {
		return slices.Contains(svc.Health.Check(), "webhook dispatch")
	})
	if out := logs.String(); !strings.Contains(out, "background worker panicked") || !strings.Contains(out, "assignment to entry in nil map") ||
		!strings.Contains(out, "goroutine_panic_test.go") {
		t.Fatalf("the panic is not logged with its stack:\n%s", out)
	}
	// The lease (30 s) runs out and the message is claimed and delivered again by the same
	// dispatcher, once, its one recorded attempt the delivery.
	wait.Until(t, "the message delivered after its lease", 2*time.Minute, func() bool {
		var state string
		var attempts int
		err := pool.QueryRow(ctx, `SELECT state, attempts FROM webhook_endpoint_messages`).Scan(&state, &attempts)
		return err == nil && state == "delivered" && attempts == 1
	})
	if n := hits.Load(); n != 1 {
		t.Fatalf("the receiver got %d requests, want 1", n)
	}
}
