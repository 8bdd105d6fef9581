package transport

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"time"

	"github.com/labstack/echo/v4"
	"github.com/rs/zerolog"

	"github.com/payledger/payledger/commands"
	"github.com/payledger/payledger/internal/lease"
	"github.com/payledger/payledger/readmodels"
)

// IdempotentStore keeps the first answer to each Idempotency-Key (readmodels.IdempotentResponses).
type IdempotentStore interface {
	Claim(ctx context.Context, principal, key, hash string, lock time.Duration) (readmodels.Kept, error)
	Finish(ctx context.Context, principal, key string, status int, contentType string, body []byte) error
	Release(ctx context.Context, principal, key string) error
	Renew(ctx context.Context, principal, key string, lock time.Duration) error
	Supersede(ctx context.Context, principal, key string, status int, contentType string, body []byte) error
	Bound() (answers int, bytes int64) // each principal's kept answers and their bytes in 24 h
}

var _ IdempotentStore = (*readmodels.IdempotentResponses)(nil)

// Idempotency-Key pacing: a running request holds its key for idemLock, renewed every third of
// it while it runs (holdKey), so a lock that runs out is a stopped request's: a duplicate then
// takes over (its instance died) and answers that the outcome is unknown. Before stop 83 the lock
// was 60 s and never renewed, so a retry after a crash waited that long for its 409. A duplicate
// checks whether the answer is kept after idemPoll, then at twice the last wait, up to
// idemPollMax (idemPollAfter).
const (
	idemLock     = 15 * time.Second
	idemPoll     = 25 * time.Millisecond
	idemPollMax  = 500 * time.Millisecond
	idemMaxKey   = 255
	idemMaxKeep  = readmodels.MaxKeptAnswerBytes // larger answers are not kept (the key is released); each claim reserves this
	idemReplayed = "Idempotent-Replayed"
	idemHeader   = "Idempotency-Key"
)

var errIdemConflict = NewError(http.StatusConflict, "conflict", "This Idempotency-Key was used with a different request")

// errIdemUnknown answers a retry under a key whose first request stopped before its answer was
// kept: it is not run again, since the first may have done its work (see idempotent).
var errIdemUnknown = NewError(http.StatusConflict, "conflict",
	"The first request under this Idempotency-Key stopped before its answer was kept (its server stopped), so it may have been done: look for its result (list what it creates) before sending it again under a new Idempotency-Key")

func unknownOutcome(echo.Context) error { return errIdemUnknown }

// ownIdempotency are the POSTs whose command binds the key itself (the receipt issuer: the key
// names the receipt it created); the middleware leaves them alone. The issuer's binding holds
// the key in this middleware's store too (readmodels.Idempotency), with the same requestHash, so
// one key is one request on every route: another route's request under it is 409 here, and an
// order under a key held here is 409 there.
var ownIdempotency = map[string]bool{"/api/orders": true, "/api/receipts": true}

// readOnlyPosts are the POSTs that change nothing (GraphQL has no mutations): a key on them is
// checked but neither held nor kept, as a key on a GET is not. A retry does them again, which is
// what a read is for, and a client's read under a key costs no kept answer (up to 1 MiB each).
var readOnlyPosts = map[string]bool{"/api/graphql": true}

// idempotent gives every POST of the developer and admin APIs the orders' Idempotency-Key
// semantics: the same key and request (method, full path, query, body) answers the first answer again for
// 24 h; another request under the key is 409 conflict; a duplicate of a running request waits for
// its answer. Server errors and answers that say to retry are not kept, so a retry runs again.
func (s *Server) idempotent(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		values, present := c.Request().Header[http.CanonicalHeaderKey(idemHeader)]
		if !present {
			return next(c)
		}
		key := values[0]
		if len(values) != 1 || !validIdemKey(key) {
			return InvalidInput("Idempotency-Key must be 1 to 255 printable ASCII characters")
		}
		if ownIdempotency[c.Path()] || readOnlyPosts[c.Path()] {
			return next(c)
		}
		body, err := io.ReadAll(c.Request().Body)
		if err != nil {
			return err
		}
		c.Request().Body = io.NopCloser(bytes.NewReader(body))
		principal, hash, ctx := "wallet:"+merchantOf(c), requestHash(c.Request(), body), c.Request().Context()
		for polls := 0; ; polls++ {
			kept, err := s.idem.Claim(ctx, principal, key, hash, s.idemLock)
			switch {
			case err != nil:
				return err
			case kept.Conflict:
				return errIdemConflict
			case kept.Full:
				return s.idemFull(c, kept.ResetAt)
			case kept.Done:
				if err := s.keptCreationGone(c, principal, key, kept); err != nil {
					return err
				}
				c.Response().Header().Set(idemReplayed, "true")
				return c.Blob(kept.Status, kept.ContentType, kept.Body)
			case kept.Run && kept.TakenOver:
				// The key's first request stopped without keeping or releasing an answer (its
				// instance died, or keeping the answer failed after it was sent): it may have
				// created what it asked for. Running it again could create it twice; the key
				// answers, and keeps, that the outcome is unknown (runKept keeps the 409).
				return s.runKept(c, unknownOutcome, principal, key)
			case kept.Run:
				return s.runKept(c, next, principal, key)
			}
			select { // another request with this key runs: wait for its answer
			case <-ctx.Done():
				return ctx.Err()
			case <-time.After(idemPollAfter(polls)):
			}
		}
	}
}

// idemFull is the 429 refusing a new Idempotency-Key to a merchant that holds as many kept
// answers as it may (the store's Bound in 24 h: IDEMPOTENCY_MAX_KEPT answers): nothing ran. The
// key is refused, not run without keeping its answer, since a client that relies on it would act
// twice on a retry.
// resetAt is when the oldest counted keys leave the count (at most 25 h away).
func (s *Server) idemFull(c echo.Context, resetAt time.Time) error {
	if resetAt.IsZero() { // not told (a bound of zero): in an hour, when a counted hour may leave
		resetAt = s.now().Add(time.Hour)
	}
	s.metrics.limited.WithLabelValues("idempotency_keys").Inc()
	reset := resetAt.UnixMilli()
	answers, bytes := s.idem.Bound()
	c.Response().Header().Set("Retry-After", strconv.FormatInt(max(1, (reset-s.now().UnixMilli()+999)/1000), 10))
	return &Error{Status: http.StatusTooManyRequests, Code: "rate_limited", Extra: map[string]any{"resetAt": reset},
		Message: fmt.Sprintf("This merchant's Idempotency-Keys of the last 24 hours reached the bound on kept answers (%d answers or %d MiB); nothing was done: send this request again with this key after resetAt",
			answers, bytes>>20)}
}

// idemPollAfter is how long a duplicate waits after its polls-th look at a running request's
// key: 25 ms first, for the usual short request, then twice the last wait up to 500 ms. Each look
// is a round trip to the datastore; at a steady 25 ms, one duplicate of a request that held its
// key for the whole minute made 2,400 of them, and a client retrying in a loop many times that.
func idemPollAfter(polls int) time.Duration {
	return min(idemPoll<<min(polls, 5), idemPollMax)
}

// runKept runs the request and keeps its answer, or releases the key when the answer says that
// nothing was done and to try again: a server error, a 429 (until its resetAt), a 409 of
// contention ("nothing was changed, retry"), a creation refused at the merchant's bound
// ("revoke one first": boundRefused). Kept, such an answer would be replayed to every retry
// for 24 h, and the request the caller was told to retry would never run.
func (s *Server) runKept(c echo.Context, next echo.HandlerFunc, principal, key string) error {
	rec := &keptWriter{ResponseWriter: c.Response().Writer}
	c.Response().Writer = rec
	defer func() { // a panic (recoverPanics answers 500) releases the key as a 500 does
		if r := recover(); r != nil {
			_ = s.idem.Release(context.WithoutCancel(c.Request().Context()), principal, key)
			panic(r)
		}
	}()
	held := s.holdKey(c.Request().Context(), principal, key)
	defer held() // a panic's too
	handlerErr := next(c)
	if handlerErr != nil {
		c.Error(handlerErr) // rendered here, so that the envelope is what is kept
	}
	held()
	ctx := context.WithoutCancel(c.Request().Context())
	status := c.Response().Status
	retry := status >= 500 || status == http.StatusTooManyRequests || errors.Is(handlerErr, commands.ErrContended) || s.boundRefused(c, status)
	var err error
	if retry || rec.over {
		err = s.idem.Release(ctx, principal, key)
	} else {
		err = s.idem.Finish(ctx, principal, key, status, c.Response().Header().Get(echo.HeaderContentType), rec.body.Bytes())
	}
	if err != nil { // the answer went out; a retry finds the key running until the lock ends
		zerolog.Ctx(c.Request().Context()).Error().Err(err).Msg("keep idempotent answer")
	}
	return nil
}

// holdKey renews the claim of (principal, key) every third of the lock until the returned stop is
// called, as the request's answer is rendered. A short request never renews (a timer per keyed
// request, no query); a failed renewal is logged and the request goes on: if renewals keep
// failing, a duplicate may take the key over, as after a crash, and is told the outcome is unknown.
func (s *Server) holdKey(ctx context.Context, principal, key string) (stop func()) {
	ctx = context.WithoutCancel(ctx) // a client gone does not stop the handler, so not its hold either
	return lease.Hold(ctx, s.idemLock/3, func(ctx context.Context) error { return s.idem.Renew(ctx, principal, key, s.idemLock) }, func(err error) {
		zerolog.Ctx(ctx).Warn().Err(err).Msg("renew Idempotency-Key claim")
	})
}

// keptWriter copies what a handler writes, up to idemMaxKeep.
type keptWriter struct {
	http.ResponseWriter
	body bytes.Buffer
	over bool
}

func (w *keptWriter) Write(b []byte) (int, error) {
	if w.body.Len()+len(b) > idemMaxKeep {
		w.over = true
	} else if !w.over {
		w.body.Write(b)
	}
	return w.ResponseWriter.Write(b)
}

func (w *keptWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// validIdemKey: 1 to 255 printable ASCII characters (DESIGN 10); a longer or binary key is
// refused rather than truncated, so that two keys never collide.
func validIdemKey(key string) bool {
	if len(key) == 0 || len(key) > idemMaxKey {
		return false
	}
	for i := 0; i < len(key); i++ {
		if key[i] < 0x20 || key[i] > 0x7e {
			return false
		}
	}
	return true
}

// requestHash is what a key's first request is compared with (DESIGN 10): the method, the full
// path with its ids (so POST .../{E1}/test and .../{E2}/test are two requests), the query and
// the body. Each part is length-prefixed, so that no two requests share an encoding.
func requestHash(r *http.Request, body []byte) string {
	h := sha256.New()
	for _, part := range [][]byte{[]byte(r.Method), []byte(r.URL.EscapedPath()), []byte(r.URL.RawQuery), body} {
		var n [8]byte
		binary.BigEndian.PutUint64(n[:], uint64(len(part)))
		h.Write(n[:])
		h.Write(part)
	}
	return hex.EncodeToString(h.Sum(nil))
}
