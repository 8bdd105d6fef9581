package settlement

import (
	"context"
	"time"

	"github.com/payledger/payledger/commands"
)

// DatabaseClock reads the database's clock (pgstore.Receipts.DatabaseNow).
type DatabaseClock interface {
	DatabaseNow(ctx context.Context) (time.Time, error)
}

// JudgedBy makes the database's clock the one that says when a window has ended: every instance
// runs the window's passes, and each judged by its own clock, so the instance whose clock ran
// fastest expired a receipt up to its skew before its expiresAt. With JudgedBy a pass's time is
// the database's clock read in the pass, moved by however far the handler's clock is from wall,
// the instance's own clock (in serve both are time.Now, so the pass's time is the database's; a
// test's clock moves it). wall is time.Now when nil. It returns h; call it before Run.
func (h *PaymentWindowHandler) JudgedBy(clock DatabaseClock, wall func() time.Time) *PaymentWindowHandler {
	if clock == nil {
		panic("settlement.PaymentWindowHandler.JudgedBy: nil clock")
	}
	if wall == nil {
		wall = time.Now
	}
	h.clock, h.wall = clock, wall
	return h
}

// passTime is the time a pass judges by: the handler's clock, moved by the database clock's
// offset from the wall clock (read now, against the middle of the read) when JudgedBy was given
// one. Errors: the database's.
func (h *PaymentWindowHandler) passTime(ctx context.Context) (time.Time, error) {
	if h.clock == nil {
		return h.now(), nil
	}
	offset, err := commands.DatabaseOffset(ctx, h.clock, h.wall) // the reconciliation's rule too
	if err != nil {
		return time.Time{}, err
	}
	return h.now().Add(offset), nil
}
