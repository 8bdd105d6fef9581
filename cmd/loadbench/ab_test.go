package main

import (
	"strings"
	"testing"
	"time"
)

// TestPrintABJudgesEachRoundAgainstItsOwnReference checks that each round's ratio is serve's CPU
// per order over the reference's in the same round, not across rounds, and the verdict beside it.
func TestPrintABJudgesEachRoundAgainstItsOwnReference(t *testing.T) {
	orders := func(n int64, serve time.Duration) orderFigures {
		return orderFigures{
			orders:  result{requests: n, perSecond: float64(n) / 15, cpu: cpuTotals{serve: serve, steal: 1500 * time.Millisecond}},
			floor:   result{perSecond: float64(n) / 15},
			ceiling: result{perSecond: 9000},
			rss:     100 << 10,
		}
	}
	rounds := []abRound{
		{ref: orders(1000, 200*time.Millisecond), cur: orders(2000, 240*time.Millisecond)}, // 200 µs an order; 120 µs: 60%
		{ref: orders(1000, 100*time.Millisecond), cur: orders(1000, 45*time.Millisecond)},  // 100 µs; 45 µs: 45%
	}
	var out strings.Builder
	printAB(&out, rounds, "1b1329e")
	for _, want := range []string{
		"| 1 | this checkout | 133 | 0, **120**, 0, 0 | 100% | 9000 | 100.0 MiB | 1.5s |",
		"round 1: serve CPU per order 120 µs = 60% of 1b1329e's 200 µs in the same round (target <= 50%: not met)",
		"round 2: serve CPU per order 45 µs = 45% of 1b1329e's 100 µs in the same round (target <= 50%: met)",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("missing %q in:\n%s", want, out.String())
		}
	}
}
