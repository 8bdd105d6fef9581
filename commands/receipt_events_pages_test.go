package commands_test

import (
	"context"
	"errors"
	"testing"

	"github.com/payledger/payledger/commands"
	"github.com/payledger/payledger/eventstore"
)

// gappedStream is a Store whose one stream holds the versions it is given (a gap is a version
// left out), read as a store reads: the events from version from on, at most limit of them.
type gappedStream struct{ versions []uint64 }

func (g *gappedStream) Append(context.Context, string, eventstore.ExpectedVersion, ...eventstore.EventData) (eventstore.AppendResult, error) {
	return eventstore.AppendResult{}, errors.New("read only")
}

func (g *gappedStream) ReadStream(_ context.Context, stream string, from uint64, limit int) ([]eventstore.RecordedEvent, error) {
	var out []eventstore.RecordedEvent
	for _, v := range g.versions {
		if v >= from && len(out) < limit {
			out = append(out, eventstore.RecordedEvent{StreamID: stream, Version: v})
		}
	}
	return out, nil
}

// TestReceiptEventsPageFromTheLastVersionRead: the receipt's events are read page by page from
// the last version read + 1, so a stream with a gap (version 3 missing) reads each event once
// and shows the gap as a gap. The next page started at the count read + 1, so past the first page
// of 1000 the last event of the page was read again (a duplicated event in the history, the CLI
// and the refunds' reads).
func TestReceiptEventsPageFromTheLastVersionRead(t *testing.T) {
	t.Parallel()
	var versions []uint64
	for v := uint64(1); v <= 1500; v++ {
		if v != 3 {
			versions = append(versions, v)
		}
	}
	evs, err := commands.ReadReceiptEvents(context.Background(), &gappedStream{versions: versions}, "gap-1")
	if err != nil {
		t.Fatal(err)
	}
	if len(evs) != len(versions) {
		t.Fatalf("%d events read, the stream holds %d", len(evs), len(versions))
	}
	for i, e := range evs {
		if e.Version != versions[i] {
			t.Fatalf("event %d has version %d, want %d", i, e.Version, versions[i])
		}
	}
}
