package settlement_test

import (
	"context"
	"encoding/json"
	"errors"
	"math/big"
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
	other := e.otherMerchant()
	bad := e.subscribe(e.dev.Accounts[0], "plan_other")
	good := e.subscribe(e.dev.Accounts[1], "plan_monthly")
	e.listed(bad, good)
	e.unreadableSplit(other)
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

// otherMerchant deploys a second merchant's default split, with a plan plan_other.
func (e *chargeEnv) otherMerchant() string {
	e.tb.Helper()
	other := newWallet(e.tb)
	splitOp, err := chain.NewOperator(e.dev.Operator.KeyHex(), chain.DevChainID, e.rpc.Backend(), e.dev.Tokens)
	if err != nil {
		e.tb.Fatal(err)
	}
	deploy := settlement.NewDeploySplitHandler(commands.NewConfigureSplitHandler(e.store, e.platform, time.Now), splitOp,
		settlement.NewOperatorSender(splitOp, pgstore.NewOperatorTransactions(e.pool)))
	if _, err := deploy.Handle(e.ctx, commands.ConfigureMerchantSplit{Merchant: other}); err != nil {
		e.tb.Fatalf("deploy the other merchant's split: %v", err)
	}
	e.plans["plan_other"] = commands.SubscriptionPlan{ID: "plan_other", Merchant: other, Name: "Other", Price: 999, Period: "MONTHLY", Active: true}
	return other
}

// unreadableSplit appends to merchant's split stream an event of a type this build does not know.
func (e *chargeEnv) unreadableSplit(merchant string) {
	e.tb.Helper()
	evs, err := e.store.ReadStream(e.ctx, split.Stream(merchant), 1, 100)
	if err != nil {
		e.tb.Fatal(err)
	}
	if _, err := e.store.Append(e.ctx, split.Stream(merchant), eventstore.Exact(uint64(len(evs))),
		eventstore.EventData{ID: uuid.New(), Type: "SplitRecipientsChanged", Data: json.RawMessage(`{"at":2000}`)}); err != nil {
		e.tb.Fatal(err)
	}
}

// noReleases is a charging chain whose node does not answer what a split owes: the run's
// releases fail, its charges are left undistributed.
type noReleases struct{ settlement.ChargeChain }

func (noReleases) Releasable(context.Context, string, string, string) (*big.Int, error) {
	return nil, errors.New("node unavailable")
}

// TestChargeReleasesPastAMerchantWhoseSplitCannotBeRead: after a run, the splits that received
// charges are released. One merchant's split stream holding an event this build cannot read ended
// the release of every split (the error returned on it): no merchant's charges were released or
// marked. Now its charges wait, the others' are released and marked distributed.
func TestChargeReleasesPastAMerchantWhoseSplitCannotBeRead(t *testing.T) {
	t.Parallel()
	e := newChargeEnv(t, 2)
	other := e.otherMerchant()
	bad := e.subscribe(e.dev.Accounts[0], "plan_other")
	good := e.subscribe(e.dev.Accounts[1], "plan_monthly")
	e.listed(bad, good)
	run, err := e.handler(noReleases{e.op}).ChargeDue(e.ctx, eventstore.Metadata{})
	if err != nil || run.Succeeded != 2 {
		t.Fatalf("first run: %+v %v, want both charged", run, err)
	}
	e.unreadableSplit(other)
	if _, err := e.handler(nil).ChargeDue(e.ctx, eventstore.Metadata{}); err != nil {
		t.Fatal(err)
	}
	rows, err := pgstore.NewSubscriptionCharges(e.pool).Undistributed(e.ctx, 100)
	if err != nil {
		t.Fatal(err)
	}
	left := map[string]bool{}
	for _, r := range rows {
		left[r.SubscriptionID] = true
	}
	if left[good] || !left[bad] {
		t.Fatalf("undistributed after the second run: %v; want only the unreadable split's charge (%s), not %s", left, bad, good)
	}
	if b := e.balance(e.split); b.Sign() != 0 {
		t.Fatalf("the readable merchant's split still holds %s USDC units: not released", b)
	}
}

// TestRecoverFinishesTheOthersPastAnUnreadableSubscription: two charges left open by a crash
// after their spends were sent; one subscription's stream then holds an event this build cannot
// read. Recovery returned on its load error, so the other's charge (its customer's money spent)
// was never recorded, at every run and tick. Now the other is recovered; the unreadable one's
// row stays open.
func TestRecoverFinishesTheOthersPastAnUnreadableSubscription(t *testing.T) {
	t.Parallel()
	e := newChargeEnv(t, 2)
	bad := e.subscribe(e.dev.Accounts[0], "plan_monthly")
	good := e.subscribe(e.dev.Accounts[1], "plan_monthly")
	for _, id := range []string{bad, good} {
		if _, err := e.handler(crashAfterSend{e.op, new(int)}).Handle(e.ctx, settlement.ChargeSubscription{ID: id}); err == nil {
			t.Fatalf("the crashing charge of %s succeeded", id)
		}
	}
	evs, err := e.store.ReadStream(e.ctx, subscription.Stream(bad), 1, 100)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.store.Append(e.ctx, subscription.Stream(bad), eventstore.Exact(uint64(len(evs))),
		eventstore.EventData{ID: uuid.New(), Type: "SubscriptionPaused", Data: json.RawMessage(`{"at":2000}`)}); err != nil {
		t.Fatal(err)
	}
	restarted := e.handler(nil)
	restarted.Lease = 0 // the crashed process's lease is over
	if _, err := restarted.Recover(e.ctx, eventstore.Metadata{}); err != nil {
		t.Fatalf("recovery failed for every open charge: %v", err)
	}
	if st := e.state(good); st.Charges != 1 {
		t.Fatalf("the readable subscription's open charge recorded %d charges, want 1", st.Charges)
	}
	if n := e.count(`SELECT count(*) FROM subscription_charges WHERE subscription_id = $1 AND status = 'spending'`, bad); n != 1 {
		t.Fatalf("the unreadable subscription's open charge: %d open rows, want it left open", n)
	}
}
