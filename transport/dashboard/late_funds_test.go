package dashboard_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/payledger/payledger/domain/receipt"
	"github.com/payledger/payledger/transport/transporttest"
)

// Issue 41 item 3, the dashboard: a payment after the late-payment watch (PaymentIgnored) is
// listed as having paid nothing and offered the wallet refund ("Refund", the hash required), and
// an unconfigured token left on the deposit is listed with its contract, sender and raw amount,
// never as money; the status read carries the refundable funds' claim like any refund.
func TestDashboardRefundOfALatePaymentAndAnUnknownToken(t *testing.T) {
	e := transporttest.New(t, transporttest.Portal())
	m := e.Merchant(true)
	id := e.ReceiptFor(m, "10")
	change := func(decide func(receipt.State) ([]receipt.Event, error)) { t.Helper(); e.Change(id, decide) }
	change(func(receipt.State) ([]receipt.Event, error) {
		return []receipt.Event{receipt.PaymentWindowExpired{ExpiresAt: 1, MonitorUntil: 2, Code: "PORTAL_SESSION_EXPIRED", At: 2}}, nil
	})
	e.DepositCredit(id, "0x"+strings.Repeat("4", 64), "USDC", "10000000", true) // after MonitorUntil: ignored
	change(func(st receipt.State) ([]receipt.Event, error) {
		return receipt.ObserveUnknownToken(st, receipt.DepositUnknownToken{TransactionHash: "0x" + strings.Repeat("5", 64), LogIndex: 1, BlockNumber: 8,
			BlockHash: "0xb8", TokenAddress: "0x" + strings.Repeat("d", 40), Sender: "0xbuyer", AmountUnits: "7000000000000000000", At: 3})
	})

	_, page, _ := e.Get("/dashboard/receipts/"+id, m.Cookies)
	for _, want := range []string{`class="muted late"`, `id="wallet-refund" data-to="0xbuyer" data-token="USDC"`,
		`id="refund-amount" name="amountUsd" data-type="number" inputmode="decimal" value="10.00"`, `aria-describedby="refund-hash-hint" required>`,
		`id="refund-submit">Refund</button>`, `id="unknown-tokens"`, `<code class="token-address">0x` + strings.Repeat("d", 40) + `</code>`,
		`<td class="num amount">7000000000000000000</td>`} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %s", want)
		}
	}
	if t.Failed() {
		t.Fatalf("page:\n%s", page)
	}
	rec := e.AdminCall(m.Cookies, m.CSRF, http.MethodPost, "/api/receipts/refund",
		`{"receiptId":"`+id+`","reason":"late","transactionHash":"0x`+strings.Repeat("6", 64)+`"}`)
	b := transporttest.Decode(t, rec)
	if refunds, _ := b["refunds"].([]any); rec.Code != 200 || b["status"] != "failed" || len(refunds) != 1 {
		t.Fatalf("a claim for the late payment: %d %v", rec.Code, b)
	}
}
