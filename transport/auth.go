package transport

import (
	"context"
	"crypto/subtle"
	"errors"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/labstack/echo/v4"

	"github.com/payledger/payledger/readmodels"
	"github.com/payledger/payledger/transport/page"
)

// Scopes a subscription key may carry (spec, Authentication point 4).
var Scopes = []string{
	"inventory:read", "inventory:write", "orders:create", "receipts:read", "receipts:write",
	"shop:read", "split:read", "users:read", "graphql:read",
}

// KeyStore is what authentication needs of the subscription keys.
type KeyStore interface {
	// AuthenticateWithin returns the live key whose secret is given, or readmodels.ErrNotFound; a
	// lookup in the datastore is bounded by wait (0: none), a key its cache answers costs none.
	AuthenticateWithin(ctx context.Context, secret string, wait time.Duration) (readmodels.APIKey, error)
	ByID(ctx context.Context, id uuid.UUID) (readmodels.APIKey, error)
	Create(ctx context.Context, wallet, name string, scopes []string) (string, readmodels.APIKey, error)
	List(ctx context.Context, wallet string) ([]readmodels.APIKey, error)
	Revoke(ctx context.Context, wallet string, id uuid.UUID) error
}

// Principal is the merchant a developer request acts for.
type Principal struct {
	Wallet string
	Scopes []string
	KeyID  uuid.UUID
	// Secret is the key the request presented (standalone mode only): webhook signing uses it.
	Secret string
}

// HasScope reports whether the principal carries scope.
func (p Principal) HasScope(scope string) bool { return slices.Contains(p.Scopes, scope) }

type principalKey struct{}

// PrincipalFrom returns the developer principal of the request, set by the developer middleware.
func PrincipalFrom(c echo.Context) (Principal, bool) {
	p, ok := c.Request().Context().Value(principalKey{}).(Principal)
	return p, ok
}

var (
	errNoKey      = NewError(http.StatusUnauthorized, "unauthorized", "Missing or invalid subscription key")
	errNoScope    = NewError(http.StatusForbidden, "forbidden", "Insufficient scope or not allowed")
	errEdge       = NewError(http.StatusForbidden, "forbidden", "Insufficient scope or origin enforcement failed")
	errWalletHdr  = NewError(http.StatusForbidden, "forbidden", "Wallet identity headers are not accepted; send a subscription key")
	errCronSecret = NewError(http.StatusUnauthorized, "unauthorized", "Missing or invalid cron secret")
)

// presentedKey is the subscription key a request carries: the subscription-key header, or the
// merchant API key as x-api-key or a bearer token (spec, Authentication points 1 and 6).
func presentedKey(r *http.Request) string {
	if k := r.Header.Get("Ocp-Apim-Subscription-Key"); k != "" {
		return k
	}
	if k := r.Header.Get("x-api-key"); k != "" {
		return k
	}
	if a := r.Header.Get("Authorization"); len(a) > 7 && strings.EqualFold(a[:7], "bearer ") {
		return strings.TrimSpace(a[7:])
	}
	return ""
}

func offersWalletHeader(r *http.Request) bool {
	return r.Header.Get("x-wallet") != "" || r.Header.Get("wallet") != ""
}

func equalSecret(got, want string) bool {
	return want != "" && subtle.ConstantTimeCompare([]byte(got), []byte(want)) == 1
}

// developer authenticates a developer request and checks scope, then applies the per-key limit.
func (s *Server) developer(scope string) echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			p, err := s.authenticate(c)
			if err != nil {
				return err
			}
			if scope != "" && !p.HasScope(scope) {
				return errNoScope
			}
			if err := s.limit(c, "key:"+p.KeyID.String(), s.cfg.KeyLimitPerMinute); err != nil {
				return err
			}
			s.usage.Count(p.Wallet)
			ctx := context.WithValue(c.Request().Context(), principalKey{}, p)
			c.SetRequest(c.Request().WithContext(ctx))
			return next(c)
		}
	}
}

func (s *Server) authenticate(c echo.Context) (Principal, error) {
	r := c.Request()
	ctx := r.Context()
	if s.cfg.GatewayMode {
		// Only the gateway, proven by the edge secret, may say which subscription is calling.
		if !equalSecret(r.Header.Get("x-edge-secret"), s.cfg.EdgeSecret) {
			return Principal{}, errEdge
		}
		id, err := uuid.Parse(r.Header.Get("x-subscription-id"))
		if err != nil {
			return Principal{}, errNoKey
		}
		key, err := s.keys.ByID(ctx, id)
		if err != nil {
			return Principal{}, keyError(err)
		}
		return Principal{Wallet: key.Wallet, Scopes: key.Scopes, KeyID: key.ID}, nil
	}
	secret := presentedKey(r)
	if secret == "" {
		if offersWalletHeader(r) {
			return Principal{}, errWalletHdr
		}
		return Principal{}, errNoKey
	}
	_, known := s.known.key(secret) // a key confirmed within KEY_CACHE_TTL: read once per request
	if err := s.keyLookupsBlocked(c, known); err != nil {
		return Principal{}, err
	}
	gen := s.known.generation()
	var wait time.Duration // unbounded: no earlier answer to fall back on
	if known {
		wait = keyLookupWait
	}
	key, err := s.keys.AuthenticateWithin(ctx, secret, wait)
	if unavailable(err) {
		// Only while the datastore is down: a key that worked before still identifies its merchant.
		// Never one it saw refused or revoked, nor one not confirmed within KEY_CACHE_TTL.
		if p, ok := s.known.key(secret); ok {
			return p, nil
		}
		return Principal{}, err
	}
	if err != nil {
		if errors.Is(err, readmodels.ErrNotFound) {
			s.known.refused(secret)
			return Principal{}, s.keyRefused(c)
		}
		return Principal{}, keyError(err)
	}
	p := Principal{Wallet: key.Wallet, Scopes: key.Scopes, KeyID: key.ID, Secret: secret}
	s.known.remember(secret, p, gen)
	return p, nil
}

// keyLookupWait bounds the datastore's lookup of a key this instance confirmed within
// KEY_CACHE_TTL (lastKnown), which the degraded mode vouches for if the datastore does not answer.
// While the key cache is off (its listener silent, as during a hung datastore) every request
// looks its key up; unbounded, each order of a hang waited out its lookup before the stall
// watch's short bound could help.
const keyLookupWait = time.Second

// Refused keys are limited per client address as public routes are (PublicLimitPerMinute): each
// costs a lookup in the datastore, and the per-key limit only counts keys that authenticate, so a
// client inventing keys was limited by nothing. Past the limit, the address's keys that this
// instance has not confirmed within KEY_CACHE_TTL are refused (429) without a lookup until the
// minute is over; keys that authenticate never count, and one in use is never held up.
func (s *Server) keyLookupsBlocked(c echo.Context, known bool) error {
	if known {
		return nil
	}
	if until, ok := s.gate.blocked(keyGate+ClientKey(c), s.now()); ok {
		return s.rateLimited(c, "keyauth", until)
	}
	return nil
}

// keyRefused counts a refused key of the client address: 401, or 429 once the address is over
// the limit, which also blocks its lookups (keyLookupsBlocked).
func (s *Server) keyRefused(c echo.Context) error {
	addr := ClientAddress(c) // an IPv6 client by its /64, /56 and /48, an IPv4 one also by its /24 (WideBuckets)
	res := s.failureAllowed(c.Request().Context(), "keyauth", addr, s.cfg.PublicLimitPerMinute)
	if res.Allowed {
		return errNoKey
	}
	s.gate.block(keyGate+addr.Key, res.RetryAt, s.now())
	return s.rateLimited(c, "keyauth", res.RetryAt)
}

// keyGate prefixes the addresses blocked for refused keys in the server's fail gate, apart from
// those blocked for wrong cron secrets or signatures (which are blocked on every route).
const keyGate = "key "

func keyError(err error) error {
	if errors.Is(err, readmodels.ErrNotFound) {
		return errNoKey
	}
	return err
}

// cron admits internal charging calls that carry the cron secret.
func (s *Server) cron(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		if err := s.authGate(c); err != nil {
			return err
		}
		if !equalSecret(c.Request().Header.Get("x-cron-secret"), s.cfg.CronSecret) {
			return s.authFailed(c, errCronSecret)
		}
		return next(c)
	}
}

// edgeOnly denies direct origin access in gateway mode (spec, Authentication point 3): every
// request must carry the edge secret, whatever its route's policy, except those named by
// reachableDirectly. The merchant's dashboard is no exception: a session cookie obtained through
// the edge must not open its pages on the origin any more than the API's.
func (s *Server) edgeOnly(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		r := c.Request()
		if !s.cfg.GatewayMode || reachableDirectly(r) {
			return next(c)
		}
		if !equalSecret(r.Header.Get("x-edge-secret"), s.cfg.EdgeSecret) {
			return errEdge
		}
		return next(c)
	}
}

// reachableDirectly names what gateway mode leaves open on the origin: the probes of the
// platform (/healthz, /metrics), the processor's signed webhook (the processor calls the origin;
// its signature authenticates it), and the customers' public payment page with its assets. The
// rest is denied by default, so a route added later is behind the edge until named here.
func reachableDirectly(r *http.Request) bool {
	p := r.URL.Path
	switch {
	case p == "/healthz", p == "/metrics":
		return true
	case r.Method == http.MethodPost && p == "/api/processor/webhook":
		return true
	}
	return strings.HasPrefix(p, "/portal/") || strings.HasPrefix(p, "/pay/") || strings.HasPrefix(p, page.StaticPrefix)
}
