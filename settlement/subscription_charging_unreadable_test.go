package settlement_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/rs/zerolog"

	"github.com/payledger/payledger/chain"
	"github.com/payledger/payledger/commands"
	"github.com/payledger/payledger/domain/split"
	"github.com/payledger/payledger/domain/subscription"
	"github.com/payledger/payledger/eventstore"
	"github.com/payledger/payledger/internal/syncbuf"
	"github.com/payledger/payledger/settlement"
	"github.com/payledger/payledger/settlement/pgstore"
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

// TestChargeDueChargesTheOthersPastAMerchantWhoseSplitCannotBeRead: a due subscription whose
// merchant's split stream holds an event this build cannot read (the split may have moved, or its
// recipients changed) is not charged, its claim freed; before, the spend check of its wave
// returned on the split's load error, so no one in the wave was charged, every run.
func TestChargeDueChargesTheOthersPastAMerchantWhoseSplitCannotBeRead(t *testing.T) {
	t.Parallel()
	e := newChargeEnv(t, 2)
	other := newWallet(t)
	splitOp, err := chain.NewOperator(e.dev.Operator.KeyHex(), chain.DevChainID, e.rpc.Backend(), e.dev.Tokens)
	if err != nil {
		t.Fatal(err)
	}
	deploy := settlement.NewDeploySplitHandler(commands.NewConfigureSplitHandler(e.store, e.platform, time.Now), splitOp,
		settlement.NewOperatorSender(splitOp, pgstore.NewOperatorTransactions(e.pool)))
	if _, err := deploy.Handle(e.ctx, commands.ConfigureMerchantSplit{Merchant: other}); err != nil {
		t.Fatalf("deploy the other merchant's split: %v", err)
	}
	e.plans["plan_other"] = commands.SubscriptionPlan{ID: "plan_other", Merchant: other, Name: "Other", Price: 999, Period: "MONTHLY", Active: true}
	bad := e.subscribe(e.dev.Accounts[0], "plan_other")
	good := e.subscribe(e.dev.Accounts[1], "plan_monthly")
	e.listed(bad, good)
	evs, err := e.store.ReadStream(e.ctx, split.Stream(other), 1, 100)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.store.Append(e.ctx, split.Stream(other), eventstore.Exact(uint64(len(evs))),
		eventstore.EventData{ID: uuid.New(), Type: "SplitRecipientsChanged", Data: json.RawMessage(`{"at":2000}`)}); err != nil {
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
		t.Fatalf("the other merchant's subscription was charged %d times, want once: %+v", st.Charges, run.Results)
	}
	if st := e.state(bad); st.Charges != 0 || st.ConsecutiveFailures != 0 {
		t.Fatalf("the subscription to the unreadable split: %d charges, %d failures, want neither", st.Charges, st.ConsecutiveFailures)
	}
	if run.Unreadable != 1 || run.Succeeded != 1 {
		t.Fatalf("run %+v: want one charged, one skipped as unreadable", run)
	}
	if n := e.count(`SELECT count(*) FROM subscription_charges WHERE subscription_id = $1`, bad); n != 0 {
		t.Fatalf("%d charge rows of the unreadable one left, want its claim freed", n)
	}
	if out := logs.String(); !strings.Contains(out, `"level":"error"`) || !strings.Contains(out, split.Stream(other)) {
		t.Fatalf("no error naming %s in the log:\n%s", split.Stream(other), out)
	}
}
