package settlement_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/uuid"
	"github.com/rs/zerolog"

	"github.com/payledger/payledger/domain/subscription"
	"github.com/payledger/payledger/eventstore"
	"github.com/payledger/payledger/internal/syncbuf"
	"github.com/payledger/payledger/settlement"
)

// TestChargeDueChargesTheOthersPastAnUnreadableSubscription: a due subscription whose stream
// holds an event this build cannot read (a newer build's, during a rollback) is not charged, but
// it is its own: before, the due page returned on its load error, so the run charged no one, every
// tick. Now it is a skipped result, counted and logged naming its stream, and the others are charged.
func TestChargeDueChargesTheOthersPastAnUnreadableSubscription(t *testing.T) {
	t.Parallel()
	e := newChargeEnv(t, 2)
	bad := e.subscribe(e.dev.Accounts[0], "plan_monthly")
	good := e.subscribe(e.dev.Accounts[1], "plan_monthly")
	e.listed(bad, good)
	// Written after the read model listed both: its projector stops on the event it cannot read.
	if _, err := e.store.Append(e.ctx, subscription.Stream(bad), eventstore.Exact(1),
		eventstore.EventData{ID: uuid.New(), Type: "SubscriptionPaused", Data: json.RawMessage(`{"at":2000}`)}); err != nil {
		t.Fatal(err)
	}
	var logs syncbuf.Buffer
	h := e.handler(nil)
	h.Log = zerolog.New(&logs)
	run, err := h.ChargeDue(e.ctx, eventstore.Metadata{})
	if err != nil {
		t.Fatalf("the run failed for every subscription: %v", err)
	}
	if st := e.state(good); st.Charges != 1 {
		t.Fatalf("the readable subscription was charged %d times, want once: %+v", st.Charges, run.Results)
	}
	var skipped *settlement.ChargeResult
	for i, r := range run.Results {
		if r.SubscriptionID == bad {
			skipped = &run.Results[i]
		}
	}
	if skipped == nil || skipped.Status != settlement.ResultSkipped || run.Unreadable != 1 || run.Succeeded != 1 {
		t.Fatalf("run %+v, the unreadable one's result %+v: want it skipped and counted unreadable", run, skipped)
	}
	if evs, err := e.store.ReadStream(e.ctx, subscription.Stream(bad), 1, 10); err != nil || len(evs) != 2 {
		t.Fatalf("the unreadable subscription's stream holds %d events (%v), want the 2 it had", len(evs), err)
	}
	if out := logs.String(); !strings.Contains(out, `"level":"error"`) || !strings.Contains(out, subscription.Stream(bad)) {
		t.Fatalf("no error naming %s in the log:\n%s", subscription.Stream(bad), out)
	}
}
