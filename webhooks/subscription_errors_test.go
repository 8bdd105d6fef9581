package webhooks

import (
	"context"
	"strings"
	"testing"
	"time"
)

// TestSubscriptionWebhookErrorsAreTheMerchantFacingCategories: a failed subscription charge
// webhook records deliveryError's category in last_error, as receipt webhooks do (DESIGN 10),
// not Go's error text ("dial tcp 127.0.0.1:1: connect: connection refused", which names the
// addresses the service dialled).
func TestSubscriptionWebhookErrorsAreTheMerchantFacingCategories(t *testing.T) {
	t.Parallel()
	w, outbox, sender, setConfig := subscriptionWorld(t, time.Second)
	bg := context.Background()
	setConfig("http://127.0.0.1:1/hook", "") // queued only for a shop with a webhookUrl
	if err := outbox.Queue(bg, "subscription.charged", "sub_e:0:charged", "sub_e", "0x"+strings.Repeat("7", 40), map[string]any{}); err != nil {
		t.Fatal(err)
	}
	lastError := func() string {
		t.Helper()
		var s string
		if err := w.pool.QueryRow(bg, `SELECT coalesce(last_error, '') FROM subscription_webhooks WHERE idempotency_key = 'sub_e:0:charged'`).Scan(&s); err != nil {
			t.Fatal(err)
		}
		return s
	}
	failing := newScript(t, 500)
	for _, c := range []struct{ url, want string }{
		{"http://127.0.0.1:1/hook", ErrorConnectionRefused},
		{failing.srv.URL, ErrorHTTPStatus},
		{"ftp://hooks.example/x", ErrorInvalidURL},
	} {
		setConfig(c.url, "")
		if _, err := w.pool.Exec(bg, `UPDATE subscription_webhooks SET next_attempt_at = now()`); err != nil { // its retry is due now
			t.Fatal(err)
		}
		if n, err := sender.SendDue(bg); err != nil || n != 0 {
			t.Fatalf("%s: %d delivered, %v", c.url, n, err)
		}
		if got := lastError(); got != c.want {
			t.Errorf("%s: last_error %q, want %q", c.url, got, c.want)
		}
	}
}
