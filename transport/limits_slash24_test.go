package transport

import (
	"fmt"
	"net/http"
	"testing"

	"github.com/labstack/echo/v4"

	"github.com/payledger/payledger/transport/ratelimit"
)

// TestSubscriptionCreationsCountAnIPv4Slash24: an IPv4 client was counted by its address alone,
// so a /24's 256 addresses created 256 times the hourly bound. Its /24 is counted at
// ratelimit.IPv4NetworkMultiple (16) times it: with 1 an hour, 16 addresses of a /24 create once
// each, a 17th address of it is 429, an address of another /24 is not.
func TestSubscriptionCreationsCountAnIPv4Slash24(t *testing.T) {
	t.Parallel()
	e := newLimitedSubEnv(t, 1)
	for host := range ratelimit.IPv4NetworkMultiple {
		remote := fmt.Sprintf("203.0.113.%d:4000", host+1)
		if res, body := e.createFrom(remote, `{}`); res.StatusCode != http.StatusBadRequest {
			t.Fatalf("%s: %d %v", remote, res.StatusCode, body)
		}
	}
	res, body := e.createFrom("203.0.113.200:4000", `{}`)
	assertLimited(t, headerOnly(res.Header), res.StatusCode, body, e.clk.Now())
	if res.Header.Get("X-RateLimit-Limit") != fmt.Sprint(ratelimit.IPv4NetworkMultiple) {
		t.Fatalf("a 17th address of the /24: headers %v, want the /24's limit", res.Header)
	}
	if res, body := e.createFrom("203.0.114.200:4000", `{}`); res.StatusCode != http.StatusBadRequest {
		t.Fatalf("an address of another /24: %d %v", res.StatusCode, body)
	}
}

// TestWrongSecretsCountAnIPv4Slash24: wrong cron secrets are limited per address
// (authFailuresPerMinute); a /24's addresses together send at most 16 times it. Each of 16
// addresses of a /24 spends its own limit with 401s; the first wrong secret of a 17th address of
// it is 429, while its public requests are not limited by the /24 (the public limit counts an
// IPv4 address alone).
func TestWrongSecretsCountAnIPv4Slash24(t *testing.T) {
	t.Parallel()
	e := newEnv(t, func(d *testDeps) { d.Config.PublicLimitPerMinute = authFailuresPerMinute })
	e.srv.handle(http.MethodPost, "/api/cron/test", Policy{Access: Cron}, func(c echo.Context) error {
		return c.JSON(http.StatusOK, map[string]bool{"ok": true})
	})
	cron := func(remote string) int {
		return e.do(req{method: http.MethodPost, path: "/api/cron/test", remote: remote,
			header: map[string]string{"x-cron-secret": "guess"}}).Code
	}
	for host := range ratelimit.IPv4NetworkMultiple {
		remote := fmt.Sprintf("203.0.113.%d:4000", host+1)
		for i := range authFailuresPerMinute {
			if code := cron(remote); code != http.StatusUnauthorized {
				t.Fatalf("%s, wrong secret %d: %d, want 401", remote, i, code)
			}
		}
	}
	if code := cron("203.0.113.200:4000"); code != http.StatusTooManyRequests {
		t.Fatalf("a 17th address of the /24, first wrong secret: %d, want 429", code)
	}
	if code := cron("203.0.114.200:4000"); code != http.StatusUnauthorized {
		t.Fatalf("an address of another /24: %d, want 401", code)
	}
	for i := range authFailuresPerMinute {
		rec := e.do(req{method: http.MethodPost, path: "/api/auth/nonce", body: `{}`, remote: fmt.Sprintf("203.0.113.%d:4000", 201+i)})
		if rec.Code == http.StatusTooManyRequests {
			t.Fatalf("a public request %d from the /24: 429, want the public limit per address alone", i)
		}
	}
}
