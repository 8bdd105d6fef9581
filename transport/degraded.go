package transport

import (
	"context"
	"crypto/sha256"
	"net/http"
	"sync"
	"time"

	"github.com/payledger/payledger/eventstore/journal"
	"github.com/payledger/payledger/readmodels"
)

// Journal keeps orders accepted while the datastore does not answer.
type Journal interface {
	Append(e journal.Entry) error
}

// errUnavailable is the answer of every route that needs the datastore while it is down.
var errUnavailable = NewError(http.StatusServiceUnavailable, "datastore_unavailable", "The datastore is unavailable; retry shortly")

// unavailable reports an error that means the datastore could not be reached.
func unavailable(err error) bool { return readmodels.Unavailable(err) }

// lastKnown remembers what order creation read from the datastore, so that an order can still
// be priced and journaled while the datastore is down. Entries are only used then.
type lastKnown struct {
	mu      sync.Mutex
	keys    map[[32]byte]Principal // by SHA-256 of the presented key
	items   map[string]map[string]readmodels.Item
	pricing map[string]merchantPricing
}

func newLastKnown() *lastKnown {
	return &lastKnown{keys: map[[32]byte]Principal{}, items: map[string]map[string]readmodels.Item{}, pricing: map[string]merchantPricing{}}
}

func (l *lastKnown) key(secret string, p *Principal) (Principal, bool) {
	h := sha256.Sum256([]byte(secret))
	l.mu.Lock()
	defer l.mu.Unlock()
	if p != nil {
		if len(l.keys) > 10_000 {
			clear(l.keys)
		}
		l.keys[h] = *p
		return *p, true
	}
	got, ok := l.keys[h]
	return got, ok
}

func (l *lastKnown) rememberItems(wallet string, items []readmodels.Item) {
	l.mu.Lock()
	defer l.mu.Unlock()
	m := l.items[wallet]
	if m == nil {
		if len(l.items) > 10_000 {
			clear(l.items)
		}
		m = map[string]readmodels.Item{}
		l.items[wallet] = m
	}
	for _, it := range items {
		m["id:"+it.ID.String()], m["sku:"+it.SKU] = it, it
	}
}

func (l *lastKnown) item(wallet, ref string) (readmodels.Item, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	it, ok := l.items[wallet][ref]
	return it, ok
}

func (l *lastKnown) rememberPricing(wallet string, mp merchantPricing) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.pricing) > 10_000 {
		clear(l.pricing)
	}
	l.pricing[wallet] = mp
}

func (l *lastKnown) pricingOf(wallet string) (merchantPricing, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	mp, ok := l.pricing[wallet]
	return mp, ok
}

// every runs fn at each tick of interval until ctx ends, and returns ctx.Err().
func every(ctx context.Context, interval time.Duration, fn func(context.Context)) error {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-t.C:
			fn(ctx)
		}
	}
}
