package dashboard_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/payledger/payledger/transport/transporttest"
)

// TestDashboardSearchFindsAReceiptByTheIDTheMerchantChose: a receipt created with the
// merchant's own id (POST /api/receipts {"id": "inv-1001"}) is stored and shown in the
// merchant's namespace (m + 12 hex + _ + inv-1001), and the search compared the words typed with
// the stored id only: the merchant's own order number found "No receipts match".
func TestDashboardSearchFindsAReceiptByTheIDTheMerchantChose(t *testing.T) {
	e := dashEnv(t, nil)
	m, other := e.Merchant(true), e.Merchant(true)
	create := func(who transporttest.Merchant, body string) string {
		rec := e.Dev(who, http.MethodPost, "/api/receipts", body)
		if rec.Code != http.StatusCreated {
			t.Fatalf("receipt: %d %s", rec.Code, rec.Body)
		}
		return transporttest.Decode(t, rec)["receipt"].(map[string]any)["receiptId"].(string)
	}
	mine := create(m, `{"id":"inv-1001","lineItems":[{"label":"Tea","priceUsd":4}],"totalUsd":4}`)
	theirs := create(other, `{"id":"inv-1001","lineItems":[{"label":"Tea","priceUsd":4}],"totalUsd":4}`)
	// A receipt whose transactionId is the same words: both are shown, the newest first.
	ref := create(m, `{"lineItems":[{"label":"Tea","priceUsd":4}],"totalUsd":4,"transactionId":"inv-1001"}`)
	if !strings.HasSuffix(mine, "_inv-1001") || mine == theirs {
		t.Fatalf("chosen ids stored as %s and %s", mine, theirs)
	}
	for _, q := range []string{"inv-1001", mine} {
		code, page, _ := e.Get("/dashboard?q="+q, m.Cookies)
		i, j := strings.Index(page, `data-id="`+ref+`"`), strings.Index(page, `data-id="`+mine+`"`)
		if q == mine {
			i = 0 // the stored id matches no transactionId
		}
		if code != 200 || j < 0 || i < 0 || strings.Contains(page, theirs) || strings.Count(page, `<tr data-id=`) != strings.Count(page, `data-id="`+mine+`"`)+strings.Count(page, `data-id="`+ref+`"`) {
			t.Errorf("search %q: %d, want %s (and %s by its transactionId), never %s\n%s", q, code, mine, ref, theirs, page)
		}
	}
	if code, page, _ := e.Get("/dashboard?q=inv-1001&status=paid", m.Cookies); code != 200 || strings.Contains(page, `<tr data-id=`) {
		t.Errorf("search of another status: %d\n%s", code, page)
	}
}

// TestDashboardReceiptPageTakesTheIDTheMerchantChose: /dashboard/receipts/inv-1001 said there
// was no such receipt of the merchant who created inv-1001 (its page is at the namespaced id);
// it now leads there. Another merchant's inv-1001 is still not found.
func TestDashboardReceiptPageTakesTheIDTheMerchantChose(t *testing.T) {
	e := dashEnv(t, nil)
	m, other := e.Merchant(true), e.Merchant(true)
	rec := e.Dev(m, http.MethodPost, "/api/receipts", `{"id":"inv-1001","lineItems":[{"label":"Tea","priceUsd":4}],"totalUsd":4}`)
	if rec.Code != http.StatusCreated {
		t.Fatalf("receipt: %d %s", rec.Code, rec.Body)
	}
	mine := transporttest.Decode(t, rec)["receipt"].(map[string]any)["receiptId"].(string)
	if code, _, h := e.Get("/dashboard/receipts/inv-1001", m.Cookies); code != http.StatusSeeOther || h.Get("Location") != "/dashboard/receipts/"+mine {
		t.Errorf("the chosen id: %d to %q, want 303 to its page", code, h.Get("Location"))
	}
	if code, page, _ := e.Get("/dashboard/receipts/"+mine, m.Cookies); code != http.StatusOK || !strings.Contains(page, `id="receipt-id">`+mine) {
		t.Errorf("the stored id: %d", code)
	}
	if code, page, _ := e.Get("/dashboard/receipts/inv-1001", other.Cookies); code != http.StatusNotFound || strings.Contains(page, mine) {
		t.Errorf("another merchant's chosen id: %d\n%s", code, page)
	}
}
