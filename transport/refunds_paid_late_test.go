package transport

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/payledger/payledger/commands"
	"github.com/payledger/payledger/domain/receipt"
	"github.com/payledger/payledger/eventstore"
)

// TestRefundOfAReceiptPaidLateAfterItsFundsWereReturned (stop 69, the refunds area): through the
// service as serve builds it, a 10.00 receipt received 4 and failed; the merchant refunded the
// 4 (proven as the refund verifier proves it); the customer paid the 10 late, which paid the
// receipt. The refund API takes the order's whole 10.00 (it answered 400 above 6.00: the 4
// returned counted against the order) and refuses a cent more.
func TestRefundOfAReceiptPaidLateAfterItsFundsWereReturned(t *testing.T) {
	t.Parallel()
	_, _, _, refund := paidLateAfterFundsReturned(t)
	code, out := refund("10", "6")
	if code != 200 || out["status"] != "refund_requested" || out["unrefundedUsd"] != 0.0 {
		t.Fatalf("the order's whole 10.00 after its funds' 4 were returned: %d %v", code, out)
	}
	if code, _ := refund("0.01", "7"); code != 400 {
		t.Fatalf("a cent more than the customer sent: %d, want 400", code)
	}
}

// paidLateAfterFundsReturned is a 10.00 receipt that received 4 and failed, whose 4 the merchant
// refunded (the claim processed as the refund verifier does: the chain shows 4 USDC back to the
// payer), then paid late by a transfer of 10; refund posts a claim of amount (USD) with a hash
// of 64 times the hex digit given, as its merchant, and returns the answer's code and body.
func paidLateAfterFundsReturned(t *testing.T) (*env, merchant, string, func(amount, hash string) (int, map[string]any)) {
	t.Helper()
	e := portalEnv(t)
	m := e.merchant(true)
	id := e.receiptFor(m, "10")
	e.depositCredit(id, "0x"+strings.Repeat("3", 64), "USDC", "4000000", true)
	e.changeForRefundTest(id, func(st receipt.State) ([]receipt.Event, error) {
		return receipt.Expire(st, st.Receipt.ExpiresAt+1, 24*time.Hour)
	})
	refund := func(amount, hash string) (int, map[string]any) {
		body := `{"receiptId":"` + id + `","reason":"returned","amountUsd":` + amount + `,"transactionHash":"0x` + strings.Repeat(hash, 64) + `"}`
		rec := e.adminCall(m.cookies, m.csrf, http.MethodPost, "/api/receipts/refund", body)
		if rec.Code != 200 {
			return rec.Code, nil
		}
		return rec.Code, decode(t, rec)
	}
	if code, out := refund("4", "4"); code != 200 || out["status"] != "failed" {
		t.Fatalf("the funds' refund: %d %v", code, out)
	}
	e.proveRefundForTest(id, "0x"+strings.Repeat("4", 64), "4000000")
	e.depositCredit(id, "0x"+strings.Repeat("5", 64), "USDC", "10000000", true)
	if st := e.receiptStateForRefundTest(id); st.Status != receipt.StatusPaid || !st.PaidLate() {
		t.Fatalf("the late payment: %s paidLate %v", st.Status, st.PaidLate())
	}
	return e, m, id, refund
}

// proveRefundForTest records the refund verifier's verdict on the claim of hash: the chain shows
// units of USDC sent back to the payer.
func (e *env) proveRefundForTest(id, hash, units string) {
	e.t.Helper()
	e.changeForRefundTest(id, func(st receipt.State) ([]receipt.Event, error) {
		p, reason, ok := receipt.JudgeRefund(st, receipt.RefundEvidence{TransactionHash: hash, Succeeded: true,
			BlockNumber: 9, BlockHash: "0xb9", At: e.clk.Now().UnixMilli(),
			Transfers: []receipt.ChainTransfer{{Token: "USDC", Decimals: 6, From: "0xmerchant", To: "0xbuyer", AmountUnits: units}}})
		if !ok {
			e.t.Fatalf("judged: %s", reason)
		}
		return receipt.ProcessRefund(st, p)
	})
}

// changeForRefundTest appends what decide returns to receipt id and waits until the read model
// has it.
func (e *env) changeForRefundTest(id string, decide func(receipt.State) ([]receipt.Event, error)) {
	e.t.Helper()
	ctx := context.Background()
	_, res, err := commands.ChangeReceipt(ctx, e.svc.Events, id, eventstore.Metadata{Actor: "test"}, decide)
	if err != nil {
		e.t.Fatal(err)
	}
	if err := e.srv.waitReadable(ctx, id, res); err != nil {
		e.t.Fatal(err)
	}
}

// receiptStateForRefundTest is receipt id's state as its stream says.
func (e *env) receiptStateForRefundTest(id string) receipt.State {
	e.t.Helper()
	l, err := commands.LoadReceipt(context.Background(), e.svc.Events, id)
	if err != nil {
		e.t.Fatal(err)
	}
	return l.State
}
