package readmodels

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/payledger/payledger/migrations/pgtest"
)

// TestSubscriptionWebhooksClaimSharedTakesEachMerchantsShare: the sender's claim takes at most a
// merchant's share less what is already in flight for it, so a merchant's backlog leaves the
// other merchants' due notifications claimable; and it takes only due, unleased, pending ones.
func TestSubscriptionWebhooksClaimSharedTakesEachMerchantsShare(t *testing.T) {
	t.Parallel()
	pool := pgtest.Pool(t)
	bg := context.Background()
	big, small, later := "0x"+strings.Repeat("a", 40), "0x"+strings.Repeat("b", 40), "0x"+strings.Repeat("c", 40)
	for _, q := range []struct {
		merchant, state, due, lease string
		n                           int
	}{
		{big, "pending", "-1 hour", "", 40},          // the backlog, older than anyone's
		{big, "pending", "-2 hours", "+1 minute", 5}, // in flight elsewhere (leased)
		{small, "pending", "-1 minute", "", 3},       // due
		{small, "delivered", "-2 hours", "", 2},      // done
		{later, "pending", "+1 hour", "", 2},         // not due yet
	} {
		if _, err := pool.Exec(bg, `INSERT INTO subscription_webhooks (id, idempotency_key, event, subscription_id, merchant_wallet, url, payload, state, next_attempt_at, lease_until)
			SELECT gen_random_uuid(), $1 || $2 || $3 || i, 'subscription.charged', 'sub-' || $1 || $2 || $3 || i, $1, 'https://example.com/hook', '{}', $2,
				now() + $3::interval, now() + nullif($4, '')::interval
			FROM generate_series(1, $5) AS i`, q.merchant, q.state, q.due, q.lease, q.n); err != nil {
			t.Fatal(err)
		}
	}
	out := NewSubscriptionWebhooks(pool)
	got, err := out.ClaimShared(bg, 32, 10, map[string]int{big: 4}, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	by := map[string]int{}
	for _, n := range got {
		by[n.Merchant]++
	}
	if len(got) != 9 || by[big] != 6 || by[small] != 3 {
		t.Fatalf("claimed %v; want 6 of the backlog's merchant (share 10, 4 in flight) and the other's 3", by)
	}
	// What is claimed is leased: the same merchant's next claim takes the rest of its share only
	// of what is left, and the other merchant has nothing due any more.
	got, err = out.ClaimShared(bg, 32, 10, map[string]int{big: 10}, time.Minute)
	if err != nil || len(got) != 0 {
		t.Fatalf("with the merchant's share in flight: %d claimed (%v); want 0", len(got), err)
	}
	if got, err = out.ClaimShared(bg, 4, 10, nil, time.Minute); err != nil || len(got) != 4 {
		t.Fatalf("limit 4: %d claimed (%v); want 4", len(got), err)
	}
}
