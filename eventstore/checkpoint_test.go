package eventstore_test

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/payledger/payledger/eventstore"
	"github.com/payledger/payledger/eventstore/memory"
)

// hiding reads a memory store without some events, as a store whose rows were deleted would.
type hiding struct {
	*memory.Store
	hide func(eventstore.RecordedEvent) bool
}

func (h hiding) ReadAll(ctx context.Context, from eventstore.Position, limit int) ([]eventstore.RecordedEvent, error) {
	evs, err := h.Store.ReadAll(ctx, from, limit)
	out := evs[:0:0]
	for _, e := range evs {
		if !h.hide(e) {
			out = append(out, e)
		}
	}
	return out, err
}

// TestCheckpointRoundTripThroughThePort: on the memory adapter, a checkpoint of streams with
// unusual ids (unicode, quotes, a newline, 100 kB long) and a 4 MB event survives its file;
// against it, a hidden last event and a hidden stream are found, and the intact log passes.
func TestCheckpointRoundTripThroughThePort(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := memory.New(time.Now)
	long := strings.Repeat("ü", 50_000)
	streams := []string{"receipt-支付-☕", "a\"b\nc", long}
	big := []byte(`{"blob":"` + strings.Repeat("x", 4<<20) + `"}`)
	for _, st := range streams {
		for range 2 {
			if _, err := s.Append(ctx, st, eventstore.Any(), eventstore.EventData{ID: uuid.New(), Type: "T", Data: big}); err != nil {
				t.Fatal(err)
			}
		}
	}
	head, _ := s.Head(ctx)
	brk, walk, err := eventstore.WalkLog(ctx, s, head, nil, nil)
	if err != nil || brk != nil || walk.Events != 6 {
		t.Fatalf("walk: %v %v %d", brk, err, walk.Events)
	}
	key := bytes.Repeat([]byte("k"), 32)
	var file bytes.Buffer
	if err := eventstore.WriteCheckpoint(&file, eventstore.Checkpoint{CreatedAt: time.Now(), Head: head, Events: walk.Events, Streams: walk.Heads}, key); err != nil {
		t.Fatal(err)
	}
	cp, err := eventstore.ReadCheckpoint(bytes.NewReader(file.Bytes()), key)
	if err != nil || len(cp.Streams) != 3 || cp.Streams[long].Version != 2 || cp.Events != 6 || cp.Head != head {
		t.Fatalf("read back: %v, %d streams", err, len(cp.Streams))
	}
	if _, err := eventstore.ReadCheckpoint(bytes.NewReader(file.Bytes()), bytes.Repeat([]byte("j"), 32)); !errors.Is(err, eventstore.ErrCheckpointSignature) {
		t.Fatalf("another key: %v", err)
	}
	for name, hide := range map[string]func(eventstore.RecordedEvent) bool{
		"nothing":    func(eventstore.RecordedEvent) bool { return false },
		"last event": func(e eventstore.RecordedEvent) bool { return e.StreamID == streams[0] && e.Version == 2 },
		"stream":     func(e eventstore.RecordedEvent) bool { return e.StreamID == streams[1] },
	} {
		brk, w, err := eventstore.WalkLog(ctx, hiding{s, hide}, head, nil, cp.CheckEvent)
		missing := cp.Missing(w, head)
		if err != nil || brk != nil || (name == "nothing") != (len(missing) == 0) {
			t.Fatalf("%s hidden: %v %v %q", name, brk, err, missing)
		}
	}
}
