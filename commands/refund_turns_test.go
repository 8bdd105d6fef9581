package commands_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"

	"github.com/payledger/payledger/commands"
	"github.com/payledger/payledger/eventstore"
)

// heldAppends is a store whose first append once held waits until let is closed; it counts the
// appends refused for their expected version.
type heldAppends struct {
	commands.Store
	held      atomic.Bool
	let       chan struct{}
	conflicts atomic.Int64
}

func (s *heldAppends) Append(ctx context.Context, stream string, expected eventstore.ExpectedVersion, events ...eventstore.EventData) (eventstore.AppendResult, error) {
	if s.held.CompareAndSwap(true, false) {
		<-s.let
	}
	res, err := s.Store.Append(ctx, stream, expected, events...)
	if errors.Is(err, eventstore.ErrWrongExpectedVersion) {
		s.conflicts.Add(1)
	}
	return res, err
}

// Stop 71 (the refunds review): refunds of one receipt take turns in a process. While one
// refund's append is in flight, another refund of the same receipt waits for it instead of
// loading the same version, appending first and sending the first back to load again: 20 at once
// cost about 190 failed appends and reloads, and on a loaded CI machine the last ran out of the
// pipeline's 10 s conflict budget (409). synctest.Wait returns once every goroutine of the test
// is blocked: the second refund is then waiting for its turn (before: it had been recorded, and
// the first one's append then conflicted).
func TestRefundsOfOneReceiptTakeTurns(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := newPayEnv(t)
		store := &heldAppends{Store: e.store, let: make(chan struct{})}
		h := commands.NewRefundHandler(store, &heldHashes{}, e.now)
		id, other := e.receipt(payMerchant, "USD", 10000), e.receipt(payMerchant, "USD", 10000)
		e.paid(id)
		e.paid(other)
		refund := func(receiptID string, n int) error {
			_, err := h.Handle(e.ctx, commands.Refund{ReceiptID: receiptID, Reason: "turns", AmountUSD: "10", TransactionHash: fmt.Sprintf("0x%064x", n), By: payMerchant})
			return err
		}
		store.held.Store(true)
		var wg sync.WaitGroup
		errs := make([]error, 2)
		wg.Go(func() { errs[0] = refund(id, 1) })
		synctest.Wait() // the first refund's append is held
		second := make(chan struct{})
		wg.Go(func() { errs[1] = refund(id, 2); close(second) })
		synctest.Wait()
		select {
		case <-second:
			close(store.let)
			wg.Wait()
			t.Fatalf("the second refund was decided while the first one's append was in flight (%v)", errs[1])
		default:
		}
		if err := refund(other, 3); err != nil { // another receipt's refund does not wait for this one's turn
			t.Fatalf("another receipt's refund: %v", err)
		}
		close(store.let)
		wg.Wait()
		if errs[0] != nil || errs[1] != nil {
			t.Fatalf("refunds: %v, %v", errs[0], errs[1])
		}
		if st := e.state(id); st.RefundedCents != 2000 || store.conflicts.Load() != 0 {
			t.Fatalf("refunded %d with %d version conflicts; want 2000 and none", st.RefundedCents, store.conflicts.Load())
		}
	})
}
