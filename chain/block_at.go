package chain

import (
	"context"
	"fmt"
	"time"
)

// probesPerRound is how many headers each narrowing batch of FirstBlockAt reads: the interval
// left shrinks about this many times plus one a round trip.
const probesPerRound = 8

// FirstBlockAt implements settlement.DepositChain: the first block up to hi whose timestamp is at
// or after t (to the second), hi+1 when block hi's is before t. Block timestamps never decrease
// along a chain, so this is a search: one batch of headers at hi, hi-1, hi-2, hi-4, ... down to
// block 0 (log2(hi) of them) brackets the answer, then batches of probesPerRound headers spread
// over the bracket narrow it. An hour of 250 ms blocks back is 6 round trips and about 65
// requests (a batch's headers each count as one): the look-back does it only for a receipt
// issued before every head its detector remembers.
func (s DepositScanner) FirstBlockAt(ctx context.Context, t time.Time, hi uint64) (uint64, error) {
	at := uint64(max(t.Unix(), 0))
	probes := []uint64{hi}
	for step := uint64(1); step <= hi; step *= 2 {
		probes = append(probes, hi-step)
	}
	if probes[len(probes)-1] != 0 {
		probes = append(probes, 0)
	}
	// lo is the newest block known to be before t (-1: none), up the oldest known at or after it
	// (hi+1: none).
	lo, up := int64(-1), hi+1
	for {
		headers, err := s.RPC.HeadersByNumber(ctx, probes)
		if err != nil {
			return 0, fmt.Errorf("chain: the first block after %s: %w", t.UTC().Format(time.RFC3339), err)
		}
		for i, h := range headers {
			if h == nil {
				return 0, fmt.Errorf("chain: block %d is not on the node (a reorganisation shortened the chain?)", probes[i])
			}
			if h.Number == nil || !h.Number.IsUint64() || h.Number.Uint64() != probes[i] {
				return 0, fmt.Errorf("chain: asked for block %d, the node answered block %v", probes[i], h.Number)
			}
			if n := probes[i]; h.Time < at {
				lo = max(lo, int64(n))
			} else {
				up = min(up, n)
			}
		}
		if lo >= 0 && uint64(lo) >= up { // a block after t below one before it: no chain's stamps
			return 0, fmt.Errorf("chain: the first block after %s: block %d is stamped before it and block %d, lower, after it (the node's timestamps decrease)",
				t.UTC().Format(time.RFC3339), lo, up)
		}
		// The first round probed block 0 and block hi: lo < 0 or up > hi answer at once.
		if lo < 0 || up-uint64(lo) <= 1 {
			return up, nil
		}
		probes = spread(uint64(lo), up)
	}
}

// spread is up to probesPerRound block numbers strictly between before and after, evenly spaced.
func spread(before, after uint64) []uint64 {
	gap := after - before
	k := min(gap-1, probesPerRound)
	out := make([]uint64, 0, k)
	for i := uint64(1); i <= k; i++ {
		out = append(out, before+i*gap/(k+1)) // strictly increasing: gap >= k+1
	}
	return out
}
