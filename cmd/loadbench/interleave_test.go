package main

import (
	"strings"
	"testing"
	"time"
)

// TestPrintBurstsJudgesAllBurstsTogether checks that the verdict is this checkout's serve CPU per
// order over all its bursts against the reference's over all of its, with each pair's ratio and
// the pairs' median beside it.
func TestPrintBurstsJudgesAllBurstsTogether(t *testing.T) {
	burst := func(n int64, serve time.Duration) result {
		return result{requests: n, perSecond: float64(n) / 5, cpu: cpuTotals{serve: serve}}
	}
	pairs := []burstPair{
		{ref: burst(1000, 300*time.Millisecond), cur: burst(1000, 150*time.Millisecond)}, // 300 and 150 µs: 50%
		{ref: burst(1000, 200*time.Millisecond), cur: burst(3000, 360*time.Millisecond)}, // 200 and 120 µs: 60%
		{ref: burst(2000, 400*time.Millisecond), cur: burst(1000, 140*time.Millisecond)}, // 200 and 140 µs: 70%
	}
	var out strings.Builder
	printBursts(&out, pairs, "1b1329e", 100<<10, 200<<10)
	for _, want := range []string{
		"| 2 | 200 | 200 µs | 600 | 120 µs | 60% | 0, 0 |",
		// all bursts: 650 µs in 5,000 orders, 900 µs in 4,000: 130 and 225 µs per order, 58%
		"issue 38 figure, 3 interleaved pairs: serve CPU per order 130 µs = 58% of 1b1329e's 225 µs over all bursts (pairs' median 60%; target <= 50%: not met)",
		"1b1329e 100.0 MiB, this checkout 200.0 MiB",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("missing %q in:\n%s", want, out.String())
		}
	}
}
