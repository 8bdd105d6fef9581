package transport

import (
	"context"
	"crypto/sha256"
	"net/http"
	"sync"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/payledger/payledger/readmodels"
)

// errUnavailable is the answer of every route that needs the datastore while it is down.
var errUnavailable = NewError(http.StatusServiceUnavailable, "datastore_unavailable", "The datastore is unavailable; retry shortly")

// unavailable reports an error that means the datastore could not be reached.
func unavailable(err error) bool { return readmodels.Unavailable(err) }

// issueWait bounds the datastore steps of accepting an order or receipt (reads it needs, the
// append). A datastore that accepts connections and never answers (a hung server, a network that
// drops packets) must reach the degraded path as a refused connection does: the deadline's error
// counts as unavailable, and the receipt is journaled instead of the request hanging (5 s, as the
// read-your-writes wait: longer than any healthy append, even on a loaded machine). An append
// that still commits after its deadline is found stored by the journal's replay (same ids).
const issueWait = 5 * time.Second

// issueContext is the request's context bounded by issueWait.
func issueContext(c echo.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(c.Request().Context(), issueWait)
}

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
