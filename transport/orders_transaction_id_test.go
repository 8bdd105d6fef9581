package transport

import (
	"net/http"
	"testing"
)

// TestOrderTransactionIDIsOneLineOfText: a transactionId (the merchant's own reference, in the
// CSV export, the dashboard and the webhooks) with a control character or a bidi override is
// refused as line labels are; a carriage return inside it was dropped by the CSV writer, and an
// override made it read as another reference. Nothing is stored for it.
func TestOrderTransactionIDIsOneLineOfText(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	m := e.merchant(true)
	e.item(m, `{"sku":"tea","name":"Tea","priceUsd":4}`)
	for _, id := range []string{`INV-1\rINV-2`, `INV-1\nX`, `INV-\u202e1001`, `INV\u0000`} {
		before := e.count("receipts")
		rec := e.dev(m, http.MethodPost, "/api/orders", `{"items":[{"sku":"tea","qty":1}],"transactionId":"`+id+`"}`)
		if env := decode(t, rec); rec.Code != http.StatusBadRequest || env["error"] != "invalid_input" {
			t.Errorf("transactionId %q: %d %s", id, rec.Code, rec.Body)
		}
		if e.count("receipts") != before {
			t.Errorf("transactionId %q stored a receipt", id)
		}
	}
	if rec := e.dev(m, http.MethodPost, "/api/orders", `{"items":[{"sku":"tea","qty":1}],"transactionId":"INV-1001 (שלום)"}`); rec.Code != http.StatusOK {
		t.Errorf("a plain reference: %d %s", rec.Code, rec.Body)
	}
}
