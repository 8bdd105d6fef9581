package settlement_test

import (
	"context"
	"errors"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/payledger/payledger/eventstore"
	"github.com/payledger/payledger/settlement"
)

// flakyWebhooks refuses the first charged webhook (the database failing at that moment), then
// records what is queued.
type flakyWebhooks struct {
	mu      sync.Mutex
	refused bool
	keys    []string
}

func (f *flakyWebhooks) Queue(_ context.Context, event, key, _, _ string, _ map[string]any) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if !f.refused {
		f.refused = true
		return errors.New("queue subscription webhook: connection reset")
	}
	f.keys = append(f.keys, event+" "+key)
	return nil
}

// A charge whose webhook cannot be queued (a database error at that moment) leaves its row
// open, and the recovery queues it once the charge is recorded: the merchant hears of every
// charge. Before, the row was closed first and the queue's failure only logged: the
// subscription.charged notification was lost for good.
func TestChargedWebhookThatCouldNotBeQueuedIsQueuedByTheRecovery(t *testing.T) {
	t.Parallel()
	e := newChargeEnv(t, 1)
	id, keys := e.chargeWithAFailingQueueThenRecover(t, "plan_monthly", func(id string) {
		if st := e.state(id); st.Charges != 1 {
			t.Fatalf("charges %d, want 1", st.Charges)
		}
	})
	if want := "subscription.charged " + id + ":0:charged"; len(keys) != 1 || keys[0] != want {
		t.Fatalf("webhooks queued %v, want [%s]", keys, want)
	}
	if st := e.state(id); st.Charges != 1 {
		t.Fatalf("charges %d after the recovery, want 1", st.Charges)
	}
	if n := e.count(`SELECT count(*) FROM subscription_charges WHERE subscription_id = $1 AND status <> 'charged'`, id); n != 0 {
		t.Fatalf("%d rows left open", n)
	}
}

// chargeWithAFailingQueueThenRecover subscribes the first account to plan, charges it through a
// handler whose webhook queue refuses the first webhook (flakyWebhooks), runs charged on the
// subscription's state after that charge, then the recovery with no lease; it returns the
// subscription and the webhooks queued (each "event key").
func (e *chargeEnv) chargeWithAFailingQueueThenRecover(t *testing.T, plan string, charged func(id string)) (string, []string) {
	t.Helper()
	id := e.subscribe(e.dev.Accounts[0], plan)
	hooks := &flakyWebhooks{}
	h := e.handler(nil)
	h.Notify = hooks
	_, _ = h.Handle(e.ctx, settlement.ChargeSubscription{ID: id})
	charged(id)
	h.Lease, h.Await = 0, 10*time.Second
	if _, err := h.Recover(e.ctx, eventstore.Metadata{}); err != nil {
		t.Fatal(err)
	}
	hooks.mu.Lock()
	defer hooks.mu.Unlock()
	return id, slices.Clone(hooks.keys)
}
