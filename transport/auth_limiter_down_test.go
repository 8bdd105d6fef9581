package transport

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/labstack/echo/v4"

	"github.com/payledger/payledger/transport/ratelimit"
)

// downLimiter is a rate limiter whose store does not answer (Redis down).
type downLimiter struct{}

func (downLimiter) Allow(context.Context, string, int) (ratelimit.Result, error) {
	return ratelimit.Result{}, errors.New("redis: connection refused")
}

// TestFailuresAreLimitedWhileTheLimiterIsDown: with Redis down every limit let requests through,
// by design for valid credentials (the API stays up), but refused keys and wrong cron secrets were
// not limited at all either, so a key or a secret could be guessed at request speed for as long
// as the outage lasted. The failures are counted in the instance meanwhile; valid keys still pass.
func TestFailuresAreLimitedWhileTheLimiterIsDown(t *testing.T) {
	t.Parallel()
	e := newEnv(t, func(d *testDeps) { d.Limiter = downLimiter{}; d.Config.PublicLimitPerMinute = 5 })
	good := e.key("0x"+strings.Repeat("ad", 20), "receipts:read")
	const attacker = "192.0.2.17:4000"
	ping := func(key string) int {
		return e.do(req{method: http.MethodGet, path: "/api/status/ping", remote: attacker,
			header: map[string]string{"Ocp-Apim-Subscription-Key": key}}).Code
	}
	if code := ping(good); code != http.StatusOK {
		t.Fatalf("the merchant's key with the limiter down: %d", code)
	}
	for i := range 5 {
		if code := ping("plk_guess" + strings.Repeat("x", i)); code != http.StatusUnauthorized {
			t.Fatalf("guessed key %d: %d, want 401", i, code)
		}
	}
	if code := ping("plk_guess-again"); code != http.StatusTooManyRequests {
		t.Fatalf("sixth refused key in a minute with the limiter down: %d, want 429", code)
	}
	for i := range 20 { // the API stays up for a valid key: its limit lets it through
		if code := ping(good); code != http.StatusOK {
			t.Fatalf("the merchant's key, request %d with the limiter down: %d", i, code)
		}
	}

	e.srv.handle(http.MethodPost, "/api/cron/test", Policy{Access: Cron}, func(c echo.Context) error {
		return c.JSON(200, map[string]bool{"ok": true})
	})
	cron := func(secret string) int {
		return e.do(req{method: http.MethodPost, path: "/api/cron/test", remote: "192.0.2.18:4000",
			header: map[string]string{"x-cron-secret": secret}}).Code
	}
	for i := range authFailuresPerMinute {
		if code := cron("guess" + strings.Repeat("x", i)); code != http.StatusUnauthorized {
			t.Fatalf("wrong cron secret %d: %d, want 401", i, code)
		}
	}
	if code := cron("guess-again"); code != http.StatusTooManyRequests {
		t.Fatalf("wrong cron secret past the limit with the limiter down: %d, want 429", code)
	}
}
