package receipt

import (
	"fmt"
	"strings"
	"testing"
)

// types is the event types of evs, comma-separated.
func types(evs []Event) string {
	out := make([]string, len(evs))
	for i, e := range evs {
		out[i] = TypeOf(e)
	}
	return strings.Join(out, ",")
}

func TestDecideProcessorUpdate(t *testing.T) {
	t.Parallel()
	withSession := Evolve(generated(), AttemptStarted{AttemptID: "att_1", Kind: "onramp", SessionID: "cos_1", At: 2})
	paid := Evolve(withSession, PaymentConfirmed{AttemptID: "att_1", TransactionHash: "0xabc", At: 3})
	cases := []struct {
		name  string
		s     State
		u     ProcessorUpdate
		types string
		check func(State) error
	}{
		{"processing of a known session submits it", withSession, ProcessorUpdate{SessionID: "cos_1", Status: "fulfillment_processing", At: 5},
			EventSubmitted, statusIs(StatusPending)},
		{"ach accepted", withSession, ProcessorUpdate{AttemptID: "att_1", Status: "ach_pending", At: 5},
			EventACHAccepted, statusIs(StatusACHPending)},
		{"complete of an unknown session opens an attempt and confirms", generated(),
			ProcessorUpdate{SessionID: "cos_9", Status: "fulfillment_complete", TransactionHash: "0xABC", Wallet: "0xDEF", At: 5},
			EventAttemptStarted + "," + EventConfirmed, func(s State) error {
				if s.Status != StatusPaid || s.Payment.TransactionHash != "0xabc" || s.Payment.BuyerWallet != "0xdef" || s.CurrentAttempt != "att_cos_9" {
					return fmt.Errorf("state %+v", s)
				}
				return nil
			}},
		{"a failure of an unknown session opens nothing", generated(), ProcessorUpdate{SessionID: "cos_9", Status: "rejected", At: 5},
			EventFailureIgnored, statusIs(StatusGenerated)},
		{"a failure of the known session fails it", withSession, ProcessorUpdate{SessionID: "cos_1", Status: "expired", At: 5},
			EventFailed, statusIs(StatusFailed)},
		{"a stale failure never replaces paid", paid, ProcessorUpdate{SessionID: "cos_1", Status: "cancelled", At: 5},
			EventFailureIgnored, statusIs(StatusPaid)},
		{"an unknown status decides nothing", withSession, ProcessorUpdate{SessionID: "cos_1", Status: "weird", At: 5},
			"", statusIs(StatusGenerated)},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			evs, err := DecideProcessorUpdate(c.s, c.u)
			if err != nil {
				t.Fatalf("decide: %v", err)
			}
			if got := types(evs); got != c.types {
				t.Fatalf("events %s, want %s", got, c.types)
			}
			if err := c.check(apply(t, c.s, evs, nil)); err != nil {
				t.Fatal(err)
			}
		})
	}
}

func statusIs(want Status) func(State) error {
	return func(s State) error {
		if s.Status != want {
			return fmt.Errorf("status %s, want %s", s.Status, want)
		}
		return nil
	}
}

func TestThen(t *testing.T) {
	t.Parallel()
	s := generated()
	first := []Event{AttemptStarted{AttemptID: "a", Kind: "wallet", At: 2}}
	evs, err := Then(s, first, nil, func(s State) ([]Event, error) {
		return Submit(s, PaymentSubmitted{AttemptID: s.CurrentAttempt, At: 3}) // sees the attempt
	})
	if err != nil || types(evs) != EventAttemptStarted+","+EventSubmitted {
		t.Fatalf("evs %s err %v", types(evs), err)
	}
	if _, err := Then(s, nil, ErrState, nil); err != ErrState {
		t.Fatalf("err %v, want the first's", err)
	}
}
