package webhooks

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/payledger/payledger/commands"
	"github.com/payledger/payledger/domain/receipt"
	"github.com/payledger/payledger/eventstore"
	"github.com/payledger/payledger/internal/wait"
	"github.com/payledger/payledger/readmodels"
)

// TestSubscriptionAttemptCutShortByShutdownIsNotCounted: a subscription charge webhook whose
// attempt the service itself stops (shutdown during a rolling restart) keeps its schedule, as a
// receipt webhook does: no attempt is counted, nothing is postponed by the backoff, the lease is
// released, and the notifications of the same claim not yet sent are left due as they were.
func TestSubscriptionAttemptCutShortByShutdownIsNotCounted(t *testing.T) {
	t.Parallel()
	// Both notifications are in one claim: each is cut short while the receiver holds it.
	w := newWorld(t, func(d *Dispatcher) { d.Workers = -1; d.Timeout = DefaultTimeout })
	bg := context.Background()
	merchant := "0x" + strings.Repeat("7", 40)
	w.paidReceipt(t, "sub-signing-key", "http://127.0.0.1:1/unused", "plk_secret") // the merchant's signing key
	r := newReceiver(t, 0, true)
	if _, err := w.pool.Exec(bg, `INSERT INTO shop_configs (wallet, config) VALUES ($1, jsonb_build_object('webhookUrl', $2::text))`, merchant, r.srv.URL); err != nil {
		t.Fatal(err)
	}
	outbox := readmodels.NewSubscriptionWebhooks(w.pool)
	for _, key := range []string{"sub_1:0:charged", "sub_2:0:charged"} {
		if err := outbox.Queue(bg, "subscription.charged", key, strings.Split(key, ":")[0], merchant, map[string]any{"periodIndex": 0}); err != nil {
			t.Fatal(err)
		}
	}
	sender := &SubscriptionSender{Outbox: outbox, Keys: w.keys, Via: w.disp, Log: zerolog.Nop()}
	ctx, cancel := context.WithCancel(bg)
	done := make(chan struct{})
	go func() { defer close(done); _, _ = sender.SendDue(ctx) }()
	wait.Until(t, "the first notification to reach the receiver", 10*time.Second, func() bool { return r.total() > 0 })
	cancel()
	<-done
	rows, err := w.pool.Query(bg, `SELECT idempotency_key, state, attempts, lease_until IS NOT NULL, next_attempt_at <= now(), last_error IS NOT NULL
		FROM subscription_webhooks ORDER BY idempotency_key`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	n := 0
	for rows.Next() {
		var key, state string
		var attempts int
		var leased, due, logged bool
		if err := rows.Scan(&key, &state, &attempts, &leased, &due, &logged); err != nil {
			t.Fatal(err)
		}
		n++
		if state != readmodels.NotePending || attempts != 0 || leased || !due || logged {
			t.Errorf("%s after shutdown: %s, %d attempts, leased %v, due %v, error recorded %v; want pending, 0, false, true, false",
				key, state, attempts, leased, due, logged)
		}
	}
	if n != 2 {
		t.Fatalf("%d subscription webhooks, want 2", n)
	}
}

// subscriptionWorld is a world whose merchant has a signing key and the subscription webhook
// outbox and sender; setConfig sets the merchant's shop config.
func subscriptionWorld(t *testing.T, timeout time.Duration) (w *world, outbox *readmodels.SubscriptionWebhooks, sender *SubscriptionSender, setConfig func(url, brand string)) {
	t.Helper()
	w = newWorld(t, func(d *Dispatcher) { d.Workers = -1; d.Timeout = timeout })
	merchant := "0x" + strings.Repeat("7", 40)
	w.paidReceipt(t, "sub-signing-key", "http://127.0.0.1:1/unused", "plk_secret")
	outbox = readmodels.NewSubscriptionWebhooks(w.pool)
	sender = &SubscriptionSender{Outbox: outbox, Keys: w.keys, Via: w.disp, Log: zerolog.Nop()}
	setConfig = func(url, brand string) {
		t.Helper()
		if _, err := w.pool.Exec(context.Background(), `INSERT INTO shop_configs (wallet, config) VALUES ($1, jsonb_build_object('webhookUrl', $2::text, 'brandKey', $3::text))
			ON CONFLICT (wallet) DO UPDATE SET config = EXCLUDED.config`, merchant, url, brand); err != nil {
			t.Fatal(err)
		}
	}
	return w, outbox, sender, setConfig
}

// TestSubscriptionWebhooksCarryThePartnerBrandHeaders: a partner brand's merchant gets its
// X-<Brand>-* headers and branded user agent on subscription charge webhooks, as on receipt
// webhooks (spec, Request headers), with the X-Service-* aliases.
func TestSubscriptionWebhooksCarryThePartnerBrandHeaders(t *testing.T) {
	t.Parallel()
	_, outbox, sender, setConfig := subscriptionWorld(t, time.Second)
	r := newScript(t)
	setConfig(r.srv.URL, "acme")
	bg := context.Background()
	if err := outbox.Queue(bg, "subscription.charged", "sub_b:0:charged", "sub_b", "0x"+strings.Repeat("7", 40), map[string]any{"periodIndex": 0}); err != nil {
		t.Fatal(err)
	}
	if n, err := sender.SendDue(bg); err != nil || n != 1 {
		t.Fatalf("send: %d delivered, %v", n, err)
	}
	got := r.got()
	if len(got) != 1 {
		t.Fatalf("%d requests", len(got))
	}
	h, body := got[0].header, got[0].body
	for _, prefix := range []string{"X-Acme-", "X-Service-"} {
		if h.Get(prefix+"Signature") != SignBody("plk_secret", body) || h.Get(prefix+"Event") != "subscription.charged" ||
			h.Get(prefix+"Idempotency-Key") != "sub_b:0:charged" || h.Get(prefix+"Delivery") == "" || h.Get(prefix+"Timestamp") == "" {
			t.Errorf("%s* headers: %v", prefix, h)
		}
	}
	if ua := h.Get("User-Agent"); ua != "Acme-Webhook/1.0" {
		t.Errorf("User-Agent %q, want the brand's", ua)
	}
}

// TestSubscriptionWebhookRetriesFollowTheShopsWebhookURL: a failed charge webhook is retried at
// the shop's webhookUrl as configured when the retry is made (the merchant moved its receiver),
// and a webhookUrl of "" stops the notifications still queued: nothing more is sent.
func TestSubscriptionWebhookRetriesFollowTheShopsWebhookURL(t *testing.T) {
	t.Parallel()
	w, outbox, sender, setConfig := subscriptionWorld(t, time.Second)
	bg := context.Background()
	merchant := "0x" + strings.Repeat("7", 40)
	old, moved := newScript(t, 500, 500, 500), newScript(t)
	setConfig(old.srv.URL, "")
	// Two subscriptions: one subscription's second notification would wait for its first.
	for _, key := range []string{"sub_m:0:charged", "sub_n:0:charged"} {
		if err := outbox.Queue(bg, "subscription.charged", key, strings.Split(key, ":")[0], merchant, map[string]any{}); err != nil {
			t.Fatal(err)
		}
	}
	if n, err := sender.SendDue(bg); err != nil || n != 0 || len(old.got()) != 2 {
		t.Fatalf("first attempts: %d delivered, %v, %d requests to the old URL", n, err, len(old.got()))
	}
	due := func(key string) {
		t.Helper()
		if _, err := w.pool.Exec(bg, `UPDATE subscription_webhooks SET next_attempt_at = now() WHERE idempotency_key = $1`, key); err != nil {
			t.Fatal(err)
		}
	}
	setConfig(moved.srv.URL, "")
	due("sub_m:0:charged")
	if n, err := sender.SendDue(bg); err != nil || n != 1 || len(moved.got()) != 1 || len(old.got()) != 2 {
		t.Fatalf("retry after the move: %d delivered, %v; %d requests to the new URL, %d to the old", n, err, len(moved.got()), len(old.got()))
	}
	setConfig("", "")
	due("sub_n:0:charged")
	if _, err := sender.SendDue(bg); err != nil {
		t.Fatal(err)
	}
	var state string
	if err := w.pool.QueryRow(bg, `SELECT state FROM subscription_webhooks WHERE idempotency_key = 'sub_n:0:charged'`).Scan(&state); err != nil {
		t.Fatal(err)
	}
	if state != readmodels.NoteFailed || len(old.got()) != 2 || len(moved.got()) != 1 {
		t.Fatalf("after webhookUrl \"\": %s, %d requests to the old URL, %d to the new; want failed and none", state, len(old.got()), len(moved.got()))
	}
}

// TestSlowShopReceiverDoesNotHoldUpOtherSubscriptionWebhooks: a merchant whose receiver takes the
// whole timeout to (not) answer does not delay another merchant's charge webhooks: they are sent
// while its attempts wait. The sender used to send a claim one notification after another, so a
// merchant with many charges and a hanging receiver held every other merchant's for minutes.
func TestSlowShopReceiverDoesNotHoldUpOtherSubscriptionWebhooks(t *testing.T) {
	t.Parallel()
	w, outbox, sender, setConfig := subscriptionWorld(t, 20*time.Second)
	bg := context.Background()
	slow, slowHits := hangingReceiver(t)
	setConfig(slow.URL, "")
	for i := range 3 {
		key := fmt.Sprintf("sub_s%d:0:charged", i)
		if err := outbox.Queue(bg, "subscription.charged", key, fmt.Sprintf("sub_s%d", i), "0x"+strings.Repeat("7", 40), map[string]any{}); err != nil {
			t.Fatal(err)
		}
	}
	// Another merchant, with its own key and a receiver that answers at once.
	other, fast := otherMerchant(t, w)
	if err := outbox.Queue(bg, "subscription.charged", "sub_f:0:charged", "sub_f", other, map[string]any{}); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(bg)
	done := make(chan struct{})
	go func() { defer close(done); _ = sender.Run(ctx, 50*time.Millisecond) }()
	defer func() { cancel(); <-done }()
	wait.Until(t, "the slow receiver to have a request", 10*time.Second, func() bool { return slowHits.Load() > 0 })
	wait.Until(t, "the other merchant's webhook while the slow attempts wait", 8*time.Second, func() bool { return len(fast.got()) == 1 })
}

// otherMerchant is another merchant with a signing key (from a receipt made with it) and a shop
// webhookUrl whose receiver answers at once.
func otherMerchant(t *testing.T, w *world) (string, *script) {
	t.Helper()
	bg := context.Background()
	other := "0x" + strings.Repeat("8", 40)
	fast := newScript(t)
	if _, err := w.pool.Exec(bg, `INSERT INTO shop_configs (wallet, config) VALUES ($1, jsonb_build_object('webhookUrl', $2::text))`, other, fast.srv.URL); err != nil {
		t.Fatal(err)
	}
	if err := w.keys.Save(bg, "sub-other-key", "plk_other"); err != nil {
		t.Fatal(err)
	}
	g := receipt.Generated{ReceiptID: "sub-other-key", Merchant: other, Currency: "USD",
		LineItems: []receipt.LineItem{{Kind: receipt.KindCustom, Label: "x", Amount: 100}}, Total: 100}
	_, res, err := commands.GenerateReceipt(bg, w.store, time.Now(), eventstore.Metadata{}, g)
	if err != nil {
		t.Fatal(err)
	}
	wctx, wcancel := context.WithTimeout(bg, 10*time.Second)
	defer wcancel()
	if err := w.runner.WaitFor(wctx, res.Position); err != nil {
		t.Fatal(err)
	}
	return other, fast
}
