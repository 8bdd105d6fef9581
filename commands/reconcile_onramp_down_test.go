package commands_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/payledger/payledger/commands"
	"github.com/payledger/payledger/internal/wait"
	"github.com/payledger/payledger/readmodels"
	"github.com/payledger/payledger/settlement"
	"github.com/payledger/payledger/transport/onramp"
)

// clientProcessor is the processor's HTTP client in the commands' terms, as serve wires it.
type clientProcessor struct{ c *onramp.Client }

func (p clientProcessor) Create(ctx context.Context, req commands.OnrampRequest) (commands.OnrampSession, error) {
	s, err := p.c.Create(ctx, onramp.CreateRequest(req))
	return commands.OnrampSession(s), err
}

func (p clientProcessor) Get(ctx context.Context, id string) (commands.OnrampSession, error) {
	s, err := p.c.Get(ctx, id)
	return commands.OnrampSession(s), err
}

// A processor that does not answer (down, a server error, the service's key refused) made a pass
// ask it about every open attempt of its page, each call taking up to the client's 10 s timeout
// when it hangs: 500 attempts held the background reconciler for over 80 minutes (no merchant
// webhook retried, no later page asked), and the pass said nothing but each receipt's failure. A
// pass now stops after maxUnanswered (3) unanswered calls in a row and says so (ProcessorDown);
// a processor answering 404 about sessions it no longer knows is an answer: every attempt is
// still asked, and the processor is not reported down.
func TestReconcileOnrampStopsWhenTheProcessorDoesNotAnswer(t *testing.T) {
	t.Parallel()
	rc := newReconcileEnv(t)
	ctx, pool, store, runner, clk, e, start := rc.ctx, rc.pool, rc.store, rc.runner, rc.clk, rc.pay, rc.start
	const open = 10
	for range open {
		out, err := start.Handle(ctx, commands.StartOnramp{ReceiptID: e.receipt(payMerchant, "USD", 300)})
		if err != nil {
			t.Fatal(err)
		}
		if err := runner.WaitFor(ctx, out.Result.Position); err != nil {
			t.Fatal(err)
		}
		clk.advance(time.Millisecond)
	}
	clk.advance(time.Minute)
	for _, c := range []struct {
		status      int
		asked       int64
		down        bool
		unasked     int
		description string
	}{
		{http.StatusServiceUnavailable, 3, true, open - 3, "down"},
		{http.StatusUnauthorized, 3, true, open - 3, "the service's key refused"},
		{http.StatusNotFound, open, false, 0, "no such sessions"},
	} {
		var calls atomic.Int64
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			calls.Add(1)
			w.WriteHeader(c.status)
		}))
		h := commands.NewReconcileOnrampHandler(store, clientProcessor{onramp.New(srv.URL, "key")}, readmodels.NewReceipts(pool), clk.now)
		got, err := h.Handle(ctx, commands.ReconcileOnramp{})
		srv.Close()
		if err != nil {
			t.Fatal(err)
		}
		if calls.Load() != c.asked || got.Checked != int(c.asked) || got.Unasked != c.unasked || (got.ProcessorDown != nil) != c.down {
			t.Errorf("%s (%d): the processor was asked %d times (checked %d, unasked %d, down %v), want %d asked, %d unasked, down %v",
				c.description, c.status, calls.Load(), got.Checked, got.Unasked, got.ProcessorDown, c.asked, c.unasked, c.down)
		}
	}
}

// The background reconciler told no one that the processor was down: each pass logged a warning
// per receipt, and /healthz showed the worker ok. It now reports its run of failed passes
// (Failing, read by the app's health: stuck after a minute, naming the error), which a pass the
// processor answers ends.
func TestOnrampReconcilerReportsAProcessorThatDoesNotAnswer(t *testing.T) {
	t.Parallel()
	e := newPayEnv(t)
	e.configureSplit(payMerchant)
	id := e.receipt(payMerchant, "USD", 300)
	if _, err := commands.NewStartOnrampHandler(e.store, commands.NewSplits(e.store), newFakeProcessor(), noPrices{}, e.now).
		Handle(e.ctx, commands.StartOnramp{ReceiptID: id}); err != nil {
		t.Fatal(err)
	}
	var up atomic.Bool
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		if !up.Load() {
			w.WriteHeader(http.StatusBadGateway)
			return
		}
		_, _ = w.Write([]byte(`{"id":"cos_1","status":"created"}`)) // the customer has not paid yet: nothing new
	}))
	t.Cleanup(srv.Close)
	h := commands.NewReconcileOnrampHandler(e.store, clientProcessor{onramp.New(srv.URL, "key")}, listed{id}, e.now)
	r := settlement.NewOnrampReconciler(h, &countingWebhooks{}, 5*time.Millisecond, 0, zerolog.Nop())
	ctx, cancel := context.WithCancel(e.ctx)
	stopped := make(chan error, 1)
	go func() { stopped <- r.Run(ctx) }()
	t.Cleanup(func() { cancel(); <-stopped })
	var first time.Time
	wait.Until(t, "the reconciler reports the processor's 502s", 10*time.Second, func() bool {
		since, last, err := r.Failing()
		if first.IsZero() {
			first = since
		}
		return !since.IsZero() && since.Equal(first) && last.After(since) && err != nil && strings.Contains(err.Error(), "status 502")
	})
	up.Store(true)
	wait.Until(t, "a pass the processor answers ends the run of failures", 10*time.Second, func() bool {
		since, _, err := r.Failing()
		return since.IsZero() && err == nil
	})
}
