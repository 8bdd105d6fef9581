package settlement_test

import (
	"testing"
)

// A failed charge whose charge_failed webhook cannot be queued (a database error at that moment)
// leaves its row open, and the recovery queues the webhook of the failure the log holds, once,
// without recording another failure. Before, the row was closed first and the queue's failure
// only logged: the merchant never heard of the failure (nor, for a revoked permission, that the
// subscription ended).
func TestChargeFailedWebhookThatCouldNotBeQueuedIsQueuedByTheRecovery(t *testing.T) {
	t.Parallel()
	e := newChargeEnv(t, 1)
	// plan_huge: more than the customer holds, refused.
	id, keys := e.chargeWithAFailingQueueThenRecover(t, "plan_huge", func(id string) {
		if st := e.state(id); st.ConsecutiveFailures != 1 {
			t.Fatalf("failures %d, want 1", st.ConsecutiveFailures)
		}
	})
	if want := "subscription.charge_failed " + id + ":0:failed:1"; len(keys) != 1 || keys[0] != want {
		t.Fatalf("webhooks queued %v, want [%s]", keys, want)
	}
	if st := e.state(id); st.ConsecutiveFailures != 1 {
		t.Fatalf("failures %d after the recovery, want 1 (no failure recorded twice)", st.ConsecutiveFailures)
	}
	if n := e.count(`SELECT count(*) FROM subscription_charges WHERE subscription_id = $1 AND status <> 'failed'`, id); n != 0 {
		t.Fatalf("%d rows left open", n)
	}
}
