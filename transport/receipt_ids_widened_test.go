package transport

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/payledger/payledger/commands"
	"github.com/payledger/payledger/domain/receipt"
	"github.com/payledger/payledger/eventstore"
)

// storedReceipt records merchant m's receipt at id as the service stored it before stop 70 (a
// chosen id at the 48-bit namespaced form), and waits until it is readable.
func (e *env) storedReceipt(t *testing.T, wallet, id string) {
	t.Helper()
	ctx, now := context.Background(), e.clk.Now()
	g := receipt.Generated{ReceiptID: id, Merchant: wallet, Source: "direct", Currency: "USD", TaxRate: "0", TaxComponents: []string{},
		LineItems: []receipt.LineItem{{Kind: receipt.KindCustom, Label: "Tea", Amount: 400}}, Subtotal: 400, Total: 400}
	_, res, err := commands.GenerateReceipt(ctx, e.svc.Events, now, eventstore.Metadata{}, g)
	if err != nil {
		t.Fatal(err)
	}
	if err := e.srv.waitReadable(ctx, id, res); err != nil {
		t.Fatal(err)
	}
}

func directBody(id string) string {
	return `{"id":"` + id + `","lineItems":[{"label":"Tea","priceUsd":4}],"totalUsd":4}`
}

// TestReceiptMadeBeforeTheWideningAnswersAsBefore (stop 70): a receipt whose chosen id was stored
// at the 48-bit form (m + 12 hex + _ + inv-1) is still the merchant's inv-1 through the service as
// serve builds it: the chosen id or the shown id posted again is 409 conflict (under a new
// Idempotency-Key too), GET and the export show it at its stored id; a new chosen id is stored
// at the 128-bit form, and a free id of the old form is no longer made.
func TestReceiptMadeBeforeTheWideningAnswersAsBefore(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	m := e.merchant(false)
	old := commands.LegacyMerchantReceiptID(m.wallet, "inv-1")
	e.storedReceipt(t, m.wallet, old)
	for name, r := range map[string][]string{
		"chosen id":                 {"inv-1"},
		"chosen id under a new key": {"inv-1", "Idempotency-Key", "k-new"},
		"shown id":                  {old},
	} {
		if rec := e.dev(m, http.MethodPost, "/api/receipts", directBody(r[0]), r[1:]...); rec.Code != 409 || decode(t, rec)["error"] != "conflict" {
			t.Errorf("%s %s again: %d %s, want 409 conflict", name, r[0], rec.Code, rec.Body)
		}
	}
	if rec := e.dev(m, http.MethodGet, "/api/receipts/"+old, ""); rec.Code != 200 || !strings.Contains(rec.Body.String(), old) {
		t.Errorf("GET the old receipt: %d %s", rec.Code, rec.Body)
	}
	if rec := e.dev(m, http.MethodGet, "/api/exports/receipts.csv?from=0", ""); rec.Code != 200 || !strings.Contains(rec.Body.String(), old) {
		t.Errorf("the export: %d, want a row of %s\n%s", rec.Code, old, rec.Body)
	}
	rec := e.dev(m, http.MethodPost, "/api/receipts", directBody("inv-2"))
	if rec.Code != 201 || decode(t, rec)["receipt"].(map[string]any)["receiptId"] != commands.MerchantReceiptID(m.wallet, "inv-2") {
		t.Fatalf("a new chosen id: %d %s, want 201 at %s", rec.Code, rec.Body, commands.MerchantReceiptID(m.wallet, "inv-2"))
	}
	if rec := e.dev(m, http.MethodPost, "/api/receipts", directBody(commands.LegacyMerchantReceiptID(m.wallet, "inv-3"))); rec.Code != 400 || decode(t, rec)["error"] != "invalid_input" {
		t.Errorf("a free id of the old form: %d %s, want 400 invalid_input", rec.Code, rec.Body)
	}
	if n := e.count("receipts"); n != 2 {
		t.Errorf("%d receipts, want 2", n)
	}
}

// TestCollidingWalletNeitherTakesNorSeesAnothersIDs (stop 70): a wallet whose 48-bit prefix is a
// victim's (ground with about 2^48 key generations) shared the victim's namespace. The collision
// is made here by storing the victim's old receipt at the other wallet's 48-bit id. That wallet
// gets its own receipt for the same chosen id (it was 409: the victim's receipt existed), cannot
// tell the victim's old shown id from a free one (both 400), cannot read it, and the victim's new
// ids (128 bits) and its own do not block each other.
func TestCollidingWalletNeitherTakesNorSeesAnothersIDs(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	victim, attacker := e.merchant(false), e.merchant(false)
	shared := commands.LegacyMerchantReceiptID(attacker.wallet, "inv-7")
	e.storedReceipt(t, victim.wallet, shared)
	post := func(m merchant, id string) (int, string, string) {
		rec := e.dev(m, http.MethodPost, "/api/receipts", directBody(id))
		body := decode(t, rec)
		if r, ok := body["receipt"].(map[string]any); ok {
			return rec.Code, "", r["receiptId"].(string)
		}
		code, _ := body["error"].(string)
		return rec.Code, code, ""
	}
	if code, errCode, id := post(attacker, "inv-7"); code != 201 || id != commands.MerchantReceiptID(attacker.wallet, "inv-7") {
		t.Errorf("the colliding wallet's inv-7: %d %s %s, want 201 at its own 128-bit id", code, errCode, id)
	}
	for name, id := range map[string]string{"the victim's": shared, "a free": commands.LegacyMerchantReceiptID(attacker.wallet, "inv-8")} {
		if code, errCode, _ := post(attacker, id); code != 400 || errCode != "invalid_input" {
			t.Errorf("the colliding wallet posting %s old-form id: %d %s, want 400 invalid_input", name, code, errCode)
		}
	}
	if rec := e.dev(attacker, http.MethodGet, "/api/receipts/"+shared, ""); rec.Code != 404 {
		t.Errorf("the colliding wallet reading the victim's old receipt: %d", rec.Code)
	}
	// New ids: whoever comes first, the other is not blocked, and neither can post the other's.
	for _, first := range []merchant{victim, attacker} {
		second, id := attacker, "inv-9"
		if first.wallet == attacker.wallet {
			second, id = victim, "inv-10"
		}
		code1, _, made := post(first, id)
		code2, _, other := post(second, id)
		if code1 != 201 || code2 != 201 || made == other {
			t.Errorf("%s by both: %d %s and %d %s, want two receipts", id, code1, made, code2, other)
		}
		if code, errCode, _ := post(second, made); code != 400 || errCode != "invalid_input" {
			t.Errorf("posting the other's new id %s: %d %s, want 400 invalid_input", made, code, errCode)
		}
	}
	if n := e.count("receipts"); n != 6 {
		t.Errorf("%d receipts, want 6", n)
	}
}
