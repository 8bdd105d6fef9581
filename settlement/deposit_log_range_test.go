package settlement_test

import (
	"testing"

	"github.com/payledger/payledger/domain/receipt"
)

// TestDepositDetectorLogRange (issue 41, CHAIN_LOG_RANGE): a detector whose range is 3 blocks
// catches up 12 blocks in steps of at most 3 (each step's one eth_getLogs of every Transfer log
// spans the blocks it read), and still credits a payment in the middle of them.
func TestDepositDetectorLogRange(t *testing.T) {
	t.Parallel()
	e := newDepositEnv(t)
	r := e.receipt(1000)
	d := e.detector()
	d.MaxRange = 3
	e.step(d)
	for i := range 12 {
		if i == 5 {
			e.mined(e.payToken(e.usdc, r.DepositAddress(), 10_000_000))
			continue
		}
		e.commit()
	}
	steps := 0
	for res := e.step(d); res.To != 0; res = e.step(d) {
		if res.To-res.From+1 > 3 {
			t.Fatalf("a step read blocks %d to %d, more than CHAIN_LOG_RANGE=3", res.From, res.To)
		}
		steps++
	}
	if steps < 4 {
		t.Fatalf("12 blocks read in %d steps of at most 3", steps)
	}
	e.want(r.Receipt.ReceiptID, receipt.StatusPaid, "10.00")
}
