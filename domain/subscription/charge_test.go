package subscription

import (
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"
)

// TestTransitions covers the charge, failure and cancel rules from every status.
func TestTransitions(t *testing.T) {
	t.Parallel()
	fresh := created(t)
	first := charged(t, fresh, testNow)
	pastDue := failed(t, fresh, PastDueAfter, testNow)
	gone := cancelled(t, fresh, testNow)
	shortCmd := createCmd() // a permission that ends exactly one period after creation
	shortCmd.Permission.End = at(1).Unix()
	evs, err := DecideCreate(State{}, shortCmd, testNow)
	short := charged(t, apply(t, State{}, evs, err), testNow)
	notStarted := fresh // as a replay could hold it: due, but before the permission's start
	notStarted.Permission.Start = testNow.Unix() + 60

	charge := func(p int64, now time.Time) func(State) ([]Event, error) {
		return func(s State) ([]Event, error) {
			return DecideCharge(s, Charge{Period: p, TransactionHashes: []string{txA, txB}}, now)
		}
	}
	fail := func(p int64) func(State) ([]Event, error) {
		return func(s State) ([]Event, error) {
			return DecideFailure(s, RecordFailure{Period: p, Reason: "reverted"}, testNow)
		}
	}
	cancel := func(by string) func(State) ([]Event, error) {
		return func(s State) ([]Event, error) { return DecideCancel(s, Cancel{By: by}, testNow) }
	}
	cases := []struct {
		name       string
		from       State
		decide     func(State) ([]Event, error)
		wantErr    error
		wantEvents []string
		wantStatus Status
	}{
		{"first charge is due at once", fresh, charge(0, testNow), nil, []string{EventCharged}, StatusActive},
		{"never two charges for one period index", first, charge(0, at(1)), ErrAlreadyCharged, nil, StatusActive},
		{"a repeated charge at once", first, charge(0, testNow), ErrAlreadyCharged, nil, StatusActive},
		{"periods in order: no skipping", fresh, charge(1, at(1)), ErrWrongPeriod, nil, StatusActive},
		{"negative period index", fresh, charge(-1, testNow), ErrWrongPeriod, nil, StatusActive},
		{"a charge mined before nextChargeAt is recorded", first, charge(1, at(1).Add(-time.Millisecond)), nil, []string{EventCharged}, StatusActive},
		{"charge at nextChargeAt", first, charge(1, at(1)), nil, []string{EventCharged}, StatusActive},
		{"late charge", first, charge(1, at(1).Add(72*time.Hour)), nil, []string{EventCharged}, StatusActive},
		{"a charge mined before the permission's end is recorded after it", short, charge(1, at(1)), nil, []string{EventCharged}, StatusActive},
		{"a charge recorded before the permission's start", notStarted, charge(0, testNow), nil, []string{EventCharged}, StatusActive},
		{"a charge in flight at cancel is recorded; cancelled stays", gone, charge(0, testNow), nil, []string{EventCharged}, StatusCancelled},
		{"a charge in flight at cancel, recorded later", gone, charge(0, at(1)), nil, []string{EventCharged}, StatusCancelled},
		{"a charge after cancel keeps the period guard", charged(t, gone, testNow), charge(0, at(1)), ErrAlreadyCharged, nil, StatusCancelled},
		{"first failure", fresh, fail(0), nil, []string{EventChargeFailed}, StatusActive},
		{"second failure", failed(t, fresh, 1, testNow), fail(0), nil, []string{EventChargeFailed}, StatusActive},
		{"past_due after the third failure", failed(t, fresh, 2, testNow), fail(0), nil, []string{EventChargeFailed, EventPastDue}, StatusPastDue},
		{"past_due after the third failure of a later period", failed(t, first, 2, at(1)), fail(1), nil, []string{EventChargeFailed, EventPastDue}, StatusPastDue},
		{"a fourth failure stays past_due once", pastDue, fail(0), nil, []string{EventChargeFailed}, StatusPastDue},
		{"a charge after past_due makes it active", pastDue, charge(0, testNow), nil, []string{EventCharged}, StatusActive},
		{"a failure for a charged period", first, fail(0), ErrAlreadyCharged, nil, StatusActive},
		{"a failure for a later period", fresh, fail(1), ErrWrongPeriod, nil, StatusActive},
		{"no failure after cancel", gone, fail(0), ErrCancelled, nil, StatusCancelled},
		{"a failure needs a reason", fresh, func(s State) ([]Event, error) {
			return DecideFailure(s, RecordFailure{Period: 0, Reason: " "}, testNow)
		}, ErrInvalid, nil, StatusActive},
		{"a charge needs a transaction hash", fresh, func(s State) ([]Event, error) { return DecideCharge(s, Charge{Period: 0}, testNow) }, ErrInvalid, nil, StatusActive},
		{"malformed transaction hash", fresh, func(s State) ([]Event, error) {
			return DecideCharge(s, Charge{Period: 0, TransactionHashes: []string{"0x12"}}, testNow)
		}, ErrInvalid, nil, StatusActive},
		{"amount above the allowance", fresh, func(s State) ([]Event, error) {
			return DecideCharge(s, Charge{Period: 0, AmountUnits: "9990001", TransactionHashes: []string{txA}}, testNow)
		}, ErrInvalid, nil, StatusActive},
		{"zero amount", fresh, func(s State) ([]Event, error) {
			return DecideCharge(s, Charge{Period: 0, AmountUnits: "0", TransactionHashes: []string{txA}}, testNow)
		}, ErrInvalid, nil, StatusActive},
		{"cancel by the customer in another case", fresh, cancel(strings.ToLower(customer)), nil, []string{EventCancelled}, StatusCancelled},
		{"cancel while past_due", pastDue, cancel(customer), nil, []string{EventCancelled}, StatusCancelled},
		{"cancel by the merchant", fresh, cancel(merchant), ErrNotCustomer, nil, StatusActive},
		{"cancel by nobody", fresh, cancel(""), ErrNotCustomer, nil, StatusActive},
		{"a stranger learns nothing of a cancelled one", gone, cancel(stranger), ErrNotCustomer, nil, StatusCancelled},
		{"no second cancel", gone, cancel(customer), ErrCancelled, nil, StatusCancelled},
		{"charge of an unknown subscription", State{}, charge(0, testNow), ErrNotFound, nil, ""},
		{"failure of an unknown subscription", State{}, fail(0), ErrNotFound, nil, ""},
		{"cancel of an unknown subscription", State{}, cancel(customer), ErrNotFound, nil, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			evs, err := c.decide(c.from)
			if !errors.Is(err, c.wantErr) || (c.wantErr == nil) != (err == nil) {
				t.Fatalf("err = %v, want %v", err, c.wantErr)
			}
			var types []string
			for _, e := range evs {
				types = append(types, TypeOf(e))
			}
			if !reflect.DeepEqual(types, c.wantEvents) {
				t.Fatalf("events %v, want %v", types, c.wantEvents)
			}
			if s := apply(t, c.from, evs, nil); s.Status != c.wantStatus {
				t.Fatalf("status %s, want %s", s.Status, c.wantStatus)
			}
		})
	}
}

// TestSchedule: a charge moves nextChargeAt by one period from where it was, a failure not at all.
func TestSchedule(t *testing.T) {
	t.Parallel()
	s := created(t)
	late := testNow.Add(5 * 24 * time.Hour)
	s = failed(t, s, 2, late)
	if s.NextChargeAt != testNow.UnixMilli() || s.ConsecutiveFailures != 2 || s.LastFailureReason == "" {
		t.Fatalf("after failures: next %d, failures %d", s.NextChargeAt, s.ConsecutiveFailures)
	}
	s = charged(t, s, late)
	if s.NextChargeAt != at(1).UnixMilli() || s.LastChargeAt != late.UnixMilli() || s.Charges != 1 {
		t.Fatalf("after a late charge: next %d (want %d), last %d, charges %d", s.NextChargeAt, at(1).UnixMilli(), s.LastChargeAt, s.Charges)
	}
	if s.ConsecutiveFailures != 0 || s.LastFailureReason != "" {
		t.Fatalf("a success keeps %d failures (%q)", s.ConsecutiveFailures, s.LastFailureReason)
	}
	s = charged(t, s, at(1))
	if s.NextChargeAt != at(2).UnixMilli() || s.NextPeriod() != 2 {
		t.Fatalf("after the second charge: next %d, period %d", s.NextChargeAt, s.NextPeriod())
	}
	evs, err := DecideCharge(s, Charge{Period: 2, AmountUnits: "0009990000", TransactionHashes: []string{txA}}, at(2))
	if err != nil || evs[0].(Charged).AmountUnits != "9990000" || evs[0].(Charged).TransactionHashes[0] != strings.ToLower(txA) {
		t.Fatalf("canonical amount and lower-case hash: %+v, %v", evs, err)
	}
}

// TestPastDueThenActive: three failures make past_due, a success makes active again, and the
// count starts over.
func TestPastDueThenActive(t *testing.T) {
	t.Parallel()
	s := failed(t, created(t), PastDueAfter, testNow)
	if s.Status != StatusPastDue || s.ConsecutiveFailures != PastDueAfter {
		t.Fatalf("status %s after %d failures", s.Status, s.ConsecutiveFailures)
	}
	s = charged(t, s, testNow.Add(time.Hour))
	if s.Status != StatusActive || s.ConsecutiveFailures != 0 {
		t.Fatalf("status %s, failures %d after a success", s.Status, s.ConsecutiveFailures)
	}
	s = failed(t, s, PastDueAfter-1, at(1))
	if s.Status != StatusActive {
		t.Fatalf("past_due after %d failures of the new period", PastDueAfter-1)
	}
}

func TestDue(t *testing.T) {
	t.Parallel()
	fresh := created(t)
	first := charged(t, fresh, testNow)
	cases := []struct {
		name   string
		s      State
		now    time.Time
		period int64
		ok     bool
	}{
		{"new: due at once", fresh, testNow, 0, true},
		{"charged: not before nextChargeAt", first, at(1).Add(-time.Millisecond), 0, false},
		{"charged: due at nextChargeAt", first, at(1), 1, true},
		{"past_due is still charged", failed(t, fresh, PastDueAfter, testNow), testNow.Add(time.Hour), 0, true},
		{"cancelled", cancelled(t, fresh, testNow), at(1), 0, false},
		{"after the permission's end", fresh, time.Unix(fresh.Permission.End, 0), 0, false},
		{"unknown", State{}, testNow, 0, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p, ok := Due(c.s, c.now)
			if p != c.period || ok != c.ok {
				t.Fatalf("Due = %d, %v, want %d, %v", p, ok, c.period, c.ok)
			}
			if ok { // what Due promises, DecideCharge accepts
				if _, err := DecideCharge(c.s, Charge{Period: p, TransactionHashes: []string{txA}}, c.now); err != nil {
					t.Fatalf("due but DecideCharge says %v", err)
				}
			}
		})
	}
}

// TestStatusAt: from its permission's end a subscription reads ended (it is never charged again),
// active or past_due before; cancelled stays cancelled.
func TestStatusAt(t *testing.T) {
	t.Parallel()
	fresh := created(t)
	end := time.Unix(fresh.Permission.End, 0)
	cases := []struct {
		name string
		s    State
		now  time.Time
		want Status
	}{
		{"active before the end", fresh, end.Add(-time.Second), StatusActive},
		{"ended at the end", fresh, end, StatusEnded},
		{"past_due ends too", failed(t, fresh, PastDueAfter, testNow), end, StatusEnded},
		{"cancelled stays cancelled", cancelled(t, fresh, testNow), end, StatusCancelled},
	}
	for _, c := range cases {
		if got := c.s.StatusAt(c.now); got != c.want {
			t.Errorf("%s: %s, want %s", c.name, got, c.want)
		}
	}
}

func TestCheckParties(t *testing.T) {
	t.Parallel()
	p := Permission{Spender: operator, Token: "0x" + strings.ToUpper(usdc[2:])}
	cases := []struct {
		name           string
		spender, token string
		want           error
	}{
		{"match, any case", strings.ToLower(operator), usdc, nil},
		{"other spender", stranger, usdc, ErrWrongSpender},
		{"other token", operator, stranger, ErrWrongToken},
		{"no token configured", operator, "", ErrWrongToken},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if err := p.CheckParties(c.spender, c.token); !errors.Is(err, c.want) || (c.want == nil) != (err == nil) {
				t.Fatalf("err = %v, want %v", err, c.want)
			}
		})
	}
}
