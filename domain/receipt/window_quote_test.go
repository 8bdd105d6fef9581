package receipt

import (
	"errors"
	"testing"
)

// TestQuoteInWindow: the quote of a receipt with a window is honoured until the window ends.
func TestQuoteInWindow(t *testing.T) {
	t.Parallel()
	first := TokenQuoted{Token: "ETH", Amount: "0.00500000", TokenUSDPrice: "2000", AmountUSD: "10.00", ValidUntil: winEnd, At: 2}
	held := withEvents(t, windowed(), first)
	cases := []struct {
		name    string
		s       State
		token   string
		price   string
		at      int64
		record  bool   // a new TokenQuoted is recorded
		amount  string // the quote returned
		until   int64
		wantErr error
	}{
		{"no window: every quote is fresh", withEvents(t, generated(), TokenQuoted{Token: "ETH", Amount: "0.00500000", At: 2}),
			"ETH", "4000", 5, true, "0.00250000", 0, nil},
		{"first quote in the window holds until its end", windowed(), "ETH", "2000", 2, true, "0.00500000", winEnd, nil},
		{"asked again in the window: the held quote, whatever the price", held, "ETH", "4000", winEnd - 1, false, "0.00500000", winEnd, nil},
		{"another token gets its own quote", held, "cbBTC", "100000", 5, true, "0.00010000", winEnd, nil},
		{"at the window's end: no quote", held, "ETH", "4000", winEnd, false, "", 0, ErrState},
		{"expired: no quote", expired(t, held), "ETH", "4000", winEnd + 10, false, "", 0, ErrState},
		{"paid: no quote (as before)", withEvents(t, held, PaymentConfirmed{AttemptID: "x", VerifiedBy: "chain", At: 3}), "ETH", "2000", 5, false, "", 0, ErrState},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			evs, q, err := QuoteInWindow(c.s, c.token, c.price, "", c.at)
			if !errors.Is(err, c.wantErr) || c.wantErr != nil && err == nil {
				t.Fatalf("error %v, want %v", err, c.wantErr)
			}
			if (len(evs) == 1) != c.record || len(evs) > 1 {
				t.Fatalf("events %v, record %v", evs, c.record)
			}
			if q.Amount != c.amount || q.ValidUntil != c.until {
				t.Fatalf("quote %+v, want %s until %d", q, c.amount, c.until)
			}
			if c.record {
				s := apply(t, c.s, evs, nil)
				if s.HeldQuotes[c.token] != q || s.QuotedToken != c.token {
					t.Fatalf("quote not held: %+v", s.HeldQuotes)
				}
			}
		})
	}
}

// TestQuoteHeldWhateverTheTokensCase: the detector values a transfer in the symbol CHAIN_TOKENS
// spells (upper case: "CBBTC"), the page asks in PaymentTokens' ("cbBTC"). Both are one token:
// the quote the detector made holds for the page until the window's end. (Held under its own
// spelling, it was missed, and a fresh quote at a higher price made 0.0009 cbBTC pay a receipt
// that was due 0.001.)
func TestQuoteHeldWhateverTheTokensCase(t *testing.T) {
	t.Parallel()
	s := Evolve(State{}, Generated{ReceiptID: "r", Merchant: "m", Currency: "USD", Total: 10000,
		LineItems: []LineItem{{Kind: KindCustom, Label: "x", Amount: 10000}}, DepositAddress: "0xD", DepositSplit: "0xS",
		CreatedAt: 1, ExpiresAt: winEnd})
	s, _ = observe(t, s, DepositObservation{Transfer: transfer("0x1", "CBBTC", "90000", 8, "0xb1"), Confirmed: true,
		Prices: map[string]string{"cbBTC": "100000"}, At: 3})
	if s.Status != StatusPending || s.Quotes["CBBTC"] != "0.00100000" {
		t.Fatalf("after 0.0009 cbBTC: status %s, quotes %v", s.Status, s.Quotes)
	}
	for _, token := range []string{"cbBTC", "CBBTC", "cbbtc"} {
		evs, q, err := QuoteInWindow(s, token, "112000", "", 4)
		if err != nil || len(evs) != 0 || q.Amount != "0.00100000" {
			t.Fatalf("page quote in %s: %v %+v %v; want the held 0.00100000 and no event", token, evs, q, err)
		}
	}
}
