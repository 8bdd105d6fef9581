package transport

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/payledger/payledger/commands"
)

// An answer that tells the caller to retry is not kept under its Idempotency-Key: a 409 of
// contention ("nothing was changed, retry") and a 429 were replayed to every retry with the same
// key for 24 h, so the request the caller was told to retry never ran. A retry now runs, and its
// answer is the one kept.
func TestIdempotencyKeyDoesNotKeepRetryAnswers(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	m := e.merchant(false)
	refusals := map[string]error{
		"/api/test/contended":    commands.ErrContended,
		"/api/test/rate-limited": NoSlot("Too many at once", e.clk.Now()),
	}
	for path, refusal := range refusals {
		var calls atomic.Int32
		e.srv.handle(http.MethodPost, path, Policy{Access: Admin}, func(c echo.Context) error {
			if calls.Add(1) == 1 {
				return refusal
			}
			return c.JSON(http.StatusOK, map[string]any{"ok": true, "call": calls.Load()})
		})
		call := func() *httptest.ResponseRecorder {
			return e.do(req{method: http.MethodPost, path: path, body: `{}`, cookies: m.cookies,
				header: map[string]string{CSRFHeader: m.csrf, "Idempotency-Key": "retry-" + path}})
		}
		first := call()
		if first.Code != http.StatusConflict && first.Code != http.StatusTooManyRequests {
			t.Fatalf("%s first: %d %s", path, first.Code, first.Body)
		}
		retry := call()
		if retry.Code != http.StatusOK || retry.Header().Get(idemReplayed) != "" || calls.Load() != 2 {
			t.Fatalf("%s retry after %d: %d %s (replayed %q, %d calls)", path, first.Code, retry.Code, retry.Body, retry.Header().Get(idemReplayed), calls.Load())
		}
		// The answer that did something is kept and replayed.
		again := call()
		if again.Code != http.StatusOK || again.Body.String() != retry.Body.String() || again.Header().Get(idemReplayed) != "true" || calls.Load() != 2 {
			t.Fatalf("%s replay: %d %s, %d calls", path, again.Code, again.Body, calls.Load())
		}
	}
	// A refusal that will not change (400) is still kept: the same request gets the same answer.
	var calls atomic.Int32
	e.srv.handle(http.MethodPost, "/api/test/invalid", Policy{Access: Admin}, func(c echo.Context) error {
		calls.Add(1)
		return InvalidInput("never")
	})
	for range 2 {
		rec := e.do(req{method: http.MethodPost, path: "/api/test/invalid", body: `{}`, cookies: m.cookies,
			header: map[string]string{CSRFHeader: m.csrf, "Idempotency-Key": "invalid"}})
		if rec.Code != http.StatusBadRequest {
			t.Fatalf("invalid: %d %s", rec.Code, rec.Body)
		}
	}
	if calls.Load() != 1 {
		t.Fatalf("a kept 400 ran %d times", calls.Load())
	}
}

// A request that panicked (answered 500 by recoverPanics) releases its Idempotency-Key like any
// 500: its retry held the key "running" and polled for an answer that never came, for the whole
// minute of the lock.
func TestIdempotencyKeyReleasedWhenTheHandlerPanics(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	m := e.merchant(false)
	var calls atomic.Int32
	e.srv.handle(http.MethodPost, "/api/test/panics", Policy{Access: Admin}, func(c echo.Context) error {
		if calls.Add(1) == 1 {
			panic("a bug")
		}
		return c.JSON(http.StatusOK, map[string]any{"ok": true})
	})
	call := func() *httptest.ResponseRecorder {
		return e.do(req{method: http.MethodPost, path: "/api/test/panics", body: `{}`, cookies: m.cookies,
			header: map[string]string{CSRFHeader: m.csrf, "Idempotency-Key": "panics"}})
	}
	if first := call(); first.Code != http.StatusInternalServerError {
		t.Fatalf("panic: %d %s", first.Code, first.Body)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	hr := httptest.NewRequestWithContext(ctx, http.MethodPost, "/api/test/panics", strings.NewReader(`{}`))
	hr.Header.Set("Content-Type", "application/json")
	hr.Header.Set(CSRFHeader, m.csrf)
	hr.Header.Set("Idempotency-Key", "panics")
	for _, ck := range m.cookies {
		hr.AddCookie(ck)
	}
	retry := httptest.NewRecorder()
	e.srv.ServeHTTP(retry, hr)
	if retry.Code != http.StatusOK || calls.Load() != 2 {
		t.Fatalf("retry after a panic: %d %s (%d calls)", retry.Code, retry.Body, calls.Load())
	}
}
