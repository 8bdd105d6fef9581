// Package groupcommit lets concurrent writers share one database round trip and one commit.
//
// The first writer to find a free slot starts a flusher that takes everything queued and keeps
// flushing until the queue is empty, then exits (no goroutine outlives the load). While every slot
// is busy, new writes queue and go out together in the next flush. Under light load a write is
// flushed alone at once; under heavy load one WAL flush serves many writers, which is what
// PostgreSQL's per-commit cost rewards.
package groupcommit

import (
	"context"
	"slices"
	"sync"
)

// Call is one queued write; the flush function sets Result and Err.
type Call[T, R any] struct {
	Item   T
	Result R
	Err    error
	done   chan struct{}
}

// Group batches calls to a flush function.
type Group[T, R any] struct {
	// Flush writes a batch (never empty) and sets each call's Result or Err.
	Flush func(batch []*Call[T, R])
	// Slots is how many flushes may be in flight at once (at least 1).
	Slots int
	// MaxSize caps a batch by the sum of Size over its items (a larger single item still goes).
	MaxSize int
	// Size is an item's weight against MaxSize (1 when nil).
	Size func(T) int

	mu      sync.Mutex
	queue   []*Call[T, R]
	running int
}

// Do queues item and waits until a flush has written it. A write that has been handed to a
// flush is not abandoned: its outcome is what the flush reports.
func (g *Group[T, R]) Do(item T) (R, error) {
	c := g.enqueue(item)
	<-c.done
	return c.Result, c.Err
}

// DoContext is Do for a caller that may stop waiting: when ctx ends first it returns ctx's
// error. A write that no flush has taken yet is withdrawn from the queue (it is never written);
// one already in its flush stays there (it may still be stored). For a caller that has a
// fallback for a datastore that does not answer (the degraded path journals the very same
// events, whose replay finds them stored or stores them), a hung flush must not hold it.
//
// Withdrawn, not left queued: while a flush hangs (a server that accepts and never answers,
// each flush then lasting its whole timeout), every caller that gave up left its write in the
// queue, so the queue, and the events and rows it held, grew with every request for as long as
// the hang lasted; and each was written whenever a flush reached it, long after its caller had
// been told it failed and had gone on (journaled it, or decided again on a fresh load).
func (g *Group[T, R]) DoContext(ctx context.Context, item T) (R, error) {
	c := g.enqueue(item)
	select {
	case <-c.done:
		return c.Result, c.Err
	case <-ctx.Done():
		g.withdraw(c)
		var zero R
		return zero, ctx.Err()
	}
}

// withdraw takes c out of the queue unless a flush has taken it already.
func (g *Group[T, R]) withdraw(c *Call[T, R]) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if i := slices.Index(g.queue, c); i >= 0 {
		g.queue = slices.Delete(g.queue, i, i+1)
	}
}

func (g *Group[T, R]) enqueue(item T) *Call[T, R] {
	c := &Call[T, R]{Item: item, done: make(chan struct{})}
	g.mu.Lock()
	defer g.mu.Unlock()
	g.queue = append(g.queue, c)
	if g.running < max(g.Slots, 1) {
		g.running++
		go g.flushLoop()
	}
	return c
}

func (g *Group[T, R]) size(item T) int {
	if g.Size == nil {
		return 1
	}
	return g.Size(item)
}

func (g *Group[T, R]) flushLoop() {
	for {
		g.mu.Lock()
		if len(g.queue) == 0 {
			g.running--
			g.mu.Unlock()
			return
		}
		n, total := 0, 0
		for n < len(g.queue) && (n == 0 || g.MaxSize <= 0 || total+g.size(g.queue[n].Item) <= g.MaxSize) {
			total += g.size(g.queue[n].Item)
			n++
		}
		batch := make([]*Call[T, R], n)
		copy(batch, g.queue)
		g.queue = append(g.queue[:0], g.queue[n:]...)
		g.mu.Unlock()
		g.flush(batch)
	}
}

func (g *Group[T, R]) flush(batch []*Call[T, R]) {
	defer func() {
		for _, c := range batch {
			close(c.done)
		}
	}()
	g.Flush(batch)
}
