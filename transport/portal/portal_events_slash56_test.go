package portal_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"testing"

	"github.com/payledger/payledger/transport"
	"github.com/payledger/payledger/transport/ratelimit"
	"github.com/payledger/payledger/transport/transporttest"
)

// TestPortalEventsCountAnIPv6Slash56AtFourTimesTheBound: the payment page's event streams are
// counted per IPv6 /64 (20) and per /56 around it at ratelimit.WiderMultiple times that, as the
// rate limits count a client. A /56 holder opening streams from each of its 256 /64s held 256
// times the per-address bound (5,120 streams, past the instance's 2,000); now a fifth /64 of a
// full /56 is 429 rate_limited, while a /64 of another /56 still opens one.
func TestPortalEventsCountAnIPv6Slash56AtFourTimesTheBound(t *testing.T) {
	e := transporttest.New(t, transporttest.Options{HTTP: func(c *transport.Config) {
		c.TrustedProxies = []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8")} // X-Forwarded-For names the client
	}})
	m := e.Merchant(true)
	id := e.ReceiptFor(m, "3")
	srv := httptest.NewServer(e.Srv)
	defer srv.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	open := func(addr string) *http.Response {
		t.Helper()
		hr, _ := http.NewRequestWithContext(ctx, http.MethodGet, srv.URL+"/api/portal/"+id+"/events", nil)
		hr.Header.Set("X-Forwarded-For", addr)
		resp, err := http.DefaultClient.Do(hr)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { resp.Body.Close() })
		return resp
	}
	const perAddress = 20
	for sub := range ratelimit.WiderMultiple {
		for i := range perAddress {
			if resp := open(fmt.Sprintf("2001:db8:9:%x::%x", sub, i+1)); resp.StatusCode != http.StatusOK {
				t.Fatalf("/64 %d of the /56, stream %d: %d", sub, i+1, resp.StatusCode)
			}
		}
	}
	if resp := open("2001:db8:9:ff::1"); resp.StatusCode != http.StatusTooManyRequests {
		t.Fatalf("a fifth /64 of a /56 holding %d streams: %d, want 429", ratelimit.WiderMultiple*perAddress, resp.StatusCode)
	}
	if resp := open("2001:db8:9:100::1"); resp.StatusCode != http.StatusOK {
		t.Fatalf("a /64 of another /56: %d", resp.StatusCode)
	}
}
