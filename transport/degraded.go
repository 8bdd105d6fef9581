package transport

import (
	"context"
	"crypto/sha256"
	"net/http"
	"sync"
	"time"

	"github.com/google/uuid"
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

// DefaultKeyCacheTTL is how long degraded mode may trust a key it saw authenticate
// (KEY_CACHE_TTL).
const DefaultKeyCacheTTL = 5 * time.Minute

// maxKnownKeys bounds the memory of lastKnown: past it, everything is forgotten at once.
const maxKnownKeys = 10_000

// lastKnown remembers the keys that authenticated requests, so that an order can still be
// accepted and journaled while the datastore is down (the items and pricing it needs are
// remembered by readmodels.OrderCatalog and OrderPricing). Entries are only used then, and never
// outlive what the instance knows: an entry is forgotten after ttl, when the datastore refuses
// its key, and when this instance revokes it. A key revoked through another instance is refused
// here as soon as the datastore is asked again, and at the latest ttl after its last confirmation.
type lastKnown struct {
	mu   sync.Mutex
	ttl  time.Duration
	now  func() time.Time
	keys map[[32]byte]knownKey // by SHA-256 of the presented key
}

type knownKey struct {
	p  Principal
	at time.Time // when the datastore last confirmed the key
}

func newLastKnown(ttl time.Duration, now func() time.Time) *lastKnown {
	if ttl <= 0 {
		ttl = DefaultKeyCacheTTL
	}
	return &lastKnown{ttl: ttl, now: now, keys: map[[32]byte]knownKey{}}
}

// remember records that the datastore confirmed the key secret for p just now.
func (l *lastKnown) remember(secret string, p Principal) {
	h := sha256.Sum256([]byte(secret))
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.keys) >= maxKnownKeys {
		clear(l.keys)
	}
	l.keys[h] = knownKey{p: p, at: l.now()}
}

// key is the principal of secret if the datastore confirmed it within ttl.
func (l *lastKnown) key(secret string) (Principal, bool) {
	h := sha256.Sum256([]byte(secret))
	l.mu.Lock()
	defer l.mu.Unlock()
	got, ok := l.keys[h]
	if !ok {
		return Principal{}, false
	}
	if l.now().Sub(got.at) >= l.ttl {
		delete(l.keys, h)
		return Principal{}, false
	}
	return got.p, true
}

// refused forgets secret: the datastore says it is not a live key (revoked or unknown).
func (l *lastKnown) refused(secret string) {
	h := sha256.Sum256([]byte(secret))
	l.mu.Lock()
	defer l.mu.Unlock()
	delete(l.keys, h)
}

// revoked forgets every entry of the key with id.
func (l *lastKnown) revoked(id uuid.UUID) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for h, k := range l.keys {
		if k.p.KeyID == id {
			delete(l.keys, h)
		}
	}
}
