package webhooks

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/payledger/payledger/internal/wait"
	"github.com/payledger/payledger/readmodels"
)

// TestSubscriptionAttemptCutShortByShutdownIsNotCounted: a subscription charge webhook whose
// attempt the service itself stops (shutdown during a rolling restart) keeps its schedule, as a
// receipt webhook does: no attempt is counted, nothing is postponed by the backoff, the lease is
// released, and the notifications of the same claim not yet sent are left due as they were.
func TestSubscriptionAttemptCutShortByShutdownIsNotCounted(t *testing.T) {
	t.Parallel()
	// The default timeout: a claim takes both notifications (a batch of lease/timeout - 1).
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
