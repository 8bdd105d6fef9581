package transport

import (
	"net/http"
	"testing"
	"time"

	"github.com/payledger/payledger/domain/money"
	"github.com/payledger/payledger/domain/receipt"
	"github.com/payledger/payledger/readmodels"
)

// Issue 20, item 5: previousStatus and token are strings, never null; customerTotalUsd is a
// number (the total, fee included) from creation on; processorSourceAmountUsd stays null until
// the processor reports it. The webhook payload (readmodels.ReceiptWebhookOf) and the status read
// share them.
func TestPayloadTypes(t *testing.T) {
	t.Parallel()
	gen := receipt.Generated{ReceiptID: "rcpt_1", Merchant: "0xm", Total: money.Cents(2813), CreatedAt: 1,
		LineItems: []receipt.LineItem{{Kind: receipt.KindCustom, Label: "x", Amount: 2813}}}
	created := receipt.Evolve(receipt.State{}, gen)
	quoted := receipt.Evolve(created, receipt.TokenQuoted{Token: "ETH", At: 2})
	withDefault := gen
	withDefault.DefaultToken = "USDT"
	siteDefault := receipt.Evolve(receipt.State{}, withDefault)
	for _, c := range []struct {
		name          string
		st            receipt.State
		previous, tok string
	}{
		{"first status", created, "generated", "USDC"},
		{"quoted", quoted, "generated", "ETH"},
		{"the site's default token, recorded at creation", siteDefault, "generated", "USDT"},
		{"a quote wins over the site's default", receipt.Evolve(siteDefault, receipt.TokenQuoted{Token: "ETH", At: 2}), "generated", "ETH"},
	} {
		t.Run(c.name, func(t *testing.T) {
			for view, p := range map[string]map[string]any{"webhook": asJSON(t, readmodels.ReceiptWebhookOf(c.st, time.Now())), "status read": asJSON(t, statusView(c.st, ""))} {
				if p["previousStatus"] != c.previous {
					t.Errorf("%s previousStatus %#v, want %q", view, p["previousStatus"], c.previous)
				}
				if p["token"] != c.tok {
					t.Errorf("%s token %#v, want %q", view, p["token"], c.tok)
				}
				if p["customerTotalUsd"] != 28.13 {
					t.Errorf("%s customerTotalUsd %#v, want 28.13", view, p["customerTotalUsd"])
				}
				if v, ok := p["processorSourceAmountUsd"]; !ok || v != nil {
					t.Errorf("%s processorSourceAmountUsd %#v, want null", view, v)
				}
			}
		})
	}
}

// Through the router: the status read of a new receipt validates against docs/openapi.yaml
// (string, not nullable) and carries the same values.
func TestStatusReadPayloadTypes(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	m := e.merchant(true)
	id := e.receiptFor(m, "12.50")
	st := e.status(m, id)
	if st["previousStatus"] != "generated" || st["token"] != "USDC" || st["customerTotalUsd"] != 12.5 || st["processorSourceAmountUsd"] != nil {
		t.Fatalf("status read %v", st)
	}
}

// The site's default payment token is the payload's token of a receipt created after it was set
// (recorded on the receipt, so the status read and webhooks stay a function of its events).
func TestStatusReadTokenIsTheSiteDefault(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	ac, acsrf := e.login(e.admin)
	if rec := e.adminCall(ac, acsrf, http.MethodPost, "/api/site/config", `{"defaultPaymentToken":"USDT"}`); rec.Code != 200 {
		t.Fatalf("site config: %d %s", rec.Code, rec.Body)
	}
	m := e.merchant(true)
	id := e.receiptFor(m, "12.50")
	if st := e.status(m, id); st["token"] != "USDT" {
		t.Fatalf("token %v, want the site's default USDT", st["token"])
	}
}
