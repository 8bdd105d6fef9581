package commands_test

import (
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/payledger/payledger/commands"
	"github.com/payledger/payledger/domain/receipt"
)

// Stop 69 (the refunds review): refunds of one receipt racing each other never bring back more
// than its total. Twenty refunds of 10.00 on the merchant's word (each with its own hash) of a
// 100.00 receipt at once: each is decided on the stream as folded and appended at its expected
// version, so exactly ten are taken, the rest refused for their amount, and the receipt is
// refunded 100.00.
func TestRefundsRacingNeverExceedTheTotal(t *testing.T) {
	t.Parallel()
	e := newPayEnv(t)
	h := commands.NewRefundHandler(e.store, &heldHashes{}, e.now)
	id := e.receipt(payMerchant, "USD", 10000)
	e.paid(id)
	var wg sync.WaitGroup
	errs := make([]error, 20)
	for i := range errs {
		wg.Go(func() {
			_, errs[i] = h.Handle(e.ctx, commands.Refund{ReceiptID: id, Reason: "race", AmountUSD: "10", TransactionHash: fmt.Sprintf("0x%064x", i+1), By: payMerchant})
		})
	}
	wg.Wait()
	taken := 0
	for i, err := range errs {
		switch {
		case err == nil:
			taken++
		case !errors.Is(err, receipt.ErrAmount) && !errors.Is(err, receipt.ErrState):
			t.Fatalf("refund %d: %v", i, err)
		}
	}
	l, err := commands.LoadReceipt(e.ctx, e.store, id)
	if err != nil {
		t.Fatal(err)
	}
	if st := l.State; taken != 10 || st.RefundedCents != 10000 || st.RequestedCents != 0 || st.Status != receipt.StatusRefunded {
		t.Fatalf("%d refunds taken, refunded %d requested %d, status %s; want 10, 10000, 0, refunded", taken, st.RefundedCents, st.RequestedCents, st.Status)
	}
}
