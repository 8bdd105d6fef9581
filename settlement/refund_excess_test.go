package settlement_test

import (
	"errors"
	"testing"

	"github.com/payledger/payledger/commands"
	"github.com/payledger/payledger/domain/receipt"
)

// claimExcess posts a refund of r's excess of amount (USD, "" for the whole) with hash, as the merchant.
func (e *refundEnv) claimExcess(r receipt.State, amount, hash string) (commands.Refunded, error) {
	return e.refunds.Handle(e.ctx, commands.Refund{ReceiptID: r.Receipt.ReceiptID, AmountUSD: amount, Reason: "overpaid",
		TransactionHash: hash, Excess: true, By: r.Receipt.Merchant})
}

// TestOverpaidReceiptRefundedInFull (stop 70), on the simulated chain with the deposit detector
// and the refund verifier: the customer sends 12 USDC for a 10.00 receipt. The merchant sends
// the 2 of excess back (a refund of the excess, proven on chain: the receipt stays paid and its
// order's 10.00 stays refundable), then the order's whole 10: the customer's USDC balance ends
// where it began, and a cent more of either is refused. Before, the excess counted against the
// order's total and at most 10 of the 12 came back through the ledger.
func TestOverpaidReceiptRefundedInFull(t *testing.T) {
	e := newRefundEnv(t)
	d := e.detector()
	r := e.receipt(1000)
	e.step(d)
	start := e.usdcOf(e.customer)
	e.mined(e.payToken(e.usdc, r.DepositAddress(), 12_000_000))
	e.commit()
	e.step(d)
	st := e.want(r.Receipt.ReceiptID, receipt.StatusPaid, "12.00")

	if _, err := e.claimExcess(st, "2.00", ""); err == nil {
		t.Fatal("a refund of the excess without its transaction hash taken")
	}
	excess := e.send(e.customer, 2_000_000)
	e.mined(excess)
	if _, err := e.claimExcess(st, "2.01", excess.Hash().Hex()); !errors.Is(err, receipt.ErrAmount) {
		t.Fatalf("beyond the excess: %v", err)
	}
	if _, err := e.claimExcess(st, "", excess.Hash().Hex()); err != nil {
		t.Fatalf("the excess: %v", err)
	}
	e.processedAtDepth(t)
	st, rec := e.refund(r.Receipt.ReceiptID, excess.Hash().Hex())
	if st.Status != receipt.StatusPaid || rec.State != receipt.RefundStateProcessed || !rec.OfExcess || st.RefundableCents() != 1000 ||
		st.RefundedExcessCents() != 200 || st.OrderRefundedCents() != 0 {
		t.Fatalf("the excess refunded: %s %+v refundable %d excess %d order %d", st.Status, rec, st.RefundableCents(), st.RefundedExcessCents(), st.OrderRefundedCents())
	}

	whole := e.send(e.customer, 10_000_000)
	e.mined(whole)
	if _, err := e.claim(st, "10.00", whole.Hash().Hex()); err != nil {
		t.Fatalf("the order's whole 10.00 after the excess: %v", err)
	}
	e.processedAtDepth(t)
	st, rec = e.refund(r.Receipt.ReceiptID, whole.Hash().Hex())
	if st.Status != receipt.StatusRefunded || rec.State != receipt.RefundStateProcessed || st.OrderRefundedCents() != 1000 || st.RefundedCents != 1200 {
		t.Fatalf("the order refunded: %s %+v order %d all %d", st.Status, rec, st.OrderRefundedCents(), st.RefundedCents)
	}
	if got := e.usdcOf(e.customer); got.Cmp(start) != 0 {
		t.Fatalf("the customer holds %s USDC base units, want %s: every unit sent back", got, start)
	}
	more := e.send(e.customer, 10_000)
	e.mined(more)
	if _, err := e.claimExcess(st, "0.01", more.Hash().Hex()); !errors.Is(err, receipt.ErrAmount) {
		t.Fatalf("a cent more of the excess: %v", err)
	}
	if _, err := e.claim(st, "0.01", more.Hash().Hex()); !errors.Is(err, receipt.ErrState) {
		t.Fatalf("a cent more of the order: %v", err)
	}
}
