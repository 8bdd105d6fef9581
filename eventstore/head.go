package eventstore

import (
	"context"
	"time"
)

// headRetry is how long ReadUpTo waits before reading again when ReadAll holds back events that
// Head says are committed.
const headRetry = 20 * time.Millisecond

// ReadUpTo returns up to limit events of the global log after from and no later than head (a
// position from Head), in global order; none once from has reached head. An empty read before
// head is not the end of the log: ReadAll holds committed events back while an earlier
// transaction may still commit (in PostgreSQL, one of another database can hold the horizon for
// a moment), so it reads again until they show. A walk that stopped at that first empty read
// took a prefix for the whole log: a rebuild swapped in an empty read model, and `verify` said
// "ok" about events it never checked.
func ReadUpTo(ctx context.Context, log LogReader, from, head Position, limit int) ([]RecordedEvent, error) {
	for from.Less(head) {
		batch, err := log.ReadAll(ctx, from, limit)
		if err != nil {
			return nil, err
		}
		for i, e := range batch {
			if head.Less(e.Position) {
				return batch[:i], nil // appended after head was read: the next walk's (none if i is 0)
			}
		}
		if len(batch) > 0 {
			return batch, nil
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(headRetry):
		}
	}
	return nil, nil
}
