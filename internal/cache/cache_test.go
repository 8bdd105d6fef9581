package cache

import (
	"strings"
	"testing"
)

// TestSizedCacheHoldsAtMostItsBytes: values a client chooses the size of (an item's 64 KiB
// picture) are bounded by what they weigh, not only by their count; replacing or forgetting an
// entry gives its weight back, and a value larger than the whole bound is not kept.
func TestSizedCacheHoldsAtMostItsBytes(t *testing.T) {
	const maxBytes = 1 << 20
	c := NewSizedCache(50_000, maxBytes, true, func(v string) int { return len(v) })
	c.setListening(true)
	picture := strings.Repeat("x", 64<<10)
	for i := range 1_000 {
		_, gen, _ := c.Get("")
		c.Put("m|"+strings.Repeat("k", 8)+string(rune('a'+i%26))+string(rune('a'+i/26%26))+string(rune('a'+i/676)), picture, gen)
		if c.Bytes() > maxBytes {
			t.Fatalf("after %d pictures the cache holds %d bytes, more than its %d", i+1, c.Bytes(), maxBytes)
		}
	}
	if n := c.Len(); n == 0 || n > maxBytes/(64<<10) {
		t.Fatalf("%d entries held; want between 1 and %d", n, maxBytes/(64<<10))
	}

	_, gen, _ := c.Get("")
	c.Put("m|big", strings.Repeat("y", maxBytes+1), gen)
	if _, _, ok := c.Get("m|big"); ok || c.Bytes() > maxBytes {
		t.Fatalf("a value larger than the bound was kept (held %d bytes)", c.Bytes())
	}

	c.Forget("m|")
	if c.Len() != 0 || c.Bytes() != 0 {
		t.Fatalf("after forgetting every entry: %d entries, %d bytes; want none", c.Len(), c.Bytes())
	}
	_, gen, _ = c.Get("")
	c.Put("m|a", "12345", gen)
	c.Put("m|a", "12", gen)
	if c.Bytes() != len("m|a")+2 {
		t.Fatalf("a replaced entry weighs %d bytes; want %d", c.Bytes(), len("m|a")+2)
	}
}

// TestCacheBoundedByCountEvicts: an unsized cache keeps at most max entries.
func TestCacheBoundedByCountEvicts(t *testing.T) {
	c := NewCache[int](3, false)
	c.setListening(true)
	for i := range 10 {
		_, gen, _ := c.Get("")
		c.Put(string(rune('a'+i)), i, gen)
	}
	if c.Len() != 3 || c.Bytes() != 0 {
		t.Fatalf("%d entries, %d bytes; want 3 and 0", c.Len(), c.Bytes())
	}
}
