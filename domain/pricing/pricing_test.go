package pricing

import (
	"errors"
	"strings"
	"testing"

	"github.com/payledger/payledger/domain/receipt"
)

func TestCheck(t *testing.T) {
	t.Parallel()
	priced, stable := receipt.PricedTokens()[0], receipt.StableTokens[0]
	str := func(s string) *string { return &s }
	cases := []struct {
		name   string
		tokens map[string]string
		eur    *string
		rates  int
		want   string // part of the refusal; "" for none
	}{
		{"a token and EUR", map[string]string{priced: "3000.5"}, str("1.08"), 2, ""},
		{"EUR alone", nil, str("0.1"), 1, ""},
		{"the bounds", map[string]string{priced: "0.000001"}, str("10"), 2, ""},
		{"nothing given", nil, nil, 0, "give tokens and/or eurUsd"},
		{"a stable coin", map[string]string{stable: "1"}, nil, 0, stable + " is fixed at 1 USD"},
		{"an unknown token", map[string]string{"DOGE": "1"}, nil, 0, "tokens.DOGE is not a priced token"},
		{"zero", map[string]string{priced: "0"}, nil, 0, "tokens." + priced + " must be a positive number from 0.000001 to 100000000"},
		{"above the range", map[string]string{priced: "100000001"}, nil, 0, "must be a positive number"},
		{"below the range", map[string]string{priced: "0.0000001"}, nil, 0, "must be a positive number"},
		{"EUR upside down", nil, str("0.05"), 0, "eurUsd must be a positive number from 0.100000 to 10"},
		{"not a number", map[string]string{priced: "abc"}, nil, 0, "must be a positive number"},
		{"a fraction", map[string]string{priced: "300/3"}, nil, 0, "must be a positive number"},
		{"an exponent of a million", map[string]string{priced: "1e999999"}, nil, 0, "must be a positive number"},
		{"an exponent in the range", map[string]string{priced: "3e3"}, str("1.08"), 2, ""},
		{"two bad tokens name the first", map[string]string{stable: "1", "DOGE": "1"}, nil, 0, "tokens.DOGE is not a priced token"},
	}
	for _, c := range cases {
		rates, err := Check(c.tokens, c.eur)
		switch {
		case c.want == "" && (err != nil || len(rates) != c.rates):
			t.Errorf("%s: %d rates, %v", c.name, len(rates), err)
		case c.want != "" && (!errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%s: %v, want %q", c.name, err, c.want)
		}
	}
	if rates, _ := Check(map[string]string{priced: "2"}, str("1.1")); rates[len(rates)-1] != (Rate{Asset: "EUR", USDPrice: "1.1"}) {
		t.Errorf("EUR's rate last: %v", rates)
	}
}
