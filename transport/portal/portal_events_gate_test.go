package portal

import (
	"errors"
	"net/http"
	"testing"
	"time"

	"github.com/payledger/payledger/transport"
)

// TestStreamGateBounds: the gate refuses an address past its bound and any address past the
// instance's, with the 429 envelope's resetAt; a give-back frees its slot, once.
func TestStreamGateBounds(t *testing.T) {
	g, now := newStreamGate(2, 3), time.UnixMilli(1_000_000)
	refused := func(addr string) bool {
		t.Helper()
		_, err := g.take(addr, now)
		var e *transport.Error
		if err != nil && (!errors.As(err, &e) || e.Status != http.StatusTooManyRequests || e.Code != "rate_limited" ||
			e.Extra["resetAt"] != now.Add(streamRetry).UnixMilli()) {
			t.Fatalf("refusal: %v", err)
		}
		return err != nil
	}
	a1, _ := g.take("a", now)
	if refused("a") || !refused("a") {
		t.Fatal("the address bound is 2")
	}
	if refused("b") || !refused("c") {
		t.Fatal("the instance bound is 3")
	}
	a1()
	a1() // once only
	if refused("c") || !refused("d") {
		t.Fatal("a give-back frees one slot")
	}
}
