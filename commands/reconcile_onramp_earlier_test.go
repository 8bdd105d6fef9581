package commands_test

import (
	"strings"
	"testing"
	"time"

	"github.com/payledger/payledger/commands"
	"github.com/payledger/payledger/domain/receipt"
	"github.com/payledger/payledger/readmodels"
)

// A customer leaves a card checkout, starts another, and pays the first one in its own tab; the
// processor's webhook of that payment is lost. The reconciliation asked the processor about the
// receipt's current session only (still "created"), so the receipt stayed unpaid while the
// customer had paid. A completed earlier session now pays it; an earlier session the processor
// expired changes nothing (its failure is not the current attempt's, and recorded on every pass
// it would grow the receipt's stream).
func TestReconcileOnrampAsksAboutAnEarlierSession(t *testing.T) {
	t.Parallel()
	rc := newReconcileEnv(t)
	ctx, pool, store, runner, clk, e, f, start := rc.ctx, rc.pool, rc.store, rc.runner, rc.clk, rc.pay, rc.proc, rc.start
	begin := func(id string) commands.OnrampStarted {
		out, err := start.Handle(ctx, commands.StartOnramp{ReceiptID: id})
		if err != nil {
			t.Fatal(err)
		}
		if err := runner.WaitFor(ctx, out.Result.Position); err != nil {
			t.Fatal(err)
		}
		clk.advance(time.Millisecond)
		return out
	}
	paid := e.receipt(payMerchant, "USD", 300)
	left := begin(paid)
	begin(paid) // the second checkout: still "created"
	f.set(left.SessionID, func(s *commands.OnrampSession) {
		s.Status, s.TransactionHash, s.SourceAmountUSD = "fulfillment_complete", "0x"+strings.Repeat("7", 64), amount("3.00")
	})
	expired := e.receipt(payMerchant, "USD", 300)
	gone := begin(expired)
	begin(expired)
	f.set(gone.SessionID, func(s *commands.OnrampSession) { s.Status = "expired" })
	before := e.history(expired)

	clk.advance(time.Minute)
	h := commands.NewReconcileOnrampHandler(store, f, readmodels.NewReceipts(pool), clk.now)
	for pass := 1; pass <= 2; pass++ {
		if got, err := h.Handle(ctx, commands.ReconcileOnramp{}); err != nil || len(got.Failed) != 0 {
			t.Fatalf("pass %d: %+v %v", pass, got, err)
		}
	}
	if st := e.state(paid); st.Status != receipt.StatusPaid || st.Payment == nil || st.Payment.AttemptID != left.AttemptID {
		t.Fatalf("the receipt whose earlier session the processor completed: %s, %s", st.Status, e.history(paid))
	}
	if st := e.state(expired); st.Status != receipt.StatusGenerated || e.history(expired) != before {
		t.Fatalf("an earlier session the processor expired: %s, %s (was %s)", st.Status, e.history(expired), before)
	}
}
