package dashboard_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/payledger/payledger/domain/receipt"
	"github.com/payledger/payledger/transport/transporttest"
)

// Issue 41, the dashboard's other refunds: an overpaid receipt offers "Refund the excess" (its
// excess, to its payer, in the token it was paid in); a failed receipt's funds that paid nothing
// are offered the wallet refund too, and only a refund with a hash is taken for them.
func TestDashboardRefundTheExcessAndFundsThatPaidNothing(t *testing.T) {
	e := transporttest.New(t, transporttest.Portal())
	m := e.Merchant(true)
	over, failed := e.ReceiptFor(m, "10"), e.ReceiptFor(m, "10")
	e.DepositCredit(over, "0x"+strings.Repeat("1", 64), "USDC", "12500000", true)
	e.DepositCredit(failed, "0x"+strings.Repeat("2", 64), "USDC", "4000000", true)
	e.Change(failed, func(receipt.State) ([]receipt.Event, error) {
		return []receipt.Event{receipt.PaymentWindowExpired{ExpiresAt: 1, MonitorUntil: 2, Code: "PORTAL_SESSION_EXPIRED", At: e.Clk.Now().UnixMilli()}}, nil
	})

	_, page, _ := e.Get("/dashboard/receipts/"+over, m.Cookies)
	for _, want := range []string{`id="wallet-refund" data-to="0xbuyer" data-token="USDC" data-token-address="` + transporttest.PortalUSDC + `"`,
		`data-total-cents="1000" data-total-units="10000000"`, `id="refund-excess" data-amount="2.50"`, `id="refund-hash"`} {
		if !strings.Contains(strings.ToLower(page), strings.ToLower(want)) {
			t.Errorf("overpaid receipt's page lacks %s", want)
		}
	}
	_, page, _ = e.Get("/dashboard/receipts/"+failed, m.Cookies)
	if !strings.Contains(page, `id="wallet-refund"`) || !strings.Contains(page, `id="refund-amount" name="amountUsd" data-type="number" inputmode="decimal" value="4.00"`) ||
		strings.Contains(page, `id="refund-excess"`) || !strings.Contains(page, `aria-describedby="refund-hash-hint" required>`) {
		t.Errorf("failed receipt's page: no wallet refund of its 4.00 with the hash required\n%s", page)
	}
	refund := func(body string) (int, map[string]any) {
		rec := e.AdminCall(m.Cookies, m.CSRF, http.MethodPost, "/api/receipts/refund", body)
		return rec.Code, transporttest.Decode(t, rec)
	}
	if code, b := refund(`{"receiptId":"` + failed + `","reason":"late"}`); code != 400 {
		t.Fatalf("a request without a hash for funds that paid nothing: %d %v", code, b)
	}
	code, b := refund(`{"receiptId":"` + failed + `","reason":"late","transactionHash":"0x` + strings.Repeat("3", 64) + `"}`)
	if refunds, _ := b["refunds"].([]any); code != 200 || b["status"] != "failed" || len(refunds) != 1 || b["refundedUsd"] != 0.0 {
		t.Fatalf("a claim for funds that paid nothing: %d %v", code, b)
	}
	_, page, _ = e.Get("/dashboard/receipts/"+failed, m.Cookies)
	if !strings.Contains(page, `data-state="claimed"`) || !strings.Contains(page, "refund pending") || !strings.Contains(page, `data-pending="true"`) {
		t.Errorf("the claim is not shown pending\n%s", page)
	}
}
