package settlement_test

import (
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/payledger/payledger/domain/subscription"
	"github.com/payledger/payledger/settlement"
)

// onCheck runs f before the chain's spend checks: a cancel that lands after the claim.
type onCheck struct {
	settlement.ChargeChain
	f func()
}

func (c onCheck) CheckSpends(ctx context.Context, checks []settlement.SpendCheck) ([]settlement.SpendStatus, error) {
	c.f()
	return c.ChargeChain.CheckSpends(ctx, checks)
}

// queuedWebhooks records the charge webhooks a run queues.
type queuedWebhooks struct {
	mu     sync.Mutex
	events []string
}

func (q *queuedWebhooks) Queue(_ context.Context, event, _, _, _ string, p map[string]any) error {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.events = append(q.events, event+" status "+p["status"].(string))
	return nil
}

// A charge that fails (here: the customer cannot pay) after its subscription was cancelled
// charged nothing and never will: it is skipped, no failure is recorded and the merchant gets no
// subscription.charge_failed. Before, the merchant was notified of a failed attempt the log does
// not have, with the cancelled subscription's status read "active".
func TestChargeFailureAfterCancelIsNotNotified(t *testing.T) {
	t.Parallel()
	e := newChargeEnv(t, 1)
	customer := e.dev.Accounts[0]
	wallet := customer.Address.Hex()
	id := e.subscribe(customer, "plan_huge") // more than the customer holds: the spend check refuses it
	hooks := &queuedWebhooks{}
	h := e.handler(onCheck{ChargeChain: e.op, f: func() { e.cancel(id, wallet) }})
	h.Notify = hooks
	res, err := h.Handle(e.ctx, settlement.ChargeSubscription{ID: id})
	if err != nil || res.Status != settlement.ResultSkipped || !strings.Contains(res.Reason, "cancelled") ||
		res.SubscriptionStatus != string(subscription.StatusCancelled) {
		t.Fatalf("a refused charge of a subscription cancelled meanwhile: %+v %v, want skipped, cancelled", res, err)
	}
	if len(hooks.events) != 0 {
		t.Fatalf("webhooks queued: %v", hooks.events)
	}
	if st := e.state(id); st.Status != subscription.StatusCancelled || st.ConsecutiveFailures != 0 {
		t.Fatalf("after: status %s, failures %d", st.Status, st.ConsecutiveFailures)
	}
	if n := e.count(`SELECT count(*) FROM subscription_charges WHERE subscription_id = $1 AND status NOT IN ('charged', 'failed')`, id); n != 0 {
		t.Fatalf("%d open rows left", n)
	}
}
