package transport

import (
	"fmt"
	"net/http"
	"strconv"
	"testing"

	"github.com/payledger/payledger/transport/ratelimit"
)

// TestPublicLimitCountsAnIPv6Slash56AtFourTimesTheLimit: the public limit counts each /64, and
// the /56 around it at ratelimit.WiderMultiple times the limit. A /56 holder sending from a new
// /64 each time had 256 times the limit; now a fifth /64 of a spent /56 is 429 rate_limited, with
// the headers of every limit, while a /64 of another /56 and an IPv4 client are untouched.
func TestPublicLimitCountsAnIPv6Slash56AtFourTimesTheLimit(t *testing.T) {
	t.Parallel()
	const limit = 3
	e := newEnv(t, func(d *testDeps) { d.Config.PublicLimitPerMinute = limit })
	public := func(remote string) (int, http.Header, map[string]any) {
		rec := e.do(req{method: http.MethodGet, path: "/api/portal/rcpt_unknown", remote: remote})
		return rec.Code, rec.Header(), decode(t, rec)
	}
	for sub := range ratelimit.WiderMultiple {
		for i := range limit {
			if code, _, body := public(fmt.Sprintf("[2001:db8:5:%x::%x]:4000", sub, i+1)); code != http.StatusNotFound {
				t.Fatalf("/64 %d of the /56, request %d: %d %v", sub, i, code, body)
			}
		}
	}
	code, h, body := public("[2001:db8:5:ff::1]:4000")
	assertLimited(t, headerOnly(h), code, body, e.clk.Now())
	if h.Get("X-RateLimit-Limit") != strconv.Itoa(ratelimit.WiderMultiple*limit) || h.Get("Retry-After") == "" {
		t.Fatalf("a fifth /64 of a spent /56: headers %v, want the /56's limit %d and Retry-After", h, ratelimit.WiderMultiple*limit)
	}
	for _, remote := range []string{"[2001:db8:5:100::1]:4000", "192.0.2.1:4000"} {
		if code, _, body := public(remote); code != http.StatusNotFound {
			t.Fatalf("%s (not in the spent /56): %d %v", remote, code, body)
		}
	}
}

// headerOnly gives a response's headers to assertLimited.
type headerOnly http.Header

func (h headerOnly) Header() http.Header { return http.Header(h) }
