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

// Issue 41, the dashboard's other refunds: an overpaid receipt offers "Refund the excess" (its
// excess, to its payer, in the token it was paid in); a failed receipt's funds that paid nothing
// are offered the wallet refund too, and only a refund with a hash is taken for them.
func TestDashboardRefundTheExcessAndFundsThatPaidNothing(t *testing.T) {
	e := portalEnv(t)
	m := e.merchant(true)
	over, failed := e.receiptFor(m, "10"), e.receiptFor(m, "10")
	e.depositCredit(over, "0x"+strings.Repeat("1", 64), "USDC", "12500000", true)
	e.depositCredit(failed, "0x"+strings.Repeat("2", 64), "USDC", "4000000", true)
	ctx := context.Background()
	_, res, err := commands.ChangeReceipt(ctx, e.srv.events, failed, eventstore.Metadata{Actor: "test"}, func(receipt.State) ([]receipt.Event, error) {
		return []receipt.Event{receipt.PaymentWindowExpired{ExpiresAt: 1, MonitorUntil: 2, Code: "PORTAL_SESSION_EXPIRED", At: e.clk.Now().UnixMilli()}}, nil
	})
	if err != nil || e.srv.waitReadable(ctx, failed, res) != nil {
		t.Fatal(err)
	}

	_, page, _ := e.get("/dashboard/receipts/"+over, m.cookies)
	for _, want := range []string{`id="wallet-refund" data-to="0xbuyer" data-token="USDC" data-token-address="` + portalUSDC + `"`,
		`data-total-cents="1000" data-total-units="10000000"`, `id="refund-excess" data-amount="2.50"`, `id="refund-hash"`} {
		if !strings.Contains(strings.ToLower(page), strings.ToLower(want)) {
			t.Errorf("overpaid receipt's page lacks %s", want)
		}
	}
	_, page, _ = e.get("/dashboard/receipts/"+failed, m.cookies)
	if !strings.Contains(page, `id="wallet-refund"`) || !strings.Contains(page, `id="refund-amount" name="amountUsd" data-type="number" inputmode="decimal" value="4.00"`) ||
		strings.Contains(page, `id="refund-excess"`) || !strings.Contains(page, `aria-describedby="refund-hash-hint" required>`) {
		t.Errorf("failed receipt's page: no wallet refund of its 4.00 with the hash required\n%s", page)
	}
	refund := func(body string) (int, map[string]any) {
		rec := e.adminCall(m.cookies, m.csrf, http.MethodPost, "/api/receipts/refund", body)
		return rec.Code, decode(t, rec)
	}
	if code, b := refund(`{"receiptId":"` + failed + `","reason":"late"}`); code != 400 {
		t.Fatalf("a request without a hash for funds that paid nothing: %d %v", code, b)
	}
	code, b := refund(`{"receiptId":"` + failed + `","reason":"late","transactionHash":"0x` + strings.Repeat("3", 64) + `"}`)
	if refunds, _ := b["refunds"].([]any); code != 200 || b["status"] != "failed" || len(refunds) != 1 || b["refundedUsd"] != 0.0 {
		t.Fatalf("a claim for funds that paid nothing: %d %v", code, b)
	}
	_, page, _ = e.get("/dashboard/receipts/"+failed, m.cookies)
	if !strings.Contains(page, `data-state="claimed"`) || !strings.Contains(page, "refund pending") || !strings.Contains(page, `data-pending="true"`) {
		t.Errorf("the claim is not shown pending\n%s", page)
	}
}
