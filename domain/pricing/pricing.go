// Package pricing holds the rules of the rates an administrator sets (POST /api/admin/pricing;
// out of the HTTP handler since issue 39): which tokens may be priced, and the range a token's
// USD price and the EUR/USD rate may take. Pure: no I/O.
package pricing

import (
	"errors"
	"maps"
	"math/big"
	"slices"
	"strings"

	"github.com/payledger/payledger/domain/money"
	"github.com/payledger/payledger/domain/receipt"
)

// ErrInvalid is a broken rate rule; the error's text is the rule alone, naming the field (the
// API's invalid_input message).
var ErrInvalid = errors.New("invalid rate")

type rule string

func (e rule) Error() string        { return string(e) }
func (e rule) Is(target error) bool { return target == ErrInvalid }

// Sane ranges of configured rates (USD per unit), bounds included: a rate outside is a typo or
// an attack, never a market price. Token prices cover cbXRP (cents) to cbBTC (10^5) with room;
// EUR/USD has stayed between 0.8 and 1.6 since the euro began.
var (
	tokenRange = [2]*big.Rat{big.NewRat(1, 1_000_000), big.NewRat(100_000_000, 1)}
	eurRange   = [2]*big.Rat{big.NewRat(1, 10), big.NewRat(10, 1)}
)

// Rate is a checked rate as given: the asset (a token, or "EUR" for the EUR/USD rate) and its
// price in USD, a decimal text.
type Rate struct {
	Asset, USDPrice string
}

// Check checks the token prices (symbol to USD price, decimal texts) and the EUR/USD rate (nil:
// not given) an administrator sets, and returns them as rates to store (the tokens', then
// EUR's). Errors: ErrInvalid with the rule broken.
func Check(tokens map[string]string, eurUSD *string) ([]Rate, error) {
	var out []Rate
	for _, token := range slices.Sorted(maps.Keys(tokens)) { // one message for the same request every time
		price := tokens[token]
		if receipt.IsStable(token) {
			return nil, rule(token + " is fixed at 1 USD")
		}
		if !slices.Contains(receipt.PricedTokens(), token) {
			return nil, rule("tokens." + token + " is not a priced token (" + strings.Join(receipt.PricedTokens(), ", ") + ")")
		}
		if err := inRange("tokens."+token, price, tokenRange); err != nil {
			return nil, err
		}
		out = append(out, Rate{Asset: token, USDPrice: price})
	}
	if eurUSD != nil {
		if err := inRange("eurUsd", *eurUSD, eurRange); err != nil {
			return nil, err
		}
		out = append(out, Rate{Asset: "EUR", USDPrice: *eurUSD})
	}
	if len(out) == 0 {
		return nil, rule("give tokens and/or eurUsd")
	}
	return out, nil
}

// inRange reads n as every amount is read (money.ParseDecimal: big.Rat alone took fractions, and
// spent about 30 ms on an exponent of a million for a rate refused anyway).
func inRange(name, n string, rng [2]*big.Rat) error {
	r, err := money.ParseDecimal(n)
	if err != nil || r.Sign() <= 0 || r.Cmp(rng[0]) < 0 || r.Cmp(rng[1]) > 0 {
		return rule(name + " must be a positive number from " + rng[0].FloatString(6) + " to " + rng[1].FloatString(0))
	}
	return nil
}
