package transport

import (
	"net/http"
	"testing"
)

// TestReceiptChosenIDTakenUnderAnotherKeyIsConflict: POST /api/receipts with an id the merchant
// already has is 409 conflict (DESIGN 10), under a new Idempotency-Key too. The same body under
// a new key was answered 201 with Idempotent-Replayed and the existing receipt (paid, perhaps, by
// another customer), and the new key stayed bound to it: a merchant that reused an invoice
// number was told it had made a receipt. Only the key that made the receipt replays it; the
// refused key stays free for another request.
func TestReceiptChosenIDTakenUnderAnotherKeyIsConflict(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	m := e.merchant(false)
	body := `{"id":"inv-7","lineItems":[{"label":"Consulting","priceUsd":10}],"totalUsd":10}`
	first := e.dev(m, http.MethodPost, "/api/receipts", body, "Idempotency-Key", "k-1")
	if first.Code != http.StatusCreated {
		t.Fatalf("first: %d %s", first.Code, first.Body)
	}
	for range 2 {
		rec := e.dev(m, http.MethodPost, "/api/receipts", body, "Idempotency-Key", "k-2")
		if env := decode(t, rec); rec.Code != http.StatusConflict || env["error"] != "conflict" || rec.Header().Get(idemReplayed) != "" {
			t.Fatalf("the taken id under another key: %d %v %s, want 409 conflict", rec.Code, rec.Header(), rec.Body)
		}
	}
	again := e.dev(m, http.MethodPost, "/api/receipts", body, "Idempotency-Key", "k-1")
	if again.Code != http.StatusCreated || again.Header().Get(idemReplayed) != "true" {
		t.Fatalf("the first key again: %d %v %s, want its receipt replayed", again.Code, again.Header(), again.Body)
	}
	other := e.dev(m, http.MethodPost, "/api/receipts", `{"id":"inv-8","lineItems":[{"label":"Consulting","priceUsd":10}],"totalUsd":10}`, "Idempotency-Key", "k-2")
	if other.Code != http.StatusCreated || other.Header().Get(idemReplayed) != "" {
		t.Fatalf("the refused key on another id: %d %v %s, want a new receipt", other.Code, other.Header(), other.Body)
	}
	if n := e.count("receipts"); n != 2 {
		t.Fatalf("%d receipts, want 2", n)
	}
}
