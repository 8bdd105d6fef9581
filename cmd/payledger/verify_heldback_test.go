package main

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/rs/zerolog"

	"github.com/payledger/payledger/eventstore"
	"github.com/payledger/payledger/eventstore/memory"
)

// heldBackStore answers its first emptyReads reads of the log with nothing, as PostgreSQL does
// while an older transaction holds the snapshot horizon below committed events.
type heldBackStore struct {
	*memory.Store
	emptyReads int
}

func (h *heldBackStore) ReadAll(ctx context.Context, from eventstore.Position, limit int) ([]eventstore.RecordedEvent, error) {
	if h.emptyReads > 0 {
		h.emptyReads--
		return nil, nil
	}
	return h.Store.ReadAll(ctx, from, limit)
}

// TestVerifySaysWhileHeldBackEventsWait: a walk whose reads are held back (an old transaction
// open somewhere on the server) waited without a word for as long as it lasted; it now warns
// every interval that it is waiting and why, and ends ok once the events show.
func TestVerifySaysWhileHeldBackEventsWait(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	store := &heldBackStore{Store: memory.New(time.Now)}
	for i := range 3 {
		if _, err := store.Append(ctx, fmt.Sprintf("s-%d", i), eventstore.Any(), eventstore.EventData{ID: uuid.New(), Type: "T", Data: []byte(`{}`)}); err != nil {
			t.Fatal(err)
		}
	}
	store.emptyReads = 15 // ReadUpTo reads again every 20 ms: some 300 ms of waiting
	var logs, out bytes.Buffer
	err := verifyWith(ctx, store, verifyOptions{heldBackEvery: 50 * time.Millisecond}, zerolog.New(&logs), &out)
	if err != nil || !strings.Contains(out.String(), "ok: 3 events") {
		t.Fatalf("verify: %v %s", err, out.String())
	}
	if !strings.Contains(logs.String(), "held back while an older transaction is still open") {
		t.Fatalf("no word while waiting:\n%s", logs.String())
	}
}
