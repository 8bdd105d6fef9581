package main

// The payment page's polling fallback and the end of its payment window, in a real browser, on
// the service as transporttest builds it (the test's clock, deposits recorded as the detector
// records them): no chain and no serve are needed for what the page shows.

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"

	"github.com/payledger/payledger/domain/receipt"
	"github.com/payledger/payledger/transport/transporttest"
)

// windowPage is a browser on the service of a transporttest environment.
type windowPage struct {
	e    *transporttest.Env
	base string
	ctx  context.Context
}

func startWindowPage(t *testing.T) *windowPage {
	t.Helper()
	chromiumPath(t)                                           // fail (or skip) first when there is no browser
	e := transporttest.New(t, transporttest.PortalWithCard()) // the card for the rest is offered
	srv := httptest.NewServer(e.Srv)
	t.Cleanup(srv.Close)
	ctx, cancel := context.WithTimeout((&portalEnv{}).browser(t, nil), 2*time.Minute)
	t.Cleanup(cancel)
	return &windowPage{e: e, base: srv.URL, ctx: ctx}
}

// tab opens a new tab that runs script ("": none) before every page's own.
func (w *windowPage) tab(t *testing.T, script string) context.Context {
	t.Helper()
	ctx, cancel := chromedp.NewContext(w.ctx)
	t.Cleanup(cancel)
	if script == "" {
		return ctx
	}
	if err := chromedp.Run(ctx, chromedp.ActionFunc(func(ctx context.Context) error {
		_, err := page.AddScriptToEvaluateOnNewDocument(script).Do(ctx)
		return err
	})); err != nil {
		t.Fatal(err)
	}
	return ctx
}

// When the page's event stream cannot be used it polls; it polled /api/terminal/check-payment,
// whose answer has no amounts, so the first poll read an underpaid receipt as not underpaid and
// hid the controls the customer needed to pay the rest. It polls the page's own status now (the
// stream's JSON): the controls stay, and what arrives later is shown.
func TestPaymentPagePollingKeepsAnUnderpaidReceiptsControls(t *testing.T) {
	t.Parallel()
	w := startWindowPage(t)
	m := w.e.Merchant(true)
	id := w.e.ReceiptFor(m, "12.34")
	w.e.DepositCredit(id, "0x"+strings.Repeat("1", 64), "USDC", "10000000", true)

	ctx := w.tab(t, `window.EventSource = undefined;`) // a proxy that buffers the stream, as far as the page can tell
	if err := chromedp.Run(ctx, chromedp.Navigate(w.base+"/portal/"+id)); err != nil {
		t.Fatal(err)
	}
	// A poll has been applied (or, as before, the controls went with the first one).
	waitJS(t, ctx, `window.__paymentPolling && (window.__paymentPolls >= 1 || document.getElementById("pay").hidden)`, 30*time.Second)
	if got := evalString(t, ctx, `[document.getElementById("status").textContent, String(document.getElementById("pay").hidden),
		document.getElementById("amount-received").textContent, document.getElementById("pay-card").textContent].join("|")`); got != "Partly paid|false|10.00|Pay the rest by card or bank" {
		t.Fatalf("after a poll the underpaid page reads %q, want its controls for the rest", got)
	}
	w.e.DepositCredit(id, "0x"+strings.Repeat("2", 64), "USDC", "1000000", true)
	waitJS(t, ctx, `document.getElementById("amount-received").textContent === "11.00" && !document.getElementById("pay").hidden`, 30*time.Second)
}

// An expired receipt's page kept its controls and said a payment "may still be recognised as
// late", though the quote and the request refuse it, so no address or amount was shown. At the
// window's end (by the service's clock) the page now removes its controls and says what becomes
// of funds sent late; once the expiry is recorded the stream brings the late-payment deadline;
// reopened, the page has no controls from the start.
func TestPaymentPageAtTheWindowsEnd(t *testing.T) {
	t.Parallel()
	w := startWindowPage(t)
	m := w.e.Merchant(true)
	id := w.e.ReceiptFor(m, "12.34")
	w.e.DepositCredit(id, "0x"+strings.Repeat("3", 64), "USDC", "5000000", true)
	view := transporttest.Decode(t, w.e.Do(transporttest.Req{Method: http.MethodGet, Path: "/api/portal/" + id}))["receipt"].(map[string]any)
	end := int64(view["expiresAt"].(float64))
	w.e.Clk.Advance(time.UnixMilli(end).Sub(w.e.Clk.Now()) - 3*time.Second) // the page opens 3 s before the end

	ctx := w.tab(t, "")
	if err := chromedp.Run(ctx, chromedp.Navigate(w.base+"/portal/"+id)); err != nil {
		t.Fatal(err)
	}
	waitJS(t, ctx, `document.documentElement.dataset.ready === "1" && /^Time left to pay: /.test(document.getElementById("time-left").textContent) && !!document.getElementById("pay")`, 20*time.Second)
	waitJS(t, ctx, `!document.getElementById("pay") && !document.getElementById("window-ended").hidden`, 20*time.Second)
	if got := evalString(t, ctx, `document.getElementById("window-ended").textContent + "|" + document.getElementById("time-left").hidden + "|" + document.getElementById("short").hidden`); !strings.Contains(got, "within the late-payment watch") ||
		!strings.HasSuffix(got, "|true|true") || strings.Contains(got, "may still be recognised") {
		t.Fatalf("at the window's end the page reads %q", got)
	}

	w.e.Clk.Advance(4 * time.Second)
	w.e.Change(id, func(st receipt.State) ([]receipt.Event, error) {
		return receipt.Expire(st, w.e.Clk.Now().UnixMilli(), 24*time.Hour)
	})
	until := time.UnixMilli(end).Add(24 * time.Hour).UTC().Format("2006-01-02 15:04 UTC")
	waitJS(t, ctx, `document.getElementById("status").dataset.status === "failed" && document.getElementById("window-ended").textContent.indexOf("confirmed by `+until+`") >= 0`, 30*time.Second)

	if err := chromedp.Run(ctx, chromedp.Navigate(w.base+"/portal/"+id)); err != nil {
		t.Fatal(err)
	}
	waitJS(t, ctx, `document.documentElement.dataset.ready === "1"`, 20*time.Second)
	var controls int
	if err := chromedp.Run(ctx, chromedp.Evaluate(`document.querySelectorAll("#pay, #pay-wallet, #pay-card, #token, #qr").length + (document.getElementById("window-ended").hidden ? 100 : 0)`, &controls)); err != nil || controls != 0 {
		t.Fatalf("the expired receipt's page: %d payment controls (100: no note) %v", controls, err)
	}
}
