package postgres

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/payledger/payledger/eventstore"
)

// Group commit: concurrent appends to different streams share one INSERT and one commit. The
// first append to find a free slot starts a flusher that takes everything queued (up to
// groupRows events) and keeps flushing until the queue is empty, then exits; while the slots are
// busy, new appends queue and go out together in the next flush. Under light load an append is
// flushed alone at once; under heavy load one WAL flush serves many appends, which is what the
// database's per-commit cost rewards.
//
// An append's expected-version check is the unique (stream_id, version) constraint, so a flush
// that hits a unique violation cannot tell whose append it was: it is rolled back whole and each
// of its appends is retried alone, which reports the conflict to its own caller only.

// groupRows caps the events of one flush.
const groupRows = 512

// flushTimeout bounds a flush; appends do not abandon a flush their events are part of.
const flushTimeout = 30 * time.Second

type groupCommit struct {
	mu      sync.Mutex
	queue   []*queuedAppend
	running int
	max     int
}

type queuedAppend struct {
	recs []eventstore.RecordedEvent
	res  eventstore.AppendResult
	err  error
	done chan struct{}
}

// commit stores recs (one append) durably, alone or in a group commit.
func (s *Store) commit(ctx context.Context, recs []eventstore.RecordedEvent) (eventstore.AppendResult, error) {
	if s.group.max <= 0 || s.beforeCommit != nil {
		return s.insert(ctx, recs)
	}
	q := &queuedAppend{recs: recs, done: make(chan struct{})}
	g := &s.group
	g.mu.Lock()
	g.queue = append(g.queue, q)
	if g.running < g.max {
		g.running++
		go s.flushLoop()
	}
	g.mu.Unlock()
	<-q.done
	return q.res, q.err
}

// flushLoop flushes queued appends until none is left.
func (s *Store) flushLoop() {
	g := &s.group
	for {
		g.mu.Lock()
		if len(g.queue) == 0 {
			g.running--
			g.mu.Unlock()
			return
		}
		n, rows := 0, 0
		for n < len(g.queue) && (n == 0 || rows+len(g.queue[n].recs) <= groupRows) {
			rows += len(g.queue[n].recs)
			n++
		}
		batch := make([]*queuedAppend, n)
		copy(batch, g.queue)
		g.queue = append(g.queue[:0], g.queue[n:]...)
		g.mu.Unlock()
		s.flush(batch)
	}
}

func (s *Store) flush(batch []*queuedAppend) {
	ctx, cancel := context.WithTimeout(context.Background(), flushTimeout)
	defer cancel()
	defer func() {
		for _, q := range batch {
			close(q.done)
		}
	}()
	if len(batch) == 1 {
		batch[0].res, batch[0].err = s.insert(ctx, batch[0].recs)
		return
	}
	var all []eventstore.RecordedEvent
	for _, q := range batch {
		all = append(all, q.recs...)
	}
	positions, err := s.insertRows(ctx, all)
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) && pgErr.Code == "23505" {
		for _, q := range batch { // someone's expected version was stale: find whose, one by one
			q.res, q.err = s.insert(ctx, q.recs)
		}
		return
	}
	i := 0
	for _, q := range batch {
		if err != nil {
			q.err = err
			continue
		}
		var pos eventstore.Position
		for range q.recs {
			if p := positions[i]; pos.Less(p) {
				pos = p
			}
			i++
		}
		q.res = eventstore.AppendResult{Version: q.recs[len(q.recs)-1].Version, Position: pos}
	}
}
