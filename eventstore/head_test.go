package eventstore_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/payledger/payledger/eventstore"
	"github.com/payledger/payledger/eventstore/memory"
)

// heldBack is a log whose first reads come back empty although its events are committed, as
// PostgreSQL's ReadAll does while the horizon is held below them for a moment.
type heldBack struct {
	*memory.Store
	emptyReads int
}

func (h *heldBack) ReadAll(ctx context.Context, from eventstore.Position, limit int) ([]eventstore.RecordedEvent, error) {
	if h.emptyReads > 0 {
		h.emptyReads--
		return nil, nil
	}
	return h.Store.ReadAll(ctx, from, limit)
}

func heldBackLog(t *testing.T, events int) (*heldBack, eventstore.Position) {
	t.Helper()
	s := memory.New(time.Now)
	for i := range events {
		ev := eventstore.EventData{ID: uuid.New(), Type: "Held", Data: []byte(`{}`)}
		if _, err := s.Append(context.Background(), fmt.Sprintf("s-%d", i%3), eventstore.Any(), ev); err != nil {
			t.Fatal(err)
		}
	}
	head, err := s.Head(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return &heldBack{Store: s, emptyReads: 3}, head
}

// TestReadUpToWaitsForHeldBackEvents: an empty read before the head is not the end of the log.
func TestReadUpToWaitsForHeldBackEvents(t *testing.T) {
	log, head := heldBackLog(t, 7)
	var got []eventstore.RecordedEvent
	from := eventstore.Start
	for {
		batch, err := eventstore.ReadUpTo(context.Background(), log, from, head, 2)
		if err != nil {
			t.Fatal(err)
		}
		if len(batch) == 0 {
			break
		}
		got = append(got, batch...)
		from = batch[len(batch)-1].Position
	}
	if len(got) != 7 || from != head {
		t.Fatalf("read %d events up to %v, want 7 up to %v", len(got), from, head)
	}
	// Events after the head are left to the next walk.
	if _, err := log.Append(context.Background(), "late", eventstore.NoStream(), eventstore.EventData{ID: uuid.New(), Type: "Late", Data: []byte(`{}`)}); err != nil {
		t.Fatal(err)
	}
	if batch, err := eventstore.ReadUpTo(context.Background(), log, got[5].Position, head, 10); err != nil || len(batch) != 1 || batch[0].Position != head {
		t.Fatalf("read past the head: %v %v", batch, err)
	}
}

// TestVerifyLogChecksTheWholeLogWhenReadsAreHeldBack: `verify` said "ok" about a log whose first
// read came back empty, having checked nothing.
func TestVerifyLogChecksTheWholeLogWhenReadsAreHeldBack(t *testing.T) {
	log, head := heldBackLog(t, 9)
	brk, checked, err := eventstore.VerifyLog(context.Background(), log, head, nil)
	if err != nil || brk != nil || checked != 9 {
		t.Fatalf("verify: %d events checked, break %v, %v; want all 9", checked, brk, err)
	}
}

func TestHeadOfAnEmptyLogIsStart(t *testing.T) {
	head, err := memory.New(time.Now).Head(context.Background())
	if err != nil || head != eventstore.Start {
		t.Fatalf("head of an empty log: %v %v", head, err)
	}
}
