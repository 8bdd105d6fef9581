package eventstore

import (
	"bytes"
	"context"
	"fmt"
	"time"
)

// Progress reports a long walk over the log.
type Progress func(done, total uint64, elapsed time.Duration)

// LogReader is what VerifyLog and ReadUpTo need: the global log in order.
type LogReader interface {
	ReadAll(ctx context.Context, from Position, limit int) ([]RecordedEvent, error)
}

// StreamHead is where a stream ends: its last version and that event's hash.
type StreamHead struct {
	Version uint64
	Hash    []byte
}

// Walk is what a walk of the log saw: how many events, and where each stream ended.
type Walk struct {
	Events uint64
	Heads  map[string]StreamHead
}

// VerifyLog walks the global log up to until (the log's Head) and checks every stream's hash
// chain as it goes: each event must follow its stream's previous version and hash, and its own
// hash must match its content. It returns the first broken link in log order (nil when every
// chain holds) and the number of events checked.
func VerifyLog(ctx context.Context, log LogReader, until Position, progress Progress) (*ChainBreak, uint64, error) {
	brk, w, err := WalkLog(ctx, log, until, progress, nil)
	return brk, w.Events, err
}

// WalkLog is VerifyLog that also returns where every stream ended and calls check (when not nil)
// with each event whose link holds; a break check returns ends the walk like a broken link.
func WalkLog(ctx context.Context, log LogReader, until Position, progress Progress, check func(RecordedEvent) *ChainBreak) (*ChainBreak, Walk, error) {
	w := Walk{Heads: map[string]StreamHead{}}
	start := time.Now()
	from := Start
	for {
		batch, err := ReadUpTo(ctx, log, from, until, 5000)
		if err != nil || len(batch) == 0 {
			return nil, w, err
		}
		for _, e := range batch {
			if brk := link(w.Heads[e.StreamID], e); brk != nil {
				return brk, w, nil
			}
			if check != nil {
				if brk := check(e); brk != nil {
					return brk, w, nil
				}
			}
			w.Heads[e.StreamID] = StreamHead{Version: e.Version, Hash: e.Hash}
			w.Events++
		}
		from = batch[len(batch)-1].Position
		if progress != nil {
			progress(w.Events, 0, time.Since(start))
		}
	}
}

// link checks that e follows h, its stream's head so far, and that its hash matches its content.
func link(h StreamHead, e RecordedEvent) *ChainBreak {
	brk := func(reason string) *ChainBreak {
		return &ChainBreak{StreamID: e.StreamID, Version: e.Version, Position: e.Position, Reason: reason}
	}
	switch {
	case e.Version != h.Version+1:
		return brk(fmt.Sprintf("version %d where %d was due", e.Version, h.Version+1))
	case !bytes.Equal(e.PrevHash, h.Hash):
		return brk("previous hash does not match the preceding event")
	case !bytes.Equal(ComputeHash(h.Hash, e), e.Hash):
		return brk("stored hash does not match the event's content")
	}
	return nil
}
