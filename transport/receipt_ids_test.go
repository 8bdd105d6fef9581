package transport

import (
	"net/http"
	"strings"
	"testing"

	"github.com/payledger/payledger/commands"
)

// TestReceiptIDAsTheAPIShowsItConflicts is issue 36 item 9: POST /api/receipts with the id of
// one of the caller's receipts as the API shows it (caller-chosen and namespaced, or generated)
// answers 409 conflict, not 201 with a second receipt. Another merchant's ids are refused as
// input without telling whether they exist.
func TestReceiptIDAsTheAPIShowsItConflicts(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	a, b := e.merchant(false), e.merchant(false)
	create := func(m merchant, id string) (int, map[string]any) {
		body := `{"lineItems":[{"label":"a","priceUsd":1}],"totalUsd":1}`
		if id != "" {
			body = `{"id":"` + id + `","lineItems":[{"label":"a","priceUsd":1}],"totalUsd":1}`
		}
		rec := e.dev(m, http.MethodPost, "/api/receipts", body)
		return rec.Code, decode(t, rec)
	}
	shown := func(body map[string]any) string { return body["receipt"].(map[string]any)["receiptId"].(string) }
	code, body := create(a, "inv-1001")
	if code != 201 {
		t.Fatalf("create: %d %v", code, body)
	}
	chosen := shown(body)
	code, body = create(a, "")
	if code != 201 {
		t.Fatalf("create: %d %v", code, body)
	}
	generated := shown(body)
	for name, id := range map[string]string{"caller-chosen as shown": chosen, "generated": generated} {
		if code, body := create(a, id); code != 409 || body["error"] != "conflict" {
			t.Errorf("%s id %s again: %d %v, want 409 conflict", name, id, code, body)
		}
	}
	// Another merchant's ids are the service's shapes: invalid input, never a conflict.
	for name, id := range map[string]string{"A's chosen": chosen, "A's generated": generated, "an unknown generated": "rcpt_" + strings.Repeat("0", 28)} {
		if code, body := create(b, id); code != 400 || body["error"] != "invalid_input" {
			t.Errorf("B posting %s id %s: %d %v, want 400 invalid_input", name, id, code, body)
		}
	}
	// A new id in the caller's own namespace is that very id.
	own := commands.MerchantReceiptID(a.wallet, "inv-2")
	if code, body := create(a, own); code != 201 || shown(body) != own {
		t.Fatalf("A's own namespaced new id: %d %v", code, body)
	}
	if n := e.count("receipts"); n != 3 {
		t.Fatalf("%d receipts, want 3", n)
	}
}

// TestLongChosenReceiptIDAsShownConflicts: a chosen id of 51 to 64 characters is shown with the
// merchant's namespace in front (up to 78 characters); that id posted again is the caller's own
// receipt (409 conflict), not input refused for its length. Another merchant posting it is
// refused as input, as for any id in a namespace not its own.
func TestLongChosenReceiptIDAsShownConflicts(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	a, b := e.merchant(false), e.merchant(false)
	body := func(id string) string {
		return `{"id":"` + id + `","lineItems":[{"label":"a","priceUsd":1}],"totalUsd":1}`
	}
	rec := e.dev(a, http.MethodPost, "/api/receipts", body(strings.Repeat("a", 64)))
	if rec.Code != 201 {
		t.Fatalf("create: %d %s", rec.Code, rec.Body)
	}
	shown := decode(t, rec)["receipt"].(map[string]any)["receiptId"].(string)
	if rec := e.dev(a, http.MethodPost, "/api/receipts", body(shown)); rec.Code != 409 || decode(t, rec)["error"] != "conflict" {
		t.Errorf("A posting its shown id %s again: %d %s, want 409 conflict", shown, rec.Code, rec.Body)
	}
	if rec := e.dev(b, http.MethodPost, "/api/receipts", body(shown)); rec.Code != 400 || decode(t, rec)["error"] != "invalid_input" {
		t.Errorf("B posting A's shown id: %d %s, want 400 invalid_input", rec.Code, rec.Body)
	}
	own := commands.MerchantReceiptID(a.wallet, strings.Repeat("b", 65)) // past 64 after the namespace: still refused
	if rec := e.dev(a, http.MethodPost, "/api/receipts", body(own)); rec.Code != 400 || decode(t, rec)["error"] != "invalid_input" {
		t.Errorf("A posting its namespace with a 65-character id: %d %s, want 400 invalid_input", rec.Code, rec.Body)
	}
	if n := e.count("receipts"); n != 1 {
		t.Fatalf("%d receipts, want 1", n)
	}
}
