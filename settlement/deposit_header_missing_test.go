package settlement_test

import (
	"context"
	"testing"

	"github.com/payledger/payledger/domain/receipt"
	"github.com/payledger/payledger/settlement"
)

// headerless is the env's chain behind a load balancer whose node answering the batch of
// headers lags: it has no header (null) for block missing, though another node gave the head
// past it.
type headerless struct {
	settlement.DepositChain
	missing uint64
}

func (h headerless) BlockHashes(ctx context.Context, numbers []uint64) (map[uint64]string, error) {
	out, err := h.DepositChain.BlockHashes(ctx, numbers)
	delete(out, h.missing)
	return out, err
}

// TestDepositHeaderNotAnsweredDropsNothing (stop 65): a transfer seen unconfirmed, judged at its
// depth by a restarted detector (no block hashes remembered) over a node that answers no header
// for its block, was recorded dropped: a missing header was taken for a block replaced. A
// dropped credit is never judged again (only a rescan of its block would see it again), so the
// buyer's 10 USDC never counted and the window would fail a paid receipt. A header not answered
// now judges nothing: the next step, with the header, confirms the payment.
func TestDepositHeaderNotAnsweredDropsNothing(t *testing.T) {
	t.Parallel()
	e := newDepositEnv(t)
	st := e.receipt(1000)
	id := st.Receipt.ReceiptID
	e.step(e.detector())
	tx := e.payToken(e.usdc, st.Receipt.DepositAddress, 10_000_000)
	e.mined(tx)
	r, err := e.sim.TransactionReceipt(e.ctx, tx.Hash())
	e.ok(err)
	e.step(e.detector()) // seen at depth 1: pending
	if st := e.want(id, receipt.StatusPending, "0.00"); len(st.Credits) != 1 || st.Credits[0].Confirmed {
		t.Fatalf("credits after the first step: %+v", st.Credits)
	}
	e.commit()

	d := e.detector() // a restart: the transfer's block is judged by its header
	d.Chain = headerless{DepositChain: d.Chain, missing: r.BlockNumber.Uint64()}
	e.step(d)
	if st := e.state(id); len(st.Credits) != 1 || st.Credits[0].Dropped {
		t.Fatalf("a header not answered dropped the transfer: credits %+v", st.Credits)
	}
	e.commit()
	e.step(e.detector())
	e.want(id, receipt.StatusPaid, "10.00")
}
