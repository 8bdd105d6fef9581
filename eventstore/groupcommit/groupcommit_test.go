package groupcommit

import (
	"context"
	"errors"
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
	release, flushed := make(chan struct{}), make(chan int, 1)
	g := &Group[int, int]{Slots: 1, Flush: func(batch []*Call[int, int]) {
		<-release // a server that accepts and never answers
		for _, c := range batch {
			c.Result = c.Item
		}
		flushed <- len(batch)
	}}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { _, err := g.DoContext(ctx, 1); done <- err }()
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
