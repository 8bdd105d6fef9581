package settlement_test

import (
	"strings"
	"testing"
	"time"

	"github.com/payledger/payledger/commands"
	"github.com/payledger/payledger/settlement"
	"github.com/payledger/payledger/settlement/pgstore"
)

// A charge that falls due while the permission's on-chain period is still the one the last
// charge spent (the schedule pushed late, e.g. a charge made days after it was due) is not the
// customer's failure: the manager refuses it because this service charged that period already.
// It is skipped, with nothing recorded, until the chain's period turns. Before, it was recorded
// as a failed charge, with a charge_failed webhook, at every run until then, and made the
// subscription past_due after three.
func TestChargeInAnOnChainPeriodAlreadyChargedIsNoFailure(t *testing.T) {
	t.Parallel()
	e := newChargeEnv(t, 1)
	id := e.subscribe(e.dev.Accounts[0], "plan_monthly")
	if res, err := e.handler(nil).Handle(e.ctx, settlement.ChargeSubscription{ID: id}); err != nil || res.Status != settlement.ResultCharged {
		t.Fatalf("first charge: %+v %v", res, err)
	}
	// The service's clock is past the next charge; the chain is still in the period just charged.
	late := func() time.Time { return time.Now().Add(31 * 24 * time.Hour) }
	hooks := &recordedWebhooks{}
	h := settlement.NewChargeSubscriptionsHandler(e.store, e.op, pgstore.NewSubscriptionCharges(e.pool), pgstore.NewSubscriptions(e.pool),
		commands.NewSplits(e.store), late)
	h.Poll, h.Await, h.Notify, h.RetryAfter = 50*time.Millisecond, 30*time.Second, hooks, 0
	for range 2 {
		res, err := h.Handle(e.ctx, settlement.ChargeSubscription{ID: id})
		if err != nil || res.Status != settlement.ResultSkipped || !strings.Contains(res.Reason, "allowance for this period is spent") {
			t.Fatalf("charge in the spent on-chain period: %+v %v; want skipped", res, err)
		}
	}
	st := e.state(id)
	if st.ConsecutiveFailures != 0 || st.Status != "active" || st.Charges != 1 {
		t.Fatalf("after the skipped charges: failures %d status %q charges %d; want 0, active, 1", st.ConsecutiveFailures, st.Status, st.Charges)
	}
	hooks.mu.Lock()
	defer hooks.mu.Unlock()
	if len(hooks.queue) != 0 {
		t.Fatalf("webhooks %v, want none", hooks.queue)
	}
	if n := e.count(`SELECT count(*) FROM subscription_charges WHERE subscription_id = $1 AND period_index = 1`, id); n != 0 {
		t.Fatalf("%d rows of period 1 kept", n)
	}
}
