package chain_test

import (
	"context"
	"testing"
	"time"

	"github.com/payledger/payledger/chain"
)

// The look-back's range starts at the first block mined after a receipt was issued: found by
// block time, for every time from before genesis to after the head (blocks a second or several
// seconds apart), in a few batches of headers.
func TestFirstBlockAtIsTheFirstBlockAtOrAfterATime(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ctx := context.Background()
	for i := range 60 {
		if i%7 == 0 {
			e.ok(chain.AdjustTime(ctx, e.b, time.Duration(i%5+2)*time.Second))
		}
		e.commit()
	}
	s := chain.DepositScanner{RPC: e.rpc}
	head, err := s.Head(ctx)
	e.ok(err)
	numbers := make([]uint64, head+1)
	for n := range numbers {
		numbers[n] = uint64(n)
	}
	headers, err := e.rpc.HeadersByNumber(ctx, numbers)
	e.ok(err)
	for _, hi := range []uint64{0, 1, head / 2, head} {
		var times []int64 // around each block's time (block 0's may be 1970's), and after the head
		for n := range hi + 1 {
			times = append(times, int64(headers[n].Time)-1, int64(headers[n].Time), int64(headers[n].Time)+1)
		}
		for _, at := range append(times, int64(headers[hi].Time)+60) {
			want := hi + 1 // the first block up to hi at or after `at`, by reading them all
			for n := uint64(0); n <= hi; n++ {
				if int64(headers[n].Time) >= at {
					want = n
					break
				}
			}
			stats := e.rpc.Stats()
			got, err := s.FirstBlockAt(ctx, time.Unix(at, 0), hi)
			e.ok(err)
			if got != want {
				t.Fatalf("first block up to %d at or after %d: %d, want %d", hi, at, got, want)
			}
			// a first batch of at most 8 headers (hi, hi-1, hi-2, ..., 0), then batches of 8
			// narrowing at least 9 times: at most 3 round trips for 60 blocks
			if calls := e.rpc.Stats().Calls - stats.Calls; calls > 3 {
				t.Fatalf("%d round trips for the first block up to %d at or after %d, want at most 3", calls, hi, at)
			}
		}
	}
}
