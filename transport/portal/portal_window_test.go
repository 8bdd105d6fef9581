package portal_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/payledger/payledger/cmd/payledger/app"
	"github.com/payledger/payledger/domain/receipt"
	"github.com/payledger/payledger/transport/onramp"
	"github.com/payledger/payledger/transport/transporttest"
)

// processorAsked is a processor whose sessions record what they were asked for.
func processorAsked(t *testing.T) (*httptest.Server, func() []string) {
	var mu sync.Mutex
	var asked []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req onramp.CreateRequest
		_ = json.NewDecoder(r.Body).Decode(&req)
		mu.Lock()
		asked = append(asked, string(req.AmountUSD))
		n := len(asked)
		mu.Unlock()
		fmt.Fprintf(w, `{"id":"cos_%d","status":"created","redirectUrl":"https://onramp.example/%d"}`, n, n)
	}))
	t.Cleanup(srv.Close)
	return srv, func() []string { mu.Lock(); defer mu.Unlock(); return append([]string(nil), asked...) }
}

// An underpaid receipt's page offers card or bank for the rest, and the session asks for the
// rest (it asked the whole total, which the customer would have paid again); the page's polled
// status carries the amounts, as its stream does (/api/terminal/check-payment, which it polled,
// has none, so the page hid the controls of an underpaid receipt).
func TestPortalUnderpaidCardPaysTheRestAndPollingKeepsTheAmounts(t *testing.T) {
	proc, asked := processorAsked(t)
	opts := transporttest.Portal()
	opts.App = func(c *app.Config) { transporttest.WithDeposits(c); c.Processor = onramp.New(proc.URL, "sk_test") }
	e := transporttest.New(t, opts)
	m := e.Merchant(true)
	id := e.ReceiptFor(m, "12.34")
	e.DepositCredit(id, "0x"+strings.Repeat("1", 64), "USDC", "10000000", true)

	page := e.Do(transporttest.Req{Method: http.MethodGet, Path: "/portal/" + id}).Body.String()
	if !strings.Contains(page, `id="pay"`) || !strings.Contains(page, ">Pay the rest by card or bank</button>") {
		t.Fatalf("the underpaid page does not offer the rest by card:\n%s", page)
	}
	status := transporttest.Decode(t, e.Do(transporttest.Req{Method: http.MethodGet, Path: "/api/portal/" + id + "/status"}))
	if status["status"] != "pending" || status["amountReceived"] != "10.00" || status["amountRequired"] != "12.34" || status["amountToken"] != "USDC" ||
		status["windowEnded"] != false || status["windowNote"] != nil {
		t.Fatalf("polled status %v, want pending with 10.00 of 12.34 USDC, the window open", status)
	}
	rec := e.Do(transporttest.Req{Method: http.MethodPost, Path: "/api/portal/" + id + "/onramp", Body: `{}`})
	if rec.Code != 200 || transporttest.Decode(t, rec)["amountUsd"] != 2.34 || strings.Join(asked(), ",") != "2.34" {
		t.Fatalf("onramp start %d %s; the processor was asked %v, want the rest 2.34", rec.Code, rec.Body, asked())
	}
}

// An expired receipt's page showed its payment controls and said a payment "may still be
// recognised as late", but the quote and the payment request refuse it (no address, no amount
// to pay): the page now has no controls once the window has ended and says what becomes of a
// late payment, before the expiry is recorded, after, and after the late-payment watch.
func TestPortalPageAfterTheWindowEnds(t *testing.T) {
	e := transporttest.New(t, transporttest.Portal())
	m := e.Merchant(true)
	id := e.ReceiptFor(m, "12.34")
	e.DepositCredit(id, "0x"+strings.Repeat("2", 64), "USDC", "5000000", true)
	pageOf := func() string {
		return e.Do(transporttest.Req{Method: http.MethodGet, Path: "/portal/" + id}).Body.String()
	}
	statusOf := func() map[string]any {
		return transporttest.Decode(t, e.Do(transporttest.Req{Method: http.MethodGet, Path: "/api/portal/" + id + "/status"}))
	}
	if p := pageOf(); !strings.Contains(p, `id="pay"`) || !strings.Contains(p, `id="window-ended" role="status" hidden>`) {
		t.Fatalf("inside the window the page has its controls and no note:\n%s", p)
	}
	view := transporttest.Decode(t, e.Do(transporttest.Req{Method: http.MethodGet, Path: "/api/portal/" + id}))["receipt"].(map[string]any)
	end := int64(view["expiresAt"].(float64))
	at := func(ms int64) string { return time.UnixMilli(ms).UTC().Format("2006-01-02 15:04 UTC") }

	e.Clk.Advance(time.UnixMilli(end).Sub(e.Clk.Now()) + time.Second) // ended; the expiry is not recorded yet
	p, s := pageOf(), statusOf()
	if strings.Contains(p, `id="pay"`) || !strings.Contains(p, "The payment window ended at "+at(end)) || !strings.Contains(p, "within the late-payment watch") ||
		s["windowEnded"] != true || !strings.Contains(fmt.Sprint(s["windowNote"]), "within the late-payment watch") {
		t.Fatalf("ended, expiry not recorded: the page or its status (%v) still offers a payment, or says no more than:\n%s", s, p)
	}
	if rec := e.Do(transporttest.Req{Method: http.MethodPost, Path: "/api/portal/" + id + "/quote", Body: `{"token":"USDC"}`}); rec.Code != 400 {
		t.Fatalf("a quote after the window's end: %d %s (the page offers none)", rec.Code, rec.Body)
	}

	e.Change(id, func(s receipt.State) ([]receipt.Event, error) {
		return receipt.Expire(s, e.Clk.Now().UnixMilli(), 24*time.Hour)
	})
	until := end + 24*time.Hour.Milliseconds()
	p, s = pageOf(), statusOf()
	if strings.Contains(p, `id="pay"`) || !strings.Contains(p, "still count if they are confirmed by "+at(until)) ||
		s["status"] != "failed" || !strings.Contains(fmt.Sprint(s["windowNote"]), at(until)) {
		t.Fatalf("expired: status %v; page:\n%s", s, p)
	}
	if rec := e.Do(transporttest.Req{Method: http.MethodGet, Path: "/api/portal/" + id + "/request?token=USDC"}); rec.Code != 400 {
		t.Fatalf("a payment request of an expired receipt: %d %s (the page shows none)", rec.Code, rec.Body)
	}

	e.Clk.Advance(24*time.Hour + time.Minute) // past the late-payment watch
	if p := pageOf(); strings.Contains(p, `id="pay"`) || !strings.Contains(p, "now do not pay it") {
		t.Fatalf("after the late-payment watch the page says:\n%s", p)
	}
}
