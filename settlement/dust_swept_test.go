package settlement_test

import (
	"math/big"
	"testing"

	"github.com/ethereum/go-ethereum/core/types"

	"github.com/payledger/payledger/domain/receipt"
)

// TestDustSweptThenALaterTransferIsSweptToo: on the simulated chain, a 3.00 receipt's deposit
// gets 20 one-unit USDC transfers (credited), two of 29,999 units (dust: under 1%, not credited),
// then the customer's 3 USDC; the sweep moves all of it, 59,998 units more than the credits. A
// later transfer of 30,000 units (1%: credited) is swept too, and the deposit left empty; before,
// the sweeps recorded exceeded the credits by more than it, so the receipt looked swept, the
// sweeper never claimed it and it stayed at the deposit. Once empty, further passes send nothing.
func TestDustSweptThenALaterTransferIsSweptToo(t *testing.T) {
	t.Parallel()
	e := newDepositEnv(t)
	d := e.detector()
	st := e.receipt(300)
	id, deposit := st.Receipt.ReceiptID, st.Receipt.DepositAddress
	e.step(d)
	txs := make([]*types.Transaction, 0, receipt.DustFreeCredits+2)
	for range receipt.DustFreeCredits {
		txs = append(txs, e.payToken(e.usdc, deposit, 1))
	}
	e.mined(txs...)
	e.commit()
	e.step(d)
	e.mined(e.payToken(e.usdc, deposit, 29_999), e.payToken(e.usdc, deposit, 29_999))
	e.mined(e.payToken(e.usdc, deposit, 3_000_000))
	e.commit()
	e.step(d)
	e.want(id, receipt.StatusPaid, "3.00002")
	if n := len(e.state(id).Credits); n != receipt.DustFreeCredits+1 {
		t.Fatalf("%d credits, want %d: the dust recorded", n, receipt.DustFreeCredits+1)
	}
	s, h := e.sweeping()
	if _, ok := e.sweptOut(s, h, e.state(id), 8); !ok {
		t.Fatalf("not swept: %+v, deposit holds %d", e.state(id).Sweeps, e.depositHolds(s, deposit))
	}
	if got := sweptUSDC(t, e.state(id)); got.Int64() != 3_000_020+2*29_999 {
		t.Fatalf("first sweep moved %s, want the whole balance", got)
	}

	e.mined(e.payToken(e.usdc, deposit, 30_000))
	for range 3 {
		e.commit()
		e.step(d)
	}
	c := e.state(id).Credits
	if len(c) != receipt.DustFreeCredits+2 || !c[len(c)-1].Counts() || c[len(c)-1].AmountUnits != "30000" {
		t.Fatalf("the later transfer is not a confirmed credit: %d credits, last %+v", len(c), c[len(c)-1])
	}
	if _, ok := e.sweptOut(s, h, e.state(id), 8); !ok {
		st := e.state(id)
		t.Fatalf("the later transfer not swept: swept %v unswept %v, deposit holds %d", st.Swept(), st.Unswept(), e.depositHolds(s, deposit))
	}
	if got := sweptUSDC(t, e.state(id)); got.Int64() != 3_000_020+2*29_999+30_000 || len(e.state(id).Sweeps) != 2 {
		t.Fatalf("sweeps %+v moved %s", e.state(id).Sweeps, got)
	}
	for range 3 {
		e.commit()
		if out, err := h.Handle(e.ctx); err != nil || out.Sent != 0 || !e.state(id).Swept() {
			t.Fatalf("an empty deposit swept again: %+v %v, unswept %v", out, err, e.state(id).Unswept())
		}
		e.synced()
	}
}

// sweptUSDC is what st's recorded sweeps moved of USDC.
func sweptUSDC(t *testing.T, st receipt.State) *big.Int {
	t.Helper()
	sum := new(big.Int)
	for _, w := range st.Sweeps {
		n, ok := new(big.Int).SetString(w.AmountUnits, 10)
		if !ok {
			t.Fatalf("sweep %+v", w)
		}
		if w.Token == "USDC" {
			sum.Add(sum, n)
		}
	}
	return sum
}
