package webhooks

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/payledger/payledger/internal/wait"
)

// TestHangingMerchantBacklogDoesNotHoldUpOtherSubscriptionWebhooks: a merchant with more due
// charge webhooks than the sender keeps in flight, to a receiver that hangs, does not delay
// another merchant's: the merchant takes only its share of the attempts in flight. The claim took
// the oldest due notifications whoever they were for, so the backlog (a billing run's charges of
// one big merchant) filled every place and the other merchant waited a timeout for each bound's
// worth of it.
func TestHangingMerchantBacklogDoesNotHoldUpOtherSubscriptionWebhooks(t *testing.T) {
	t.Parallel()
	w, outbox, sender, setConfig := subscriptionWorld(t, 20*time.Second)
	bg := context.Background()
	slow, slowHits := hangingReceiver(t)
	setConfig(slow.URL, "")
	busyMerchant := "0x" + strings.Repeat("7", 40)
	if _, err := w.pool.Exec(bg, `INSERT INTO subscription_webhooks (id, idempotency_key, event, subscription_id, merchant_wallet, url, payload, next_attempt_at)
		SELECT gen_random_uuid(), 'sub_' || i || ':0:charged', 'subscription.charged', 'sub_' || i, $1, $2, '{}', now() - interval '1 minute'
		FROM generate_series(1, $3) AS i`, busyMerchant, slow.URL, subscriptionInFlight+8); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(bg)
	done := make(chan struct{})
	go func() { defer close(done); _ = sender.Run(ctx, 50*time.Millisecond) }()
	defer func() { cancel(); <-done }()
	wait.Until(t, "the hanging receiver to have requests", 10*time.Second, func() bool { return slowHits.Load() > 0 })

	other, fast := otherMerchant(t, w)
	if err := outbox.Queue(bg, "subscription.charged", "sub_f:0:charged", "sub_f", other, map[string]any{}); err != nil {
		t.Fatal(err)
	}
	wait.Until(t, "the other merchant's webhook while the backlog hangs", 10*time.Second, func() bool { return len(fast.got()) == 1 })
}
