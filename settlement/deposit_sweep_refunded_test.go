package settlement_test

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/payledger/payledger/commands"
	"github.com/payledger/payledger/domain/money"
	"github.com/payledger/payledger/domain/receipt"
	"github.com/payledger/payledger/eventstore"
)

// A refund is sent from the merchant's own wallet, so a deposit receipt refunded before its sweep
// went through (the sweeper down, the operator out of gas money) still has the customer's payment
// at its deposit, which can only ever go to the split. It is swept there: before, a receipt no
// longer paid or reconciled was never claimed, and the merchant paid the refund and never got the
// payment. A receipt whose refund claim is still open (refund_requested) is swept too.
func TestDepositSweepOfARefundedReceipt(t *testing.T) {
	t.Parallel()
	e := newSweepEnv(t)
	merchant, _, st, _ := e.merchantWithSplit()
	ids, deposits, units := e.paidAt(merchant, st.Address, []money.Cents{1000, 500})
	refunded, claimed := ids[0], ids[1]

	e.refund(refunded, "0x"+strings.Repeat("ab", 32), true)
	e.refund(claimed, "0x"+strings.Repeat("cd", 32), false)
	if s := e.state(refunded).Status; s != receipt.StatusRefunded {
		t.Fatalf("refunded receipt: %s", s)
	}
	if s := e.state(claimed).Status; s != receipt.StatusRefundRequested {
		t.Fatalf("claimed receipt: %s", s)
	}

	h := e.sweeperOf(e.sweeper)
	e.sweepAll(h, refunded, claimed)
	for i, id := range ids {
		if b := e.balanceOf("USDC", deposits[i]); b.Sign() != 0 {
			t.Errorf("deposit of %s still holds %s", id, b)
		}
		if sw := e.sweptEvents(id); len(sw) != 1 || sw[0].AmountUnits != strconv.FormatInt(units[i], 10) {
			t.Errorf("receipt %s swept %+v, want %d", id, sw, units[i])
		}
	}
	if s := e.state(refunded).Status; s != receipt.StatusRefunded {
		t.Fatalf("the sweep changed the status: %s", s)
	}
	// Swept: a pass sends nothing more for them.
	if out, err := h.Handle(e.ctx); err != nil || out.Sent != 0 {
		t.Fatalf("an idle pass: %+v %v", out, err)
	}
}

// refund claims the whole of receipt id refunded by hash and, when processed, records the
// chain's proof of it (refunded); otherwise the claim stays open (refund_requested).
func (e *sweepEnv) refund(id, hash string, processed bool) {
	e.t.Helper()
	meta := eventstore.Metadata{Actor: "test"}
	_, res, err := commands.ChangeReceipt(e.ctx, e.store, id, meta, func(s receipt.State) ([]receipt.Event, error) {
		return receipt.Refund(s, 0, "returned", hash, "merchant", time.Now().UnixMilli())
	})
	if err != nil {
		e.t.Fatal(err)
	}
	if processed {
		_, res, err = commands.ChangeReceipt(e.ctx, e.store, id, meta, func(s receipt.State) ([]receipt.Event, error) {
			return receipt.ProcessRefund(s, receipt.RefundProcessed{TransactionHash: hash, ProcessedBy: "chain", At: time.Now().UnixMilli()})
		})
		if err != nil {
			e.t.Fatal(err)
		}
	}
	e.projected(id, res.Version)
}
