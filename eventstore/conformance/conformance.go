// Package conformance is the one test suite that every event-store adapter passes.
package conformance

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/payledger/payledger/eventstore"
	"github.com/payledger/payledger/internal/wait"
)

// Harness tells the suite how to make stores of one adapter.
type Harness struct {
	// New returns a store to test. Stores may share a backend; the suite names its streams
	// uniquely and only looks at its own events.
	New func(t *testing.T) eventstore.Store
	// NewPausing returns a store that calls pause inside every append's transaction just before
	// commit, or is nil where an adapter has no transaction to hold open.
	NewPausing func(t *testing.T, pause func(context.Context)) eventstore.Store
	// GapEvents is the number of events of the gap test (default 10,000).
	GapEvents int
}

// Run runs every case of the suite, side by side: each has its own store and its own streams.
func Run(t *testing.T, h Harness) {
	cases := []struct {
		name string
		run  func(t *testing.T)
	}{
		{"AppendAndReadStream", func(t *testing.T) { testAppendAndRead(t, h.New(t)) }},
		{"ExpectedVersion", func(t *testing.T) { testExpectedVersion(t, h.New(t)) }},
		{"ConcurrentSameExpectedVersion", func(t *testing.T) { testConcurrentExact(t, h.New(t)) }},
		{"ConcurrentAny", func(t *testing.T) { testConcurrentAny(t, h.New(t)) }},
		{"IdempotentReappend", func(t *testing.T) { testIdempotent(t, h.New(t)) }},
		{"InvalidEvents", func(t *testing.T) { testInvalid(t, h.New(t)) }},
		{"GlobalOrder", func(t *testing.T) { testGlobalOrder(t, h.New(t)) }},
		{"HeadIsTheLastCommittedEvent", func(t *testing.T) { testHead(t, h.New(t)) }},
		{"SubscribeResumesFromCheckpoint", func(t *testing.T) { testResume(t, h.New(t)) }},
		{"GapFreeUnderConcurrentCommits", func(t *testing.T) { testGap(t, h) }},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			c.run(t)
		})
	}
}

// prefix returns a stream-name prefix unique to one test run.
func prefix() string { return "conf-" + uuid.NewString()[:8] + "-" }

func ev(typ string, n int) eventstore.EventData {
	return eventstore.EventData{
		ID: uuid.New(), Type: typ,
		Data:     []byte(fmt.Sprintf(`{"n": %d, "note": "ünïcode ✓"}`, n)),
		Metadata: eventstore.Metadata{CorrelationID: "corr-1", CausationID: "cause-1", Actor: "tester", Source: "conformance"},
	}
}

func mustAppend(t *testing.T, s eventstore.Store, stream string, exp eventstore.ExpectedVersion, evs ...eventstore.EventData) eventstore.AppendResult {
	t.Helper()
	res, err := s.Append(context.Background(), stream, exp, evs...)
	if err != nil {
		t.Fatalf("append to %s: %v", stream, err)
	}
	return res
}

func testAppendAndRead(t *testing.T, s eventstore.Store) {
	ctx := context.Background()
	stream := prefix() + "a"
	first := mustAppend(t, s, stream, eventstore.NoStream(), ev("Created", 1), ev("Changed", 2))
	if first.Version != 2 {
		t.Fatalf("version after two events = %d, want 2", first.Version)
	}
	second := mustAppend(t, s, stream, eventstore.Exact(2), ev("Changed", 3))
	if second.Version != 3 || !first.Position.Less(second.Position) {
		t.Fatalf("second append = %+v after %+v", second, first)
	}
	got, err := s.ReadStream(ctx, stream, 1, 100)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 3 {
		t.Fatalf("read %d events, want 3", len(got))
	}
	for i, e := range got {
		if e.Version != uint64(i+1) || e.StreamID != stream {
			t.Errorf("event %d: version %d stream %q", i, e.Version, e.StreamID)
		}
		if want := fmt.Sprintf(`{"n":%d,"note":"ünïcode ✓"}`, i+1); string(e.Data) != want {
			t.Errorf("event %d data %s, want %s", i, e.Data, want)
		}
		if !strings.Contains(string(e.Metadata), `"correlationId":"corr-1"`) || !strings.Contains(string(e.Metadata), `"actor":"tester"`) {
			t.Errorf("event %d metadata %s", i, e.Metadata)
		}
		if e.RecordedAt.IsZero() || time.Since(e.RecordedAt) > time.Hour {
			t.Errorf("event %d recorded at %v", i, e.RecordedAt)
		}
	}
	if got[2].Position != second.Position {
		t.Errorf("stored position %v, append returned %v", got[2].Position, second.Position)
	}
	if brk := eventstore.VerifyChain(got); brk != nil {
		t.Fatalf("fresh chain broken: %v", brk)
	}
	tampered := append([]eventstore.RecordedEvent(nil), got...)
	tampered[1].Data = []byte(`{"n":99}`)
	if brk := eventstore.VerifyChain(tampered); brk == nil || brk.Version != 2 {
		t.Fatalf("tampered event 2 not reported: %v", brk)
	}
	tail, err := s.ReadStream(ctx, stream, 3, 100)
	if err != nil || len(tail) != 1 || tail[0].Version != 3 {
		t.Fatalf("read from version 3: %v %v", tail, err)
	}
	none, err := s.ReadStream(ctx, prefix()+"missing", 1, 10)
	if err != nil || len(none) != 0 {
		t.Fatalf("unknown stream: %v %v", none, err)
	}
}

func testExpectedVersion(t *testing.T, s eventstore.Store) {
	ctx := context.Background()
	stream := prefix() + "x"
	mustAppend(t, s, stream, eventstore.NoStream(), ev("A", 1))
	cases := []struct {
		name string
		exp  eventstore.ExpectedVersion
	}{
		{"no-stream on an existing stream", eventstore.NoStream()},
		{"exact behind", eventstore.Exact(0)},
		{"exact ahead", eventstore.Exact(5)},
	}
	for _, c := range cases {
		_, err := s.Append(ctx, stream, c.exp, ev("B", 2))
		var wrong *eventstore.WrongExpectedVersionError
		if !errors.As(err, &wrong) || !errors.Is(err, eventstore.ErrWrongExpectedVersion) {
			t.Fatalf("%s: err = %v, want WrongExpectedVersionError", c.name, err)
		}
		if wrong.Actual != 1 || wrong.Stream != stream {
			t.Errorf("%s: error carries %+v, want actual 1", c.name, wrong)
		}
	}
	if res := mustAppend(t, s, stream, eventstore.Any(), ev("C", 3)); res.Version != 2 {
		t.Fatalf("any: version %d", res.Version)
	}
	if res := mustAppend(t, s, stream, eventstore.Exact(2), ev("D", 4)); res.Version != 3 {
		t.Fatalf("exact: version %d", res.Version)
	}
}

func testConcurrentExact(t *testing.T, s eventstore.Store) {
	stream := prefix() + "race"
	mustAppend(t, s, stream, eventstore.NoStream(), ev("A", 0))
	const n = 20
	var wg sync.WaitGroup
	errs := make([]error, n)
	start := make(chan struct{})
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			_, errs[i] = s.Append(context.Background(), stream, eventstore.Exact(1), ev("B", i))
		}()
	}
	close(start)
	wg.Wait()
	wins := 0
	for _, err := range errs {
		var wrong *eventstore.WrongExpectedVersionError
		switch {
		case err == nil:
			wins++
		case errors.As(err, &wrong):
			if wrong.Actual != 2 {
				t.Errorf("loser saw actual %d, want 2", wrong.Actual)
			}
		default:
			t.Errorf("unexpected error: %v", err)
		}
	}
	if wins != 1 {
		t.Fatalf("%d appends won, want exactly 1", wins)
	}
	got, _ := eventstore.Store.ReadStream(s, context.Background(), stream, 1, 100)
	if len(got) != 2 {
		t.Fatalf("stream holds %d events, want 2", len(got))
	}
}

func testConcurrentAny(t *testing.T, s eventstore.Store) {
	stream := prefix() + "any"
	const n = 16
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := s.Append(context.Background(), stream, eventstore.Any(), ev("A", i)); err != nil {
				t.Errorf("append any: %v", err)
			}
		}()
	}
	wg.Wait()
	got, err := s.ReadStream(context.Background(), stream, 1, 100)
	if err != nil || len(got) != n {
		t.Fatalf("read %d events (%v), want %d", len(got), err, n)
	}
	if brk := eventstore.VerifyChain(got); brk != nil {
		t.Fatalf("chain after concurrent appends: %v", brk)
	}
}

func testIdempotent(t *testing.T, s eventstore.Store) {
	ctx := context.Background()
	stream := prefix() + "idem"
	batch := []eventstore.EventData{ev("A", 1), ev("B", 2)}
	first := mustAppend(t, s, stream, eventstore.NoStream(), batch...)
	for _, exp := range []eventstore.ExpectedVersion{eventstore.NoStream(), eventstore.Any(), eventstore.Exact(2)} {
		again, err := s.Append(ctx, stream, exp, batch...)
		if err != nil {
			t.Fatalf("re-append (%s): %v", exp, err)
		}
		if again != first {
			t.Fatalf("re-append (%s) = %+v, want the original %+v", exp, again, first)
		}
	}
	got, _ := s.ReadStream(ctx, stream, 1, 100)
	if len(got) != 2 {
		t.Fatalf("stream holds %d events after re-appends, want 2", len(got))
	}
}

func testInvalid(t *testing.T, s eventstore.Store) {
	stream := prefix() + "bad"
	cases := map[string]eventstore.EventData{
		"no id":    {Type: "A", Data: []byte(`{}`)},
		"no type":  {ID: uuid.New(), Data: []byte(`{}`)},
		"bad json": {ID: uuid.New(), Type: "A", Data: []byte(`{nope`)},
	}
	for name, e := range cases {
		if _, err := s.Append(context.Background(), stream, eventstore.Any(), e); !errors.Is(err, eventstore.ErrInvalidEvent) {
			t.Errorf("%s: err = %v, want ErrInvalidEvent", name, err)
		}
	}
}

// readOwn reads the global log from the start and keeps the events of streams with prefix p,
// until it has want of them. An empty read is not the end: a transaction still open anywhere in
// the cluster (another test package) hides newer events for a moment, so it waits, up to 30 s.
func readOwn(t *testing.T, s eventstore.Store, p string, want int) []eventstore.RecordedEvent {
	t.Helper()
	var out []eventstore.RecordedEvent
	var err error
	from := eventstore.Start
	wait.Poll(30*time.Second, func() bool {
		for {
			var batch []eventstore.RecordedEvent
			if batch, err = s.ReadAll(context.Background(), from, 1000); err != nil {
				return true
			}
			if len(batch) == 0 {
				return len(out) >= want
			}
			for _, e := range batch {
				if strings.HasPrefix(e.StreamID, p) {
					out = append(out, e)
				}
			}
			from = batch[len(batch)-1].Position
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func testGlobalOrder(t *testing.T, s eventstore.Store) {
	p := prefix()
	var want []uuid.UUID
	for i := range 30 {
		e := ev("Ordered", i)
		want = append(want, e.ID)
		mustAppend(t, s, fmt.Sprintf("%s%d", p, i%4), eventstore.Any(), e)
	}
	got := readOwn(t, s, p, len(want))
	if len(got) != len(want) {
		t.Fatalf("global log has %d of our events, want %d", len(got), len(want))
	}
	for i := range got {
		if got[i].ID != want[i] {
			t.Fatalf("global position %d holds %s, want %s", i, got[i].ID, want[i])
		}
		if i > 0 && !got[i-1].Position.Less(got[i].Position) {
			t.Fatalf("positions not increasing at %d: %v then %v", i, got[i-1].Position, got[i].Position)
		}
	}
	// Reading from a position is exclusive of it. A read may stop short of events it read before
	// (the PostgreSQL store's horizon is held back again while it cannot place a transaction that
	// another database of the cluster just ended), so it is asked again until it answers, as
	// readOwn does.
	var after []eventstore.RecordedEvent
	var err error
	wait.Poll(10*time.Second, func() bool {
		after, err = s.ReadAll(context.Background(), got[9].Position, 1)
		return err != nil || len(after) > 0
	})
	if err != nil || len(after) != 1 || after[0].ID != got[10].ID {
		t.Fatalf("read after position 9: %v %v", after, err)
	}
}

// testHead: Head is at or after every append that has returned, and a walk up to it (ReadUpTo)
// reads each of those events and ends exactly at it, whatever is appended meanwhile.
func testHead(t *testing.T, s eventstore.Store) {
	ctx := context.Background()
	p := prefix()
	var last eventstore.AppendResult
	for i := range 5 {
		last = mustAppend(t, s, fmt.Sprintf("%s%d", p, i%2), eventstore.Any(), ev("Headed", i))
	}
	head, err := s.Head(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if head.Less(last.Position) {
		t.Fatalf("head %v is before the last append's position %v", head, last.Position)
	}
	mustAppend(t, s, p+"after", eventstore.NoStream(), ev("AfterHead", 0))
	own, end := 0, eventstore.Start
	for {
		batch, err := eventstore.ReadUpTo(ctx, s, end, head, 1000)
		if err != nil {
			t.Fatal(err)
		}
		if len(batch) == 0 {
			break
		}
		for _, e := range batch {
			if e.StreamID == p+"after" {
				t.Fatalf("the walk up to %v read an event appended after it, at %v", head, e.Position)
			}
			if strings.HasPrefix(e.StreamID, p) {
				own++
			}
		}
		end = batch[len(batch)-1].Position
	}
	if own != 5 || end != head {
		t.Fatalf("the walk up to the head read %d of our 5 events and ended at %v, want %v", own, end, head)
	}
}

var errStop = errors.New("stop")

// collect subscribes from `from` and gathers our events until want have arrived.
func collect(t *testing.T, s eventstore.Store, p string, from eventstore.Position, want int, timeout time.Duration) ([]eventstore.RecordedEvent, eventstore.Position) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	var got []eventstore.RecordedEvent
	last := from
	err := s.Subscribe(ctx, from, func(_ context.Context, batch []eventstore.RecordedEvent) error {
		for _, e := range batch {
			if !last.Less(e.Position) {
				return fmt.Errorf("position %v delivered after %v", e.Position, last)
			}
			last = e.Position
			if strings.HasPrefix(e.StreamID, p) {
				got = append(got, e)
				if len(got) == want {
					return errStop
				}
			}
		}
		return nil
	})
	if !errors.Is(err, errStop) {
		t.Fatalf("subscription ended with %v after %d of %d events", err, len(got), want)
	}
	return got, last
}

func testResume(t *testing.T, s eventstore.Store) {
	p := prefix()
	for i := range 100 {
		mustAppend(t, s, fmt.Sprintf("%s%d", p, i%7), eventstore.Any(), ev("Early", i))
	}
	firstHalf, checkpoint := collect(t, s, p, eventstore.Start, 50, 30*time.Second)
	go func() {
		for i := range 100 {
			if _, err := s.Append(context.Background(), fmt.Sprintf("%s%d", p, i%5), eventstore.Any(), ev("Late", i)); err != nil {
				t.Errorf("append: %v", err)
			}
		}
	}()
	rest, _ := collect(t, s, p, checkpoint, 150, 30*time.Second)
	all := append(firstHalf, rest...)
	want := readOwn(t, s, p, 200)
	if len(all) != 200 || len(want) != 200 {
		t.Fatalf("got %d events by subscription, %d in the log, want 200", len(all), len(want))
	}
	for i := range all {
		if all[i].ID != want[i].ID {
			t.Fatalf("event %d: subscription %s, log %s", i, all[i].ID, want[i].ID)
		}
	}
}

func testGap(t *testing.T, h Harness) {
	total := h.GapEvents
	if total == 0 {
		total = 10_000
	}
	pause := func(ctx context.Context) {
		// Random pauses inside the transaction make commits land out of id order.
		time.Sleep(time.Duration(rand.IntN(1500)) * time.Microsecond)
	}
	var s eventstore.Store
	if h.NewPausing != nil {
		s = h.NewPausing(t, pause)
	} else {
		s = h.New(t)
	}
	p := prefix()
	const writers = 16
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan []eventstore.RecordedEvent, 1)
	go func() {
		var got []eventstore.RecordedEvent
		_ = s.Subscribe(ctx, eventstore.Start, func(_ context.Context, batch []eventstore.RecordedEvent) error {
			for _, e := range batch {
				if strings.HasPrefix(e.StreamID, p) {
					got = append(got, e)
				}
			}
			if len(got) >= total {
				return errStop
			}
			return nil
		})
		done <- got
	}()
	appendConcurrently(t, s, p, total, writers)
	// Once every writer has committed, the subscriber has 30 s to catch up.
	var got []eventstore.RecordedEvent
	select {
	case got = <-done:
	case <-time.After(30 * time.Second):
		cancel()
		got = <-done
	}
	final := readOwn(t, s, p, total)
	if len(final) != total {
		t.Fatalf("log holds %d events, want %d", len(final), total)
	}
	if len(got) != total {
		t.Fatalf("subscriber received %d events, want %d (an event committed late was skipped)", len(got), total)
	}
	deliveredAsLogged(t, got, final)
}

// appendConcurrently appends total events from writers goroutines, each to one of 64 streams of
// prefix p, and returns once all are committed.
func appendConcurrently(t *testing.T, s eventstore.Store, p string, total, writers int) {
	var wg sync.WaitGroup
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < total; i += writers {
				stream := fmt.Sprintf("%s%d", p, rand.IntN(64))
				if _, err := s.Append(context.Background(), stream, eventstore.Any(), ev("Gap", i)); err != nil {
					t.Errorf("writer %d: %v", w, err)
					return
				}
			}
		}()
	}
	wg.Wait()
}

// deliveredAsLogged fails unless the subscriber got each event once, in the log's order.
func deliveredAsLogged(t *testing.T, got, final []eventstore.RecordedEvent) {
	seen := make(map[uuid.UUID]bool, len(got))
	for i, e := range got {
		if seen[e.ID] {
			t.Fatalf("event %s delivered twice", e.ID)
		}
		seen[e.ID] = true
		if e.ID != final[i].ID || e.Position != final[i].Position {
			t.Fatalf("delivery %d is %s@%v, the log has %s@%v there", i, e.ID, e.Position, final[i].ID, final[i].Position)
		}
	}
}
