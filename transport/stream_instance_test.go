package transport

import (
	"fmt"
	"net/http"
	"testing"
)

// TestMerchantStreamsAreBoundedPerInstance (stop 65): the merchant streams (/api/webhooks/stream
// and the dashboard's live list, TakeStreamSlot) were bounded per merchant only, and any wallet
// signs in as a merchant, so one client held any number of them (each polling the event log
// every 500 ms for 10 minutes) by signing in new wallets. At most streamsPerInstance are open on
// the instance now; past it a new merchant's stream is 429 rate_limited with resetAt, and a slot
// given back is taken again.
func TestMerchantStreamsAreBoundedPerInstance(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	gives := make([]func(), 0, streamsPerInstance)
	for i := range streamsPerInstance {
		give, err := e.srv.TakeStreamSlot(fmt.Sprintf("0x%040x", i+1))
		if err != nil {
			t.Fatalf("stream %d of %d: %v", i+1, streamsPerInstance, err)
		}
		gives = append(gives, give)
	}
	wallet := fmt.Sprintf("0x%040x", streamsPerInstance+1)
	if _, err := e.srv.TakeStreamSlot(wallet); err == nil {
		t.Fatalf("a stream past %d open on the instance was given a slot", streamsPerInstance)
	}
	key := e.key(wallet, "receipts:read")
	rec := e.do(req{method: http.MethodGet, path: "/api/webhooks/stream", header: map[string]string{"Ocp-Apim-Subscription-Key": key}})
	if body := decode(t, rec); rec.Code != http.StatusTooManyRequests || body["error"] != "rate_limited" {
		t.Fatalf("a new merchant's stream with the instance full: %d %v, want 429 rate_limited", rec.Code, body)
	}
	gives[0]()
	give, err := e.srv.TakeStreamSlot(wallet)
	if err != nil {
		t.Fatalf("a slot given back was not taken again: %v", err)
	}
	give()
	for _, g := range gives[1:] {
		g()
	}
}
