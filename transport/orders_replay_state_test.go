package transport

import (
	"net/http"
	"testing"
)

// TestOrderReplayedAfterItsItemChanged: the same order under the same Idempotency-Key answers the
// receipt it created for 24 hours (DESIGN 9), even when the item it ordered has since sold out or
// been deleted. The retry of an order whose answer was lost was checked against the inventory
// again and refused (400 "0 in stock", 400 inventory_item_not_found), so a client that retried
// never learned of the receipt its first request made. A new key, or another body, is still
// checked against the inventory as it is now.
func TestOrderReplayedAfterItsItemChanged(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	m := e.merchant(true)
	item := e.item(m, `{"sku":"tea","name":"Tea","priceUsd":4,"stockQty":1}`)
	body := `{"items":[{"sku":"tea","qty":1}]}`
	first := e.dev(m, http.MethodPost, "/api/orders", body, "Idempotency-Key", "order-1")
	if first.Code != http.StatusOK {
		t.Fatalf("order: %d %s", first.Code, first.Body)
	}
	id := decode(t, first)["receipt"].(map[string]any)["receiptId"]
	replay := func(when string) {
		t.Helper()
		rec := e.dev(m, http.MethodPost, "/api/orders", body, "Idempotency-Key", "order-1")
		if rec.Code != http.StatusOK || decode(t, rec)["receipt"].(map[string]any)["receiptId"] != id || rec.Header().Get(idemReplayed) != "true" {
			t.Fatalf("the same order under its key %s: %d %v %s, want its receipt %s replayed", when, rec.Code, rec.Header(), rec.Body, id)
		}
	}
	e.item(m, `{"sku":"tea","name":"Tea","priceUsd":4,"stockQty":0}`)
	replay("after the item sold out")
	for name, r := range map[string][]string{
		"a new key":             {body, "order-2"},
		"another body, its key": {`{"items":[{"sku":"tea","qty":1}],"transactionId":"x"}`, "order-1"},
		"no key":                {body},
	} {
		var extra []string
		if len(r) == 2 {
			extra = []string{"Idempotency-Key", r[1]}
		}
		rec := e.dev(m, http.MethodPost, "/api/orders", r[0], extra...)
		if env := decode(t, rec); rec.Code != http.StatusBadRequest || env["error"] != "invalid_input" {
			t.Errorf("%s, sold out: %d %s, want 400 invalid_input", name, rec.Code, rec.Body)
		}
	}
	if rec := e.dev(m, http.MethodDelete, "/api/inventory?id="+item["id"].(string), ""); rec.Code != http.StatusOK {
		t.Fatalf("delete: %d %s", rec.Code, rec.Body)
	}
	replay("after the item was deleted")
	if n := e.count("receipts"); n != 1 {
		t.Fatalf("%d receipts, want 1", n)
	}
}

// TestOrderReplayedAfterItsPriceFellToZero: a replay answers the stored receipt rather than
// deciding the receipt's generation again: with its item's price since set to 0 (a zero total,
// which a new receipt may not have) the retry was 400 instead of the receipt it made.
func TestOrderReplayedAfterItsPriceFellToZero(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	m := e.merchant(true)
	e.item(m, `{"sku":"tea","name":"Tea","priceUsd":4}`)
	body := `{"items":[{"sku":"tea","qty":1}]}`
	first := e.dev(m, http.MethodPost, "/api/orders", body, "Idempotency-Key", "order-1")
	if first.Code != http.StatusOK {
		t.Fatalf("order: %d %s", first.Code, first.Body)
	}
	want := decode(t, first)["receipt"].(map[string]any)
	e.item(m, `{"sku":"tea","name":"Tea","priceUsd":0}`)
	rec := e.dev(m, http.MethodPost, "/api/orders", body, "Idempotency-Key", "order-1")
	if rec.Code != http.StatusOK || rec.Header().Get(idemReplayed) != "true" {
		t.Fatalf("the same order under its key: %d %s, want its receipt replayed", rec.Code, rec.Body)
	}
	if got := decode(t, rec)["receipt"].(map[string]any); got["receiptId"] != want["receiptId"] || got["totalUsd"] != want["totalUsd"] {
		t.Fatalf("replayed %v, want %v", got, want)
	}
	if rec := e.dev(m, http.MethodPost, "/api/orders", body); rec.Code != http.StatusBadRequest {
		t.Fatalf("a new order of the free item: %d %s, want 400", rec.Code, rec.Body)
	}
}

// TestReceiptWithChosenIDReplayedSaysSo: a direct receipt with the caller's own id, sent again
// under its Idempotency-Key, is a replay and says so (Idempotent-Replayed: true, stop 62) as one
// with a generated id does: the key's binding names the chosen id whether it is new or not, and
// the replay was answered as a new receipt.
func TestReceiptWithChosenIDReplayedSaysSo(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	m := e.merchant(false)
	for _, body := range []string{
		`{"id":"inv-1","lineItems":[{"label":"x","priceUsd":1}],"totalUsd":1}`,
		`{"lineItems":[{"label":"x","priceUsd":1}],"totalUsd":1}`,
	} {
		first := e.dev(m, http.MethodPost, "/api/receipts", body, "Idempotency-Key", body)
		if first.Code != http.StatusCreated || first.Header().Get(idemReplayed) != "" {
			t.Fatalf("%s: first %d %v %s", body, first.Code, first.Header(), first.Body)
		}
		again := e.dev(m, http.MethodPost, "/api/receipts", body, "Idempotency-Key", body)
		if again.Code != http.StatusCreated || again.Header().Get(idemReplayed) != "true" ||
			decode(t, again)["receipt"].(map[string]any)["receiptId"] != decode(t, first)["receipt"].(map[string]any)["receiptId"] {
			t.Errorf("%s: the same request again: %d %v %s, want its receipt, replayed", body, again.Code, again.Header(), again.Body)
		}
	}
	if n := e.count("receipts"); n != 2 {
		t.Fatalf("%d receipts, want 2", n)
	}
}
