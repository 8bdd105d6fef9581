package main

// The payment page of a receipt reopened by a short ACH completion, in a real browser (stop 69
// left it untested there): the page opened while the bank payment was accepted hides its
// controls; once the bank payment completes short the receipt is pending again with nothing
// confirming (inProgress false), and the page, live and after a reload, offers payment again
// with what is due.

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/payledger/payledger/cmd/payledger/app"
	"github.com/payledger/payledger/transport/onramp"
	"github.com/payledger/payledger/transport/transporttest"
)

// sessionProcessor is a card/bank processor that creates sessions (cos_1, cos_2, ...) and answers
// their reads as created.
func sessionProcessor(t *testing.T) *httptest.Server {
	t.Helper()
	var mu sync.Mutex
	n := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		switch {
		case r.Method == http.MethodPost && r.URL.Path == "/v1/onramp_sessions":
			n++
			_ = json.NewEncoder(w).Encode(onramp.Session{ID: fmt.Sprintf("cos_%d", n), Status: "created", RedirectURL: "https://onramp.example/s/" + fmt.Sprint(n)})
		case r.Method == http.MethodGet && strings.HasPrefix(r.URL.Path, "/v1/onramp_sessions/"):
			_ = json.NewEncoder(w).Encode(onramp.Session{ID: strings.TrimPrefix(r.URL.Path, "/v1/onramp_sessions/"), Status: "created"})
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

// payControls is what the page shows of its payment controls: whether #pay is shown, whether
// "being confirmed" is, the amount, the deposit address and the quote's error.
const payControls = `[document.getElementById("pay") ? String(!document.getElementById("pay").hidden) : "none",
	String(!document.getElementById("in-progress").hidden), document.getElementById("amount").textContent,
	document.getElementById("address").textContent.toLowerCase(), document.getElementById("quote-error").textContent].join("|")`

func TestReopenedPaymentPageOffersPaymentInBrowser(t *testing.T) {
	t.Parallel()
	chromiumPath(t)
	proc := sessionProcessor(t)
	opts := transporttest.Portal()
	opts.App = func(c *app.Config) {
		transporttest.WithDeposits(c)
		c.Processor = onramp.New(proc.URL, "sk_test_reopen")
	}
	e := transporttest.New(t, opts)
	srv := httptest.NewServer(e.Srv)
	t.Cleanup(srv.Close)
	m := e.Merchant(true)
	id := e.ReceiptFor(m, "10")
	deposit := strings.ToLower(transporttest.Decode(t, e.Do(transporttest.Req{Method: http.MethodGet, Path: "/api/portal/" + id}))["receipt"].(map[string]any)["depositAddress"].(string))

	// The customer pays by bank: the session starts and the processor accepts the ACH payment.
	rec := e.Do(transporttest.Req{Method: http.MethodPost, Path: "/api/portal/" + id + "/onramp", Body: `{}`})
	if rec.Code != 200 {
		t.Fatalf("onramp: %d %s", rec.Code, rec.Body)
	}
	started := transporttest.Decode(t, rec)
	sid, attempt := started["processorSessionId"].(string), started["attemptId"].(string)
	if rec := e.ProcessorEvent("evt_reopen_ach", id, attempt, sid, "ach_pending", ""); rec.Code != 200 {
		t.Fatalf("ach_pending: %d %s", rec.Code, rec.Body)
	}
	transporttest.WaitUntil(t, "ach_pending in the read model", 10*time.Second, func() bool {
		return transporttest.Decode(t, e.Do(transporttest.Req{Method: http.MethodGet, Path: "/api/portal/" + id + "/status"}))["status"] == "ach_pending"
	})

	ctx, cancel := chromedp.NewContext((&portalEnv{}).browser(t, nil))
	t.Cleanup(cancel)
	if err := chromedp.Run(ctx, chromedp.Navigate(srv.URL+"/portal/"+id)); err != nil {
		t.Fatal(err)
	}
	waitJS(t, ctx, `document.documentElement.dataset.ready === "1" && document.getElementById("status").dataset.status === "ach_pending"`, 30*time.Second)
	if got := evalString(t, ctx, `[String(document.getElementById("pay").hidden), String(document.getElementById("in-progress").hidden)].join("|")`); got != "true|false" {
		t.Fatalf("while the bank payment is accepted the page's controls hidden|note hidden read %q, want true|false", got)
	}

	// The bank payment completes short (6.00 of 10.00): the receipt is pending again, nothing
	// confirming. The page, as it is, offers the payment again: the request of what is due.
	short := `,"transactionHash":"0x` + strings.Repeat("7", 64) + `","sourceAmountUsd":6.00`
	if rec := e.ProcessorEvent("evt_reopen_short", id, attempt, sid, "fulfillment_complete", short); rec.Code != 200 {
		t.Fatalf("short completion: %d %s", rec.Code, rec.Body)
	}
	st := transporttest.Decode(t, e.Do(transporttest.Req{Method: http.MethodGet, Path: "/api/portal/" + id + "/status"}))
	if st["status"] != "pending" || st["inProgress"] != false {
		t.Fatalf("after the short completion the status reads %v, want pending and inProgress false", st)
	}
	want := "true|false|10|" + deposit + "|"
	waitJS(t, ctx, `document.getElementById("status").dataset.status === "pending" && !document.getElementById("pay").hidden`, 30*time.Second)
	waitJS(t, ctx, `document.getElementById("amount").textContent !== "…" || !document.getElementById("quote-error").hidden`, 10*time.Second)
	if got := evalString(t, ctx, payControls); got != want {
		t.Errorf("reopened, live: the page's controls shown|being confirmed|amount|address|quote error read %q, want %q", got, want)
	}
	if got := evalString(t, ctx, `document.getElementById("pay-card").disabled + "|" + document.getElementById("pay-wallet").disabled`); got != "false|false" {
		t.Errorf("reopened, live: card|wallet buttons disabled %q", got)
	}

	// Reloaded, the page offers it from the start.
	if err := chromedp.Run(ctx, chromedp.Navigate(srv.URL+"/portal/"+id)); err != nil {
		t.Fatal(err)
	}
	waitJS(t, ctx, `document.documentElement.dataset.ready === "1" && (document.getElementById("amount").textContent !== "…" || !document.getElementById("quote-error").hidden)`, 30*time.Second)
	if got := evalString(t, ctx, payControls); got != want {
		t.Errorf("reopened, reloaded: the page reads %q, want %q", got, want)
	}

	// The customer starts a new bank payment: its session hides the controls again.
	rec = e.Do(transporttest.Req{Method: http.MethodPost, Path: "/api/portal/" + id + "/onramp", Body: `{}`})
	if rec.Code != 200 {
		t.Fatalf("the second onramp: %d %s", rec.Code, rec.Body)
	}
	if err := chromedp.Run(ctx, chromedp.Navigate(srv.URL+"/portal/"+id)); err != nil {
		t.Fatal(err)
	}
	waitJS(t, ctx, `document.documentElement.dataset.ready === "1"`, 30*time.Second)
	if got := evalString(t, ctx, `[String(document.getElementById("pay").hidden), String(document.getElementById("in-progress").hidden)].join("|")`); got != "true|false" {
		t.Errorf("with a new session open the page's controls hidden|note hidden read %q, want true|false", got)
	}
}
