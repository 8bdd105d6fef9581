package groupcommit

import (
	"context"
	"errors"
	"slices"
	"sync"
	"testing"
)

func TestConcurrentCallsShareFlushes(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	flushes, items := 0, 0
	release := make(chan struct{})
	g := &Group[int, int]{Slots: 1, MaxSize: 1000, Flush: func(batch []*Call[int, int]) {
		<-release
		mu.Lock()
		flushes++
		items += len(batch)
		mu.Unlock()
		for _, c := range batch {
			if c.Item%7 == 0 {
				c.Err = errors.New("seven")
				continue
			}
			c.Result = c.Item * 2
		}
	}}
	const n = 200
	var wg sync.WaitGroup
	results, errs := make([]int, n), make([]error, n)
	for i := range n {
		wg.Go(func() { results[i], errs[i] = g.Do(i) })
	}
	close(release)
	wg.Wait()
	for i := range n {
		if i%7 == 0 != (errs[i] != nil) || errs[i] == nil && results[i] != 2*i {
			t.Fatalf("call %d: %d %v", i, results[i], errs[i])
		}
	}
	if items != n || flushes >= n {
		t.Fatalf("%d items in %d flushes", items, flushes)
	}
}

func TestMaxSizeSplitsBatches(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var sizes []int
	block := make(chan struct{})
	g := &Group[int, struct{}]{Slots: 1, MaxSize: 10, Size: func(v int) int { return v }, Flush: func(batch []*Call[int, struct{}]) {
		<-block
		total := 0
		for _, c := range batch {
			total += c.Item
		}
		mu.Lock()
		sizes = append(sizes, total)
		mu.Unlock()
	}}
	var wg sync.WaitGroup
	for range 20 {
		wg.Go(func() { _, _ = g.Do(4) })
	}
	wg.Go(func() { _, _ = g.Do(25) }) // larger than MaxSize: goes alone
	close(block)
	wg.Wait()
	for _, s := range sizes {
		if s > 10 && s != 25 {
			t.Fatalf("a batch of size %d exceeds 10: %v", s, sizes)
		}
	}
}

// TestDoContextStopsWaitingForAHungFlush: a caller whose context ends while its write's flush
// does not return gets the context's error at once; the flush still runs to its end.
func TestDoContextStopsWaitingForAHungFlush(t *testing.T) {
	t.Parallel()
	release, started, flushed := make(chan struct{}), make(chan struct{}, 1), make(chan int, 1)
	g := &Group[int, int]{Slots: 1, Flush: func(batch []*Call[int, int]) {
		started <- struct{}{}
		<-release // a server that accepts and never answers
		for _, c := range batch {
			c.Result = c.Item
		}
		flushed <- len(batch)
	}}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { _, err := g.DoContext(ctx, 1); done <- err }()
	<-started // the write is in its flush (one still queued is withdrawn: the next test)
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("DoContext with its context ended: %v", err)
	}
	close(release)
	if n := <-flushed; n != 1 {
		t.Fatalf("the flush wrote %d items, want the abandoned one", n)
	}
	if v, err := g.DoContext(context.Background(), 2); err != nil || v != 2 {
		t.Fatalf("a later write: %d %v", v, err)
	}
}

// TestAWriteGivenUpBeforeItsFlushIsWithdrawn: while a flush hangs, the callers that give up on
// writes still queued behind it take them back: the queue does not grow with every request for
// as long as the hang lasts, and none of those writes is made once the flush returns (long after
// each caller was told it failed). The write already in the hung flush is still made.
func TestAWriteGivenUpBeforeItsFlushIsWithdrawn(t *testing.T) {
	t.Parallel()
	release, started := make(chan struct{}), make(chan struct{}, 1)
	var mu sync.Mutex
	var written []int
	g := &Group[int, int]{Slots: 1, Flush: func(batch []*Call[int, int]) {
		select {
		case started <- struct{}{}:
		default:
		}
		<-release // a server that accepts and never answers, until released
		mu.Lock()
		defer mu.Unlock()
		for _, c := range batch {
			written = append(written, c.Item)
			c.Result = c.Item
		}
	}}
	first := make(chan error, 1)
	go func() { _, err := g.DoContext(context.Background(), 0); first <- err }()
	<-started // the first write's flush hangs
	const givenUp = 500
	for i := 1; i <= givenUp; i++ {
		ctx, cancel := context.WithCancel(context.Background())
		cancel() // the request's deadline passed while the flush hung
		if _, err := g.DoContext(ctx, i); !errors.Is(err, context.Canceled) {
			t.Fatalf("write %d given up: %v", i, err)
		}
	}
	g.mu.Lock()
	queued := len(g.queue)
	g.mu.Unlock()
	if queued != 0 {
		t.Fatalf("%d writes given up are still queued behind the hung flush, want none", queued)
	}
	close(release)
	if err := <-first; err != nil {
		t.Fatalf("the write in the hung flush: %v", err)
	}
	if v, err := g.DoContext(context.Background(), givenUp+1); err != nil || v != givenUp+1 {
		t.Fatalf("a later write: %d %v", v, err)
	}
	mu.Lock()
	defer mu.Unlock()
	if !slices.Equal(written, []int{0, givenUp + 1}) {
		t.Fatalf("written %d items (%v...), want only the write in the hung flush and the later one", len(written), written[:min(len(written), 5)])
	}
}
