package receipt

import "testing"

// Stop 68: funds of a failed receipt refunded before a late payment paid it are not its excess
// again. The customer sent 4 USDC (the window ended), got them back, then paid the 10 late: the
// receipt received 14 and "refund the excess" proposed 4.00 a second time, so a merchant who
// followed it sent 4 more and the customer paid 6 for a 10 order.
func TestExcessLeavesOutFundsAlreadyReturned(t *testing.T) {
	t.Parallel()
	s := failedWatchedUntil(t, 1_000_000) // 4 of 10 USDC, late payments watched
	s = then(t, s)(RequestRefund(s, RefundOrder{Reason: "short", TransactionHash: hashA, By: "m", At: 20}))
	p, reason, ok := JudgeRefund(s, RefundEvidence{TransactionHash: hashA, Succeeded: true, BlockNumber: 9, BlockHash: "0xb9", At: 30,
		Transfers: []ChainTransfer{{Token: "USDC", Decimals: 6, From: "0xmerchant", To: "0xc0ffee", AmountUnits: "4000000"}}})
	if !ok {
		t.Fatalf("judged: %s", reason)
	}
	s = then(t, s)(ProcessRefund(s, p))
	late := func(tx, units string) DepositObservation {
		return DepositObservation{Transfer: DepositTransferSeen{TransactionHash: tx, LogIndex: 0, BlockNumber: 8, BlockHash: "0xb8" + tx,
			Sender: "0xc0ffee", Token: "USDC", AmountUnits: units, Decimals: 6}, Confirmed: true, At: 40}
	}
	paid, _ := observe(t, s, late("0x10", "10000000"))
	if paid.Status != StatusPaid || paid.AmountReceived() != "14.00" {
		t.Fatalf("setup: %s received %s", paid.Status, paid.AmountReceived())
	}
	if got := paid.ExcessCents(); got != 0 {
		t.Fatalf("excess %d after the 4 returned and the 10 paid, want 0", got)
	}
	over, _ := observe(t, paid, late("0x11", "1500000"))
	if got := over.ExcessCents(); got != 150 {
		t.Fatalf("excess %d after 1.50 more, want 150", got)
	}
	// A claim of the funds still waiting for the chain counts as returned too (it is counted
	// against the payment until refused).
	c := failedWatchedUntil(t, 1_000_000)
	c = then(t, c)(RequestRefund(c, RefundOrder{Reason: "short", TransactionHash: hashA, By: "m", At: 20}))
	c, _ = observe(t, c, late("0x10", "10000000"))
	if c.Status != StatusPaid || c.ExcessCents() != 0 {
		t.Fatalf("claimed then paid: %s excess %d", c.Status, c.ExcessCents())
	}
}
