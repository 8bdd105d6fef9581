package pgstore

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/payledger/payledger/commands"
	"github.com/payledger/payledger/migrations/pgtest"
)

// TestPaymentHintsKeepIsLimitedUnderConcurrency: 40 hints for one receipt at once (from as many
// connections) keep exactly 20; a repeat of a kept hash is not fresh and not counted; another
// receipt has its own 20.
func TestPaymentHintsKeepIsLimitedUnderConcurrency(t *testing.T) {
	pool := pgtest.Pool(t)
	hints, ctx, now := NewPaymentHints(pool), context.Background(), time.Now()
	hint := func(receipt string, n int) commands.PaymentHint {
		return commands.PaymentHint{ReceiptID: receipt, TransactionHash: fmt.Sprintf("0x%064x", n), Token: "USDC",
			BuyerWallet: "0x" + fmt.Sprintf("%040x", 1), SubmittedAt: now}
	}
	var kept, limited atomic.Int32
	var wg sync.WaitGroup
	for n := range 40 {
		wg.Go(func() {
			fresh, err := hints.Keep(ctx, hint("rcpt_a", n), commands.MaxHintsPerHour)
			switch {
			case errors.Is(err, commands.ErrHintsLimited):
				limited.Add(1)
			case err != nil:
				t.Error(err)
			case fresh:
				kept.Add(1)
			}
		})
	}
	wg.Wait()
	if kept.Load() != 20 || limited.Load() != 20 {
		t.Fatalf("kept %d, limited %d; want 20 and 20", kept.Load(), limited.Load())
	}
	waiting, err := hints.Waiting(ctx, now.Add(-time.Minute), 100)
	if err != nil || len(waiting) != 20 {
		t.Fatalf("waiting %d %v", len(waiting), err)
	}
	if fresh, err := hints.Keep(ctx, waiting[0], commands.MaxHintsPerHour); err != nil || fresh {
		t.Fatalf("a repeat of a kept hash: fresh %v, %v", fresh, err)
	}
	if fresh, err := hints.Keep(ctx, hint("rcpt_b", 1), commands.MaxHintsPerHour); err != nil || !fresh {
		t.Fatalf("another receipt: fresh %v, %v", fresh, err)
	}
}
