package settlement_test

import (
	"testing"
	"time"

	"github.com/payledger/payledger/commands"
	"github.com/payledger/payledger/eventstore"
	"github.com/payledger/payledger/settlement"
	"github.com/payledger/payledger/settlement/pgstore"
)

// Subscriptions that keep failing (their customer cannot pay: nextChargeAt never moves, so they
// stay the longest due) do not take every run's places: a run reads the due list in pages of
// Limit and charges every due subscription. One whose permission has ended is not due at all.
func TestChargeSubscriptionsFailingOnesDoNotStarveOthers(t *testing.T) {
	t.Parallel()
	e := newChargeEnv(t, 2)
	var failing []string
	for range 3 {
		failing = append(failing, e.subscribe(e.dev.Accounts[0], "plan_huge")) // more than the customer has
	}
	good := e.subscribe(e.dev.Accounts[1], "plan_monthly")
	e.listed(append(failing, good)...)
	h := e.handler(nil)
	h.Limit, h.RetryAfter = 2, 0
	for run := 1; run <= 2; run++ {
		res, err := h.ChargeDue(e.ctx, eventstore.Metadata{})
		if err != nil {
			t.Fatal(err)
		}
		if res.Failed != len(failing) {
			t.Fatalf("run %d: %d failed, want %d: %+v", run, res.Failed, len(failing), res.Results)
		}
	}
	if st := e.state(good); st.Charges != 1 {
		t.Fatalf("the payable subscription was charged %d times behind the failing ones", st.Charges)
	}
	// Two years on, every permission has ended: nothing is due, nothing is even looked at.
	later := settlement.NewChargeSubscriptionsHandler(e.store, e.op, pgstore.NewSubscriptionCharges(e.pool), pgstore.NewSubscriptions(e.pool),
		commands.NewSplits(e.store), func() time.Time { return time.Now().Add(2 * 365 * 24 * time.Hour) })
	res, err := later.ChargeDue(e.ctx, eventstore.Metadata{})
	if err != nil || res.Processed != 0 {
		t.Fatalf("after the permissions' end: %+v %v, want nothing processed", res, err)
	}
}
