package receipt

import (
	"errors"
	"testing"
)

func eurReceipt(rate string) State {
	s := Evolve(State{}, Generated{ReceiptID: "r", Merchant: "m", Total: 1250, Currency: "EUR",
		LineItems: []LineItem{{Kind: KindCustom, Label: "x", Amount: 1250}}, CreatedAt: 1})
	if rate != "" {
		s = Evolve(s, TokenQuoted{Token: "USDC", Amount: "13.5", EURUSDRate: rate, At: 2})
	}
	return s
}

func TestRequiredAmount(t *testing.T) {
	t.Parallel()
	usd := generated() // 10.00 USD
	cases := []struct {
		name     string
		s        State
		token    string
		quoted   string
		decimals uint8
		units    string
		tol      uint
		err      error
	}{
		{"USDC is the total", usd, "USDC", "", 6, "10000000", 0, nil},
		{"USDT is the total", usd, "USDT", "", 6, "10000000", 0, nil},
		{"stable token without case", usd, "usdc", "", 6, "10000000", 0, nil},
		{"a quote is ignored for a stable token", usd, "USDC", "99", 6, "10000000", 0, nil},
		{"EUR through the recorded rate", eurReceipt("1.08"), "USDC", "", 6, "13500000", 0, nil},
		{"EUR rounds half up to base units", eurReceipt("1.0800004"), "USDT", "", 6, "13500005", 0, nil},
		{"EUR without a rate", eurReceipt(""), "USDC", "", 6, "", 0, ErrNoEURRate},
		{"quoted token: the quote and 1%", usd, "ETH", "0.00312345", 18, "3123450000000000", QuotedToleranceBps, nil},
		{"quoted token rounds half up", usd, "cbBTC", "0.000123455", 8, "12346", QuotedToleranceBps, nil},
		{"quoted token without a quote", usd, "ETH", "", 18, "", 0, ErrNoQuote},
		{"quoted token with a zero quote", usd, "ETH", "0", 18, "", 0, ErrNoQuote},
		{"quoted token with a negative quote", usd, "ETH", "-1", 18, "", 0, ErrNoQuote},
		{"quoted token with garbage", usd, "ETH", "abc", 18, "", 0, ErrNoQuote},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r, err := RequiredAmount(c.s, c.token, c.quoted)
			if !errors.Is(err, c.err) {
				t.Fatalf("err %v, want %v", err, c.err)
			}
			if c.err != nil {
				return
			}
			if got := r.Units(c.decimals).String(); got != c.units || r.ToleranceBps != c.tol {
				t.Fatalf("units %s tolerance %d, want %s %d", got, r.ToleranceBps, c.units, c.tol)
			}
		})
	}
}

// TestLatestQuote: the state keeps the latest quote per token (tokens compare without case), and
// State.RequiredIn prices a quoted token by it.
func TestLatestQuote(t *testing.T) {
	t.Parallel()
	gen := Generated{ReceiptID: "r", Merchant: "m", Currency: "USD", Total: 1000, LineItems: []LineItem{{Kind: KindCustom, Label: "x", Amount: 1000}}, CreatedAt: 1}
	evs := []Event{
		TokenQuoted{Token: "ETH", Amount: "1"},
		TokenQuoted{Token: "cbBTC", Amount: "2"},
		TokenQuoted{Token: "eth", Amount: "3"},
		PaymentSubmitted{AttemptID: "a"},
	}
	s := Evolve(State{}, gen)
	for _, e := range evs {
		s = Evolve(s, e)
	}
	cases := []struct{ token, want string }{{"ETH", "3"}, {"CBBTC", "2"}, {"cbBTC", "2"}, {"cbXRP", ""}}
	for _, c := range cases {
		r, err := s.RequiredIn(c.token)
		got := ""
		if err == nil {
			got = r.Amount.RatString()
		}
		if got != c.want {
			t.Errorf("RequiredIn(%s) = %q (%v), want %q", c.token, got, err, c.want)
		}
	}
}

func TestIsStable(t *testing.T) {
	t.Parallel()
	cases := map[string]bool{"USDC": true, "USDT": true, "ETH": false, "cbBTC": false, "usdc": false, "": false}
	for token, want := range cases {
		if got := IsStable(token); got != want {
			t.Errorf("IsStable(%q) = %v, want %v", token, got, want)
		}
	}
}
