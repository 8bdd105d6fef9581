package webhooks

import (
	"context"
	"fmt"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/payledger/payledger/eventstore/postgres"
	"github.com/payledger/payledger/internal/wait"
	"github.com/payledger/payledger/readmodels"
)

// subscriptionOrderKey names a subscription webhook "<subscriptionId>/<event>/<periodIndex>"
// (an orderReceiver's key).
func subscriptionOrderKey(data map[string]any) string {
	return fmt.Sprintf("%v/%v/%v", data["subscriptionId"], data["event"], data["periodIndex"])
}

// TestASubscriptionsEndpointMessagesArriveInOrder (stop 67): subscription.charged and
// charge_failed carry no receiptId, so their endpoint messages were sent unordered: a period's
// charge_failed whose first attempt failed reached the endpoint after the next period's charged,
// and a receiver keeping the subscription's last outcome believed it failing. A subscription's
// messages are now ordered as a receipt's: sub_1's charged waits for its charge_failed; another
// subscription's message is not held.
func TestASubscriptionsEndpointMessagesArriveInOrder(t *testing.T) {
	t.Parallel()
	pool, keys, store, _, _ := endpointFixture(t)
	recv := &orderReceiver{refuseOnce: map[string]bool{"sub_1/subscription.charge_failed/0": true}, key: subscriptionOrderKey,
		acceptAfter: map[string]string{"sub_1/subscription.charge_failed/0": "sub_2/subscription.charged/0"}}
	srv := httptest.NewServer(recv)
	t.Cleanup(srv.Close)
	bg := context.Background()
	secret, _ := NewSecret()
	if _, err := store.Create(bg, "0xmerchant", srv.URL, []string{"*"}, secret, time.Now()); err != nil {
		t.Fatal(err)
	}
	outcome := func(sub, event string, period int) readmodels.NewEvent {
		return readmodels.NewEvent{Key: fmt.Sprintf("%s:%d:%s", sub, period, event), Merchant: "0xmerchant", Type: event, At: time.Now(),
			Data: map[string]any{"subscriptionId": sub, "event": event, "periodIndex": period}}
	}
	if err := store.Record(bg, outcome("sub_1", "subscription.charge_failed", 0), outcome("sub_1", "subscription.charged", 1),
		outcome("sub_2", "subscription.charged", 0)); err != nil {
		t.Fatal(err)
	}
	d := (&Dispatcher{Outbox: readmodels.NewOutbox(pool), Keys: keys, Events: postgres.New(pool), Log: zerolog.Nop(),
		Endpoints: store, Workers: -1, RetryDelay: 20 * time.Millisecond}).Init()
	ctx, cancel := context.WithCancel(bg)
	done := make(chan struct{})
	go func() { defer close(done); _ = d.Run(ctx) }()
	t.Cleanup(func() { cancel(); <-done })
	wait.Until(t, "the three messages to be delivered", 10*time.Second, func() bool {
		_, accepted := recv.seen()
		return len(accepted) == 3
	})
	requests, accepted := recv.seen()
	want := []string{"sub_2/subscription.charged/0", "sub_1/subscription.charge_failed/0", "sub_1/subscription.charged/1"}
	if !slices.Equal(accepted, want) {
		t.Fatalf("delivered in the order %v (requests %v), want %v: sub_1's charged after its charge_failed, sub_2's not held", accepted, requests, want)
	}
	if len(requests) != 4 {
		t.Fatalf("requests %v: sub_1's charged was sent while its charge_failed was not delivered", requests)
	}
}

// TestASubscriptionsWebhooksToTheShopURLArriveInOrder (stop 67): the shop webhookUrl's outbox
// sent each outcome on its own schedule, so sub_1's charged (period 1) was delivered while its
// charge_failed (period 0) waited for its retry. A notification now waits while an earlier one of
// its subscription is pending; another subscription's is not held.
func TestASubscriptionsWebhooksToTheShopURLArriveInOrder(t *testing.T) {
	t.Parallel()
	w, outbox, sender, setConfig := subscriptionWorld(t, time.Second)
	recv := &orderReceiver{refuseOnce: map[string]bool{"sub_1/subscription.charge_failed/0": true}, key: subscriptionOrderKey}
	srv := httptest.NewServer(recv)
	t.Cleanup(srv.Close)
	setConfig(srv.URL, "")
	bg, merchant := context.Background(), "0x"+strings.Repeat("7", 40)
	for _, n := range []struct {
		sub, event string
		period     int
	}{{"sub_1", "subscription.charge_failed", 0}, {"sub_1", "subscription.charged", 1}, {"sub_2", "subscription.charged", 0}} {
		key := fmt.Sprintf("%s:%d:%s", n.sub, n.period, n.event)
		if err := outbox.Queue(bg, n.event, key, n.sub, merchant, map[string]any{"subscriptionId": n.sub, "periodIndex": n.period}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := sender.SendDue(bg); err != nil {
		t.Fatal(err)
	}
	requests, accepted := recv.seen()
	if slices.Contains(requests, "sub_1/subscription.charged/1") || !slices.Equal(accepted, []string{"sub_2/subscription.charged/0"}) {
		t.Fatalf("first pass: requests %v, accepted %v; want sub_1's charged held behind its refused charge_failed, sub_2's delivered", requests, accepted)
	}
	// The charge_failed's retry comes due: it is delivered, then the charged behind it.
	if _, err := w.pool.Exec(bg, `UPDATE subscription_webhooks SET next_attempt_at = now() WHERE state = 'pending'`); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if _, err := sender.SendDue(bg); err != nil {
			t.Fatal(err)
		}
	}
	_, accepted = recv.seen()
	want := []string{"sub_2/subscription.charged/0", "sub_1/subscription.charge_failed/0", "sub_1/subscription.charged/1"}
	if !slices.Equal(accepted, want) {
		t.Fatalf("delivered in the order %v, want %v", accepted, want)
	}
}
