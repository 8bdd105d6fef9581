package settlement_test

import (
	"math/big"
	"slices"
	"testing"

	"github.com/payledger/payledger/domain/receipt"
)

// TestDepositSweepFloorOfAFailedReceipt (stop 70): one base unit of USDC and one wei sent to an
// expired 10.00 receipt's deposit in its late watch are credited (the first transfers of any size
// are), but worth less than a sweep: they are left at the deposit and listed for the operator
// (Swept.Held), and idle passes send nothing. Before, the sweeper paid the deposit's deployment
// and flush (about 57,000 gas) for them. A later transfer of 99,999 units lifts the USDC to 1% of
// the price: the deposit is swept, all of it. A paid receipt is swept whatever the size (the
// other sweep tests).
func TestDepositSweepFloorOfAFailedReceipt(t *testing.T) {
	t.Parallel()
	e := newDepositEnv(t)
	d := e.detector()
	clock, id := e.expiredReceipt(d)
	deposit := e.state(id).DepositAddress()
	e.chainAt(clock.now())
	e.mined(e.payToken(e.usdc, deposit, 1), e.payETH(deposit, big.NewInt(1)))
	e.commit()
	e.step(d)
	e.synced()
	st := e.want(id, receipt.StatusFailed, "0.000001")
	if len(st.Credits) != 2 || !st.SweepHeld(0) {
		t.Fatalf("credits %+v, held %v", st.Credits, st.SweepHeld(0))
	}

	s, h := e.sweeping()
	var held []string
	for range 4 {
		e.commit()
		out, err := h.Handle(e.ctx)
		e.ok(err)
		if out.Sent != 0 {
			t.Fatalf("a sweep was sent for one unit and one wei: %+v (the deposit holds %d)", out, e.depositHolds(s, deposit))
		}
		held = append(held, out.Held...)
	}
	if !slices.Equal(held, []string{id}) {
		t.Fatalf("held %v, want the receipt listed once", held)
	}
	if got := e.depositHolds(s, deposit); got != 1 || len(e.state(id).Sweeps) != 0 {
		t.Fatalf("the deposit holds %d after sweeps %+v, want 1 unswept", got, e.state(id).Sweeps)
	}

	// A later transfer lifts the funds to 1% of the price: swept, the one unit with them.
	e.mined(e.payToken(e.usdc, deposit, 99_999))
	e.commit()
	e.step(d)
	e.synced()
	st = e.want(id, receipt.StatusFailed, "0.10")
	if _, ok := e.sweptOut(s, h, st, 8); !ok {
		t.Fatalf("lifted over the floor, not swept: the deposit holds %d", e.depositHolds(s, deposit))
	}
	if got := sweptUSDC(t, e.state(id)); got.Int64() != 100_000 {
		t.Fatalf("swept %s USDC units, want 100000", got)
	}
	if got := e.depositHolds(s, e.split.Hex()); got != 100_000 {
		t.Fatalf("the split holds %d, want 100000", got)
	}
	e.commit()
	if out, err := h.Handle(e.ctx); err != nil || out.Sent != 0 || len(out.Held) != 0 {
		t.Fatalf("an idle pass: %+v %v", out, err)
	}
}
