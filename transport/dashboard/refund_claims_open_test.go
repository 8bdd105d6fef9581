package dashboard_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/payledger/payledger/domain/receipt"
	"github.com/payledger/payledger/transport/transporttest"
)

// "Refund with wallet" sends the money before the API records the refund's hash. With the
// receipt's open claims at their bound (here the merchant's returns of unconfigured tokens,
// waiting for the chain), the page still offered it: the wallet sent the USDC to the customer and
// the claim of its hash was refused (409), the refund uncounted. It is no longer offered then,
// nor is an unconfigured token's wallet refund.
func TestDashboardNoWalletRefundWhileClaimsAreAtTheirBound(t *testing.T) {
	e := transporttest.New(t, transporttest.Portal())
	m := e.Merchant(true)
	id := e.ReceiptFor(m, "10")
	e.DepositCredit(id, "0x"+strings.Repeat("1", 64), "USDC", "10000000", true)
	spam := "0x" + strings.Repeat("5", 64)
	for i := range receipt.MaxOpenRefundClaims + 1 {
		e.Change(id, func(st receipt.State) ([]receipt.Event, error) {
			return receipt.ObserveUnknownToken(st, receipt.DepositUnknownToken{TransactionHash: spam, LogIndex: i, BlockNumber: 8,
				BlockHash: "0xb8", TokenAddress: "0x" + strings.Repeat("d", 40), Sender: "0xbuyer", AmountUnits: "7", At: 3})
		})
	}
	_, page, _ := e.Get("/dashboard/receipts/"+id, m.Cookies)
	if !strings.Contains(page, `id="refund-wallet"`) || !strings.Contains(page, `unknown-refund-wallet`) {
		t.Fatalf("a paid receipt's page offers no wallet refund\n%s", page)
	}
	for i := range receipt.MaxOpenRefundClaims {
		body := fmt.Sprintf(`{"receiptId":%q,"reason":"returned","transactionHash":"0x%064x","unknownTransfer":{"transactionHash":%q,"logIndex":%d}}`, id, i+10, spam, i)
		if rec := e.AdminCall(m.Cookies, m.CSRF, http.MethodPost, "/api/receipts/refund", body); rec.Code != 200 {
			t.Fatalf("claim %d: %d %s", i, rec.Code, rec.Body)
		}
	}
	// What the wallet refund would post after sending: refused.
	if rec := e.AdminCall(m.Cookies, m.CSRF, http.MethodPost, "/api/receipts/refund",
		fmt.Sprintf(`{"receiptId":%q,"reason":"x","amountUsd":10,"transactionHash":"0x%064x"}`, id, 99)); rec.Code != http.StatusConflict {
		t.Fatalf("a claim over the bound: %d %s", rec.Code, rec.Body)
	}
	_, page, _ = e.Get("/dashboard/receipts/"+id, m.Cookies)
	if strings.Contains(page, `id="refund-wallet"`) || strings.Contains(page, `unknown-refund-wallet`) {
		t.Errorf("with %d claims open the page still offers a wallet refund, whose claim is refused\n%s", receipt.MaxOpenRefundClaims, page)
	}
	if !strings.Contains(page, `id="refund"`) { // a request without a hash is still taken
		t.Errorf("the refund form is gone")
	}
}
