package settlement_test

import (
	"math/big"
	"strconv"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/core/types"
	"github.com/rs/zerolog"

	"github.com/payledger/payledger/domain/receipt"
	"github.com/payledger/payledger/internal/syncbuf"
	"github.com/payledger/payledger/settlement"
)

// TestDustToADepositIsBoundedAndSweptWithTheRest: on the simulated chain, 30 one-base-unit USDC
// transfers to a 3.00 receipt's deposit, mined in one block, then the customer's 3 USDC. The
// detector records the first receipt.DustFreeCredits of them and none of the rest (before, every
// one was a credit: a stream without bound), logs nothing above info and adds nothing when it
// reads on; the customer's payment is recorded and pays the receipt; the sweep takes the deposit's
// whole balance, the uncredited units with it, so the merchant's split gets all of it.
func TestDustToADepositIsBoundedAndSweptWithTheRest(t *testing.T) {
	t.Parallel()
	e := newDepositEnv(t)
	var logs syncbuf.Buffer
	d := e.detector()
	d.Log = zerolog.New(&logs).Level(zerolog.WarnLevel)
	st := e.receipt(300)
	id, deposit := st.Receipt.ReceiptID, st.Receipt.DepositAddress
	e.step(d)

	const dust = 30
	txs := make([]*types.Transaction, 0, dust)
	for range dust {
		txs = append(txs, e.payToken(e.usdc, deposit, 1))
	}
	e.mined(txs...)
	e.commit()
	e.step(d)
	e.want(id, receipt.StatusPending, "0.00002")
	if n := e.count(id, receipt.EventDepositTransferSeen); n != receipt.DustFreeCredits {
		t.Fatalf("%d transfers recorded of %d one-unit ones, want %d", n, dust, receipt.DustFreeCredits)
	}
	before := len(e.history(id))
	e.commit()
	e.step(d)
	if n := len(e.history(id)); n != before {
		t.Fatalf("reading on added %d events", n-before)
	}

	e.mined(e.payToken(e.usdc, deposit, 3_000_000))
	e.commit()
	e.step(d)
	e.want(id, receipt.StatusPaid, "3.00002")
	if logs.String() != "" {
		t.Fatalf("the detector logged: %s", logs.String())
	}

	s, h := e.sweeping()
	if _, ok := e.sweptOut(s, h, e.state(id), 8); !ok {
		t.Fatalf("not swept: %+v unswept %v, deposit holds %d", e.state(id).Sweeps, e.state(id).Unswept(), e.depositHolds(s, deposit))
	}
	var moved int64
	for _, w := range e.state(id).Sweeps {
		if strings.EqualFold(w.Token, "USDC") {
			units, err := strconv.ParseInt(w.AmountUnits, 10, 64)
			e.ok(err)
			moved += units
		}
	}
	if moved != 3_000_000+dust {
		t.Fatalf("swept %d units, want the whole balance %d", moved, 3_000_000+dust)
	}
}

// TestETHDustIsCreditedByBalanceOnceItIsNoDust: at a deposit with an open ETH quote and 20
// credits, ETH sent in transfers under 1% of the quote is not credited by transaction; the
// detector's balance read finds it and credits it once, as one balance credit, when together it
// is 1% of the quote, and never again.
func TestETHDustIsCreditedByBalanceOnceItIsNoDust(t *testing.T) {
	t.Parallel()
	e := newDepositEnv(t)
	d := e.detector()
	st := e.receipt(300)
	id, deposit := st.Receipt.ReceiptID, st.Receipt.DepositAddress
	e.quote(id, "0.00300000") // 1%: 0.00003 ETH
	e.step(d)
	units := make([]*types.Transaction, 0, receipt.DustFreeCredits)
	for range receipt.DustFreeCredits {
		units = append(units, e.payToken(e.usdc, deposit, 1))
	}
	e.mined(units...)
	e.commit()
	e.step(d)
	send := func(n int) {
		txs := make([]*types.Transaction, 0, n)
		for range n {
			txs = append(txs, e.payETH(deposit, big.NewInt(1e12))) // 0.000001 ETH
		}
		e.mined(txs...)
		for range 3 {
			e.commit()
			e.step(d)
		}
	}
	send(5)
	if c := e.state(id).Credits; len(c) != receipt.DustFreeCredits {
		t.Fatalf("%d credits after 0.000005 ETH of dust, want %d", len(c), receipt.DustFreeCredits)
	}
	send(25)
	c := e.state(id).Credits
	if len(c) != receipt.DustFreeCredits+1 || c[len(c)-1].LogIndex != settlement.BalanceLogIndex || c[len(c)-1].AmountUnits != "30000000000000" {
		t.Fatalf("credits after 0.00003 ETH of dust: %d, last %+v", len(c), c[len(c)-1])
	}
	for range 3 {
		e.commit()
		e.step(d)
	}
	if n := len(e.state(id).Credits); n != receipt.DustFreeCredits+1 {
		t.Fatalf("%d credits after more steps, want %d", n, receipt.DustFreeCredits+1)
	}
}
