package receipt

import (
	"encoding/json"
	"errors"
	"fmt"
	"testing"
)

// quotedAt is s after one recorded quote in token at each of ats (Unix ms).
func quotedAt(s State, token string, ats ...int64) State {
	for _, at := range ats {
		s = Evolve(s, TokenQuoted{Token: token, Amount: "0.00500000", TokenUSDPrice: "2000", AmountUSD: "10.00", At: at})
	}
	return s
}

// hours is n moments per clock hour for hours clock hours from hour 0: n quotes an hour.
func hours(hours, n int) []int64 {
	var ats []int64
	for h := range hours {
		for i := range n {
			ats = append(ats, int64(h)*msPerHour+int64(i)*1000+1)
		}
	}
	return ats
}

// TestQuoteBounds: a new quote through QuoteInWindow (the page's) is refused past
// MaxQuotesPerHour quotes in the clock hour of `at` and past MaxQuotes in all; a held quote is
// never refused, and the refusal records nothing.
func TestQuoteBounds(t *testing.T) {
	t.Parallel()
	lastHour := msPerHour - 1
	full := quotedAt(generated(), "ETH", hours(1, MaxQuotesPerHour)...)                // 20 in hour 0
	lifetime := quotedAt(generated(), "ETH", hours(MaxQuotes/MaxQuotesPerHour, 20)...) // 500 in hours 0..24
	heldFull := quotedAt(windowed(), "cbBTC", hours(1, MaxQuotesPerHour-1)...)
	heldFull = withEvents(t, heldFull, TokenQuoted{Token: "ETH", Amount: "0.00500000", TokenUSDPrice: "2000", AmountUSD: "10.00", ValidUntil: winEnd, At: 2})
	heldExhausted := quotedAt(Evolve(State{}, Generated{ReceiptID: "r", Merchant: "m", Total: 1000,
		LineItems: []LineItem{{Kind: KindCustom, Label: "x", Amount: 1000}}, CreatedAt: 1, ExpiresAt: 100 * msPerHour}),
		"cbBTC", hours(MaxQuotes/MaxQuotesPerHour, 20)...)
	heldExhausted = Evolve(heldExhausted, TokenQuoted{Token: "ETH", Amount: "0.00500000", ValidUntil: 100 * msPerHour, At: 30 * msPerHour})
	cases := []struct {
		name    string
		s       State
		token   string
		at      int64
		record  bool // a new TokenQuoted is recorded
		wantErr error
	}{
		{"no quote yet", generated(), "ETH", 5, true, nil},
		{"19 in the hour: the 20th is made", quotedAt(generated(), "ETH", hours(1, MaxQuotesPerHour-1)...), "ETH", lastHour, true, nil},
		{"20 in the hour: the 21st is refused", full, "ETH", lastHour, false, ErrQuotesLimited},
		{"20 in the hour: refused in another token too", full, "cbBTC", lastHour, false, ErrQuotesLimited},
		{"20 in the last hour: the next clock hour quotes again", full, "ETH", msPerHour, true, nil},
		{"20 across two clock hours: the 11th of the second is made", quotedAt(generated(), "ETH", hours(2, 10)...), "ETH", 2*msPerHour - 1, true, nil},
		{"a clock behind the latest quote's hour is judged by that hour", full, "ETH", 0, false, ErrQuotesLimited},
		{"499 in all: a new hour's quote is made", quotedAt(generated(), "ETH", hours(MaxQuotes/MaxQuotesPerHour, 20)[1:]...), "ETH", 30 * msPerHour, true, nil},
		{"500 in all: refused in any later hour", lifetime, "ETH", 30 * msPerHour, false, ErrQuotesExhausted},
		{"500 in all: still a Limited error", lifetime, "ETH", 1000 * msPerHour, false, ErrQuotesLimited},
		{"held quote past the hour's bound: returned, not refused", heldFull, "ETH", 10, false, nil},
		{"held quote past the lifetime bound: returned, not refused", heldExhausted, "ETH", 31 * msPerHour, false, nil},
		{"a windowed receipt's new token past the bound: refused", heldFull, "USDC", 10, false, ErrQuotesLimited},
		{"the window's end comes first (ErrState)", heldFull, "USDC", winEnd, false, ErrState},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			evs, q, err := QuoteInWindow(c.s, c.token, "4000", "", c.at)
			if !errors.Is(err, c.wantErr) || c.wantErr == nil && err != nil {
				t.Fatalf("error %v, want %v", err, c.wantErr)
			}
			if (len(evs) == 1) != c.record || len(evs) > 1 {
				t.Fatalf("events %v, record %v", evs, c.record)
			}
			if c.wantErr == nil && q.Amount == "" {
				t.Fatalf("no quote returned: %+v", q)
			}
			if c.record {
				after := apply(t, c.s, evs, nil)
				if after.QuotesRecorded.Total != c.s.QuotesRecorded.Total+1 || after.QuotesRecorded.in(c.at) < 1 {
					t.Fatalf("the quote was not counted: %+v -> %+v", c.s.QuotesRecorded, after.QuotesRecorded)
				}
			}
		})
	}
}

// TestValueTransferNeverRefused: the detector's quote values a transfer that has arrived; it is
// made whatever the bounds say (and counted).
func TestValueTransferNeverRefused(t *testing.T) {
	t.Parallel()
	for _, n := range []int{MaxQuotesPerHour, MaxQuotes} {
		s := quotedAt(depositReceipt(), "cbBTC", hours((n+19)/20, 20)[:n]...)
		at := s.QuotesRecorded.Hour*msPerHour + 5
		if err := QuoteAllowed(s, at); !errors.Is(err, ErrQuotesLimited) {
			t.Fatalf("%d quotes: the page's quote is not refused: %v", n, err)
		}
		evs := ValueTransfer(s, "ETH", map[string]string{"ETH": "2000"}, at)
		if len(evs) != 1 {
			t.Fatalf("%d quotes: ValueTransfer made %v", n, evs)
		}
		if q, ok := evs[0].(TokenQuoted); !ok || q.Token != "ETH" || q.Amount != "0.00615500" {
			t.Fatalf("%d quotes: the transfer's quote %+v", n, evs[0])
		}
		if got := Evolve(s, evs[0]).QuotesRecorded.Total; got != n+1 {
			t.Fatalf("%d quotes: the detector's quote counted %d", n, got)
		}
	}
}

// startedAt is s after one onramp attempt opened by opener at each of ats (Unix ms).
func startedAt(s State, kind, opener string, ats ...int64) State {
	for i, at := range ats {
		s = Evolve(s, AttemptStarted{AttemptID: fmt.Sprintf("%s-%s-%d", kind, opener, i), Kind: kind, OpenedBy: opener, At: at})
	}
	return s
}

// TestOnrampBounds: the service starts at most MaxOnrampStartsPerHour onramp sessions per receipt
// in a clock hour and MaxOnrampStarts in all; sessions the processor opened, wallet and terminal
// attempts do not count. CanStartOnramp (before the processor is asked) and StartOnramp (when the
// attempt is recorded) decide alike.
func TestOnrampBounds(t *testing.T) {
	t.Parallel()
	lastHour := msPerHour - 1
	full := startedAt(generated(), "onramp", "service", hours(1, MaxOnrampStartsPerHour)...)
	cases := []struct {
		name    string
		s       State
		at      int64
		wantErr error
	}{
		{"no start yet", generated(), 5, nil},
		{"9 in the hour: the 10th starts", startedAt(generated(), "onramp", "service", hours(1, MaxOnrampStartsPerHour-1)...), lastHour, nil},
		{"10 in the hour: the 11th is refused", full, lastHour, ErrOnrampLimited},
		{"10 in the last hour: the next clock hour starts", full, msPerHour, nil},
		{"older events without OpenedBy count", startedAt(generated(), "onramp", "", hours(1, MaxOnrampStartsPerHour)...), lastHour, ErrOnrampLimited},
		{"sessions the processor opened do not count", startedAt(generated(), "onramp", "processor", hours(1, 30)...), lastHour, nil},
		{"wallet attempts do not count", startedAt(generated(), "wallet", "service", hours(1, 30)...), lastHour, nil},
		{"49 in all: a new hour's start", startedAt(generated(), "onramp", "service", hours(5, 10)[1:]...), 9 * msPerHour, nil},
		{"50 in all: refused in any later hour", startedAt(generated(), "onramp", "service", hours(5, 10)...), 9 * msPerHour, ErrOnrampExhausted},
		{"50 in all: still a Limited error", startedAt(generated(), "onramp", "service", hours(5, 10)...), 90 * msPerHour, ErrOnrampLimited},
		{"the status comes first (paid: ErrState)", withEvents(t, full, PaymentConfirmed{AttemptID: "x", VerifiedBy: "chain", At: 3}), lastHour, ErrState},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := CanStartOnramp(c.s, c.at)
			if !errors.Is(err, c.wantErr) || c.wantErr == nil && err != nil {
				t.Fatalf("CanStartOnramp: %v, want %v", err, c.wantErr)
			}
			evs, err := StartOnramp(c.s, AttemptStarted{AttemptID: "new", Kind: "onramp", OpenedBy: "service", At: c.at})
			if !errors.Is(err, c.wantErr) || c.wantErr == nil && err != nil || (len(evs) == 1) != (c.wantErr == nil) {
				t.Fatalf("StartOnramp: %v %v, want %v", evs, err, c.wantErr)
			}
		})
	}
	// A session the processor opened is recorded past the bound (its payment may be under way).
	evs, err := DecideProcessorUpdate(full, ProcessorUpdate{SessionID: "cos_x", Status: "fulfillment_processing", At: lastHour})
	if err != nil || len(evs) == 0 {
		t.Fatalf("processor's session past the bound: %v %v", evs, err)
	}
	if _, ok := evs[0].(AttemptStarted); !ok {
		t.Fatalf("processor's session not opened: %v", evs)
	}
}

// TestBoundsReplay: the counts are the events', whatever order of folding: folded again from the
// same events, or read back from the stored state (JSON), the answer is the same.
func TestBoundsReplay(t *testing.T) {
	t.Parallel()
	s := startedAt(quotedAt(generated(), "ETH", hours(3, MaxQuotesPerHour)...), "onramp", "service", hours(1, MaxOnrampStartsPerHour)...)
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	var back State
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	for name, st := range map[string]State{"folded": s, "stored": back} {
		if err := QuoteAllowed(st, 3*msPerHour-1); !errors.Is(err, ErrQuotesLimited) {
			t.Errorf("%s: quote allowed: %v", name, err)
		}
		if err := CanStartOnramp(st, msPerHour-1); !errors.Is(err, ErrOnrampLimited) {
			t.Errorf("%s: onramp allowed: %v", name, err)
		}
		if st.QuotesRecorded != (HourTally{Total: 60, Hour: 2, InHour: 20}) {
			t.Errorf("%s: quotes %+v", name, st.QuotesRecorded)
		}
	}
}

// TestHourBoundsSayWhenTheyReset: a refusal by an hour's bound is a *Limited that resets at the
// start of the next clock hour (of the full hour, when a clock behind it is judged by it); a
// lifetime bound's refusal never resets, so it is no *Limited.
func TestHourBoundsSayWhenTheyReset(t *testing.T) {
	t.Parallel()
	quotesFull := quotedAt(generated(), "ETH", hours(3, MaxQuotesPerHour)...) // hour 2 full
	onrampFull := startedAt(generated(), "onramp", "service", hours(1, MaxOnrampStartsPerHour)...)
	quotesSpent := quotedAt(generated(), "ETH", hours(MaxQuotes/MaxQuotesPerHour, 20)...)
	cases := []struct {
		name      string
		err       error
		wantReset int64 // 0: no *Limited
	}{
		{"quotes: the full hour's end", QuoteAllowed(quotesFull, 3*msPerHour-1), 3 * msPerHour},
		{"quotes: a clock behind the full hour waits for its end", QuoteAllowed(quotesFull, msPerHour+5), 3 * msPerHour},
		{"onramp: the full hour's end", CanStartOnramp(onrampFull, 5), msPerHour},
		{"quotes spent for good: no reset", QuoteAllowed(quotesSpent, 30*msPerHour), 0},
		{"onramp spent for good: no reset", CanStartOnramp(startedAt(generated(), "onramp", "service", hours(5, 10)...), 9*msPerHour), 0},
	}
	for _, c := range cases {
		var l *Limited
		switch ok := errors.As(c.err, &l); {
		case c.wantReset == 0 && ok:
			t.Errorf("%s: %v resets at %d, want no reset", c.name, c.err, l.ResetAt())
		case c.wantReset != 0 && (!ok || l.ResetAt() != c.wantReset):
			t.Errorf("%s: %v (%T), want a reset at %d", c.name, c.err, c.err, c.wantReset)
		}
	}
}
