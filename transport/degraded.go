package transport

import (
	"crypto/sha256"
	"net/http"
	"sync"

	"github.com/payledger/payledger/readmodels"
)

// errUnavailable is the answer of every route that needs the datastore while it is down.
var errUnavailable = NewError(http.StatusServiceUnavailable, "datastore_unavailable", "The datastore is unavailable; retry shortly")

// unavailable reports an error that means the datastore could not be reached.
func unavailable(err error) bool { return readmodels.Unavailable(err) }

// lastKnown remembers the keys that authenticated requests, so that an order can still be
// accepted and journaled while the datastore is down (the items and pricing it needs are
// remembered by readmodels.OrderCatalog and OrderPricing). Entries are only used then.
type lastKnown struct {
	mu   sync.Mutex
	keys map[[32]byte]Principal // by SHA-256 of the presented key
}

func newLastKnown() *lastKnown {
	return &lastKnown{keys: map[[32]byte]Principal{}}
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
