package postgres

import "sync"

// head is a stream's last version and hash.
type head struct {
	version uint64
	hash    []byte
}

// headCache remembers stream heads this process wrote, so most appends skip the head read. A
// stale entry is harmless: the unique (stream, version) constraint rejects the insert.
type headCache struct {
	mu    sync.Mutex
	max   int
	heads map[string]head
}

func newHeadCache(max int) *headCache { return &headCache{max: max, heads: map[string]head{}} }

func (c *headCache) get(stream string) (head, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	h, ok := c.heads[stream]
	return h, ok
}

func (c *headCache) put(stream string, h head) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.heads) >= c.max {
		clear(c.heads)
	}
	c.heads[stream] = h
}

func (c *headCache) forget(stream string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.heads, stream)
}
