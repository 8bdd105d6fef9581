package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"sort"
	"time"
)

// Issue 38's A/B with short bursts: the two services run side by side, each on its own fresh
// database, and take turns under the order load, a burst each, many times. On a shared machine
// a whole run (about 50 s) can land in a slow stretch that the other binary's run misses: the
// same binary's order phase went from 4,000 to 2,900 orders/s and its CPU per order up by 40%
// from one run to the next (docs/benchmarks.md, "forty-first machine"). Bursts a few seconds
// apart meet the same stretches, so each pair compares like with like, and the ratio of all
// the bursts' CPU is judged, beside each pair's.

// burstPair is one turn of each service: the reference's burst, then this checkout's.
type burstPair struct{ ref, cur result }

// burstSettle is the pause after a burst, before the other service's: the projectors of the
// service that was loaded finish their last reads, on its own CPU, not in the next burst's time.
const burstSettle = time.Second

// interleave builds revision's service and this checkout's (or takes prebuilt), starts both,
// and runs pairs turns of order bursts of d each, revision first in every pair; it prints every
// pair and the verdict on the totals.
func interleave(base string, d time.Duration, clients int, prebuilt, revision string, pairs int) error {
	if pairs < 1 {
		return fmt.Errorf("-pairs %d: at least one", pairs)
	}
	refBin, curBin, cleanup, err := abBinaries(revision, prebuilt)
	if err != nil {
		return err
	}
	defer cleanup()
	ctx := context.Background()
	ref, err := launch(ctx, base, refBin, clients)
	if err != nil {
		return fmt.Errorf("%s: %w", revision, err)
	}
	defer ref.stop()
	cur, err := launch(ctx, base, curBin, clients)
	if err != nil {
		return fmt.Errorf("this checkout: %w", err)
	}
	defer cur.stop()
	burst := func(l *launched) result {
		wires := make([]*wireClient, clients)
		for i := range wires {
			wires[i] = &wireClient{addr: l.svc.addr}
		}
		r, _ := ordersPhase(l.svc.pid(), l.svc.addr, l.key, wires, d)
		time.Sleep(burstSettle)
		return r
	}
	burst(ref) // a first turn each, not counted: connections, caches, prepared statements
	burst(cur)
	all := make([]burstPair, pairs)
	for i := range all {
		all[i] = burstPair{ref: burst(ref), cur: burst(cur)}
		fmt.Fprintf(os.Stderr, "loadbench: pair %d of %d\n", i+1, pairs)
	}
	printBursts(os.Stdout, all, revision, peakRSS(ref.svc.pid()), peakRSS(cur.svc.pid()))
	return nil
}

// printBursts prints every pair (orders/s and serve's CPU per order of each, and their ratio),
// then the ratio of all this checkout's bursts' serve CPU per order to all the reference's, and
// the pairs' median ratio, beside the target.
func printBursts(w io.Writer, pairs []burstPair, revision string, refRSS, curRSS int64) {
	fmt.Fprintf(w, "\n## %s against this checkout, interleaved bursts\n\n", revision)
	fmt.Fprintf(w, "| pair | %s orders/s | %s serve CPU per order | this checkout orders/s | this checkout serve CPU per order | ratio | errors |\n|---|---|---|---|---|---|---|\n", revision, revision)
	var refCPU, curCPU time.Duration
	var refN, curN int64
	ratios := make([]float64, 0, len(pairs))
	for i, p := range pairs {
		rs, cs := p.ref.perRequest(p.ref.cpu.serve), p.cur.perRequest(p.cur.cpu.serve)
		ratio := 0.0
		if rs > 0 {
			ratio = cs / rs
			ratios = append(ratios, ratio)
		}
		fmt.Fprintf(w, "| %d | %.0f | %.0f µs | %.0f | %.0f µs | %.0f%% | %d, %d |\n", i+1, p.ref.perSecond, rs, p.cur.perSecond, cs, 100*ratio, p.ref.errors, p.cur.errors)
		refCPU, curCPU, refN, curN = refCPU+p.ref.cpu.serve, curCPU+p.cur.cpu.serve, refN+p.ref.requests, curN+p.cur.requests
	}
	if refN == 0 || curN == 0 || refCPU == 0 || len(ratios) == 0 {
		fmt.Fprintln(w, "\nno orders measured")
		return
	}
	sort.Float64s(ratios)
	median := ratios[len(ratios)/2]
	if len(ratios)%2 == 0 {
		median = (ratios[len(ratios)/2-1] + ratios[len(ratios)/2]) / 2
	}
	refPer, curPer := float64(refCPU.Microseconds())/float64(refN), float64(curCPU.Microseconds())/float64(curN)
	verdict := "met"
	if curPer/refPer > abTarget {
		verdict = "not met"
	}
	fmt.Fprintf(w, "\nserve peak resident memory (VmHWM): %s %.1f MiB, this checkout %.1f MiB\n", revision, float64(refRSS)/1024, float64(curRSS)/1024)
	fmt.Fprintf(w, "issue 38 figure, %d interleaved pairs: serve CPU per order %.0f µs = %.0f%% of %s's %.0f µs over all bursts (pairs' median %.0f%%; target <= %.0f%%: %s)\n",
		len(pairs), curPer, 100*curPer/refPer, revision, refPer, 100*median, 100*abTarget, verdict)
}
