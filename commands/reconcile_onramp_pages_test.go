package commands_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/payledger/payledger/commands"
	"github.com/payledger/payledger/domain/receipt"
	"github.com/payledger/payledger/readmodels"
)

// More than a pass's worth (500) of open onramp attempts the processor has nothing new about
// (checkouts the customers left) must not keep a later one from being asked: the pass read the
// oldest 500 every time, so a receipt paid at the processor whose webhook was lost stayed
// unpaid for good, with no error anywhere. Passes now page through the list and wrap around.
func TestReconcileOnrampPagesPastQuietAttempts(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	pool, store, runner, stop := receiptsLedger(t, ctx)
	t.Cleanup(func() { cancel(); stop() })

	clk := &movingClock{t: time.Now()}
	e := &payEnv{t: t, ctx: ctx, store: store, at: clk.now()}
	e.configureSplit(payMerchant)
	f := newFakeProcessor()
	start := commands.NewStartOnrampHandler(store, commands.NewSplits(store), f, noPrices{}, clk.now)
	onramp := func() (string, commands.OnrampStarted) {
		id := e.receipt(payMerchant, "USD", 300)
		out, err := start.Handle(ctx, commands.StartOnramp{ReceiptID: id})
		if err != nil {
			t.Fatal(err)
		}
		clk.advance(time.Millisecond) // attempts in a known order
		return id, out
	}
	for range 500 {
		onramp() // the processor's session stays "created": nothing new
	}
	paid, out := onramp()
	f.set(out.SessionID, func(s *commands.OnrampSession) {
		s.Status, s.TransactionHash, s.SourceAmountUSD = "fulfillment_complete", "0x"+strings.Repeat("4", 64), amount("3.00")
	})
	if err := runner.WaitFor(ctx, out.Result.Position); err != nil {
		t.Fatal(err)
	}
	clk.advance(time.Minute)
	h := commands.NewReconcileOnrampHandler(store, f, readmodels.NewReceipts(pool), clk.now)
	for pass := 1; pass <= 3; pass++ {
		got, err := h.Handle(ctx, commands.ReconcileOnramp{})
		if err != nil || len(got.Failed) != 0 {
			t.Fatalf("pass %d: %+v %v", pass, got, err)
		}
	}
	if st := e.state(paid); st.Status != receipt.StatusPaid {
		t.Fatalf("after 3 passes the receipt the processor completed is %s: the 501st open attempt was never asked", st.Status)
	}
}
