package settlement_test

import (
	"testing"

	"github.com/payledger/payledger/domain/receipt"
)

// Issue 38: a transfer that reaches its depth in a block an earlier step read is judged on the
// hash remembered, when the step's first new block is the child of the cursor's block: the
// confirming step costs the same requests as any other (the newest block, one eth_getLogs), no
// batch of headers, at 2 confirmations (the paying block is the cursor's) and at 3 (older). A
// restarted detector remembers nothing and reads the header, as before (and, at its first step,
// looks back for the unpaid deposits issued within the hour).
func TestDepositConfirmedOnRememberedHashes(t *testing.T) {
	for _, confirmations := range []int{2, 3} {
		e := newDepositEnv(t)
		r := e.receipt(100)
		d := e.detector()
		d.Confirmations = confirmations
		e.step(d)
		e.mined(e.payToken(e.usdc, r.DepositAddress(), 1_000_000))
		for range confirmations - 1 {
			e.step(d)
			e.want(r.Receipt.ReceiptID, receipt.StatusPending, "0.00")
			e.commit()
		}
		before := e.rpc.Stats()
		e.step(d)
		if n := e.rpc.Stats().Requests - before.Requests; n != 2 {
			t.Fatalf("%d confirmations: the confirming step made %d JSON-RPC requests, want 2 (no headers)", confirmations, n)
		}
		e.want(r.Receipt.ReceiptID, receipt.StatusPaid, "1.00")
	}

	e := newDepositEnv(t)
	r := e.receipt(100)
	e.step(e.detector())
	e.mined(e.payToken(e.usdc, r.DepositAddress(), 1_000_000))
	e.step(e.detector())
	e.commit()
	restarted := e.detector()
	restarted.Confirmations = 2
	before := e.rpc.Stats()
	e.step(restarted)
	// genesis (once per detector), the newest block, eth_getLogs, a first step's look-back for the
	// unpaid deposits issued within the hour (deposit_lookback.go: the block mined when the
	// receipt was issued, here one batch of 4 headers, and one eth_getLogs), the check that the
	// transfer it found is in the chain's block (one header, stop 62), the paying block's header
	if n := e.rpc.Stats().Requests - before.Requests; n != 10 {
		t.Fatalf("a restarted detector's confirming step made %d JSON-RPC requests, want 10", n)
	}
	e.want(r.Receipt.ReceiptID, receipt.StatusPaid, "1.00")
}
