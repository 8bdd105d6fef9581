package transport

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/payledger/payledger/domain/receipt"
	"github.com/payledger/payledger/readmodels"
)

// DESIGN 9: the status read, the webhook payload and the receipt view show the deposit address,
// the amounts (amountReceived null until a transfer is seen, confirmed transfers only) and
// paidLate; while pending, the first transfer seen is the transaction and its sender the buyer.
func TestDepositFieldsOfTheReads(t *testing.T) {
	t.Parallel()
	st := receipt.Evolve(receipt.State{}, receipt.Generated{ReceiptID: "r", Merchant: "0xm", Currency: "USD", Total: 1231,
		LineItems: []receipt.LineItem{{Kind: receipt.KindCustom, Label: "x", Amount: 1231}}, DepositAddress: "0xDeP", DepositSplit: "0xs"})
	v := asJSON(t, readmodels.ReceiptWebhookOf(st, time.Now()))
	if v["depositAddress"] != "0xDeP" || v["amountRequired"] != "12.31" || v["amountReceived"] != nil || v["paidLate"] != false {
		t.Fatalf("before a transfer: %v", v)
	}
	seen := receipt.DepositTransferSeen{TransactionHash: "0xt1", LogIndex: 3, BlockNumber: 9, BlockHash: "0xb", Sender: "0xbuyer", Token: "USDT",
		AmountUnits: "5000000", Decimals: 6}
	st = receipt.Evolve(st, seen)
	st = receipt.Evolve(st, receipt.DepositTransferConfirmed{TransactionHash: "0xt1", LogIndex: 3, BlockNumber: 9, BlockHash: "0xb"})
	v = asJSON(t, statusView(st, ""))
	if v["status"] != "pending" || v["amountReceived"] != "5.00" || v["transactionHash"] != "0xt1" || v["buyerWallet"] != "0xbuyer" || v["token"] != "USDT" {
		t.Fatalf("underpaid: %v", v)
	}
	st = receipt.Evolve(st, receipt.PaymentConfirmed{AttemptID: "deposit", TransactionHash: "0xt1", VerifiedBy: "chain", PaidLate: true})
	view := asJSON(t, viewReceipt(st))
	if view["depositAddress"] != "0xDeP" || view["amountRequired"] != "12.31" || view["amountReceived"] != "5.00" || view["paidLate"] != true {
		t.Fatalf("receipt view: %v", view)
	}
}

// asJSON is v as a client reads it.
func asJSON(t *testing.T, v any) map[string]any {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var out map[string]any
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	return out
}
