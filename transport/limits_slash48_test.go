package transport

import (
	"fmt"
	"net/http"
	"strconv"
	"testing"

	"github.com/payledger/payledger/transport/ratelimit"
)

// TestPublicLimitCountsAnIPv6Slash48AtFourTimesASlash56: a /48 holder (a tunnel broker gives one
// for the asking) sending from a new /56 each time had 256 times a /56's share of the public
// limit. Now the /48 holds ratelimit.WiderMultiple times a /56's: four /56s at their full share
// spend it, and a fifth /56 of it is 429 rate_limited with the /48's limit in the headers, while
// a /56 of another /48 is untouched.
func TestPublicLimitCountsAnIPv6Slash48AtFourTimesASlash56(t *testing.T) {
	t.Parallel()
	const limit = 1
	e := newEnv(t, func(d *testDeps) { d.Config.PublicLimitPerMinute = limit })
	public := func(remote string) (int, http.Header, map[string]any) {
		rec := e.do(req{method: http.MethodGet, path: "/api/portal/rcpt_unknown", remote: remote})
		return rec.Code, rec.Header(), decode(t, rec)
	}
	for net := range ratelimit.WiderMultiple {
		for sub := range ratelimit.WiderMultiple {
			remote := fmt.Sprintf("[2001:db8:6:%x%02x::1]:4000", net, sub)
			if code, _, body := public(remote); code != http.StatusNotFound {
				t.Fatalf("%s: %d %v", remote, code, body)
			}
		}
	}
	code, h, body := public("[2001:db8:6:ff00::1]:4000")
	assertLimited(t, headerOnly(h), code, body, e.clk.Now())
	if want := ratelimit.WiderMultiple * ratelimit.WiderMultiple * limit; h.Get("X-RateLimit-Limit") != strconv.Itoa(want) {
		t.Fatalf("a fifth /56 of a spent /48: headers %v, want the /48's limit %d", h, want)
	}
	if code, _, body := public("[2001:db8:7:ff00::1]:4000"); code != http.StatusNotFound {
		t.Fatalf("a /56 of another /48: %d %v", code, body)
	}
}

// TestMerchantStreamsCountAnIPv6Slash48: a /48 holds ratelimit.WiderMultiple times a /56's
// merchant streams; a fifth /56 of a full /48 is refused a slot.
func TestMerchantStreamsCountAnIPv6Slash48(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	n := 0
	open := func(addr string) (func(), error) {
		n++
		return e.srv.TakeStreamSlot(e.from(addr), fmt.Sprintf("0x%040x", n))
	}
	var gives []func()
	defer func() {
		for _, g := range gives {
			g()
		}
	}()
	perNet := ratelimit.WiderMultiple * streamsPerAddress
	for net := range ratelimit.WiderMultiple {
		for i := range perNet {
			// Each /56's streams from its four /64s, streamsPerAddress each.
			addr := fmt.Sprintf("[2001:db8:9:%x%02x::%x]", net, i/streamsPerAddress, i%streamsPerAddress+1)
			give, err := open(addr)
			if err != nil {
				t.Fatalf("/56 %d, stream %d (%s): %v", net, i+1, addr, err)
			}
			gives = append(gives, give)
		}
	}
	if _, err := open("[2001:db8:9:ff00::1]"); err == nil {
		t.Fatalf("a fifth /56 of a /48 holding %d streams was given a slot", ratelimit.WiderMultiple*perNet)
	}
	give, err := open("[2001:db8:a:ff00::1]")
	if err != nil {
		t.Fatalf("a /56 of another /48: %v", err)
	}
	give()
}
