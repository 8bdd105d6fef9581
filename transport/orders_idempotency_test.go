package transport

import (
	"net/http"
	"testing"
)

// TestIdempotencyKeyIsOneRequestOnEveryRoute: a key names one request whichever store binds it
// (DESIGN 10): the key of an inventory POST on an order, or an order's key on an inventory POST,
// is 409 and runs nothing; the order's binding covers the query like the middleware's.
func TestIdempotencyKeyIsOneRequestOnEveryRoute(t *testing.T) {
	t.Parallel()
	e := newEnv(t, func(d *testDeps) { d.Config.Production = false })
	m := e.merchant(true)
	item := `{"sku":"latte","name":"Latte","priceUsd":4.5}`
	order := `{"items":[{"sku":"latte","qty":1}]}`
	if rec := e.dev(m, http.MethodPost, "/api/inventory", item, "Idempotency-Key", "k-1"); rec.Code != 201 {
		t.Fatalf("inventory: %d %s", rec.Code, rec.Body)
	}
	if rec := e.dev(m, http.MethodPost, "/api/orders", order, "Idempotency-Key", "k-1"); rec.Code != 409 {
		t.Fatalf("the inventory's key on an order: %d %s (want 409)", rec.Code, rec.Body)
	}
	if rec := e.dev(m, http.MethodPost, "/api/receipts", `{"lineItems":[{"label":"a","priceUsd":1}],"totalUsd":1}`, "Idempotency-Key", "k-1"); rec.Code != 409 {
		t.Fatalf("the inventory's key on a direct receipt: %d %s (want 409)", rec.Code, rec.Body)
	}
	if n := e.count("receipts"); n != 0 {
		t.Fatalf("%d receipts under another request's key", n)
	}
	first := e.dev(m, http.MethodPost, "/api/orders", order, "Idempotency-Key", "k-2")
	if first.Code != 200 {
		t.Fatalf("order: %d %s", first.Code, first.Body)
	}
	if rec := e.dev(m, http.MethodPost, "/api/inventory", `{"sku":"tea","name":"Tea","priceUsd":3}`, "Idempotency-Key", "k-2"); rec.Code != 409 || decode(t, rec)["error"] != "conflict" {
		t.Fatalf("the order's key on an inventory POST: %d %s (want 409 conflict)", rec.Code, rec.Body)
	}
	if n := e.count("inventory_items WHERE sku = 'tea'"); n != 0 {
		t.Fatal("the inventory POST ran under the order's key")
	}
	if rec := e.dev(m, http.MethodPost, "/api/orders?x=1", order, "Idempotency-Key", "k-2"); rec.Code != 409 {
		t.Fatalf("the order's key with a query: %d %s (want 409)", rec.Code, rec.Body)
	}
	again := e.dev(m, http.MethodPost, "/api/orders", order, "Idempotency-Key", "k-2")
	if again.Code != 200 || decode(t, again)["receipt"].(map[string]any)["receiptId"] != decode(t, first)["receipt"].(map[string]any)["receiptId"] {
		t.Fatalf("the order again: %d %s", again.Code, again.Body)
	}
	if n := e.count("receipts"); n != 1 {
		t.Fatalf("%d receipts, want 1", n)
	}
}

// TestIdempotencyKeyFreeWhenNoReceiptWasStored: a receipt request refused at its append (its id
// is another receipt's) stored nothing, so its key does not stay bound to it: the corrected
// request under the same key is issued, not 409 for 24 hours.
func TestIdempotencyKeyFreeWhenNoReceiptWasStored(t *testing.T) {
	t.Parallel()
	e := newEnv(t, func(d *testDeps) { d.Config.Production = false })
	m := e.merchant(false)
	body := func(id string) string {
		return `{"id":"` + id + `","lineItems":[{"label":"a","priceUsd":1}],"totalUsd":1}`
	}
	if rec := e.dev(m, http.MethodPost, "/api/receipts", body("inv-1")); rec.Code != 201 {
		t.Fatalf("first: %d %s", rec.Code, rec.Body)
	}
	if rec := e.dev(m, http.MethodPost, "/api/receipts", body("inv-1"), "Idempotency-Key", "fix-me"); rec.Code != 409 || decode(t, rec)["error"] != "conflict" {
		t.Fatalf("a taken id: %d %s (want 409 conflict)", rec.Code, rec.Body)
	}
	if rec := e.dev(m, http.MethodPost, "/api/receipts", body("inv-1"), "Idempotency-Key", "fix-me"); rec.Code != 409 || decode(t, rec)["error"] != "conflict" {
		t.Fatalf("the taken id again: %d %s (want the same 409 conflict)", rec.Code, rec.Body)
	}
	fixed := e.dev(m, http.MethodPost, "/api/receipts", body("inv-2"), "Idempotency-Key", "fix-me")
	if fixed.Code != 201 {
		t.Fatalf("the corrected request under the key: %d %s (want 201)", fixed.Code, fixed.Body)
	}
	if rec := e.dev(m, http.MethodPost, "/api/receipts", body("inv-2"), "Idempotency-Key", "fix-me"); rec.Code != 200 && rec.Code != 201 ||
		decode(t, rec)["receipt"].(map[string]any)["receiptId"] != decode(t, fixed)["receipt"].(map[string]any)["receiptId"] {
		t.Fatalf("the corrected request again: %d %s (want its receipt)", rec.Code, rec.Body)
	}
	if rec := e.dev(m, http.MethodPost, "/api/receipts", body("inv-1"), "Idempotency-Key", "fix-me"); rec.Code != 409 {
		t.Fatalf("the first request under the now bound key: %d %s (want 409)", rec.Code, rec.Body)
	}
}
