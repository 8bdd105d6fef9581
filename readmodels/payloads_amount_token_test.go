package readmodels

import (
	"testing"

	"github.com/payledger/payledger/domain/money"
	"github.com/payledger/payledger/domain/receipt"
)

// TestAFailedReceiptNamesTheTokenOfItsAmounts (stop 69, status): a receipt quoted in ETH and then
// in USDC receives 0.001 ETH and fails at the end of its window. Its token is the latest quote's
// (USDC: a failed receipt shows no transfer), its amounts are in ETH (the first transfer's, the
// requested token): amountToken names ETH beside them, where only USDC was named.
func TestAFailedReceiptNamesTheTokenOfItsAmounts(t *testing.T) {
	tx := "0x" + "ab12"
	evs := []receipt.Event{
		receipt.Generated{ReceiptID: "rcpt_amount_token", Currency: "USD", Total: money.Cents(1234), Merchant: "0xmerchant", CreatedAt: 1},
		receipt.TokenQuoted{Token: "ETH", Amount: "0.004", TokenUSDPrice: "3085", AmountUSD: "12.34", At: 2},
		receipt.TokenQuoted{Token: "USDC", Amount: "12.34", TokenUSDPrice: "1", AmountUSD: "12.34", At: 3},
		receipt.DepositTransferSeen{TransactionHash: tx, BlockNumber: 7, BlockHash: "0xb7", Sender: "0xbuyer", Token: "ETH",
			AmountUnits: "1000000000000000", Decimals: 18, At: 4},
		receipt.DepositTransferConfirmed{TransactionHash: tx, BlockNumber: 7, BlockHash: "0xb7", At: 5},
		receipt.PaymentWindowExpired{ExpiresAt: 6, MonitorUntil: 7, Code: receipt.CodeWindowExpired, Category: "session", At: 6},
	}
	var st receipt.State
	for _, e := range evs {
		st = receipt.Evolve(st, e)
	}
	p := ReceiptPayloadOf(st)
	if p.Status != "failed" || p.AmountReceived == nil || *p.AmountReceived != "0.001" || p.Token != "USDC" {
		t.Fatalf("setup: status %s, amountReceived %v, token %s", p.Status, deref(p.AmountReceived), p.Token)
	}
	if p.AmountToken != "ETH" {
		t.Errorf("amountReceived %s beside token %s with amountToken %q: the amount is in ETH", *p.AmountReceived, p.Token, p.AmountToken)
	}
}
