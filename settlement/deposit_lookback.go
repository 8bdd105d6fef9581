package settlement

import (
	"context"
	"fmt"
	"strings"
	"time"
)

// lookback finds the transfers to deposits that joined the watch list after blocks that may hold
// their payment were read: a receipt whose address was shown before its row was written. Serve
// shows an address before the row only in degraded mode (the order is journaled; its row comes
// when the journal is replayed, maybe after the detector has read the blocks mined meanwhile).
// Every other receipt's row is written before its address is shown, and the watch list is read
// after the chain's head, so the blocks already read were mined before it could be paid.
//
// So a deposit not watched at the last step (at a first step, with no watch list of its own: an
// unpaid one whose row was written after the step that saved the cursor began to read its watch
// list, firstStepDue) is looked for in the blocks already read that were not yet on the node
// when its receipt was issued (its CreatedAt): those after the newest head a step had read by
// then, or, issued before every head remembered, those from the block mined then (by block
// time). One eth_getLogs by recipient topic per 1,000 such deposits and MaxRange blocks; none
// in a step where no receipt came late. ETH is not looked for by transaction: the balance
// slices read every deposit quoted in ETH within a few blocks, which credits ETH already there.
type lookback struct {
	watched map[string]bool // the addresses of the last step that moved the cursor; nil before it
	heads   []headRead      // the newest block of recent steps, oldest first
	// cursorWatched is the saved cursor's WatchedAt, for a first step (firstStepDue).
	cursorWatched time.Time
}

// headRead is a step's newest block and a time by which every block up to it was on the node:
// when the step began to read its watch list, which the scan asks for after the head.
type headRead struct {
	number uint64
	at     time.Time
}

// headsKept bounds the heads remembered: a step a block, the last few minutes to hours.
const headsKept = 1024

// listMargin is how much earlier than the saved cursor's WatchedAt a row may have been written
// (its transaction begun: listed_at is the database's now()) and still have committed after that
// watch list was read: longer than any transaction that writes receipt rows.
const listMargin = time.Minute

// firstStepAge is how recently issued an unpaid deposit must be to be looked back for at a
// detector's first step when the saved cursor has no WatchedAt (saved before migration 035).
const firstStepAge = time.Hour

// firstStepDue says whether a detector's first step, which has no earlier watch list of its own,
// looks back for o. A restarted serve replays its journal as it starts, and the rows of the
// orders journaled before (however long before) may be written before that first step reads
// its watch list. Every row written before the step that saved the cursor read its watch list
// was watched by that step, and looked back for then if it was new to it (or that step's
// look-back failed, and it saved the WatchedAt before it). So an unpaid deposit is due when its
// row was written after that, less listMargin; with no such time saved, when it was issued
// within firstStepAge.
func (l *lookback) firstStepDue(o OpenDeposit, now time.Time) bool {
	if o.Settled {
		return false
	}
	if !l.cursorWatched.IsZero() {
		return o.Listed.After(l.cursorWatched.Add(-listMargin))
	}
	return o.CreatedAt.After(now.Add(-firstStepAge))
}

// sawHead records a step's newest block, read by at.
func (l *lookback) sawHead(number uint64, at time.Time) {
	if n := len(l.heads); n > 0 && l.heads[n-1].number >= number {
		return // no newer block: the head known by the older time still says as much
	}
	if len(l.heads) == headsKept {
		l.heads = append(l.heads[:0], l.heads[1:]...)
	}
	l.heads = append(l.heads, headRead{number: number, at: at})
}

// clockSkew is how much earlier than its receipt's issue, by block time, the look-back for a
// receipt issued before every head remembered begins: the service's clock and the chain's block
// times may disagree by seconds, and a few more blocks cost nothing.
const clockSkew = 5 * time.Minute

// lateDeposits is the deposits a step looks back for, and where: from block `from` on, or from
// the first block mined after `since` (not zero) when that is earlier.
type lateDeposits struct {
	addresses []string
	from      uint64
	since     time.Time // the earliest issue of a receipt issued before every head remembered
}

// due is the deposits of open to look for in blocks up to `to`: those not watched at the last
// step (at a detector's first step: firstStepDue) whose receipt was issued before a block up to
// `to` was on the node. A receipt issued before every head remembered (a detector that started
// after it) is looked for from the block mined when it was issued (since).
func (l *lookback) due(open []OpenDeposit, to uint64, now time.Time) lateDeposits {
	out := lateDeposits{from: to + 1}
	if to == 0 {
		return out
	}
	for _, o := range open {
		late := (l.watched == nil && l.firstStepDue(o, now)) || (l.watched != nil && !l.watched[o.Address])
		if !late {
			continue
		}
		first, known := l.firstUnread(o.CreatedAt)
		switch {
		case !known:
			if out.since.IsZero() || o.CreatedAt.Before(out.since) {
				out.since = o.CreatedAt
			}
		case first > to:
			continue // issued after every block up to `to` was read: nothing to look for
		default:
			out.from = min(out.from, first)
		}
		out.addresses = append(out.addresses, o.Address)
	}
	return out
}

// firstUnread is the first block that may have come after issued: the one after the newest head
// read by then; not known when every head remembered was read after it.
func (l *lookback) firstUnread(issued time.Time) (uint64, bool) {
	for i := len(l.heads) - 1; i >= 0; i-- {
		if !l.heads[i].at.After(issued) {
			return l.heads[i].number + 1, true
		}
	}
	return 0, false
}

// watching records the watch list of a step that moved the cursor, but for the deposits whose
// look-back failed (unread): they stay due, and are looked for again at the next step.
func (l *lookback) watching(open []OpenDeposit, unread []string) {
	if l.watched == nil {
		l.watched = make(map[string]bool, len(open))
	}
	clear(l.watched) // reused: 10,000 open deposits each step
	for _, o := range open {
		l.watched[o.Address] = true
	}
	for _, a := range unread {
		delete(l.watched, a)
	}
}

// lookBack returns the transfers to the deposits watched late (see lookback) in the blocks before
// first, the first block of this step's scan, in ranges of at most MaxRange blocks (a provider's
// limit on eth_getLogs). A look-back the node refuses does not hold the step (the deposits watched
// on time would wait for it): its deposits are returned as unread, to be looked for again at the
// next step, with the error (StepResult.LookBack: the worker's health reports it).
func (d *DepositDetector) lookBack(ctx context.Context, open []OpenDeposit, first uint64) ([]DepositTransfer, []string, error) {
	to := first - 1
	due := d.late.due(open, to, d.Now())
	if len(due.addresses) == 0 {
		return nil, nil, nil
	}
	from := due.from
	if !due.since.IsZero() {
		at, err := d.Chain.FirstBlockAt(ctx, due.since.Add(-clockSkew), to)
		if err != nil {
			return nil, due.addresses, fmt.Errorf("deposits: finding the blocks mined since %d deposits watched late were issued: %w", len(due.addresses), err)
		}
		from = min(from, at)
	}
	if from > to {
		return nil, nil, nil // every receipt due was issued after the blocks read
	}
	var late []DepositTransfer
	for lo := from; lo <= to; lo += d.maxRange() {
		found, err := d.Chain.TransfersTo(ctx, lo, min(to, lo+d.maxRange()-1), due.addresses)
		if err != nil {
			return nil, due.addresses, fmt.Errorf("deposits: the look-back for %d deposits watched late (blocks %d-%d): %w", len(due.addresses), from, to, err)
		}
		late = append(late, found...)
	}
	if err := d.canonical(ctx, late); err != nil {
		return nil, due.addresses, fmt.Errorf("deposits: the look-back for %d deposits watched late (blocks %d-%d): %w", len(due.addresses), from, to, err)
	}
	d.Log.Info().Int("deposits", len(due.addresses)).Uint64("from", from).Uint64("to", to).Int("transfers", len(late)).
		Msg("deposits: looked back for transfers to deposits watched late (issued before their row was written)")
	return late, nil, nil
}

// canonical checks that every transfer the look-back found is in the block on the chain at its
// number (one batch of headers, only when it found some): eth_getLogs by range may answer from a
// node on another branch (a load balancer's lagging node), and the look-back's blocks were read
// by no scan of this step. A transfer of another block fails the look-back, tried again next step.
func (d *DepositDetector) canonical(ctx context.Context, late []DepositTransfer) error {
	if len(late) == 0 {
		return nil
	}
	var numbers []uint64
	asked := map[uint64]bool{}
	for _, t := range late {
		if !asked[t.BlockNumber] {
			numbers, asked[t.BlockNumber] = append(numbers, t.BlockNumber), true
		}
	}
	hashes, err := d.Chain.BlockHashes(ctx, numbers)
	if err != nil {
		return err
	}
	for _, t := range late {
		if h := hashes[t.BlockNumber]; !strings.EqualFold(h, t.BlockHash) {
			return fmt.Errorf("transfer %s:%d is in block %d %s, the chain's block %d is %q", t.TransactionHash, t.LogIndex, t.BlockNumber, t.BlockHash, t.BlockNumber, h)
		}
	}
	return nil
}
