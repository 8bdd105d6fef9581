package receipt

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"
)

const (
	winEnd  = int64(3_600_000) // the window's end (Unix ms)
	monitor = 24 * time.Hour
	lateEnd = winEnd + 24*3_600_000 // MonitorUntil
)

// windowed is a generated receipt whose window ends at winEnd.
func windowed() State {
	return Evolve(State{}, Generated{ReceiptID: "r", Merchant: "m", Total: 1000, LineItems: []LineItem{{Kind: KindCustom, Label: "x", Amount: 1000}},
		CreatedAt: 1, ExpiresAt: winEnd})
}

// expired is s after its window's expiry at winEnd+1.
func expired(t *testing.T, s State) State {
	t.Helper()
	evs, err := Expire(s, winEnd+1, monitor)
	if len(evs) != 1 {
		t.Fatalf("expiry of %s decided %v (%v)", s.Status, evs, err)
	}
	return apply(t, s, evs, err)
}

func withEvents(t *testing.T, s State, evs ...Event) State {
	t.Helper()
	return apply(t, s, evs, nil)
}

func TestExpire(t *testing.T) {
	t.Parallel()
	onramp := withEvents(t, windowed(), AttemptStarted{AttemptID: "a", Kind: "onramp", At: 2})
	wallet := withEvents(t, windowed(), AttemptStarted{AttemptID: "w", Kind: "wallet", At: 2})
	hinted := withEvents(t, wallet, PaymentSubmitted{AttemptID: "w", Source: "wallet", TransactionHash: "0x1", At: 3})
	declined := withEvents(t, onramp, fail("a"))
	cases := []struct {
		name   string
		s      State
		at     int64
		expire bool
	}{
		{"generated, nothing received: expires", windowed(), winEnd, true},
		{"pending by a hint or a too small transfer: expires", hinted, winEnd + 5000, true},
		{"failed by its attempt inside the window: expires (the window closes)", declined, winEnd, true},
		{"a wallet attempt does not hold the window open", wallet, winEnd, true},
		{"before the window's end: nothing", windowed(), winEnd - 1, false},
		{"no window (ExpiresAt 0): never", generated(), winEnd * 10, false},
		{"an onramp attempt open (generated): nothing", onramp, winEnd, false},
		{"an onramp attempt open (processor fulfilling): nothing", withEvents(t, onramp, PaymentSubmitted{AttemptID: "a", Source: "processor", At: 3}), winEnd, false},
		{"ach_pending: nothing", withEvents(t, onramp, ACHAccepted{AttemptID: "a", At: 3}), winEnd, false},
		{"paid: nothing", withEvents(t, wallet, confirm("w")), winEnd, false},
		{"reconciled: nothing", withEvents(t, wallet, confirm("w"), SplitDistributed{TransactionHash: "0x2", At: 9}), winEnd, false},
		{"already expired: nothing", expired(t, windowed()), winEnd + 10_000, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			evs, err := Expire(c.s, c.at, monitor)
			if err != nil {
				t.Fatal(err)
			}
			if !c.expire {
				if len(evs) != 0 {
					t.Fatalf("decided %v, want nothing", evs)
				}
				return
			}
			e, ok := evs[0].(PaymentWindowExpired)
			if len(evs) != 1 || !ok {
				t.Fatalf("decided %v, want one PaymentWindowExpired", evs)
			}
			if e.ExpiresAt != winEnd || e.MonitorUntil != lateEnd || e.At != c.at || e.AttemptID != c.s.CurrentAttempt {
				t.Fatalf("event %+v", e)
			}
			s := apply(t, c.s, evs, nil)
			f := s.FailureView()
			if s.Status != StatusFailed || f == nil || f.Code != CodeWindowExpired || f.Category != "session" || f.Reason == "" || f.Action == "" {
				t.Fatalf("after expiry: status %s, failure %+v", s.Status, f)
			}
			if !s.Expired() || s.MonitorUntil != lateEnd || s.PreviousStatus != c.s.Status && c.s.Status != StatusFailed {
				t.Fatalf("after expiry: %+v", s)
			}
		})
	}
	if _, err := Expire(State{}, winEnd, monitor); !errors.Is(err, ErrNotFound) {
		t.Fatalf("expiry of no receipt: %v", err)
	}
}

// TestExpiredGuard: only confirmed funds on chain move an expired receipt out of failed, and only
// within the late-payment watch.
func TestExpiredGuard(t *testing.T) {
	t.Parallel()
	onramp := withEvents(t, windowed(), AttemptStarted{AttemptID: "a", Kind: "onramp", SessionID: "cos_1", At: 2})
	exp := expired(t, withEvents(t, onramp, fail("a"))) // the onramp failed, then the window ended
	chain := func(at int64) PaymentConfirmed {
		return PaymentConfirmed{AttemptID: "deposit", TransactionHash: "0xd", Token: "USDC", VerifiedBy: "chain", At: at}
	}
	cases := []struct {
		name    string
		decide  func(State) ([]Event, error)
		types   string
		status  Status
		paid    bool // paid late
		wantErr error
	}{
		{"a chain confirmation in the watch pays it late", func(s State) ([]Event, error) { return Confirm(s, chain(winEnd+60_000)) },
			EventConfirmed, StatusPaid, true, nil},
		{"a chain confirmation at the watch's last instant pays it late", func(s State) ([]Event, error) { return Confirm(s, chain(lateEnd)) },
			EventConfirmed, StatusPaid, true, nil},
		{"a chain confirmation after the watch is ignored", func(s State) ([]Event, error) { return Confirm(s, chain(lateEnd+1)) },
			EventPaymentIgnored, StatusFailed, false, nil},
		{"a processor success is ignored", func(s State) ([]Event, error) {
			return DecideProcessorUpdate(s, ProcessorUpdate{SessionID: "cos_1", Status: "fulfillment_complete", TransactionHash: "0xp", At: winEnd + 5})
		}, EventPaymentIgnored, StatusFailed, false, nil},
		{"a processor success of a new session opens no attempt", func(s State) ([]Event, error) {
			return DecideProcessorUpdate(s, ProcessorUpdate{SessionID: "cos_2", Status: "fulfillment_complete", At: winEnd + 5})
		}, EventPaymentIgnored, StatusFailed, false, nil},
		{"a processor fulfilling changes nothing", func(s State) ([]Event, error) {
			return DecideProcessorUpdate(s, ProcessorUpdate{SessionID: "cos_1", Status: "fulfillment_processing", At: winEnd + 5})
		}, "", StatusFailed, false, nil},
		{"an ACH acceptance changes nothing", func(s State) ([]Event, error) {
			return DecideProcessorUpdate(s, ProcessorUpdate{SessionID: "cos_1", Status: "ach_pending", At: winEnd + 5})
		}, "", StatusFailed, false, nil},
		{"a processor failure is ignored", func(s State) ([]Event, error) {
			return DecideProcessorUpdate(s, ProcessorUpdate{SessionID: "cos_1", Status: "rejected", ErrorCode: "card_declined", At: winEnd + 5})
		}, EventFailureIgnored, StatusFailed, false, nil},
		{"telemetry (checkout_success) is recorded, status unchanged", func(s State) ([]Event, error) {
			return RecordTelemetry(s, TelemetryRecorded{Event: "checkout_success", At: winEnd + 5})
		}, EventTelemetry, StatusFailed, false, nil},
		{"a hint (submission) changes nothing", func(s State) ([]Event, error) {
			return Submit(s, PaymentSubmitted{AttemptID: "a", Source: "wallet", TransactionHash: "0xh", At: winEnd + 5})
		}, "", StatusFailed, false, nil},
		{"no new attempt starts", func(s State) ([]Event, error) {
			return StartAttempt(s, AttemptStarted{AttemptID: "b", Kind: "wallet", At: winEnd + 5})
		}, "", StatusFailed, false, ErrState},
		{"a merchant's attestation (terminal) is refused", func(s State) ([]Event, error) {
			return Confirm(s, PaymentConfirmed{AttemptID: "a", VerifiedBy: "merchant", Method: "cash", At: winEnd + 5})
		}, "", StatusFailed, false, ErrState},
		{"a second expiry changes nothing", func(s State) ([]Event, error) { return Expire(s, lateEnd, monitor) },
			"", StatusFailed, false, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			evs, err := c.decide(exp)
			if !errors.Is(err, c.wantErr) || c.wantErr != nil && err == nil {
				t.Fatalf("error %v, want %v", err, c.wantErr)
			}
			if got := types(evs); got != c.types {
				t.Fatalf("events %s, want %s", got, c.types)
			}
			s := apply(t, exp, evs, nil)
			if s.Status != c.status || (s.Payment != nil && s.Status == StatusPaid) != c.paid {
				t.Fatalf("status %s, payment %+v", s.Status, s.Payment)
			}
			if c.paid && (len(evs) != 1 || !evs[0].(PaymentConfirmed).PaidLate) {
				t.Fatalf("a late payment without PaidLate: %+v", evs)
			}
			if c.status == StatusFailed && s.FailureView().Code != CodeWindowExpired {
				t.Fatalf("failure shown %+v", s.FailureView())
			}
		})
	}
}

// TestPaidLateOnlyAfterExpiry: a payment inside the window is not late, and a late-paid receipt
// is settled like any other.
func TestPaidLateOnlyAfterExpiry(t *testing.T) {
	t.Parallel()
	c := PaymentConfirmed{AttemptID: "deposit", TransactionHash: "0xd", VerifiedBy: "chain", PaidLate: true, At: winEnd - 1}
	declined := withEvents(t, windowed(), AttemptStarted{AttemptID: "a", Kind: "onramp", At: 2}, fail("a"))
	for _, s := range []State{windowed(), declined} { // failed by an attempt, not by the window: not late
		evs, err := Confirm(s, c)
		if err != nil || len(evs) != 1 || evs[0].(PaymentConfirmed).PaidLate {
			t.Fatalf("in-window payment from %s: %+v %v", s.Status, evs, err)
		}
	}
	c.At, c.PaidLate = winEnd+1, false
	exp := expired(t, windowed())
	evs, err := Confirm(exp, c)
	late := apply(t, exp, evs, err)
	if late.Status != StatusPaid || late.FailureView() != nil {
		t.Fatalf("late: %+v", late)
	}
	if evs, err := Confirm(late, c); err != nil || len(evs) != 0 {
		t.Fatalf("a repeat after the late payment: %v %v", evs, err)
	}
	if evs, err := DistributeSplit(late, SplitDistributed{TransactionHash: "0xs", At: winEnd + 9}); err != nil || len(evs) != 1 {
		t.Fatalf("distribution of a late payment: %v %v", evs, err)
	}
}

func TestWindowEventsRoundTrip(t *testing.T) {
	t.Parallel()
	s := expired(t, withEvents(t, windowed(), TokenQuoted{Token: "ETH", Amount: "0.01", ValidUntil: winEnd, At: 2}))
	for _, e := range []Event{PaymentWindowExpired{ExpiresAt: winEnd, MonitorUntil: lateEnd, Code: CodeWindowExpired, At: 5},
		PaymentIgnored{VerifiedBy: "processor", Why: "w", StatusAtArrival: StatusFailed, At: 6}} {
		raw, _ := json.Marshal(e)
		got, err := Decode(TypeOf(e), raw)
		if err != nil || !reflect.DeepEqual(got, e) {
			t.Fatalf("decode %s: %+v %v", TypeOf(e), got, err)
		}
	}
	raw, _ := json.Marshal(s) // the read model stores the state as JSON
	var back State
	if err := json.Unmarshal(raw, &back); err != nil || !reflect.DeepEqual(back, s) {
		t.Fatalf("state round trip: %+v, want %+v (%v)", back, s, err)
	}
	if back.WindowExpiredAt == 0 || back.HeldQuotes["ETH"].Amount != "0.01" {
		t.Fatalf("window state lost: %s", raw)
	}
}

// TestPaymentIgnoredOnce: a payment that does not pay an expired receipt is recorded once,
// however often it is reported (the detector and the processor may report it again).
func TestPaymentIgnoredOnce(t *testing.T) {
	t.Parallel()
	exp := expired(t, windowed())
	c := PaymentConfirmed{AttemptID: "deposit", TransactionHash: "0xD1", VerifiedBy: "chain", At: lateEnd + 1}
	evs, err := Confirm(exp, c)
	s := apply(t, exp, evs, err)
	if types(evs) != EventPaymentIgnored {
		t.Fatalf("first report: %s", types(evs))
	}
	c.TransactionHash = "0xd1"
	if evs, err := Confirm(s, c); err != nil || len(evs) != 0 {
		t.Fatalf("the same payment again: %v %v", evs, err)
	}
	c.TransactionHash = "0xd2"
	if evs, err := Confirm(s, c); err != nil || types(evs) != EventPaymentIgnored {
		t.Fatalf("another payment: %v %v", evs, err)
	}
}

// TestExpireUnderpaidKeepsAmountReceived: an underpaid receipt expires with what arrived kept, a
// transfer seen after expiry does not move it, and the confirmed one completing it pays it late.
func TestExpireUnderpaidKeepsAmountReceived(t *testing.T) {
	t.Parallel()
	s := depositReceipt()
	s.Receipt.ExpiresAt = winEnd
	s, _ = observe(t, s, DepositObservation{Transfer: transfer("0x1", "USDC", "10000000", 6, "0xb1"), Confirmed: true, At: 5})
	if s.Status != StatusPending || s.AmountReceived() != "10.00" {
		t.Fatalf("underpaid: %s %q", s.Status, s.AmountReceived())
	}
	s = expired(t, s)
	if s.Status != StatusFailed || s.AmountReceived() != "10.00" || s.AmountRequired() != "12.31" {
		t.Fatalf("expired: %s received %q required %q", s.Status, s.AmountReceived(), s.AmountRequired())
	}
	s, _ = observe(t, s, DepositObservation{Transfer: transfer("0x2", "USDT", "2310000", 6, "0xb2"), At: winEnd + 10})
	if s.Status != StatusFailed {
		t.Fatalf("a transfer seen, not confirmed, moved it: %s", s.Status)
	}
	s, evs := observe(t, s, DepositObservation{Transfer: transfer("0x2", "USDT", "2310000", 6, "0xb2"), Confirmed: true, At: winEnd + 20})
	if s.Status != StatusPaid || !s.PaidLate() || s.AmountReceived() != "12.31" || !strings.HasSuffix(types(evs), EventConfirmed) {
		t.Fatalf("late completion: %s late %v received %q (%s)", s.Status, s.PaidLate(), s.AmountReceived(), types(evs))
	}
}
