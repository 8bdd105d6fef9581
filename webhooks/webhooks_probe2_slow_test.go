package webhooks

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/payledger/payledger/eventstore/postgres"
	"github.com/payledger/payledger/internal/wait"
	"github.com/payledger/payledger/readmodels"
)

// hangingReceiver answers nothing until the test ends; hits counts its requests.
func hangingReceiver(t *testing.T) (*httptest.Server, *atomic.Int32) {
	t.Helper()
	hits, release := &atomic.Int32{}, make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		select {
		case <-r.Context().Done():
		case <-release:
		}
	}))
	t.Cleanup(srv.Close)
	t.Cleanup(func() { close(release) }) // runs before Close: no handler still hangs
	return srv, hits
}

// TestSlowEndpointDoesNotHoldUpOtherMerchants: one merchant's endpoint that takes its whole
// timeout to (not) answer does not delay another merchant's events: they are sent while the slow
// attempt is still waiting. The endpoint worker used to wait for every attempt of its claim before
// claiming again, so a single hanging receiver held every merchant's deliveries for the timeout.
func TestSlowEndpointDoesNotHoldUpOtherMerchants(t *testing.T) {
	t.Parallel()
	pool, keys, store, fast, fastHits := endpointFixture(t)
	slow, slowHits := hangingReceiver(t)
	bg := context.Background()
	for merchant, url := range map[string]string{"0xslow": slow.URL, "0xfast": fast.URL} {
		secret, _ := NewSecret()
		if _, err := store.Create(bg, merchant, url, []string{"*"}, secret, time.Now()); err != nil {
			t.Fatal(err)
		}
	}
	d := (&Dispatcher{Outbox: readmodels.NewOutbox(pool), Keys: keys, Events: postgres.New(pool), Log: zerolog.Nop(),
		Endpoints: store, Workers: -1, Timeout: 20 * time.Second}).Init()
	ctx, cancel := context.WithCancel(bg)
	done := make(chan struct{})
	go func() { defer close(done); _ = d.Run(ctx) }()
	t.Cleanup(func() { cancel(); <-done })
	record := func(merchant, key string) {
		t.Helper()
		if err := store.Record(bg, readmodels.NewEvent{Key: key, Merchant: merchant, Type: TypeTest, At: time.Now(), Data: map[string]any{}}); err != nil {
			t.Fatal(err)
		}
		d.Wake()
	}
	record("0xslow", "slow-1")
	wait.Until(t, "the slow receiver to have its request", 10*time.Second, func() bool { return slowHits.Load() == 1 })
	record("0xfast", "fast-1")
	wait.Until(t, "the other merchant's event while the slow attempt waits", 10*time.Second, func() bool { return fastHits.Load() == 1 })
}

// TestSlowReceiversDoNotHoldUpOtherReceiptWebhooks: receipt webhooks to receivers that take their
// whole timeout to (not) answer, one on each worker, do not delay another receipt's webhook: it
// is sent while they still wait. Each worker used to wait for every attempt of its claim before
// claiming again, so as many hanging receivers as workers held every merchant's webhooks.
func TestSlowReceiversDoNotHoldUpOtherReceiptWebhooks(t *testing.T) {
	t.Parallel()
	const workers = 3
	w := newWorld(t, func(d *Dispatcher) { d.Workers = workers; d.Timeout = 20 * time.Second })
	w.run(t)
	slow, slowHits := hangingReceiver(t)
	for i := range workers {
		w.paidReceipt(t, fmt.Sprintf("slow-%d", i), slow.URL, "plk_secret")
		// One at a time: each is claimed by a worker that is free, until none is.
		wait.Until(t, "the slow receiver to have its request", 10*time.Second, func() bool { return slowHits.Load() == int32(i+1) })
	}
	fast := newScript(t)
	w.paidReceipt(t, "fast", fast.srv.URL, "plk_secret")
	wait.Until(t, "the other receipt's webhook while the slow attempts wait", 10*time.Second, func() bool { return len(fast.got()) == 1 })
}
