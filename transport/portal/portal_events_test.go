package portal_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"testing"
	"time"

	"github.com/payledger/payledger/internal/wait"
	"github.com/payledger/payledger/transport"
	"github.com/payledger/payledger/transport/transporttest"
)

// TestPortalEventsStreamsBounded: one client address holds at most 20 payment-page event
// streams at once (it held ~600, each for ten minutes); the next is 429 rate_limited with
// resetAt, another address is not refused, and a stream's end frees its slot.
func TestPortalEventsStreamsBounded(t *testing.T) {
	e := transporttest.New(t, transporttest.Options{HTTP: func(c *transport.Config) {
		c.TrustedProxies = []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8")} // X-Forwarded-For names the client
	}})
	m := e.Merchant(true)
	id := e.ReceiptFor(m, "3")
	srv := httptest.NewServer(e.Srv)
	defer srv.Close()
	open := func(ctx context.Context, addr string) *http.Response {
		t.Helper()
		hr, _ := http.NewRequestWithContext(ctx, http.MethodGet, srv.URL+"/api/portal/"+id+"/events", nil)
		hr.Header.Set("X-Forwarded-For", addr)
		resp, err := http.DefaultClient.Do(hr)
		if err != nil {
			t.Fatal(err)
		}
		return resp
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	const perAddress = 20
	stops := make([]context.CancelFunc, perAddress)
	defer func() {
		for _, stop := range stops {
			stop()
		}
	}()
	for i := range perAddress {
		var sctx context.Context
		sctx, stops[i] = context.WithCancel(ctx)
		resp := open(sctx, "203.0.113.7")
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("stream %d: %d", i, resp.StatusCode)
		}
		defer resp.Body.Close()
	}
	resp := open(ctx, "203.0.113.7")
	var body struct {
		Error   string
		ResetAt int64
	}
	_ = json.NewDecoder(resp.Body).Decode(&body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusTooManyRequests || body.Error != "rate_limited" || body.ResetAt <= time.Now().UnixMilli() ||
		resp.Header.Get("Retry-After") == "" {
		t.Fatalf("stream %d of one address: %d %+v %v", perAddress+1, resp.StatusCode, body, resp.Header)
	}
	if other := open(ctx, "203.0.113.8"); other.StatusCode != http.StatusOK {
		t.Fatalf("another address: %d", other.StatusCode)
	} else {
		defer other.Body.Close()
	}
	stops[0]() // the client goes: its stream ends and gives its slot back
	wait.Until(t, "the ended stream's slot given back", 10*time.Second, func() bool {
		again := open(ctx, "203.0.113.7")
		again.Body.Close()
		if again.StatusCode != http.StatusOK && again.StatusCode != http.StatusTooManyRequests {
			t.Fatalf("after a stream ended: %d", again.StatusCode)
		}
		return again.StatusCode == http.StatusOK
	})
}
