package page

import (
	"math/big"
	"strings"
)

// TokenAmount writes a decimal amount of a token as the customer reads it: at least two
// decimals, trailing zeros past them trimmed ("5" → "5.00", "7.310000" → "7.31", an ETH amount
// "0.00412" as it is). Anything that is not a plain decimal is returned unchanged.
func TokenAmount(s string) string {
	whole, frac, _ := strings.Cut(s, ".")
	if whole == "" || strings.Trim(whole, "0123456789") != "" || strings.Trim(frac, "0123456789") != "" {
		return s
	}
	frac = strings.TrimRight(frac, "0")
	for len(frac) < 2 {
		frac += "0"
	}
	return whole + "." + frac
}

// Due is what is still due, required less received (never below zero), exact and written as
// TokenAmount writes it; "" when either is not a decimal.
func Due(received, required string) string {
	got, ok1 := new(big.Rat).SetString(received)
	want, ok2 := new(big.Rat).SetString(required)
	if !ok1 || !ok2 {
		return ""
	}
	due := new(big.Rat).Sub(want, got)
	if due.Sign() < 0 {
		due.SetInt64(0)
	}
	return TokenAmount(due.FloatString(decimalsOf(received, required)))
}

// decimalsOf is the longest fraction among the amounts: the precision their difference needs.
func decimalsOf(amounts ...string) int {
	n := 0
	for _, a := range amounts {
		if _, frac, ok := strings.Cut(a, "."); ok && len(frac) > n {
			n = len(frac)
		}
	}
	return n
}
