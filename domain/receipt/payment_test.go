package receipt

import (
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"
)

func generated() State {
	return Evolve(State{}, Generated{ReceiptID: "r", Merchant: "m", Total: 1000, LineItems: []LineItem{{Kind: KindCustom, Label: "x", Amount: 1000}}, CreatedAt: 1})
}

// apply runs a decision and folds its events, like the command pipeline does.
func apply(t *testing.T, s State, evs []Event, err error) State {
	t.Helper()
	if err != nil {
		t.Fatalf("decide: %v", err)
	}
	for _, e := range evs {
		s = Evolve(s, e)
	}
	return s
}

func started(s State, id string) State {
	evs, _ := StartAttempt(s, AttemptStarted{AttemptID: id, Kind: "onramp", At: 2})
	for _, e := range evs {
		s = Evolve(s, e)
	}
	return s
}

func fail(id string) PaymentFailed {
	return PaymentFailed{AttemptID: id, Code: "PORTAL_PAY_CARD_DECLINED", Category: "card_decline", Reason: "r", Action: "a", ProviderErrorCode: "card_declined", At: 9}
}

func confirm(id string) PaymentConfirmed {
	return PaymentConfirmed{AttemptID: id, TransactionHash: "0xabc", VerifiedBy: "processor", At: 8}
}

// TestTransitions covers both transition tables of the spec and each numbered rule.
func TestTransitions(t *testing.T) {
	t.Parallel()
	pendingA := then(t, started(generated(), "a"))(Submit(started(generated(), "a"), PaymentSubmitted{AttemptID: "a", Source: "wallet", At: 3}))
	paid := then(t, pendingA)(Confirm(pendingA, confirm("a")))
	cases := []struct {
		name       string
		from       State
		decide     func(State) ([]Event, error)
		wantStatus Status
		wantEvent  string // type of the single event, "" for none
		wantErr    error
	}{
		// Lifecycle table.
		{"generated -> pending: payment initiated", started(generated(), "a"), func(s State) ([]Event, error) {
			return Submit(s, PaymentSubmitted{AttemptID: "a", Source: "wallet", At: 3})
		}, StatusPending, EventSubmitted, nil},
		{"pending -> paid: payment confirmed", pendingA, func(s State) ([]Event, error) { return Confirm(s, confirm("a")) }, StatusPaid, EventConfirmed, nil},
		{"paid -> completed (reconciled): split executed", paid, func(s State) ([]Event, error) { return DistributeSplit(s, SplitDistributed{At: 10}) }, StatusReconciled, EventSplitDistributed, nil},
		// Status table.
		{"pending -> paid through the server-verified path", pendingA, func(s State) ([]Event, error) { return Confirm(s, confirm("a")) }, StatusPaid, EventConfirmed, nil},
		{"pending -> failed on a verified failure", pendingA, func(s State) ([]Event, error) { return Fail(s, fail("a")) }, StatusFailed, EventFailed, nil},
		// Rule 1: telemetry never changes status.
		{"telemetry on pending", pendingA, func(s State) ([]Event, error) { return RecordTelemetry(s, TelemetryRecorded{Event: "error", At: 4}) }, StatusPending, EventTelemetry, nil},
		{"telemetry on paid", paid, func(s State) ([]Event, error) {
			return RecordTelemetry(s, TelemetryRecorded{Event: "onramp_error", At: 4})
		}, StatusPaid, EventTelemetry, nil},
		// Rule 2: checkout_success is telemetry; paid needs a verified source.
		{"checkout_success is only telemetry", pendingA, func(s State) ([]Event, error) {
			return RecordTelemetry(s, TelemetryRecorded{Event: "checkout_success", At: 4})
		}, StatusPending, EventTelemetry, nil},
		{"confirmation without a verified source", pendingA, func(s State) ([]Event, error) { return Confirm(s, PaymentConfirmed{AttemptID: "a"}) }, StatusPending, "", ErrState},
		// Rule 3: closing the form is not a failure.
		{"checkout_closed", pendingA, func(s State) ([]Event, error) {
			return RecordTelemetry(s, TelemetryRecorded{Event: "checkout_closed", At: 4})
		}, StatusPending, EventTelemetry, nil},
		// Rule 4: stale failures.
		{"failure after paid", paid, func(s State) ([]Event, error) { return Fail(s, fail("a")) }, StatusPaid, EventFailureIgnored, nil},
		{"failure of another attempt", started(pendingA, "b"), func(s State) ([]Event, error) { return Fail(s, fail("a")) }, StatusPending, EventFailureIgnored, nil},
		{"failure without any attempt", generated(), func(s State) ([]Event, error) { return Fail(s, fail("a")) }, StatusGenerated, EventFailureIgnored, nil},
		{"failure on ach_pending", apply(t, pendingA, []Event{ACHAccepted{AttemptID: "a", At: 5}}, nil), func(s State) ([]Event, error) { return Fail(s, fail("a")) }, StatusACHPending, EventFailureIgnored, nil},
		{"failure on reconciled", apply(t, paid, []Event{SplitDistributed{At: 10}}, nil), func(s State) ([]Event, error) { return Fail(s, fail("a")) }, StatusReconciled, EventFailureIgnored, nil},
		{"repeat of the applied failure", apply(t, pendingA, []Event{fail("a")}, nil), func(s State) ([]Event, error) { return Fail(s, fail("a")) }, StatusFailed, "", nil},
		// Retry after failure; its success wins.
		{"new attempt after failure", apply(t, pendingA, []Event{fail("a")}, nil), func(s State) ([]Event, error) {
			return StartAttempt(s, AttemptStarted{AttemptID: "b", Kind: "wallet", At: 11})
		}, StatusFailed, EventAttemptStarted, nil},
		{"success of the retry wins", started(apply(t, pendingA, []Event{fail("a")}, nil), "b"), func(s State) ([]Event, error) { return Confirm(s, confirm("b")) }, StatusPaid, EventConfirmed, nil},
		{"no attempt while paid", paid, func(s State) ([]Event, error) { return StartAttempt(s, AttemptStarted{AttemptID: "c", At: 12}) }, StatusPaid, "", ErrState},
		{"ACH accepted", pendingA, func(s State) ([]Event, error) { return AcceptACH(s, ACHAccepted{AttemptID: "a", At: 5}) }, StatusACHPending, EventACHAccepted, nil},
		{"ach_pending -> paid", apply(t, pendingA, []Event{ACHAccepted{AttemptID: "a", At: 5}}, nil), func(s State) ([]Event, error) { return Confirm(s, confirm("a")) }, StatusPaid, EventConfirmed, nil},
		{"duplicate confirmation", paid, func(s State) ([]Event, error) { return Confirm(s, confirm("a")) }, StatusPaid, "", nil},
		{"split before payment", pendingA, func(s State) ([]Event, error) { return DistributeSplit(s, SplitDistributed{}) }, StatusPending, "", ErrState},
		// Refunds.
		{"refund requested", paid, func(s State) ([]Event, error) { return Refund(s, 0, "customer", "", "m", 20) }, StatusRefundRequested, EventRefundRequested, nil},
		{"full refund processed", paid, func(s State) ([]Event, error) { return Refund(s, 0, "customer", "0xdef", "m", 20) }, StatusRefunded, EventRefundProcessed, nil},
		{"partial refund keeps paid", paid, func(s State) ([]Event, error) { return Refund(s, 400, "customer", "0xdef", "m", 20) }, StatusPaid, EventRefundProcessed, nil},
		{"over-refund", paid, func(s State) ([]Event, error) { return Refund(s, 1001, "customer", "0xdef", "m", 20) }, StatusPaid, "", ErrAmount},
		{"refund of an unpaid receipt", pendingA, func(s State) ([]Event, error) { return Refund(s, 0, "x", "", "m", 20) }, StatusPending, "", ErrState},
		{"unknown receipt", State{}, func(s State) ([]Event, error) { return RecordTelemetry(s, TelemetryRecorded{Event: "error"}) }, "", "", ErrNotFound},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			evs, err := c.decide(c.from)
			if !errors.Is(err, c.wantErr) {
				t.Fatalf("err = %v, want %v", err, c.wantErr)
			}
			switch {
			case c.wantEvent == "" && len(evs) != 0:
				t.Fatalf("events %v, want none", evs)
			case c.wantEvent != "" && (len(evs) != 1 || TypeOf(evs[0]) != c.wantEvent):
				t.Fatalf("events %v, want one %s", evs, c.wantEvent)
			}
			s := c.from
			for _, e := range evs {
				s = Evolve(s, e)
			}
			if s.Status != c.wantStatus {
				t.Fatalf("status %s, want %s", s.Status, c.wantStatus)
			}
			if s.Status != StatusFailed && s.FailureView() != nil {
				t.Fatal("failure fields visible on a non-failure status")
			}
		})
	}
}

// then folds a decision's result into s.
func then(t *testing.T, s State) func([]Event, error) State {
	return func(evs []Event, err error) State { t.Helper(); return apply(t, s, evs, err) }
}

func TestPartialRefundsThenFull(t *testing.T) {
	t.Parallel()
	s := generated()
	s = apply(t, s, []Event{AttemptStarted{AttemptID: "a"}, PaymentConfirmed{AttemptID: "a", VerifiedBy: "processor"}, SplitDistributed{}}, nil)
	s = then(t, s)(Refund(s, 300, "r", "", "m", 1))
	if s.Status != StatusRefundRequested || s.Unrefunded() != 700 {
		t.Fatalf("after request: %s %d", s.Status, s.Unrefunded())
	}
	s = then(t, s)(Refund(s, 300, "r", "0x1", "m", 2))
	if s.Status != StatusReconciled || s.Unrefunded() != 700 {
		t.Fatalf("after processing the request: %s %d", s.Status, s.Unrefunded())
	}
	s = then(t, s)(Refund(s, 0, "r", "0x2", "m", 3))
	if s.Status != StatusRefunded || s.RefundedCents != 1000 {
		t.Fatalf("after the rest: %s %d", s.Status, s.RefundedCents)
	}
}

// TestRandomInterleavings generates 10,000 histories of telemetry, successes and failures from
// current and stale attempts and checks the guards hold for every one.
func TestRandomInterleavings(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(1, 2))
	for h := range 10_000 {
		s := generated()
		var history []Event
		everPaid := false
		attempts := []string{}
		for step := range 12 {
			at := int64(100 + step)
			pick := func() string {
				if len(attempts) == 0 || rng.IntN(5) == 0 {
					return fmt.Sprintf("ghost-%d", rng.IntN(3)) // an attempt this receipt never started
				}
				return attempts[rng.IntN(len(attempts))] // current or stale
			}
			var evs []Event
			var err error
			switch rng.IntN(8) {
			case 0:
				id := fmt.Sprintf("att-%d", step)
				evs, err = StartAttempt(s, AttemptStarted{AttemptID: id, Kind: "onramp", At: at})
				if err == nil && len(evs) > 0 {
					attempts = append(attempts, id)
				}
			case 1:
				evs, err = RecordTelemetry(s, TelemetryRecorded{Event: TelemetryEvents[rng.IntN(len(TelemetryEvents))], AttemptID: pick(), At: at})
			case 2:
				evs, err = Submit(s, PaymentSubmitted{AttemptID: pick(), Source: "processor", At: at})
			case 3:
				evs, err = AcceptACH(s, ACHAccepted{AttemptID: pick(), At: at})
			case 4:
				evs, err = Confirm(s, PaymentConfirmed{AttemptID: pick(), VerifiedBy: "processor", At: at})
			case 5, 6:
				evs, err = Fail(s, fail(pick()))
			case 7:
				evs, err = DistributeSplit(s, SplitDistributed{At: at})
			}
			if err != nil && !errors.Is(err, ErrState) {
				t.Fatalf("history %d: %v", h, err)
			}
			for _, e := range evs {
				s = Evolve(s, e)
				history = append(history, e)
			}
			if s.Status == StatusPaid {
				everPaid = true
			}
			if everPaid && s.Status == StatusFailed {
				t.Fatalf("history %d: a paid receipt ended failed: %v", h, history)
			}
			if s.Status != StatusFailed && s.FailureView() != nil {
				t.Fatalf("history %d: failure fields on %s", h, s.Status)
			}
		}
		// Replaying the stored events (through their JSON) gives the live state.
		replay := generated()
		for _, e := range history {
			b, _ := json.Marshal(e)
			d, err := Decode(TypeOf(e), b)
			if err != nil {
				t.Fatal(err)
			}
			replay = Evolve(replay, d)
		}
		if !reflect.DeepEqual(replay, s) {
			t.Fatalf("history %d: replay %+v differs from live %+v", h, replay, s)
		}
	}
}

func TestCanStartAttempt(t *testing.T) {
	t.Parallel()
	pending := then(t, started(generated(), "a"))(Submit(started(generated(), "a"), PaymentSubmitted{AttemptID: "a", Source: "wallet", At: 3}))
	failed := then(t, started(generated(), "a"))(Fail(started(generated(), "a"), fail("a")))
	paid := then(t, pending)(Confirm(pending, confirm("a")))
	ach := then(t, pending)(AcceptACH(pending, ACHAccepted{AttemptID: "a", At: 4}))
	requested := then(t, paid)(Refund(paid, 100, "r", "", "m", 5))
	refunded := then(t, paid)(Refund(paid, 0, "r", "0xabc", "m", 5))
	reconciled := then(t, paid)(DistributeSplit(paid, SplitDistributed{TransactionHash: "0xdef", At: 6}))
	cases := []struct {
		name string
		s    State
		want error
	}{
		{"no receipt", State{}, ErrNotFound},
		{"generated", generated(), nil},
		{"pending: the customer retries", pending, nil},
		{"failed: the customer retries", failed, nil},
		{"ach_pending: settlement under way", ach, ErrState},
		{"paid", paid, ErrState},
		{"reconciled", reconciled, ErrState},
		{"refund_requested", requested, ErrState},
		{"refunded", refunded, ErrState},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := CanStartAttempt(c.s)
			if !errors.Is(err, c.want) || (c.want == nil) != (err == nil) {
				t.Fatalf("CanStartAttempt(%s) = %v, want %v", c.s.Status, err, c.want)
			}
			// StartAttempt keeps the same rule.
			if _, serr := StartAttempt(c.s, AttemptStarted{AttemptID: "new", Kind: "onramp", At: 7}); !errors.Is(serr, c.want) || (c.want == nil) != (serr == nil) {
				t.Fatalf("StartAttempt(%s) = %v, want %v", c.s.Status, serr, c.want)
			}
		})
	}
}
