package cache

import (
	"strings"
	"sync"
)

// Cache is an in-process cache of read-model rows that every instance can invalidate. It is
// trusted only while its Invalidations listener is connected and hears its own probe: a change
// committed in any instance sends a NOTIFY on the cache's channel, and a lost or silent listener
// empties and disables the cache until it is back, so a cached value is never older than the
// notification latency.
//
// The generation counter closes the race between a reader and a writer: a reader takes the
// generation before it reads the database and stores its row only if no invalidation arrived in
// between.
type Cache[V any] struct {
	mu        sync.Mutex
	entries   map[string]V
	gen       uint64
	listening bool
	max       int
	// byPrefix makes a notification's keys prefixes (all entries that start with one go).
	byPrefix bool
	// size weighs an entry and maxBytes bounds their sum (a count alone let values a client
	// chooses the size of, an item's 64 KiB picture, hold gigabytes); bytes is the sum held.
	size            func(V) int
	maxBytes, bytes int
}

// NewCache returns a cache of at most max entries (an arbitrary one is evicted beyond that).
// With byPrefix, invalidation payloads name key prefixes rather than whole keys.
func NewCache[V any](max int, byPrefix bool) *Cache[V] {
	return &Cache[V]{entries: map[string]V{}, max: max, byPrefix: byPrefix}
}

// NewSizedCache is NewCache bounded in bytes too: the entries' sizes (size of each value, its key
// added) sum to at most maxBytes; arbitrary entries are evicted to make room, and a value larger
// than maxBytes alone is not kept.
func NewSizedCache[V any](max, maxBytes int, byPrefix bool, size func(V) int) *Cache[V] {
	c := NewCache[V](max, byPrefix)
	c.size, c.maxBytes = size, maxBytes
	return c
}

// weight is what key and v count toward maxBytes (0 without a size bound).
func (c *Cache[V]) weight(key string, v V) int {
	if c.size == nil {
		return 0
	}
	return len(key) + c.size(v)
}

// drop removes key's entry and its weight.
func (c *Cache[V]) drop(key string) {
	if v, ok := c.entries[key]; ok {
		c.bytes -= c.weight(key, v)
		delete(c.entries, key)
	}
}

// empty removes every entry.
func (c *Cache[V]) empty() {
	clear(c.entries)
	c.bytes = 0
}

// Get returns the cached value of key and the generation to pass to Put after a database read.
func (c *Cache[V]) Get(key string) (V, uint64, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	v, ok := c.entries[key]
	return v, c.gen, ok && c.listening
}

// Put stores v unless the cache was invalidated since gen was read or is not listening.
func (c *Cache[V]) Put(key string, v V, gen uint64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.listening || gen != c.gen {
		return
	}
	w := c.weight(key, v)
	if c.size != nil && w > c.maxBytes {
		c.drop(key)
		return
	}
	c.drop(key)
	for k := range c.entries { // map order is unspecified: arbitrary victims
		if len(c.entries) < c.max && (c.size == nil || c.bytes+w <= c.maxBytes) {
			break
		}
		c.drop(k)
	}
	c.entries[key] = v
	c.bytes += w
}

// Load returns key's cached value, or reads it and caches it when read says it may be kept. A
// nil cache always reads.
func (c *Cache[V]) Load(key string, read func() (v V, keep bool, err error)) (V, error) {
	if c == nil {
		v, _, err := read()
		return v, err
	}
	v, gen, ok := c.Get(key)
	if ok {
		return v, nil
	}
	v, keep, err := read()
	if err == nil && keep {
		c.Put(key, v, gen)
	}
	return v, err
}

// Forget drops keys (all entries when none is given) in this instance at once, ahead of the
// notification that the change sends to every instance. A nil cache holds nothing to forget.
func (c *Cache[V]) Forget(keys ...string) {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.gen++
	if len(keys) == 0 {
		c.empty()
		return
	}
	for _, k := range keys {
		if !c.byPrefix {
			c.drop(k)
			continue
		}
		for key := range c.entries {
			if strings.HasPrefix(key, k) {
				c.drop(key)
			}
		}
	}
}

// Len is the number of cached entries.
func (c *Cache[V]) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.entries)
}

// Bytes is what the cached entries weigh (0 without a size bound).
func (c *Cache[V]) Bytes() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.bytes
}

// invalidate applies a notification payload: "" or "*" empties the cache, otherwise it is a
// comma-separated list of keys (or prefixes).
func (c *Cache[V]) invalidate(payload string) {
	if payload == "" || payload == "*" {
		c.Forget()
		return
	}
	c.Forget(strings.Split(payload, ",")...)
}

func (c *Cache[V]) setListening(on bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.empty()
	c.gen++
	c.listening = on
}
