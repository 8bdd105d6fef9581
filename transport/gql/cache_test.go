package gql

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/vektah/gqlparser/v2/ast"
)

func heapInUse() int64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return int64(m.HeapInuse)
}

// aliasQuery is operation i selecting n aliased fields (3 tokens each): it validates, so gqlgen
// offers it to the cache, and past MaxFields it is refused afterwards.
func aliasQuery(i, n int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "query q%d {", i)
	for j := range n {
		fmt.Fprintf(&b, " a%d_%d:__typename", j, i)
	}
	return b.String() + " }"
}

// TestQueryCacheIsBoundedByWhatItHolds: one key holder's distinct queries cannot pin an
// instance's memory through the parsed-query cache. With gqlgen's LRU of 1,000 documents, these
// 600 queries (half of them 640 aliases, refused FIELD_LIMIT_EXCEEDED) left the heap 94 MB
// larger, and 1,000 refused ones 291 MB; now documents past queryCacheEntryMax are not kept and
// the rest weigh at most queryCacheBudget.
func TestQueryCacheIsBoundedByWhatItHolds(t *testing.T) {
	h := NewHandler(&readCounter{second: make(chan struct{})}, time.Now)
	before := heapInUse()
	for i := range 600 {
		n := 640 // refused: more than MaxFields
		if i%2 == 1 {
			n = 60 // answered, and small enough to be kept
		}
		body := fmt.Sprintf(`{"query":%q}`, aliasQuery(i, n))
		req := httptest.NewRequest(http.MethodPost, "/", strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code != http.StatusOK {
			t.Fatalf("query %d: %d %s", i, rec.Code, rec.Body)
		}
	}
	grew := heapInUse() - before
	runtime.KeepAlive(h)
	if grew > 3*queryCacheBudget {
		t.Fatalf("600 distinct queries left the heap %d MB larger, want at most %d MB", grew>>20, 3*queryCacheBudget>>20)
	}
}

func TestQueryCacheKeepsSmallQueriesWithinItsBudget(t *testing.T) {
	ctx := context.Background()
	c := newQueryCache(40<<10, 3)
	small, large := aliasQuery(1, 10), aliasQuery(2, 400)
	doc := &ast.QueryDocument{}
	c.Add(ctx, large, doc)
	if _, ok := c.Get(ctx, large); ok {
		t.Fatalf("a query of 1,200 tokens (weight %d) was kept", queryWeight(large))
	}
	c.Add(ctx, small, doc)
	if got, ok := c.Get(ctx, small); !ok || got != doc {
		t.Fatal("a small query was not kept")
	}
	// The budget (40 KiB) holds four of these (about 9 KiB each) but the cache holds three
	// entries: the least recently used goes first.
	for i := 3; i <= 5; i++ {
		c.Get(ctx, small)
		c.Add(ctx, aliasQuery(i, 10), doc)
	}
	if _, ok := c.Get(ctx, small); !ok {
		t.Fatal("the most recently used query was dropped")
	}
	if _, ok := c.Get(ctx, aliasQuery(3, 10)); ok {
		t.Fatal("the least recently used query was kept past the entry bound")
	}
	if c.used > c.budget || c.order.Len() != 3 || len(c.byKey) != 3 {
		t.Fatalf("used %d of %d, %d entries (%d keys)", c.used, c.budget, c.order.Len(), len(c.byKey))
	}
	// By weight: 20 KiB holds two of them, whatever the entry bound.
	c = newQueryCache(20<<10, 100)
	for i := 1; i <= 3; i++ {
		c.Add(ctx, aliasQuery(i, 10), doc)
	}
	if _, ok := c.Get(ctx, aliasQuery(1, 10)); ok || c.order.Len() != 2 || c.used > c.budget {
		t.Fatalf("past the budget: %d entries weighing %d of %d", c.order.Len(), c.used, c.budget)
	}
}
