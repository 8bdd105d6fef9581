package transport

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/payledger/payledger/cmd/payledger/app"
	"github.com/payledger/payledger/internal/wait"
	"github.com/payledger/payledger/settlement"
	"github.com/payledger/payledger/transport/onramp"
)

// downProcessor is the fake processor behind a proxy that answers 503 for the sessions marked
// down, and counts the reads of each session.
type downProcessor struct {
	mu    sync.Mutex
	down  map[string]bool
	reads map[string]int
}

func newDownProcessor(t *testing.T, upstream string) (*downProcessor, *httptest.Server) {
	p := &downProcessor{down: map[string]bool{}, reads: map[string]int{}}
	target, _ := url.Parse(upstream)
	proxy := httputil.NewSingleHostReverseProxy(target)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id, read := strings.CutPrefix(r.URL.Path, "/v1/onramp_sessions/")
		p.mu.Lock()
		down := read && p.down[id]
		if read {
			p.reads[id]++
		}
		p.mu.Unlock()
		if down {
			http.Error(w, "unavailable", http.StatusServiceUnavailable)
			return
		}
		proxy.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return p, srv
}

func (p *downProcessor) read(id string) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.reads[id]
}

// TestTheWindowAsksTheProcessorAboutAnEarlierSessionAtItsEnd, through the app's wiring (the
// payment window worker as serve runs it): the customer left a card checkout (A), started another
// (B), and began paying A in its own tab in the last seconds before the window's end, A's
// webhooks lost; B's expiry failed the receipt on B. No reconciliation pass before the end saw A
// under way, and the window process, which did not ask the processor, expired the receipt at the
// end (A's success was then recorded as ignored: the customer charged, the receipt failed). Now
// the window process asks at the end: the receipt is pending on A, and A's completion pays it. A
// receipt whose earlier session is idle is expired as before. While the processor does not
// answer, the expiry is held, at most settlement.WindowEndHold after the end, and then made; it
// is asked again after the backoff, and once the hold has lasted a minute /healthz names the
// payment window (its log the held receipt) until the expiry is made. The test clock moves in
// single steps, each followed by a wait on a condition (stop 72: it moved in a loop).
func TestTheWindowAsksTheProcessorAboutAnEarlierSessionAtItsEnd(t *testing.T) {
	t.Parallel()
	fake, upstream := newFakeProcessor(t)
	down, srv := newDownProcessor(t, upstream.URL)
	logs := &syncBuffer{} // the app's log: the health reports stuck workers there
	e := newAppEnv(t, func(c *app.Config) {
		withDeposits(c)
		c.Processor, c.Log = onramp.New(srv.URL, "sk_test_1"), zerolog.New(logs)
	}, nil, nil)
	m := e.merchant(true)
	twoSessions := func(id string) (sa string) {
		sa, _ = e.startOnramp(id)
		sb, ab := e.startOnramp(id)
		if rec := e.processorEvent("evt_"+sb, id, ab, sb, "expired", ""); rec.Code != 200 {
			t.Fatalf("B expired: %d %s", rec.Code, rec.Body)
		}
		fake.set(sb, func(s *onramp.Session) { s.Status = "expired" })
		return sa
	}
	paying, idle := e.receiptFor(m, "10"), e.receiptFor(m, "10")
	sa, _ := twoSessions(paying), twoSessions(idle)
	e.clk.Advance(10 * time.Minute)
	held := e.receiptFor(m, "10") // its window ends 10 minutes after the others'
	sh := twoSessions(held)
	ctx, stop := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); _ = e.svc.Processes.PaymentWindow.Run(ctx) }()
	t.Cleanup(func() { stop(); <-done })

	fake.set(sa, func(s *onramp.Session) { s.Status = "fulfillment_processing" }) // begun seconds before the end, its webhooks lost
	e.clk.Advance(50*time.Minute + time.Second)                                   // the first two windows have ended
	e.waitStatus(m, paying, func(st map[string]any) bool { return st["status"] == "pending" && st["processorSessionId"] == sa })
	e.waitStatus(m, idle, func(st map[string]any) bool { return slices.Contains(e.history(m, idle), "PaymentWindowExpired") })
	fake.set(sa, func(s *onramp.Session) {
		paid := json.Number("10.00")
		s.Status, s.TransactionHash, s.SourceAmountUSD = "fulfillment_complete", "0x"+strings.Repeat("b", 64), &paid
	})
	if rec := e.do(req{method: http.MethodPost, path: "/api/cron/reconcile", header: map[string]string{"x-cron-secret": testCronSecret}}); rec.Code != 200 {
		t.Fatalf("reconcile: %d %s", rec.Code, rec.Body)
	}
	if st := e.status(m, paying); st["status"] != "paid" || countOf(e.history(m, paying), "PaymentWindowExpired") != 0 {
		t.Fatalf("A's completion: %v %v", st, e.history(m, paying))
	}

	asked := down.read(sh)
	down.setDown(sh)
	e.clk.Advance(10 * time.Minute) // the held receipt's window has ended 1 s ago
	wait.Until(t, "the held receipt's first ask", 30*time.Second, func() bool { return down.read(sh) == asked+1 })
	// A minute and more of the test clock later, past the backoff: one more ask, the expiry still
	// held, and /healthz names the payment window, its log the held receipt. The clock moves once
	// per step: each wait is on a condition, not on the passes' pace.
	e.clk.Advance(time.Minute + settlement.WindowAskBackoff)
	e.passed("payment window")
	if n := down.read(sh) - asked; n != 2 || countOf(e.history(m, held), "PaymentWindowExpired") != 0 {
		t.Fatalf("held while the processor does not answer: %d asks (want 2), %v", n, e.history(m, held))
	}
	wait.Until(t, "/healthz names the payment window", 30*time.Second, func() bool { return slices.Contains(e.stuck(), "payment window") })
	if l := logs.String(); !strings.Contains(l, "background worker stuck") || !strings.Contains(l, held) {
		t.Fatalf("the stuck worker's log does not name the held receipt %s: %s", held, l)
	}
	e.clk.Advance(settlement.WindowEndHold)
	e.waitStatus(m, held, func(map[string]any) bool { return slices.Contains(e.history(m, held), "PaymentWindowExpired") })
	wait.Until(t, "/healthz no longer names the payment window", 30*time.Second, func() bool { return !slices.Contains(e.stuck(), "payment window") })
}

// setDown makes the processor answer 503 about session id.
func (p *downProcessor) setDown(id string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.down[id] = true
}

// stuck is what GET /healthz names stuck.
func (e *env) stuck() []string {
	e.t.Helper()
	rec := e.do(req{method: http.MethodGet, path: "/healthz"})
	var out struct {
		Stuck []string `json:"stuck"`
	}
	if rec.Code != 200 || json.Unmarshal(rec.Body.Bytes(), &out) != nil {
		e.t.Fatalf("/healthz: %d %s", rec.Code, rec.Body)
	}
	return out.Stuck
}

// passed waits until worker has made a whole pass at the test clock's time: a step recorded now
// or later, then, after the clock moves a millisecond, another (the first may have begun before
// the clock last moved; the second began after the first was recorded).
func (e *env) passed(worker string) {
	e.t.Helper()
	steppedSince := func(at time.Time) bool {
		for _, w := range e.svc.Health.Workers() {
			if w.Name == worker && (!w.LastStep.Before(at) || !w.LastErrorAt.Before(at)) {
				return true
			}
		}
		return false
	}
	for range 2 {
		at := e.clk.Now()
		wait.Until(e.t, worker+" steps at the test clock's time", 30*time.Second, func() bool { return steppedSince(at) })
		e.clk.Advance(time.Millisecond)
	}
}

// startOnramp starts an onramp session for receipt id through the payment page.
func (e *env) startOnramp(id string) (session, attempt string) {
	e.t.Helper()
	rec := e.do(req{method: http.MethodPost, path: "/api/portal/" + id + "/onramp", body: `{}`})
	if rec.Code != 200 {
		e.t.Fatalf("onramp: %d %s", rec.Code, rec.Body)
	}
	out := decode(e.t, rec)
	return out["processorSessionId"].(string), out["attemptId"].(string)
}

// waitStatus waits until ok holds of receipt id's status read.
func (e *env) waitStatus(m merchant, id string, ok func(map[string]any) bool) {
	e.t.Helper()
	if !wait.Poll(30*time.Second, func() bool { return ok(e.status(m, id)) }) {
		e.t.Fatalf("timed out waiting on receipt %s: %v %v", id, e.status(m, id), e.history(m, id))
	}
}
