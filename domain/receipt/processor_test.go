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
			ProcessorUpdate{SessionID: "cos_9", Status: "fulfillment_complete", TransactionHash: "0xABC", Wallet: "0xDEF", SourceAmountCents: cents(1000), At: 5},
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

func cents(c int64) *int64 { return &c }

// A processor success pays only what it covers (defect: 1.00 of 10.00 paid the receipt); an
// EUR receipt is due at its recorded rate; amounts compare exactly, never rounded to the cent.
func TestProcessorSuccessMustCoverTheAmountDue(t *testing.T) {
	t.Parallel()
	usd := Evolve(generated(), AttemptStarted{AttemptID: "att_1", Kind: "onramp", SessionID: "cos_1", OpenedBy: "service", At: 2})
	eur := Evolve(State{}, Generated{ReceiptID: "e", Merchant: "m", Currency: "EUR", Total: 1000, LineItems: []LineItem{{Kind: KindCustom, Label: "x", Amount: 1000}}, CreatedAt: 1})
	eur = Evolve(eur, TokenQuoted{Token: "USDC", Amount: "10.83", TokenUSDPrice: "1", EURUSDRate: "1.0825", AmountUSD: "10.83", At: 2})
	eur = Evolve(eur, AttemptStarted{AttemptID: "att_1", Kind: "onramp", SessionID: "cos_1", OpenedBy: "service", At: 3})
	eurNoRate := Evolve(Evolve(State{}, Generated{ReceiptID: "e", Merchant: "m", Currency: "EUR", Total: 1000, CreatedAt: 1}),
		AttemptStarted{AttemptID: "att_1", Kind: "onramp", SessionID: "cos_1", At: 3})
	success := func(amountCents *int64, exact string) ProcessorUpdate {
		return ProcessorUpdate{SessionID: "cos_1", Status: "fulfillment_complete", TransactionHash: "0xAB", SourceAmountCents: amountCents, SourceAmountUSD: exact, At: 9}
	}
	cases := []struct {
		name   string
		s      State
		u      ProcessorUpdate
		types  string
		status Status
		why    string
	}{
		{"underpaid is ignored with the amount", usd, success(cents(100), "1.00"), EventPaymentIgnored, StatusGenerated, "underpaid: the processor reported 1.00 USD of the 10.00 USD due"},
		{"a cent short is ignored", usd, success(cents(999), "9.99"), EventPaymentIgnored, StatusGenerated, "underpaid"},
		{"half a cent short is ignored, though it rounds up", usd, success(cents(1000), "9.995"), EventPaymentIgnored, StatusGenerated, "underpaid: the processor reported 9.995 USD"},
		{"the exact amount pays", usd, success(cents(1000), "10.00"), EventConfirmed, StatusPaid, ""},
		{"more pays", usd, success(cents(1200), "12"), EventConfirmed, StatusPaid, ""},
		{"cents alone are compared", usd, success(cents(999), ""), EventPaymentIgnored, StatusGenerated, "9.99 USD of the 10.00 USD due"},
		{"no amount confirms nothing", usd, success(nil, ""), "", StatusGenerated, ""},
		{"no amount, the service's own session for this receipt: paid", usd, owned(success(nil, ""), usd), EventConfirmed, StatusPaid, ""},
		{"EUR at its rate: 10.83 is due", eur, success(cents(1083), "10.83"), EventConfirmed, StatusPaid, ""},
		{"EUR at its rate: 10.82 is short", eur, success(cents(1082), "10.82"), EventPaymentIgnored, StatusGenerated, "of the 10.83 USD due"},
		{"EUR: the euro total in dollars is short", eur, success(cents(1000), "10"), EventPaymentIgnored, StatusGenerated, "underpaid"},
		{"EUR without a rate: the amount cannot be compared, it pays as before", eurNoRate, success(cents(5000), "50"), EventConfirmed, StatusPaid, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			evs, err := DecideProcessorUpdate(c.s, c.u)
			if got := types(evs); err != nil || got != c.types {
				t.Fatalf("events %s (%v), want %s", got, err, c.types)
			}
			s := apply(t, c.s, evs, nil)
			if s.Status != c.status {
				t.Fatalf("status %s, want %s", s.Status, c.status)
			}
			if c.types != EventPaymentIgnored {
				return
			}
			ig := evs[0].(PaymentIgnored)
			if !strings.Contains(ig.Why, c.why) || ig.VerifiedBy != "processor" || ig.TransactionHash != "0xab" || ig.Token != "USD" || ig.Decimals != 2 ||
				ig.AmountUnits != fmt.Sprint(*c.u.SourceAmountCents) {
				t.Fatalf("ignored %+v, want why %q", ig, c.why)
			}
			if again, _ := DecideProcessorUpdate(s, c.u); len(again) != 0 { // the reconciler asks again
				t.Fatalf("recorded twice: %s", types(again))
			}
		})
	}
}

// A session the service started for another receipt pays, fails and moves nothing here.
func TestProcessorSessionOfAnotherReceipt(t *testing.T) {
	t.Parallel()
	own := Evolve(generated(), AttemptStarted{AttemptID: "att_own", Kind: "onramp", SessionID: "cos_own", OpenedBy: "service", SessionUnique: true, At: 2})
	for _, c := range []struct {
		status, types string
	}{
		{"fulfillment_complete", EventPaymentIgnored},
		{"fulfillment_processing", ""},
		{"ach_pending", ""},
		{"rejected", EventFailureIgnored},
	} {
		for name, s := range map[string]State{"no attempt": generated(), "an attempt of its own": own} {
			t.Run(c.status+" "+name, func(t *testing.T) {
				u := ProcessorUpdate{SessionID: "cos_A", AttemptID: "att_A", Status: c.status, SourceAmountCents: cents(1000), SessionOwner: "receipt_A", At: 9}
				evs, err := DecideProcessorUpdate(s, u)
				if got := types(evs); err != nil || got != c.types {
					t.Fatalf("events %s (%v), want %s", got, err, c.types)
				}
				after := apply(t, s, evs, nil)
				if after.Status != s.Status || after.CurrentAttempt != s.CurrentAttempt || len(after.Attempts) != len(s.Attempts) {
					t.Fatalf("changed: %+v", after)
				}
				if ig, ok := evs[0:min(1, len(evs))], len(evs) == 1; ok && c.types == EventPaymentIgnored &&
					!strings.Contains(ig[0].(PaymentIgnored).Why, "started by the service for receipt receipt_A") {
					t.Fatalf("why: %+v", ig[0])
				}
			})
		}
	}
	// Its own receipt is paid as usual.
	mine := Evolve(generated(), AttemptStarted{AttemptID: "att_A", Kind: "onramp", SessionID: "cos_A", OpenedBy: "service", At: 2})
	mine.Receipt.ReceiptID = "receipt_A"
	evs, err := DecideProcessorUpdate(mine, ProcessorUpdate{SessionID: "cos_A", Status: "fulfillment_complete", SourceAmountCents: cents(1000), SessionOwner: "receipt_A", At: 9})
	if types(evs) != EventConfirmed || err != nil {
		t.Fatalf("own receipt: %s %v", types(evs), err)
	}
}

// A late processing or ach_pending report of the attempt a receipt failed on changes nothing; a
// new attempt's still moves it on.
func TestLateProgressOfTheFailedAttempt(t *testing.T) {
	t.Parallel()
	failed := Evolve(Evolve(generated(), AttemptStarted{AttemptID: "att_1", Kind: "onramp", SessionID: "cos_1", At: 2}),
		PaymentFailed{AttemptID: "att_1", Code: "X", At: 3})
	for _, c := range []struct {
		name, types string
		u           ProcessorUpdate
		status      Status
	}{
		{"processing of the failed attempt", "", ProcessorUpdate{SessionID: "cos_1", Status: "fulfillment_processing", At: 4}, StatusFailed},
		{"ach_pending of the failed attempt", "", ProcessorUpdate{SessionID: "cos_1", Status: "ach_pending", At: 4}, StatusFailed},
		{"processing of a new session", EventAttemptStarted + "," + EventSubmitted, ProcessorUpdate{SessionID: "cos_2", Status: "fulfillment_processing", At: 4}, StatusPending},
		{"ach_pending of a new session", EventAttemptStarted + "," + EventACHAccepted, ProcessorUpdate{SessionID: "cos_2", Status: "ach_pending", At: 4}, StatusACHPending},
		{"success of the failed attempt still wins", EventConfirmed, ProcessorUpdate{SessionID: "cos_1", Status: "fulfillment_complete", SourceAmountCents: cents(1000), At: 4}, StatusPaid},
	} {
		t.Run(c.name, func(t *testing.T) {
			evs, err := DecideProcessorUpdate(failed, c.u)
			if got := types(evs); err != nil || got != c.types {
				t.Fatalf("events %s (%v), want %s", got, err, c.types)
			}
			if s := apply(t, failed, evs, nil); s.Status != c.status {
				t.Fatalf("status %s, want %s", s.Status, c.status)
			}
		})
	}
}

// A second paid session on a settled receipt is a duplicate payment, recorded once; the same
// confirmation again is a no-op.
func TestSecondProcessorPaymentOfAPaidReceipt(t *testing.T) {
	t.Parallel()
	s := Evolve(generated(), AttemptStarted{AttemptID: "att_1", Kind: "onramp", SessionID: "cos_1", At: 2})
	s = Evolve(s, PaymentConfirmed{AttemptID: "att_1", TransactionHash: "0xa1", VerifiedBy: "processor", At: 3})
	reconciled := Evolve(s, SplitDistributed{TransactionHash: "0xs", At: 4})
	for _, c := range []struct {
		name, types string
		s           State
		u           ProcessorUpdate
	}{
		{"the same session again", "", s, ProcessorUpdate{SessionID: "cos_1", Status: "fulfillment_complete", TransactionHash: "0xa1", SourceAmountCents: cents(1000), At: 5}},
		{"the same attempt again", "", s, ProcessorUpdate{AttemptID: "att_1", Status: "fulfillment_complete", SourceAmountCents: cents(1000), At: 5}},
		{"another session", EventPaymentIgnored, s, ProcessorUpdate{SessionID: "cos_2", Status: "fulfillment_complete", TransactionHash: "0xB2", SourceAmountCents: cents(1000), At: 5}},
		{"another session without a hash", EventPaymentIgnored, s, ProcessorUpdate{SessionID: "cos_2", Status: "fulfillment_complete", SourceAmountCents: cents(1000), At: 5}},
		{"another session of a reconciled receipt", EventPaymentIgnored, reconciled, ProcessorUpdate{SessionID: "cos_2", Status: "fulfillment_complete", TransactionHash: "0xB2", SourceAmountCents: cents(1000), At: 5}},
	} {
		t.Run(c.name, func(t *testing.T) {
			evs, err := DecideProcessorUpdate(c.s, c.u)
			if got := types(evs); err != nil || got != c.types {
				t.Fatalf("events %s (%v), want %s", got, err, c.types)
			}
			after := apply(t, c.s, evs, nil)
			if after.Status != c.s.Status || after.Payment.AttemptID != "att_1" {
				t.Fatalf("changed: %s %+v", after.Status, after.Payment)
			}
			if len(evs) == 0 {
				return
			}
			if ig := evs[0].(PaymentIgnored); !strings.Contains(ig.Why, "duplicate payment") || !strings.Contains(ig.Why, "cos_2") || ig.AmountUnits != "1000" {
				t.Fatalf("ignored %+v", ig)
			}
			if again, _ := DecideProcessorUpdate(after, c.u); len(again) != 0 {
				t.Fatalf("recorded twice: %s", types(again))
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

// owned is u reported for a session the service started for s's receipt.
func owned(u ProcessorUpdate, s State) ProcessorUpdate {
	u.SessionOwner = s.Receipt.ReceiptID
	return u
}
