package transport

import (
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/labstack/echo/v4"
)

// from is a request context of the client at address addr (what TakeStreamSlot counts by).
func (e *env) from(addr string) echo.Context {
	r := httptest.NewRequest(http.MethodGet, "/api/webhooks/stream", nil)
	r.RemoteAddr = addr + ":40000"
	return e.srv.Echo.NewContext(r, httptest.NewRecorder())
}

// clientAt is the i-th of many distinct client addresses (10.x.y.z).
func clientAt(i int) string { return fmt.Sprintf("10.%d.%d.%d", i>>16&255, i>>8&255, i&255) }

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
		give, err := e.srv.TakeStreamSlot(e.from(clientAt(i)), fmt.Sprintf("0x%040x", i+1))
		if err != nil {
			t.Fatalf("stream %d of %d: %v", i+1, streamsPerInstance, err)
		}
		gives = append(gives, give)
	}
	wallet := fmt.Sprintf("0x%040x", streamsPerInstance+1)
	if _, err := e.srv.TakeStreamSlot(e.from(clientAt(streamsPerInstance)), wallet); err == nil {
		t.Fatalf("a stream past %d open on the instance was given a slot", streamsPerInstance)
	}
	key := e.key(wallet, "receipts:read")
	rec := e.do(req{method: http.MethodGet, path: "/api/webhooks/stream", header: map[string]string{"Ocp-Apim-Subscription-Key": key}})
	if body := decode(t, rec); rec.Code != http.StatusTooManyRequests || body["error"] != "rate_limited" {
		t.Fatalf("a new merchant's stream with the instance full: %d %v, want 429 rate_limited", rec.Code, body)
	}
	gives[0]()
	give, err := e.srv.TakeStreamSlot(e.from(clientAt(streamsPerInstance)), wallet)
	if err != nil {
		t.Fatalf("a slot given back was not taken again: %v", err)
	}
	give()
	for _, g := range gives[1:] {
		g()
	}
}

// TestMerchantStreamsAreBoundedPerClientAddress (stop 67): one client signing in new wallets
// took every one of the instance's streamsPerInstance merchant streams, so no other merchant could
// open one. A client address holds at most streamsPerAddress, whichever merchants it opened them
// as; past it the answer is 429 rate_limited with resetAt, while another address still opens
// one, and a slot given back is taken again.
func TestMerchantStreamsAreBoundedPerClientAddress(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	const client = "192.0.2.7"
	gives := make([]func(), 0, streamsPerAddress)
	for i := range streamsPerAddress {
		give, err := e.srv.TakeStreamSlot(e.from(client), fmt.Sprintf("0x%040x", i+1))
		if err != nil {
			t.Fatalf("stream %d of %d from one address: %v", i+1, streamsPerAddress, err)
		}
		gives = append(gives, give)
	}
	wallet := fmt.Sprintf("0x%040x", streamsPerAddress+1)
	_, err := e.srv.TakeStreamSlot(e.from(client), wallet)
	var refused *Error
	if !errors.As(err, &refused) || refused.Status != http.StatusTooManyRequests || refused.Code != "rate_limited" || refused.Extra["resetAt"] == nil {
		t.Fatalf("stream %d from one address: %v, want 429 rate_limited with resetAt", streamsPerAddress+1, err)
	}
	other, err := e.srv.TakeStreamSlot(e.from("192.0.2.8"), wallet)
	if err != nil {
		t.Fatalf("another address was refused a stream: %v", err)
	}
	other()
	gives[0]()
	gives[0]() // a give-back runs once
	give, err := e.srv.TakeStreamSlot(e.from(client), wallet)
	if err != nil {
		t.Fatalf("a slot given back was not taken again: %v", err)
	}
	if _, err := e.srv.TakeStreamSlot(e.from(client), fmt.Sprintf("0x%040x", streamsPerAddress+2)); err == nil {
		t.Fatal("the address held more than its bound after a give-back ran twice")
	}
	give()
	for _, g := range gives[1:] {
		g()
	}
}
