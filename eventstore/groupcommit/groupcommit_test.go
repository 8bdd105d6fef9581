package groupcommit

import (
	"errors"
	"sync"
	"testing"
)

func TestConcurrentCallsShareFlushes(t *testing.T) {
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
