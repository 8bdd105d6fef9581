package settlement_test

import (
	"context"
	"errors"
	"math/big"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/payledger/payledger/commands"
	"github.com/payledger/payledger/domain/subscription"
	"github.com/payledger/payledger/eventstore"
	"github.com/payledger/payledger/internal/syncbuf"
	"github.com/payledger/payledger/settlement"
	"github.com/payledger/payledger/settlement/pgstore"
)

// onBroadcast runs f just before the at-th broadcast of a run (first use: 1 the approvals, 2 the
// spends, 3 the transfers) is sent.
type onBroadcast struct {
	settlement.ChargeChain
	n  *atomic.Int32
	at int32
	f  func()
}

func (c onBroadcast) BroadcastAll(ctx context.Context, raws [][]byte) error {
	if c.n.Add(1) == c.at {
		c.f()
	}
	return c.ChargeChain.BroadcastAll(ctx, raws)
}

func (e *chargeEnv) cancel(id, by string) {
	e.tb.Helper()
	if _, err := commands.NewCancelSubscriptionHandler(e.store, time.Now).Handle(e.ctx, commands.CancelSubscription{ID: id, By: by}); err != nil {
		e.tb.Fatal(err)
	}
}

// A cancel that lands while a charge is in flight. After the spend was sent, the spend cannot be
// stopped: the charge is recorded (the customer's money moved, so the log and the billing show
// it) and the subscription stays cancelled. Before the spend is signed (the approval was sent):
// nothing is spent and nothing is recorded.
func TestChargeSubscriptionCancelDuringCharge(t *testing.T) {
	t.Parallel()
	e := newChargeEnv(t, 1)
	customer := e.dev.Accounts[0]
	wallet := customer.Address.Hex()

	inFlight := e.subscribe(customer, "plan_monthly")
	before := e.balance(wallet)
	h := e.handler(onBroadcast{ChargeChain: e.op, n: new(atomic.Int32), at: 2, f: func() { e.cancel(inFlight, wallet) }})
	res, err := h.Handle(e.ctx, settlement.ChargeSubscription{ID: inFlight})
	if err != nil || res.Status != settlement.ResultCharged {
		t.Fatalf("cancel while the spend is sent: %+v %v, want charged", res, err)
	}
	if d := diff(before, e.balance(wallet)); d.Cmp(big.NewInt(9_990_000)) != 0 {
		t.Fatalf("customer paid %s", d)
	}
	if st := e.state(inFlight); st.Charges != 1 || st.Status != subscription.StatusCancelled {
		t.Fatalf("after the charge in flight: charges %d, status %s", st.Charges, st.Status)
	}
	if n := e.count(`SELECT count(*) FROM subscription_charges WHERE subscription_id = $1 AND status = 'charged'`, inFlight); n != 1 {
		t.Fatalf("%d charged rows", n)
	}

	beforeSpend := e.subscribe(customer, "plan_monthly")
	before = e.balance(wallet)
	spends := e.count(`SELECT count(*) FROM operator_transactions WHERE kind = 'spend'`)
	h = e.handler(onBroadcast{ChargeChain: e.op, n: new(atomic.Int32), at: 1, f: func() { e.cancel(beforeSpend, wallet) }})
	res, err = h.Handle(e.ctx, settlement.ChargeSubscription{ID: beforeSpend})
	if err != nil || res.Status != settlement.ResultSkipped || !strings.Contains(res.Reason, "cancelled") {
		t.Fatalf("cancel after the approval was sent: %+v %v, want skipped", res, err)
	}
	if e.balance(wallet).Cmp(before) != 0 || e.count(`SELECT count(*) FROM operator_transactions WHERE kind = 'spend'`) != spends {
		t.Fatal("a spend was sent after the cancel")
	}
	if st := e.state(beforeSpend); st.Charges != 0 || st.Status != subscription.StatusCancelled || st.ConsecutiveFailures != 0 {
		t.Fatalf("after the cancel: %+v", st)
	}
	if n := e.count(`SELECT count(*) FROM subscription_charges WHERE subscription_id = $1 AND status NOT IN ('charged', 'failed')`, beforeSpend); n != 0 {
		t.Fatalf("%d open rows left", n)
	}
}

// failingAppends refuses appends to one stream while fail is set: a recovery that cannot record.
type failingAppends struct {
	commands.Store
	stream string
	fail   *atomic.Bool
}

func (f failingAppends) Append(ctx context.Context, stream string, expected eventstore.ExpectedVersion, events ...eventstore.EventData) (eventstore.AppendResult, error) {
	if f.fail.Load() && stream == f.stream {
		return eventstore.AppendResult{}, errors.New("the datastore refused the append")
	}
	return f.Store.Append(ctx, stream, expected, events...)
}

// syncBuffer collects logs written while they are read (syncbuf.Buffer).
type syncBuffer = syncbuf.Buffer

// A crash after the spend, then a cancel: the recovery records the charge anyway (the customer
// paid). While that recording fails, the failure is logged at error level and the cron still
// charges every other due subscription; the next run records it.
func TestChargeSubscriptionsRecoveryAfterCancel(t *testing.T) {
	t.Parallel()
	e := newChargeEnv(t, 2)
	alice, bob := e.dev.Accounts[0], e.dev.Accounts[1]
	crashed := e.subscribe(alice, "plan_monthly")
	aliceBefore := e.balance(alice.Address.Hex())
	if _, err := e.handler(crashAfterSend{e.op, new(int)}).Handle(e.ctx, settlement.ChargeSubscription{ID: crashed}); err == nil {
		t.Fatal("the crashing charge succeeded")
	}
	e.cancel(crashed, alice.Address.Hex())
	other := e.subscribe(bob, "plan_monthly")
	e.listed(other)
	bobBefore := e.balance(bob.Address.Hex())

	fail := new(atomic.Bool)
	fail.Store(true)
	logs := &syncBuffer{}
	store := failingAppends{Store: e.store, stream: subscription.Stream(crashed), fail: fail}
	h := settlement.NewChargeSubscriptionsHandler(store, e.op, pgstore.NewSubscriptionCharges(e.pool), pgstore.NewSubscriptions(e.pool),
		commands.NewSplits(e.store), time.Now)
	h.Poll, h.Await, h.Lease, h.Log = 50*time.Millisecond, 30*time.Second, 0, zerolog.New(logs)
	run, err := h.ChargeDue(e.ctx, eventstore.Metadata{})
	if err != nil {
		t.Fatalf("a recovery that cannot record stopped the cron: %v", err)
	}
	charged := map[string]bool{}
	for _, r := range run.Results {
		charged[r.SubscriptionID] = r.Status == settlement.ResultCharged
	}
	if !charged[other] || e.state(other).Charges != 1 {
		t.Fatalf("the other subscription was not charged: %+v", run.Results)
	}
	if d := diff(bobBefore, e.balance(bob.Address.Hex())); d.Cmp(big.NewInt(9_990_000)) != 0 {
		t.Fatalf("bob paid %s", d)
	}
	if l := logs.String(); !strings.Contains(l, `"level":"error"`) || !strings.Contains(l, crashed) {
		t.Fatalf("the recovery's failure is not logged at error level naming %s:\n%s", crashed, l)
	}

	fail.Store(false)
	if _, err := h.ChargeDue(e.ctx, eventstore.Metadata{}); err != nil {
		t.Fatal(err)
	}
	if st := e.state(crashed); st.Charges != 1 || st.Status != subscription.StatusCancelled {
		t.Fatalf("the charge mined before the cancel is not recorded: charges %d, status %s", st.Charges, st.Status)
	}
	if d := diff(aliceBefore, e.balance(alice.Address.Hex())); d.Cmp(big.NewInt(9_990_000)) != 0 {
		t.Fatalf("alice paid %s, once", d)
	}
}
