package commands

import (
	"context"
	"fmt"
	"time"
)

// One clock says when a payment window has ended: the database's. Every instance runs the
// window's passes, the reconciliation and the processor's webhooks, and each judged "before the
// end" by its own clock: the window by the database's since stop 71, but the reconciliation
// resumed an earlier session's payment under way (receipt.State.Resumable) and held a session's
// failure while the window was open by the instance's clock, and a processor event without
// `created` was dated by it. An instance whose clock ran behind the database's resumed a session
// after the database's end. Now each reads the database's clock (JudgedBy).

// DatabaseClock reads the database's clock (pgstore.Receipts.DatabaseNow: clock_timestamp() on
// the primary).
type DatabaseClock interface {
	DatabaseNow(ctx context.Context) (time.Time, error)
}

// DatabaseOffset is how far the database's clock is from wall, the instance's own clock: the
// database's reading against the middle of the read, none when the reading falls within the read.
// A handler's time is then its clock moved by the offset (in serve both clocks are time.Now, so
// the time is the database's; a test's clock moves it). Errors: the database's.
func DatabaseOffset(ctx context.Context, clock DatabaseClock, wall func() time.Time) (time.Duration, error) {
	before := wall()
	db, err := clock.DatabaseNow(ctx)
	if err != nil {
		return 0, fmt.Errorf("read the database's clock: %w", err)
	}
	after := wall()
	if !db.Before(before.Truncate(time.Microsecond)) && !db.After(after) {
		// The database read its clock (to the microsecond) between our two readings: the clocks
		// agree as closely as one read can tell. Taken as no offset, so a test's frozen clock
		// stays where the test put it (the middle of a slow read was up to its half before it,
		// and a pass at the instant an attempt began listed nothing: three CI failures).
		return 0, nil
	}
	return db.Sub(before.Add(after.Sub(before) / 2)), nil
}

// judgeClock is a handler's clock, judged by the database's when it has one (JudgedBy).
type judgeClock struct {
	now  func() time.Time
	db   DatabaseClock // nil: now alone
	wall func() time.Time
}

// judgedBy is c with db as the judge (wall: time.Now when nil). It panics on a nil db.
func (c judgeClock) judgedBy(db DatabaseClock, wall func() time.Time) judgeClock {
	if db == nil {
		panic("commands: JudgedBy a nil database clock")
	}
	if wall == nil {
		wall = time.Now
	}
	c.db, c.wall = db, wall
	return c
}

// read is the clock to judge by for a while (a pass, an event): now moved by the database's
// offset, read once. Errors: the database's.
func (c judgeClock) read(ctx context.Context) (func() time.Time, error) {
	if c.db == nil {
		return c.now, nil
	}
	offset, err := DatabaseOffset(ctx, c.db, c.wall)
	if err != nil {
		return nil, err
	}
	return func() time.Time { return c.now().Add(offset) }, nil
}

// JudgedBy makes the database's clock judge the reconciliation's "before the window's end" (the
// resumption of an earlier session's payment under way, the hold of the current session's
// failure while the window is open) and date what it records: each pass, and each Verify, reads
// the database's clock once and moves h's clock by its offset from wall (time.Now when nil). It
// returns h; call it before the handler is used.
func (h *ReconcileOnrampHandler) JudgedBy(clock DatabaseClock, wall func() time.Time) *ReconcileOnrampHandler {
	h.clock = h.clock.judgedBy(clock, wall)
	return h
}

// JudgedBy makes the database's clock date the processor's events: an event is dated by its
// `created` (the processor's own word of when its status arose), but never later than its arrival
// by the database's clock (a processor whose clock runs ahead does not date a report after the
// window's end that arrived before it), and by its arrival when it has no `created`. It returns
// h; call it before the handler is used.
func (h *ApplyProcessorEventHandler) JudgedBy(clock DatabaseClock, wall func() time.Time) *ApplyProcessorEventHandler {
	h.clock = h.clock.judgedBy(clock, wall)
	return h
}

// JudgedBy makes the database's clock judge a start's "before the window's end" and date the
// attempt (and an EUR receipt's first rate) it records: each start reads the database's clock
// once and moves h's clock by its offset from wall (time.Now when nil). An instance whose clock
// ran behind the database's started a session after the database's end, which the window's pass
// (judged by the database's clock) had already expired or was about to. It returns h; call it
// before the handler is used.
func (h *StartOnrampHandler) JudgedBy(clock DatabaseClock, wall func() time.Time) *StartOnrampHandler {
	h.clock = h.clock.judgedBy(clock, wall)
	return h
}

// JudgedBy makes the database's clock judge a quote's "before the window's end" (a held quote
// returned, a new one refused after it) and date the quote it records: each quote reads the
// database's clock once and moves h's clock by its offset from wall (time.Now when nil). It
// returns h; call it before the handler is used.
func (h *QuoteTokenHandler) JudgedBy(clock DatabaseClock, wall func() time.Time) *QuoteTokenHandler {
	h.clock = h.clock.judgedBy(clock, wall)
	return h
}
