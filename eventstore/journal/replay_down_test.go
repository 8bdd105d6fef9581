package journal

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/rs/zerolog"
)

// downStore is an event store that is down: every entry fails with errDown.
type downStore struct{ calls int }

var errDown = errors.New("connection refused")

func (d *downStore) StoreEntry(context.Context, Entry) error { d.calls++; return errDown }

// While the store was down, every replay pass (each 2 s) decoded every entry of the journal, and
// again for its figures: with a full journal, a core's work all through the outage. A pass now
// stops at the first store-down failure and keeps the rest without decoding them, and the
// figures come from the journal's index. Not parallel: it counts allocations.
func TestAReplayPassWhileTheStoreIsDownDoesNotDecodeTheJournal(t *testing.T) {
	streams := make([]string, 300)
	for i := range streams {
		streams[i] = fmt.Sprintf("rcpt-%d", i)
	}
	j, _ := openWith(t, streams...)
	defer j.Close()
	store := &downStore{}
	r := NewReplayer(j, store, func(err error) bool { return errors.Is(err, errDown) }, zerolog.Nop())
	if n, err := r.DrainOnce(context.Background()); n != 0 || !errors.Is(err, errDown) {
		t.Fatalf("a pass with the store down: %d, %v", n, err)
	}
	if store.calls != 1 || r.Stats().Pending != int64(len(streams)) {
		t.Fatalf("%d entries tried, %d pending; want 1 and %d", store.calls, r.Stats().Pending, len(streams))
	}
	allocs := testing.AllocsPerRun(5, func() { _, _ = r.DrainOnce(context.Background()) })
	if allocs > float64(len(streams))/2 {
		t.Fatalf("a pass with the store down made %.0f allocations for %d entries: it decodes them", allocs, len(streams))
	}
	if p, err := j.Pending(); err != nil || len(p) != len(streams) {
		t.Fatalf("the journal after the passes: %d entries, %v", len(p), err)
	}
}
