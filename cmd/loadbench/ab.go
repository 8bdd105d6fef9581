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

type abRun struct {
	round   int
	binary  string
	figures orderFigures
}

// alternate builds revision's service and this checkout's (or takes prebuilt), measures each
// rounds times in turn, revision first, and prints the order figures of every round and the
// ratio of serve's CPU per order in each.
func alternate(base string, duration time.Duration, clients int, prebuilt, revision string, rounds int) error {
	if rounds < 1 {
		return fmt.Errorf("-rounds %d: at least one", rounds)
	}
	dir, err := os.MkdirTemp("", "loadbench-ab")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	ref, err := revisionBinary(revision, dir)
	if err != nil {
		return err
	}
	cur, err := payledgerBinary(prebuilt, dir)
	if err != nil {
		return err
	}
	var runs []abRun
	for r := 1; r <= rounds; r++ {
		for _, b := range []struct{ name, bin string }{{revision, ref}, {"this checkout", cur}} {
			fmt.Printf("\n## round %d: %s\n", r, b.name)
			figures, err := run(base, duration, clients, b.bin, 0, false)
			if err != nil {
				return fmt.Errorf("round %d, %s: %w", r, b.name, err)
			}
			runs = append(runs, abRun{round: r, binary: b.name, figures: figures})
		}
	}
	printAB(os.Stdout, runs, revision)
	return nil
}

// revisionBinary builds revision's ./cmd/payledger from its files (git archive) into dir.
func revisionBinary(revision, dir string) (string, error) {
	src, archive := filepath.Join(dir, "src"), filepath.Join(dir, "src.tar")
	bin := filepath.Join(dir, "payledger-reference")
	if err := os.MkdirAll(src, 0o755); err != nil {
		return "", err
	}
	steps := []*exec.Cmd{
		exec.Command("git", "archive", "--format=tar", "-o", archive, revision),
		exec.Command("tar", "-xf", archive, "-C", src),
		exec.Command("go", "build", "-o", bin, "./cmd/payledger"),
	}
	steps[2].Dir = src
	for i, c := range steps {
		if out, err := c.CombinedOutput(); err != nil {
			hint := ""
			if i == 0 {
				hint = " (is it in this clone's history? a shallow clone needs `git fetch --unshallow`; make bench takes another as AB_REF=<revision>)"
			}
			return "", fmt.Errorf("build %s: %s: %v: %s%s", revision, c.Args[0], err, bytes.TrimSpace(out), hint)
		}
	}
	return bin, nil
}

// printAB prints every round's order figures, then serve's CPU per order in each round against
// the reference's in the same round, beside the target.
func printAB(w io.Writer, runs []abRun, revision string) {
	fmt.Fprintf(w, "\n## %s against this checkout, alternating\n\n", revision)
	fmt.Fprintf(w, "| round | binary | orders/s | CPU per order: PostgreSQL, serve, client, machine (µs) | orders / the order's rows as plain SQL | serve VmHWM |\n|---|---|---|---|---|---|\n")
	for _, r := range runs {
		o := r.figures.orders
		fmt.Fprintf(w, "| %d | %s | %.0f | %.0f, **%.0f**, %.0f, %.0f | %.0f%% | %.1f MiB |\n", r.round, r.binary, o.perSecond,
			o.perRequest(o.cpu.postgres), o.perRequest(o.cpu.serve), o.perRequest(o.cpu.client), o.perRequest(o.cpu.busy),
			100*o.perSecond/r.figures.floor.perSecond, float64(r.figures.rss)/1024)
	}
	fmt.Fprintln(w)
	for i := 0; i+1 < len(runs); i += 2 {
		ref, cur := runs[i].figures.orders, runs[i+1].figures.orders
		share := cur.perRequest(cur.cpu.serve) / ref.perRequest(ref.cpu.serve)
		verdict := "met"
		if share > abTarget {
			verdict = "not met"
		}
		fmt.Fprintf(w, "issue 38 figure, round %d: serve CPU per order %.0f µs = %.0f%% of %s's %.0f µs in the same round (target <= %.0f%%: %s)\n",
			runs[i].round, cur.perRequest(cur.cpu.serve), 100*share, revision, ref.perRequest(ref.cpu.serve), 100*abTarget, verdict)
	}
}
