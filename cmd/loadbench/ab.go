package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"time"
)

// Issue 38's same-run A/B: the order phases of this checkout's service and of another
// revision's, in alternating rounds on one machine, and serve's CPU per order of each with their
// ratio. Machines differ about fourfold on this path, so an order figure compares only with
// another binary's measured in the same run (docs/decisions.md, "How issue 38's order figures
// are judged across machines").

// abTarget is issue 38's ceiling for serve's CPU per order as a share of 1b1329e's: half (160 µs
// on the machine the issue was filed on, where 1b1329e used 324-350 µs).
const abTarget = 0.5

// abRound is one round: the reference revision's figures, then this checkout's.
type abRound struct{ ref, cur orderFigures }

// alternate builds revision's service and this checkout's (or takes prebuilt), measures each
// rounds times in turn, revision first, and prints the order figures of every round and the
// ratio of serve's CPU per order in each.
func alternate(base string, duration time.Duration, clients int, prebuilt, revision string, rounds int) error {
	if rounds < 1 {
		return fmt.Errorf("-rounds %d: at least one", rounds)
	}
	ref, cur, cleanup, err := abBinaries(revision, prebuilt)
	if err != nil {
		return err
	}
	defer cleanup()
	measure := func(round int, name, bin string) (orderFigures, error) {
		fmt.Printf("\n## round %d: %s\n", round, name)
		figures, err := run(base, duration, clients, bin, 0, false)
		if err != nil {
			return orderFigures{}, fmt.Errorf("round %d, %s: %w", round, name, err)
		}
		return figures, nil
	}
	all := make([]abRound, rounds)
	for i := range all {
		if all[i].ref, err = measure(i+1, revision, ref); err != nil {
			return err
		}
		if all[i].cur, err = measure(i+1, "this checkout", cur); err != nil {
			return err
		}
	}
	printAB(os.Stdout, all, revision)
	return nil
}

// abBinaries builds revision's service and this checkout's (or takes prebuilt) into a temporary
// directory that cleanup removes.
func abBinaries(revision, prebuilt string) (ref, cur string, cleanup func(), err error) {
	dir, err := os.MkdirTemp("", "loadbench-ab")
	if err != nil {
		return "", "", nil, err
	}
	cleanup = func() { os.RemoveAll(dir) }
	if ref, err = revisionBinary(revision, dir); err == nil {
		cur, err = payledgerBinary(prebuilt, dir)
	}
	if err != nil {
		cleanup()
		return "", "", nil, err
	}
	return ref, cur, cleanup, nil
}

// revisionBinary builds revision's ./cmd/payledger from its files (git archive) into dir.
func revisionBinary(revision, dir string) (string, error) {
	src, archive := filepath.Join(dir, "src"), filepath.Join(dir, "src.tar")
	if err := os.MkdirAll(src, 0o755); err != nil {
		return "", err
	}
	if out, err := exec.Command("git", "archive", "--format=tar", "-o", archive, revision).CombinedOutput(); err != nil {
		return "", fmt.Errorf("%s: git archive: %v: %s (is it in this clone's history? a shallow clone needs `git fetch --unshallow`; make bench takes another as AB_REF=<revision>)",
			revision, err, bytes.TrimSpace(out))
	}
	if out, err := exec.Command("tar", "-xf", archive, "-C", src).CombinedOutput(); err != nil {
		return "", fmt.Errorf("%s: tar: %v: %s", revision, err, bytes.TrimSpace(out))
	}
	bin := filepath.Join(dir, "payledger-reference")
	if err := buildPayledger(src, bin); err != nil {
		return "", fmt.Errorf("%s: %w", revision, err)
	}
	return bin, nil
}

// printAB prints every round's order figures, then serve's CPU per order in each round against
// the reference's in the same round, beside the target.
func printAB(w io.Writer, rounds []abRound, revision string) {
	fmt.Fprintf(w, "\n## %s against this checkout, alternating\n\n", revision)
	// The raw-SQL ceiling of each run shows how fast the machine was then: on a shared host the
	// same binary's figures move by a third from one run to the next, and the ceiling with them.
	fmt.Fprintf(w, "| round | binary | orders/s | CPU per order: PostgreSQL, serve, client, machine (µs) | orders / the order's rows as plain SQL | raw-SQL ceiling (writes/s) | serve VmHWM | stolen by the hypervisor |\n|---|---|---|---|---|---|---|---|\n")
	row := func(round int, binary string, f orderFigures) {
		o := f.orders
		fmt.Fprintf(w, "| %d | %s | %.0f | %.0f, **%.0f**, %.0f, %.0f | %.0f%% | %.0f | %.1f MiB | %s |\n", round, binary, o.perSecond,
			o.perRequest(o.cpu.postgres), o.perRequest(o.cpu.serve), o.perRequest(o.cpu.client), o.perRequest(o.cpu.busy),
			100*o.perSecond/f.floor.perSecond, f.ceiling.perSecond, float64(f.rss)/1024, o.cpu.steal)
	}
	for i, r := range rounds {
		row(i+1, revision, r.ref)
		row(i+1, "this checkout", r.cur)
	}
	fmt.Fprintln(w)
	for i, r := range rounds {
		ref, cur := r.ref.orders.perRequest(r.ref.orders.cpu.serve), r.cur.orders.perRequest(r.cur.orders.cpu.serve)
		verdict := "met"
		if cur/ref > abTarget {
			verdict = "not met"
		}
		fmt.Fprintf(w, "issue 38 figure, round %d: serve CPU per order %.0f µs = %.0f%% of %s's %.0f µs in the same round (target <= %.0f%%: %s)\n",
			i+1, cur, 100*cur/ref, revision, ref, 100*abTarget, verdict)
	}
}
