package settlement

import (
	"context"
	"fmt"
	"time"
)

// StuckACH lists the receipts left ach_pending by the short completion of their ACH payment
// recorded before stop 69 (receipt.State.ACHStuck; readmodels.Receipts.StuckACHReceipts), at
// most limit. Nothing else reopens them: no report of the processor changes them again, the
// window never expires an ach_pending receipt, and the reconciliation leaves them off its list.
type StuckACH interface {
	StuckACHReceipts(ctx context.Context, limit int) ([]string, error)
}

// reopenEvery is how often the payment window process looks for stuck ACH receipts. They exist
// only in streams recorded before stop 69 (the short completion reopens the receipt since), so
// after an upgrade the first pass finds them all (Batch at a time) and later looks find none;
// looking every pass (each second) would read the ach_pending receipts for nothing.
const reopenEvery = time.Minute

// WithStuckACH is the due list with the stuck ACH receipts: the payment window process given it
// reopens those (receipt.ReopenStuckACH) and then decides their window as any other's.
func WithStuckACH(due DueWindows, stuck StuckACH) DueWindows {
	if due == nil || stuck == nil {
		panic("settlement.WithStuckACH: nil dependency")
	}
	return dueWithStuck{due: due, stuck: stuck}
}

// dueWithStuck is WithStuckACH's list.
type dueWithStuck struct {
	due   DueWindows
	stuck StuckACH
}

func (d dueWithStuck) DueWindows(ctx context.Context, now time.Time, after WindowCursor, limit int) ([]DueWindow, error) {
	return d.due.DueWindows(ctx, now, after, limit)
}

func (d dueWithStuck) StuckACHReceipts(ctx context.Context, limit int) ([]string, error) {
	return d.stuck.StuckACHReceipts(ctx, limit)
}

// stuckDue is the stuck ACH receipts to reopen in this pass (h.mu held): none when the due
// list has no StuckACH, or the last look was less than reopenEvery ago and found fewer than a
// batch. Errors: the list's.
func (h *PaymentWindowHandler) stuckDue(ctx context.Context, now time.Time) ([]string, error) {
	stuck, ok := h.due.(StuckACH)
	if !ok || now.Before(h.nextReopen) {
		return nil, nil
	}
	ids, err := stuck.StuckACHReceipts(ctx, h.cfg.Batch)
	if err != nil {
		return nil, fmt.Errorf("list stuck ACH receipts: %w", err)
	}
	if len(ids) < h.cfg.Batch {
		h.nextReopen = now.Add(reopenEvery)
	}
	return ids, nil
}
