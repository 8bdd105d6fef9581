package transport

import (
	"encoding/json"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/payledger/payledger/webhooks"
)

// TestWebhookBodyAndHeaderTimestampsAgree: the payload's timestamp and X-Service-Timestamp were
// read from the clock one after the other, so a receiver could see the body say one millisecond
// and the header another for one delivery; both are the moment of sending now. The dispatcher's
// clock here moves a millisecond at every reading, so two readings always differ.
func TestWebhookBodyAndHeaderTimestampsAgree(t *testing.T) {
	t.Parallel()
	var reads atomic.Int64
	start := time.Now()
	e := newEnvWith(t, nil, func(d *webhooks.Dispatcher) {
		d.Now = func() time.Time { return start.Add(time.Duration(reads.Add(1)) * time.Millisecond) }
	})
	m := e.merchant(true)
	r := newReceiver(t)
	id := e.hookedReceipt(m, r.srv.URL+"/hook")
	e.pay(id, "evt_ts")
	waitUntil(t, "delivery", 10*time.Second, func() bool { return r.count() >= 1 })
	got := r.all()[0]
	var body struct {
		Timestamp int64 `json:"timestamp"`
	}
	if err := json.Unmarshal(got.body, &body); err != nil {
		t.Fatal(err)
	}
	if h := got.header.Get("X-Service-Timestamp"); h != strconv.FormatInt(body.Timestamp, 10) {
		t.Fatalf("X-Service-Timestamp %s, body timestamp %d", h, body.Timestamp)
	}
}
