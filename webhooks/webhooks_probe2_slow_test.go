package webhooks

import (
	"context"
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
