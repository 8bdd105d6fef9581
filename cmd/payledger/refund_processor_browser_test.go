package main

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"

	"github.com/payledger/payledger/transport/transporttest"
)

// A second card payment the receipt does not count (stop 71: processorPayment: true in the API)
// is refunded from the receipt's page (stop 72): the form "Refunded a processor payment?" offers
// what is owed (25.00) and posts it with processorPayment: true and its hash; the receipt then
// owes no processor payment, counts 25.00 as processorRefundedUsd beside the order's Refunded,
// and the order's 30.00 is still refundable. Before, the page had no such form: the refund was
// the API's alone.
func TestRefundAProcessorPaymentInBrowser(t *testing.T) {
	t.Parallel()
	chromiumPath(t)
	e := transporttest.New(t, transporttest.Options{})
	srv := httptest.NewServer(e.Srv)
	t.Cleanup(srv.Close)
	m := e.Merchant(true)
	id := e.ReceiptFor(m, "30")
	for _, s := range []struct{ evt, att, cos string }{{"evt_p1", "att_1", "cos_1"}, {"evt_p2", "att_2", "cos_2"}} {
		if rec := e.ProcessorEvent(s.evt, id, s.att, s.cos, "fulfillment_processing", ""); rec.Code != http.StatusOK {
			t.Fatalf("%s: %d %s", s.evt, rec.Code, rec.Body)
		}
	}
	e.ProcessorEvent("evt_c1", id, "att_1", "cos_1", "fulfillment_complete", `,"transactionHash":"0x`+strings.Repeat("7", 64)+`","sourceAmountUsd":30`)
	e.ProcessorEvent("evt_c2", id, "att_2", "cos_2", "fulfillment_complete", `,"transactionHash":"0x`+strings.Repeat("8", 64)+`","sourceAmountUsd":25`)
	status := func() map[string]any {
		return transporttest.Decode(t, e.Dev(m, http.MethodGet, "/api/receipts/status?receiptId="+id, ""))
	}
	transporttest.WaitUntil(t, "the second payment owed back", 10*time.Second, func() bool { return status()["processorToRefundUsd"] == 25.0 })

	ctx, cancel := chromedp.NewContext((&portalEnv{}).browser(t, nil))
	t.Cleanup(cancel)
	ctx, stop := context.WithTimeout(ctx, 3*time.Minute)
	t.Cleanup(stop)
	for _, c := range m.Cookies {
		if err := chromedp.Run(ctx, network.SetCookie(c.Name, c.Value).WithURL(srv.URL).WithPath("/").WithHTTPOnly(c.Name != "cb_csrf")); err != nil {
			t.Fatal(err)
		}
	}
	navigate(t, ctx, srv.URL+"/dashboard/receipts/"+id)
	waitJS(t, ctx, `document.documentElement.dataset.ready === "1"`, 30*time.Second)
	if got := evalString(t, ctx, `document.getElementById("refund-processor-record") === null ? "no form" : document.getElementById("refund-processor-amount").value`); got != "25.00" {
		t.Fatalf("the page's form for a refund of the processor payment: %q, want its amount 25.00", got)
	}
	if err := chromedp.Run(ctx, chromedp.SetValue("#refund-processor-hash", "0x"+strings.Repeat("c2", 32), chromedp.ByQuery)); err != nil {
		t.Fatal(err)
	}
	click(t, ctx, "#refund-processor-submit")
	waitJS(t, ctx, `document.querySelector("#refunds li[data-state=processed]") !== null ||
		(document.querySelector("#refund-processor-record .error") !== null && !document.querySelector("#refund-processor-record .error").hidden)`, 60*time.Second)
	if msg := evalString(t, ctx, `document.querySelector("#refund-processor-record .error") ? document.querySelector("#refund-processor-record .error").textContent : ""`); msg != "" {
		t.Fatalf("recording the processor payment's refund: %s", msg)
	}
	st := status()
	refunds, _ := st["refunds"].([]any)
	if len(refunds) != 1 || refunds[0].(map[string]any)["processorPayment"] != true || st["processorRefundedUsd"] != 25.0 || st["refundedUsd"] != 0.0 ||
		st["processorPaymentsToRefund"] != 0.0 || st["status"] != "paid" {
		t.Fatalf("after the processor payment's refund: %v", st)
	}
	waitJS(t, ctx, `document.documentElement.dataset.ready === "1" && document.getElementById("refunded-processor") !== null`, 10*time.Second)
	if got := evalString(t, ctx, `(document.getElementById("refund-processor-record") === null ? "" : "form still offered ") +
		document.getElementById("refunded-processor").textContent + " | " + document.getElementById("refund-amount").value`); got != "$25.00 USD | 30.00" {
		t.Errorf("after the refund the page shows %q, want $25.00 USD processor payments refunded and the order's 30.00", got)
	}
}
