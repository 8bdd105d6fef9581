package transport

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"net/http"
	"time"

	"github.com/labstack/echo/v4"
	"github.com/rs/zerolog"

	"github.com/payledger/payledger/readmodels"
)

// IdempotentStore keeps the first answer to each Idempotency-Key (readmodels.IdempotentResponses).
type IdempotentStore interface {
	Claim(ctx context.Context, principal, key, hash string, lock time.Duration) (readmodels.Kept, error)
	Finish(ctx context.Context, principal, key string, status int, contentType string, body []byte) error
	Release(ctx context.Context, principal, key string) error
}

var _ IdempotentStore = (*readmodels.IdempotentResponses)(nil)

// Idempotency-Key pacing: a running request holds its key for idemLock (after that a duplicate
// takes over: its instance died); a duplicate checks every idemPoll whether the answer is kept.
const (
	idemLock     = 60 * time.Second
	idemPoll     = 25 * time.Millisecond
	idemMaxKey   = 255
	idemMaxKeep  = MaxBodyBytes // an answer larger than this is not kept (the key is released)
	idemReplayed = "Idempotent-Replayed"
)

var errIdemConflict = NewError(http.StatusConflict, "conflict", "This Idempotency-Key was used with a different request")

// ownIdempotency are the POSTs whose command binds the key itself (the receipt issuer: the key
// names the receipt it created, also in degraded mode); the middleware leaves them alone.
var ownIdempotency = map[string]bool{"/api/orders": true, "/api/receipts": true}

// idempotent gives every POST of the developer and admin APIs the orders' Idempotency-Key
// semantics: the same key and request (method, route, body) answers the first answer again for
// 24 h; another request under the key is 409 conflict; a duplicate of a running request waits for
// its answer. Server errors are not kept, so a retry runs again.
func (s *Server) idempotent(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		key := c.Request().Header.Get("Idempotency-Key")
		if key == "" || s.idem == nil || ownIdempotency[c.Path()] {
			return next(c)
		}
		if len(key) > idemMaxKey || !printable(key) {
			return InvalidInput("Idempotency-Key must be 1 to 255 printable ASCII characters")
		}
		body, err := io.ReadAll(c.Request().Body)
		if err != nil {
			return err
		}
		c.Request().Body = io.NopCloser(bytes.NewReader(body))
		sum := sha256.Sum256(append([]byte(c.Request().Method+" "+c.Path()+"\n"), body...))
		principal, hash, ctx := "wallet:"+merchantOf(c), hex.EncodeToString(sum[:]), c.Request().Context()
		for {
			kept, err := s.idem.Claim(ctx, principal, key, hash, idemLock)
			switch {
			case err != nil:
				return err
			case kept.Conflict:
				return errIdemConflict
			case kept.Done:
				c.Response().Header().Set(idemReplayed, "true")
				return c.Blob(kept.Status, kept.ContentType, kept.Body)
			case kept.Run:
				return s.runKept(c, next, principal, key)
			}
			select { // another request with this key runs: wait for its answer
			case <-ctx.Done():
				return ctx.Err()
			case <-time.After(idemPoll):
			}
		}
	}
}

// runKept runs the request and keeps its answer (under 500), or releases the key.
func (s *Server) runKept(c echo.Context, next echo.HandlerFunc, principal, key string) error {
	rec := &keptWriter{ResponseWriter: c.Response().Writer}
	c.Response().Writer = rec
	if err := next(c); err != nil {
		c.Error(err) // rendered here, so that the envelope is what is kept
	}
	ctx := context.WithoutCancel(c.Request().Context())
	status := c.Response().Status
	var err error
	if status >= 500 || rec.over {
		err = s.idem.Release(ctx, principal, key)
	} else {
		err = s.idem.Finish(ctx, principal, key, status, c.Response().Header().Get(echo.HeaderContentType), rec.body.Bytes())
	}
	if err != nil { // the answer went out; a retry finds the key running until the lock ends
		zerolog.Ctx(c.Request().Context()).Error().Err(err).Msg("keep idempotent answer")
	}
	return nil
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

func printable(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 0x20 || s[i] > 0x7e {
			return false
		}
	}
	return true
}
