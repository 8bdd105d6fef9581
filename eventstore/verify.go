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

// VerifyLog walks the global log up to until (the log's Head) and checks every stream's hash
// chain as it goes: each event must follow its stream's previous version and hash, and its own
// hash must match its content. It returns the first broken link in log order (nil when every
// chain holds) and the number of events checked.
func VerifyLog(ctx context.Context, log LogReader, until Position, progress Progress) (*ChainBreak, uint64, error) {
	type head struct {
		version uint64
		hash    []byte
	}
	heads := map[string]head{}
	var done uint64
	start := time.Now()
	from := Start
	for {
		batch, err := ReadUpTo(ctx, log, from, until, 5000)
		if err != nil || len(batch) == 0 {
			return nil, done, err
		}
		for _, e := range batch {
			h := heads[e.StreamID]
			brk := func(reason string) *ChainBreak {
				return &ChainBreak{StreamID: e.StreamID, Version: e.Version, Position: e.Position, Reason: reason}
			}
			switch {
			case e.Version != h.version+1:
				return brk(fmt.Sprintf("version %d where %d was due", e.Version, h.version+1)), done, nil
			case !bytes.Equal(e.PrevHash, h.hash):
				return brk("previous hash does not match the preceding event"), done, nil
			case !bytes.Equal(ComputeHash(h.hash, e), e.Hash):
				return brk("stored hash does not match the event's content"), done, nil
			}
			heads[e.StreamID] = head{version: e.Version, hash: e.Hash}
			done++
		}
		from = batch[len(batch)-1].Position
		if progress != nil {
			progress(done, 0, time.Since(start))
		}
	}
}
