package subscription

import (
	"encoding/json"
	"errors"
	"reflect"
	"testing"
)

// revoked records the chain's refusal of s's next period because the customer revoked the
// permission.
func revoked(t testing.TB, s State) State {
	t.Helper()
	evs, err := DecideRevoked(s, RecordFailure{Period: s.NextPeriod(), Reason: ReasonRevoked}, testNow)
	return apply(t, s, evs, err)
}

// TestRevokedPermissionEndsTheSubscription: a charge refused because the customer revoked the
// spend permission is a failed charge that ends the subscription; it is never due again, and
// nothing more is recorded against it. Before, it stayed active (past_due after three) and was
// charged, and failed, every day for ever.
func TestRevokedPermissionEndsTheSubscription(t *testing.T) {
	t.Parallel()
	fresh := created(t)
	cases := []struct {
		name       string
		from       State
		wantErr    error
		wantEvents []string
		wantStatus Status
	}{
		{"active: failed and ended", fresh, nil, []string{EventChargeFailed, EventPermissionRevoked}, StatusEnded},
		{"the third failure: ended, not past_due", failed(t, fresh, PastDueAfter-1, testNow), nil, []string{EventChargeFailed, EventPermissionRevoked}, StatusEnded},
		{"past_due: ended", failed(t, fresh, PastDueAfter, testNow), nil, []string{EventChargeFailed, EventPermissionRevoked}, StatusEnded},
		{"ended already", revoked(t, fresh), ErrEnded, nil, StatusEnded},
		{"cancelled", cancelled(t, fresh, testNow), ErrCancelled, nil, StatusCancelled},
		{"not found", State{}, ErrNotFound, nil, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			evs, err := DecideRevoked(c.from, RecordFailure{Period: c.from.NextPeriod(), Reason: ReasonRevoked}, testNow)
			if !errors.Is(err, c.wantErr) {
				t.Fatalf("err %v, want %v", err, c.wantErr)
			}
			var types []string
			s := c.from
			for _, e := range evs {
				types = append(types, TypeOf(e))
				s = Evolve(s, e)
			}
			if !reflect.DeepEqual(types, c.wantEvents) || s.Status != c.wantStatus {
				t.Fatalf("events %v status %q, want %v %q", types, s.Status, c.wantEvents, c.wantStatus)
			}
		})
	}
	ended := revoked(t, fresh)
	if _, ok := Due(ended, at(5)); ok {
		t.Fatal("an ended subscription is due")
	}
	if ended.StatusAt(testNow) != StatusEnded || ended.ConsecutiveFailures != 1 || ended.LastFailureReason != ReasonRevoked {
		t.Fatalf("ended state: %+v", ended)
	}
	// A charge the chain moved before the revocation is still recorded; ended stays.
	if s := charged(t, ended, testNow); s.Status != StatusEnded || s.Charges != 1 {
		t.Fatalf("a charge in flight after the revocation: %+v", s)
	}
	// The customer may still cancel it.
	if s := cancelled(t, ended, testNow); s.Status != StatusCancelled {
		t.Fatalf("cancel after the revocation: %q", s.Status)
	}
}

func TestPermissionRevokedRoundTrip(t *testing.T) {
	t.Parallel()
	e := PermissionRevoked{PeriodIndex: 3, At: 1_802_600_000_000}
	b, err := json.Marshal(e)
	if err != nil {
		t.Fatal(err)
	}
	d, err := Decode(EventPermissionRevoked, b)
	if err != nil || !reflect.DeepEqual(d, Event(e)) {
		t.Fatalf("decoded %#v %v, want %#v", d, err, e)
	}
}
