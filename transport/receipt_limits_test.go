package transport

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/payledger/payledger/cmd/payledger/app"
	"github.com/payledger/payledger/transport/onramp"
)

// countType is how many of the receipt's events (its history) are of type typ.
func (e *env) countType(m merchant, id, typ string) int {
	e.t.Helper()
	n := 0
	for _, h := range e.history(m, id) {
		if h == typ {
			n++
		}
	}
	return n
}

// wantRateLimited checks a 429 in the spec's envelope with message and resetAt, the start of
// the clock hour after now.
func wantRateLimited(t *testing.T, code int, body map[string]any, message string, now time.Time) {
	t.Helper()
	reset := now.Truncate(time.Hour).Add(time.Hour).UnixMilli()
	if code != http.StatusTooManyRequests || body["error"] != "rate_limited" || body["message"] != message || body["resetAt"] != float64(reset) {
		t.Fatalf("got %d %v, want 429 rate_limited %q, resetAt %d", code, body, message, reset)
	}
}

// TestQuotesPerReceiptBounded (stop 59): the public quote route appends a TokenQuoted to a
// receipt without a window on every call; from rotating addresses (each under the per-IP limit)
// the 21st in a clock hour is 429 rate_limited and records nothing; the next hour quotes again.
func TestQuotesPerReceiptBounded(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	// The start of a clock hour, so that the 21 quotes are in one hour.
	now := e.clk.Now()
	e.clk.Advance(now.Truncate(time.Hour).Add(time.Hour).Sub(now))
	m := e.merchant(true)
	id := e.receiptFor(m, "10")
	quote := func(i int) (int, map[string]any) {
		rec := e.do(req{method: http.MethodPost, path: "/api/portal/" + id + "/quote", body: `{"token":"USDC"}`,
			remote: fmt.Sprintf("198.51.100.%d:4000", i%250+1)})
		return rec.Code, decode(t, rec)
	}
	for i := range 20 {
		if code, body := quote(i); code != 200 {
			t.Fatalf("quote %d: %d %v", i+1, code, body)
		}
		e.clk.Advance(time.Second)
	}
	if n := e.countType(m, id, "TokenQuoted"); n != 20 {
		t.Fatalf("%d quotes recorded, want 20", n)
	}
	before := len(e.history(m, id))
	code, body := quote(20)
	wantRateLimited(t, code, body, "At most 20 quotes per receipt per hour", e.clk.Now())
	if after := len(e.history(m, id)); after != before {
		t.Fatalf("the refused quote recorded events: %d -> %d", before, after)
	}
	e.clk.Advance(time.Hour)
	if code, body := quote(21); code != 200 || body["amount"] == nil {
		t.Fatalf("quote in the next hour: %d %v", code, body)
	}
}

// TestOnrampStartsPerReceiptBounded (stop 59): each public onramp start asks the processor for a
// session; the 11th in a clock hour is 429 rate_limited before the processor is called (no
// session created, no attempt recorded); the next hour starts again.
func TestOnrampStartsPerReceiptBounded(t *testing.T) {
	t.Parallel()
	fake, srv := newFakeProcessor(t)
	e := newAppEnv(t, func(c *app.Config) { c.Processor = onramp.New(srv.URL, "sk_test_1") }, nil, nil)
	now := e.clk.Now()
	e.clk.Advance(now.Truncate(time.Hour).Add(time.Hour).Sub(now))
	m := e.merchant(true)
	id := e.receiptFor(m, "12.5")
	start := func(i int) (int, map[string]any) {
		rec := e.do(req{method: http.MethodPost, path: "/api/portal/" + id + "/onramp", body: `{}`,
			remote: fmt.Sprintf("203.0.113.%d:4000", i%250+1)})
		return rec.Code, decode(t, rec)
	}
	sessions := func() int { fake.mu.Lock(); defer fake.mu.Unlock(); return len(fake.created) }
	for i := range 10 {
		if code, body := start(i); code != 200 || !strings.HasPrefix(fmt.Sprint(body["processorSessionId"]), "cos_") {
			t.Fatalf("start %d: %d %v", i+1, code, body)
		}
		e.clk.Advance(time.Second)
	}
	if n, attempts := sessions(), e.countType(m, id, "PaymentAttemptStarted"); n != 10 || attempts != 10 {
		t.Fatalf("%d sessions, %d attempts; want 10 and 10", n, attempts)
	}
	code, body := start(10)
	wantRateLimited(t, code, body, "At most 10 card or bank payment sessions per receipt per hour", e.clk.Now())
	if n, attempts := sessions(), e.countType(m, id, "PaymentAttemptStarted"); n != 10 || attempts != 10 {
		t.Fatalf("after the refused start: %d sessions, %d attempts; want 10 and 10", n, attempts)
	}
	e.clk.Advance(time.Hour)
	if code, body := start(11); code != 200 || sessions() != 11 {
		t.Fatalf("start in the next hour: %d %v, %d sessions", code, body, sessions())
	}
}
