package projections

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/payledger/payledger/eventstore"
)

// TestFailuresRunLastsUntilACommitOrAQuietSpell: a runner's run of failures starts at its first
// failure and goes on through later ones, and through a batch being applied however long it
// takes (a transaction ended after 30 s idle fails only then); a commit ends it, and so does
// failQuiet without a failure or a batch (the database answered again with nothing to apply).
func TestFailuresRunLastsUntilACommitOrAQuietSpell(t *testing.T) {
	var f failures
	t0 := time.Unix(1_800_000_000, 0)
	first, second := errors.New("first"), errors.New("second")
	if since, _, err := f.reading(t0); !since.IsZero() || err != nil {
		t.Fatalf("failing since %v (%v) before any failure", since, err)
	}
	if !f.failed(first, t0) || f.failed(second, t0.Add(2*time.Second)) {
		t.Fatal("the first failure of a run is not told from the next")
	}
	f.begin(t0.Add(2*time.Second), "a batch") // the next attempt's batch waits 40 s and fails
	if since, last, err := f.reading(t0.Add(42 * time.Second)); !since.Equal(t0) || !last.Equal(t0.Add(2*time.Second)) || err != second {
		t.Fatalf("reading %v %v %v during a long attempt, want the run since t0 with its latest failure", since, last, err)
	}
	f.end(t0.Add(42 * time.Second)) // before its failure reaches Run
	f.failed(second, t0.Add(42*time.Second))
	if since, _, _ := f.reading(t0.Add(42*time.Second + failQuiet - time.Millisecond)); !since.Equal(t0) {
		t.Fatalf("failing since %v just within failQuiet, want t0", since)
	}
	quiet := t0.Add(42*time.Second + failQuiet)
	if since, _, err := f.reading(quiet); !since.IsZero() || err != nil {
		t.Fatalf("failing since %v (%v) after failQuiet without a failure, want none", since, err)
	}
	f.failed(first, quiet)
	if since, _, _ := f.reading(quiet); !since.Equal(quiet) {
		t.Fatalf("a failure after a quiet spell starts a run at %v, want %v", since, quiet)
	}
	f.progressed()
	if since, _, err := f.reading(quiet); !since.IsZero() || err != nil {
		t.Fatalf("failing since %v (%v) after a commit, want none", since, err)
	}
}

// TestFailuresCountABatchUnderWayFromItsStart: with no failure, a batch under way is read from
// its start, its error saying what it applies and since when (the health marks one still under
// way after a minute stuck: a lock held elsewhere stops it without a failure); none once it ends.
func TestFailuresCountABatchUnderWayFromItsStart(t *testing.T) {
	var f failures
	t0 := time.Unix(1_800_000_000, 0)
	f.begin(t0, "a batch of 3 events up to 7/7")
	since, _, err := f.reading(t0.Add(time.Hour))
	if !since.Equal(t0) || err == nil || !strings.Contains(err.Error(), "a batch of 3 events up to 7/7 under way since 2027-01-15T08:00:00Z") {
		t.Fatalf("reading %v %v during a batch, want it from its start", since, err)
	}
	f.end(t0.Add(time.Hour))
	if since, _, err := f.reading(t0.Add(time.Hour)); !since.IsZero() || err != nil {
		t.Fatalf("reading %v %v after the batch ended, want none", since, err)
	}
}

// TestFailuresCountAPositionTheHeadLeftBehind: a leader's position the log's head is past counts
// from the first look that found it so, as long as it does not move; moving or reaching the head
// starts again, and a failure run or a batch under way is read first.
func TestFailuresCountAPositionTheHeadLeftBehind(t *testing.T) {
	var f failures
	t0 := time.Unix(1_800_000_000, 0)
	p := func(n uint64) eventstore.Position { return eventstore.Position{Commit: n, Prepare: n} }
	f.looked(t0, p(5), p(5))
	if since, _, _ := f.reading(t0); !since.IsZero() {
		t.Fatalf("behind since %v at the head", since)
	}
	f.looked(t0, p(5), p(9))
	f.looked(t0.Add(time.Minute), p(5), p(12))
	since, _, err := f.reading(t0.Add(time.Minute))
	if !since.Equal(t0) || err == nil || !strings.Contains(err.Error(), "at 5/5 since 2027-01-15T08:00:00Z while the log's head is 12/12") {
		t.Fatalf("reading %v %v, want behind at 5/5 since t0", since, err)
	}
	f.looked(t0.Add(2*time.Minute), p(7), p(12))
	if since, _, _ := f.reading(t0.Add(2 * time.Minute)); !since.Equal(t0.Add(2 * time.Minute)) {
		t.Fatalf("behind since %v after moving, want from the look that saw it move", since)
	}
	f.failed(errors.New("boom"), t0.Add(3*time.Minute))
	if _, _, err := f.reading(t0.Add(3 * time.Minute)); err == nil || err.Error() != "boom" {
		t.Fatalf("reading %v during a failure run, want its failure", err)
	}
	f.progressed()
	f.looked(time.Time{}, eventstore.Start, eventstore.Start) // stood down
	if since, _, err := f.reading(t0.Add(4 * time.Minute)); !since.IsZero() || err != nil {
		t.Fatalf("reading %v %v after standing down, want none", since, err)
	}
}
