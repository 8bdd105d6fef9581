package transport

import (
	"context"
	"crypto/sha256"
	"errors"
	"net/http"
	"sync"
	"time"

	"github.com/google/uuid"
	"github.com/labstack/echo/v4"

	"github.com/payledger/payledger/commands"
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
// read-your-writes wait: longer than any healthy append, even on a loaded machine; shorter while
// the datastore is known stalled, stallWatch). An append that still commits after its deadline is
// found stored by the journal's replay (same ids).
const issueWait = 5 * time.Second

// stalledIssueWait bounds an issue while the datastore is stalled (stallWatch): long enough for
// a healthy append on a loaded machine, short enough that customers do not each wait issueWait
// for a server that has stopped answering.
const stalledIssueWait = time.Second

// stalledFor is how long after an issue ran into its deadline the datastore counts as stalled,
// unless an issue is stored in time before then.
const stalledFor = 30 * time.Second

// stallWatch remembers that the datastore stopped answering: an issue ran into its deadline. A
// hung server is only known by waiting, and without this every order during a hang would wait
// the whole issueWait before being journaled; with it, only the first ones do, and the others
// get stalledIssueWait until an issue is stored in time again (the server answers) or stalledFor
// passes without another deadline.
type stallWatch struct {
	mu    sync.Mutex
	now   func() time.Time
	until time.Time
}

// wait is the bound of the next issue.
func (w *stallWatch) wait() time.Duration {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.now().Before(w.until) {
		return stalledIssueWait
	}
	return issueWait
}

// observe records how an issue bounded by ctx ended: journaled after its deadline (stalled), or
// stored (the datastore answers).
func (w *stallWatch) observe(ctx context.Context, degraded bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	switch {
	case degraded && errors.Is(ctx.Err(), context.DeadlineExceeded):
		w.until = w.now().Add(stalledFor)
	case !degraded:
		w.until = time.Time{}
	}
}

// issue runs handle on the request's context bounded by the stall watch, and records how it
// ended.
func (s *Server) issue(c echo.Context, handle func(ctx context.Context) (commands.Issued, error)) (commands.Issued, error) {
	ctx, cancel := context.WithTimeout(c.Request().Context(), s.stalls.wait())
	defer cancel()
	issued, err := handle(ctx)
	if err == nil {
		s.stalls.observe(ctx, issued.Degraded)
	}
	return issued, err
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
	// gen counts this instance's revocations: a lookup that began before one (generation) may
	// carry the revoked key's confirmation, read just before the revocation committed, and is
	// not remembered (remember).
	gen uint64
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

// generation is the count of revocations so far, taken before a key's lookup (remember).
func (l *lastKnown) generation() uint64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.gen
}

// remember records that the datastore confirmed the key secret for p just now, by a lookup that
// began at generation gen: none if a key was revoked here since, since the confirmation may be of
// that very key, read before its revocation committed (it was then remembered past the
// revocation, and accepted while the datastore was down within KEY_CACHE_TTL).
func (l *lastKnown) remember(secret string, p Principal, gen uint64) {
	h := sha256.Sum256([]byte(secret))
	l.mu.Lock()
	defer l.mu.Unlock()
	if gen != l.gen {
		return
	}
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
	l.gen++
	for h, k := range l.keys {
		if k.p.KeyID == id {
			delete(l.keys, h)
		}
	}
}
