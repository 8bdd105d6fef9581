package gql

import (
	"container/list"
	"context"
	"sync"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/lexer"
)

// The parsed-query cache is bounded by the memory its documents hold, not by their number: each
// entry kept the query's text and its syntax tree (about 150 bytes per token), and gqlgen caches
// every document that validates, before the field, depth and complexity limits refuse it. With
// gqlgen's LRU of 1,000 documents, one key holder's 1,000 distinct queries of 640 aliases (30 KB
// each, every one refused FIELD_LIMIT_EXCEEDED) held 291 MB of an instance's heap for good.
// Useful queries are small (a leaderboard with every User field is about 45 tokens, GraphiQL's
// introspection about 150), so a document weighing more than queryCacheEntryMax is parsed at each
// request instead (MaxTokens bounds that cost), and the whole cache weighs at most
// queryCacheBudget.
const (
	queryCacheBudget   = 8 << 20
	queryCacheEntryMax = 64 << 10
	queryCacheEntries  = 1000
	// queryTokenBytes is what one token of a query is counted for: its share of the syntax tree
	// (a field, its name, alias, position) with room to spare.
	queryTokenBytes = 256
)

// queryCache is a least-recently-used cache of parsed queries whose total weight (queryWeight)
// stays within budget.
type queryCache struct {
	mu      sync.Mutex
	budget  int
	entries int
	used    int
	order   *list.List // of *cachedQuery, most recently used first
	byKey   map[string]*list.Element
}

type cachedQuery struct {
	key    string
	doc    *ast.QueryDocument
	weight int
}

var _ graphql.Cache[*ast.QueryDocument] = (*queryCache)(nil)

func newQueryCache(budget, entries int) *queryCache {
	return &queryCache{budget: budget, entries: entries, order: list.New(), byKey: map[string]*list.Element{}}
}

// Get returns the parsed document of query key, if kept.
func (c *queryCache) Get(_ context.Context, key string) (*ast.QueryDocument, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.byKey[key]
	if !ok {
		return nil, false
	}
	c.order.MoveToFront(el)
	return el.Value.(*cachedQuery).doc, true
}

// Add keeps doc unless it weighs more than queryCacheEntryMax, dropping the least recently used
// documents until the cache is within its budget and entry count.
func (c *queryCache) Add(_ context.Context, key string, doc *ast.QueryDocument) {
	w := queryWeight(key)
	if w > queryCacheEntryMax || w > c.budget {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.byKey[key]; ok {
		return
	}
	c.byKey[key] = c.order.PushFront(&cachedQuery{key: key, doc: doc, weight: w})
	c.used += w
	for c.used > c.budget || c.order.Len() > c.entries {
		last := c.order.Back()
		q := last.Value.(*cachedQuery)
		c.order.Remove(last)
		delete(c.byKey, q.key)
		c.used -= q.weight
	}
}

// queryWeight estimates what a query's parsed document holds: its text (every position of the
// tree points at it) and queryTokenBytes per token. Only a query that parsed is weighed, so its
// lexing cannot fail before the end; it stops early once past queryCacheEntryMax.
func queryWeight(query string) int {
	w := len(query)
	lex := lexer.New(&ast.Source{Input: query})
	for w <= queryCacheEntryMax {
		tok, err := lex.ReadToken()
		if err != nil || tok.Kind == lexer.EOF {
			break
		}
		w += queryTokenBytes
	}
	return w
}
