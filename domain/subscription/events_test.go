package subscription

import (
	"encoding/json"
	"errors"
	"math/rand/v2"
	"os"
	"reflect"
	"strings"
	"testing"
	"time"
)

// examples holds one event of each type, every field set.
func examples(t testing.TB) []Event {
	t.Helper()
	evs, err := DecideCreate(State{}, createCmd(), testNow)
	if err != nil {
		t.Fatal(err)
	}
	return append(evs,
		Charged{PeriodIndex: 0, AmountUnits: "9990000", TransactionHashes: []string{strings.ToLower(txA), txB}, ChargedAt: 1_800_000_000_000, NextChargeAt: 1_802_592_000_000},
		ChargeFailed{PeriodIndex: 1, Reason: "insufficient balance", Attempt: 3, FailedAt: 1_802_592_000_000},
		PastDue{PeriodIndex: 1, At: 1_802_592_000_000},
		PermissionRevoked{PeriodIndex: 1, At: 1_802_600_000_000},
		Cancelled{By: strings.ToLower(customer), At: 1_802_600_000_000},
	)
}

func TestDecodeRoundTrip(t *testing.T) {
	t.Parallel()
	for _, e := range examples(t) {
		t.Run(TypeOf(e), func(t *testing.T) {
			b, err := json.Marshal(e)
			if err != nil {
				t.Fatal(err)
			}
			d, err := Decode(TypeOf(e), b)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(d, e) {
				t.Fatalf("decoded %#v, want %#v", d, e)
			}
		})
	}
	if _, err := Decode("SubscriptionRenamed", []byte(`{}`)); !errors.Is(err, ErrUnknownEvent) {
		t.Errorf("unknown type: %v", err)
	}
	if _, err := Decode(EventCharged, []byte(`{"periodIndex":"one"}`)); err == nil {
		t.Error("malformed data decoded")
	}
}

// TestEventsDocumented keeps docs/events/subscription.md in step with the JSON: every type and
// every field name appears there.
func TestEventsDocumented(t *testing.T) {
	t.Parallel()
	doc, err := os.ReadFile("../../docs/events/subscription.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range examples(t) {
		if !strings.Contains(string(doc), TypeOf(e)) {
			t.Errorf("%s is not documented", TypeOf(e))
		}
		b, _ := json.Marshal(e)
		for _, key := range jsonKeys(t, b) {
			if !strings.Contains(string(doc), `"`+key+`"`) {
				t.Errorf("%s.%s is not documented", TypeOf(e), key)
			}
		}
	}
}

func jsonKeys(t testing.TB, b []byte) []string {
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	var keys []string
	for k, v := range m {
		keys = append(keys, k)
		if inner, ok := v.(map[string]any); ok {
			nested, _ := json.Marshal(inner)
			keys = append(keys, jsonKeys(t, nested)...)
		}
	}
	return keys
}

// TestRandomHistories runs 2,000 random histories of charges, failures and cancels, some for
// the wrong period or too early, checks the rules hold for each, and that replaying the stored
// events (through their JSON) gives the live state.
func TestRandomHistories(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(3, 4))
	for h := range 2_000 {
		s := created(t)
		history := []Event{mustCreated(t)}
		now := testNow
		seen := map[int64]bool{}
		for range 30 {
			now = now.Add(time.Duration(rng.IntN(20*24)) * time.Hour)
			p := s.NextPeriod() + int64(rng.IntN(3)) - 1
			var evs []Event
			var err error
			switch rng.IntN(7) {
			case 0, 1, 2: // the charger sends a charge only when Due says so
				if _, ok := Due(s, now); ok {
					evs, err = DecideCharge(s, Charge{Period: p, TransactionHashes: []string{txA}}, now)
				}
			case 3, 4, 5:
				evs, err = DecideFailure(s, RecordFailure{Period: p, Reason: "reverted"}, now)
			case 6:
				evs, err = DecideCancel(s, Cancel{By: []string{customer, stranger}[rng.IntN(2)]}, now)
			}
			if err != nil && !errors.Is(err, ErrAlreadyCharged) && !errors.Is(err, ErrWrongPeriod) && !errors.Is(err, ErrNotDue) &&
				!errors.Is(err, ErrCancelled) && !errors.Is(err, ErrNotCustomer) && !errors.Is(err, ErrOutsideWindow) {
				t.Fatalf("history %d: %v", h, err)
			}
			for _, e := range evs {
				checkRules(t, h, s, e, seen)
				s = Evolve(s, e)
				history = append(history, e)
			}
		}
		replay := State{}
		for _, e := range history {
			b, _ := json.Marshal(e)
			d, err := Decode(TypeOf(e), b)
			if err != nil {
				t.Fatal(err)
			}
			replay = Evolve(replay, d)
		}
		if !reflect.DeepEqual(replay, s) || !reflect.DeepEqual(Fold(history), s) {
			t.Fatalf("history %d: replay %+v differs from live %+v", h, replay, s)
		}
	}
}

func mustCreated(t testing.TB) Event {
	evs, err := DecideCreate(State{}, createCmd(), testNow)
	if err != nil {
		t.Fatal(err)
	}
	return evs[0]
}

// checkRules checks event e, decided from s, against the rules.
func checkRules(t *testing.T, h int, s State, e Event, seen map[int64]bool) {
	t.Helper()
	if s.Status == StatusCancelled {
		t.Fatalf("history %d: %s after cancel", h, TypeOf(e))
	}
	switch e := e.(type) {
	case Charged:
		if seen[e.PeriodIndex] {
			t.Fatalf("history %d: period %d charged twice", h, e.PeriodIndex)
		}
		seen[e.PeriodIndex] = true
		if e.ChargedAt < s.NextChargeAt || e.NextChargeAt != testNow.UnixMilli()+(e.PeriodIndex+1)*month*1000 {
			t.Fatalf("history %d: charge %+v off schedule (due %d)", h, e, s.NextChargeAt)
		}
	case ChargeFailed:
		if e.Attempt != s.ConsecutiveFailures+1 {
			t.Fatalf("history %d: attempt %d after %d failures", h, e.Attempt, s.ConsecutiveFailures)
		}
	case PastDue:
		if s.ConsecutiveFailures != PastDueAfter || s.Status != StatusActive {
			t.Fatalf("history %d: past_due after %d failures while %s", h, s.ConsecutiveFailures, s.Status)
		}
	}
}
