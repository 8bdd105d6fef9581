package transport

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"github.com/payledger/payledger/projections"
)

// subscriptionsOf is the subscriptions part of a GET /api/billing/balance answer (period and allTime).
func subscriptionsOf(t *testing.T, e *env, m merchant) map[string]any {
	t.Helper()
	bal := decode(t, e.dev(m, http.MethodGet, "/api/billing/balance", ""))
	return map[string]any{"period": bal["period"].(map[string]any)["subscriptions"], "allTime": bal["allTime"].(map[string]any)["subscriptions"]}
}

// subscriptionBillingOf reads subscriptionsOf, waiting up to 10 s for charges billed in both: the
// billing records are the subscriptions projection's (one per SubscriptionCharged), which
// follows the event log.
func subscriptionBillingOf(t *testing.T, e *env, m merchant, charges float64) map[string]any {
	t.Helper()
	var last map[string]any
	for start := time.Now(); time.Since(start) < 10*time.Second; time.Sleep(20 * time.Millisecond) {
		last = subscriptionsOf(t, e, m)
		if last["period"].(map[string]any)["charges"] == charges && last["allTime"].(map[string]any)["charges"] == charges {
			return last
		}
	}
	t.Fatalf("billing of %v charges not seen: %v", charges, last)
	return nil
}

// rebuildSubscriptionsAndCompare rebuilds the subscriptions projection as `payledger projections
// rebuild subscriptions` does (the running leader replays the log), waits until the replay is
// back at the checkpoint it had, and checks that the billing figures are the same.
func rebuildSubscriptionsAndCompare(t *testing.T, e *env, m merchant, before map[string]any) {
	t.Helper()
	ctx := context.Background()
	var commit int64
	if err := e.pool.QueryRow(ctx, `SELECT commit_pos FROM projection_checkpoints WHERE name = 'subscriptions'`).Scan(&commit); err != nil {
		t.Fatal(err)
	}
	if err := projections.Rebuild(ctx, e.pool, projections.Subscriptions{}); err != nil {
		t.Fatal(err)
	}
	for start := time.Now(); ; time.Sleep(20 * time.Millisecond) {
		var now int64
		if err := e.pool.QueryRow(ctx, `SELECT commit_pos FROM projection_checkpoints WHERE name = 'subscriptions'`).Scan(&now); err != nil {
			t.Fatal(err)
		}
		if now >= commit {
			break
		}
		if time.Since(start) > 10*time.Second {
			t.Fatalf("the rebuild did not replay the log (checkpoint %d, was %d)", now, commit)
		}
	}
	got := subscriptionsOf(t, e, m)
	b1, _ := json.Marshal(before)
	b2, _ := json.Marshal(got)
	if string(b1) != string(b2) {
		t.Fatalf("billing after the rebuild %s, before %s", b2, b1)
	}
}
