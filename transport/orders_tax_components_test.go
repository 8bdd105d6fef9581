package transport

import (
	"net/http"
	"strings"
	"testing"
)

// An explicit taxRate does not let an order record tax components of its own: the components are
// the jurisdiction's (DESIGN: taxComponents "apply only these components of the jurisdiction"),
// so an order with unknown names, with names but no jurisdiction, or with thousands of them, is
// refused instead of being stored in the receipt and shown on every read of it (one such order
// made a 4.8 MB receipt).
func TestOrderTaxComponentsWithExplicitRate(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	m := e.merchant(true)
	e.item(m, `{"sku":"tea","name":"Tea","priceUsd":4,"taxable":true}`)
	many := strings.TrimSuffix(strings.Repeat(`"`+strings.Repeat("<", 100)+`",`, 8000), ",")
	bad := map[string]string{
		"unknown component":   `{"items":[{"sku":"tea","qty":1}],"taxRate":0.1,"jurisdictionCode":"US-CA","taxComponents":["bogus"]}`,
		"without a code":      `{"items":[{"sku":"tea","qty":1}],"taxRate":0.1,"taxComponents":["state"]}`,
		"thousands, no code":  `{"items":[{"sku":"tea","qty":1}],"taxRate":0.1,"taxComponents":[` + many + `]}`,
		"thousands with code": `{"items":[{"sku":"tea","qty":1}],"taxRate":0.1,"jurisdictionCode":"US-CA","taxComponents":[` + many + `]}`,
	}
	before := e.count("receipts")
	for name, body := range bad {
		rec := e.dev(m, http.MethodPost, "/api/orders", body)
		if env := decode(t, rec); rec.Code != http.StatusBadRequest || env["error"] != "invalid_input" {
			t.Errorf("%s: %d %.200s", name, rec.Code, rec.Body)
		}
	}
	if n := e.count("receipts"); n != before {
		t.Fatalf("refused orders stored %d receipts", n-before)
	}
	// The jurisdiction's own components with an explicit rate: the rate applies, the names are
	// the catalog's spelling.
	rec := e.dev(m, http.MethodPost, "/api/orders", `{"items":[{"sku":"tea","qty":1}],"taxRate":0.1,"jurisdictionCode":"us-ca","taxComponents":["STATE"]}`)
	if rec.Code != http.StatusOK {
		t.Fatalf("explicit rate with a known component: %d %s", rec.Code, rec.Body)
	}
	r := decode(t, rec)["receipt"].(map[string]any)
	comps, _ := r["taxComponents"].([]any)
	if r["taxRate"] != 0.1 || r["jurisdictionCode"] != "US-CA" || len(comps) != 1 || comps[0] != "state" || r["taxUsd"] != 0.4 {
		t.Fatalf("explicit rate with a known component: %v", r)
	}
	// An explicit rate without components records none.
	r = decode(t, e.dev(m, http.MethodPost, "/api/orders", `{"items":[{"sku":"tea","qty":1}],"taxRate":0.1,"jurisdictionCode":"US-CA"}`))["receipt"].(map[string]any)
	if comps, _ := r["taxComponents"].([]any); r["taxRate"] != 0.1 || len(comps) != 0 {
		t.Fatalf("explicit rate alone: %v", r)
	}
}

// The tax of an order with an explicit taxRate is computed at the rate the receipt records (12
// decimals): a rate such as 0.07249999999999999 (a float sum in the merchant's code) was recorded
// as 0.0725 but applied as given, so $2.00 taxable showed taxRate 0.0725 and tax $0.14, where the
// receipt's own rate gives $0.145, half-up $0.15.
func TestOrderExplicitTaxRateIsTheRecordedRate(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	m := e.merchant(true)
	e.item(m, `{"sku":"pen","name":"Pen","priceUsd":2,"taxable":true}`)
	rec := e.dev(m, http.MethodPost, "/api/orders", `{"items":[{"sku":"pen","qty":1}],"taxRate":0.07249999999999999}`)
	if rec.Code != http.StatusOK {
		t.Fatalf("order: %d %s", rec.Code, rec.Body)
	}
	r := decode(t, rec)["receipt"].(map[string]any)
	lines := r["lineItems"].([]any)
	if r["taxRate"] != 0.0725 || r["taxUsd"] != 0.15 || lines[1].(map[string]any)["priceUsd"] != 0.15 {
		t.Fatalf("taxRate %v, taxUsd %v, tax line %v", r["taxRate"], r["taxUsd"], lines[1])
	}
}
