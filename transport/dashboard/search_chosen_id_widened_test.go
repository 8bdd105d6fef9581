package dashboard_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/payledger/payledger/commands"
	"github.com/payledger/payledger/domain/receipt"
	"github.com/payledger/payledger/eventstore"
	"github.com/payledger/payledger/transport/transporttest"
)

// storedBeforeTheWidening records wallet's receipt at id, as chosen ids were stored before stop 70
// (m + 12 hex + _ + id), and waits until the read model has it.
func storedBeforeTheWidening(t *testing.T, e *transporttest.Env, wallet, id string) {
	t.Helper()
	ctx := context.Background()
	g := receipt.Generated{ReceiptID: id, Merchant: wallet, Source: "direct", Currency: "USD", TaxRate: "0", TaxComponents: []string{},
		LineItems: []receipt.LineItem{{Kind: receipt.KindCustom, Label: "Tea", Amount: 400}}, Subtotal: 400, Total: 400}
	_, res, err := commands.GenerateReceipt(ctx, e.Svc.Events, e.Clk.Now(), eventstore.Metadata{}, g)
	if err != nil {
		t.Fatal(err)
	}
	if err := e.Svc.Projections.Receipts.WaitFor(ctx, res.Position); err != nil {
		t.Fatal(err)
	}
}

// TestDashboardFindsChosenIDsOfBothForms (stop 70): the search and the receipt page take the id
// the merchant chose for a receipt made before the widening (stored at the 48-bit form) and for
// one made after (128-bit form); another merchant's receipt at the merchant's own 48-bit form
// (what a wallet sharing those bits sees) is neither found nor led to.
func TestDashboardFindsChosenIDsOfBothForms(t *testing.T) {
	e := dashEnv(t, nil)
	m, victim := e.Merchant(true), e.Merchant(true)
	old := commands.LegacyMerchantReceiptID(m.Wallet, "inv-1")
	storedBeforeTheWidening(t, e, m.Wallet, old)
	storedBeforeTheWidening(t, e, victim.Wallet, commands.LegacyMerchantReceiptID(m.Wallet, "inv-7"))
	rec := e.Dev(m, http.MethodPost, "/api/receipts", `{"id":"inv-2","lineItems":[{"label":"Tea","priceUsd":4}],"totalUsd":4}`)
	if rec.Code != http.StatusCreated {
		t.Fatalf("receipt: %d %s", rec.Code, rec.Body)
	}
	made := transporttest.Decode(t, rec)["receipt"].(map[string]any)["receiptId"].(string)
	if made != commands.MerchantReceiptID(m.Wallet, "inv-2") {
		t.Fatalf("inv-2 stored at %s", made)
	}
	for chosen, stored := range map[string]string{"inv-1": old, "inv-2": made} {
		if code, page, _ := e.Get("/dashboard?q="+chosen, m.Cookies); code != 200 || strings.Count(page, `<tr data-id=`) != 1 || !strings.Contains(page, `data-id="`+stored+`"`) {
			t.Errorf("search %q: %d, want %s alone\n%s", chosen, code, stored, page)
		}
		if code, _, h := e.Get("/dashboard/receipts/"+chosen, m.Cookies); code != http.StatusSeeOther || h.Get("Location") != "/dashboard/receipts/"+stored {
			t.Errorf("page of %q: %d to %q, want 303 to %s", chosen, code, h.Get("Location"), stored)
		}
	}
	if code, page, _ := e.Get("/dashboard?q=inv-7", m.Cookies); code != 200 || strings.Contains(page, `<tr data-id=`) {
		t.Errorf("search of another's receipt at the merchant's 48-bit form: %d\n%s", code, page)
	}
	if code, _, _ := e.Get("/dashboard/receipts/inv-7", m.Cookies); code != http.StatusNotFound {
		t.Errorf("page of another's receipt at the merchant's 48-bit form: %d, want 404", code)
	}
}
