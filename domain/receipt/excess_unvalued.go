package receipt

import (
	"math/big"
	"slices"
	"strings"

	"github.com/payledger/payledger/domain/money"
)

// Excess of a token without a price (stop 71). ExcessCents values what the receipt received in
// cents of its total, and a transfer in a token the receipt has no quote for (ETH sent to a
// receipt quoted in USDC only) adds nothing to AmountReceived: it paid nothing and is no
// part of the excess, so no read said the customer had sent it. The merchant owes it back all
// the same. Decision: it is shown as it is, in its own token, never valued (a price chosen
// after the fact would be a rate the customer never agreed to): UnvaluedExcess lists, per
// token, what the counted transfers brought in tokens the receipt cannot price. Only a receipt
// that can price its requested token lists them: one that cannot (an EUR receipt without a
// rate) has no value for any transfer, and its amounts read null already.

// TokenAmount is an amount of a token, a decimal string in the token's units.
type TokenAmount struct {
	Token  string `json:"token"`
	Amount string `json:"amount"`
}

// UnvaluedExcess is what the receipt's counted transfers brought in tokens it cannot price, per
// token in the order first seen (nil: none).
func (s State) UnvaluedExcess() []TokenAmount {
	if len(s.Credits) == 0 || s.AmountRequired() == "" {
		return nil
	}
	var tokens []string
	sums := map[string]*big.Rat{}
	for _, c := range s.Credits {
		if !c.Counts() || s.priced(c.Token) {
			continue
		}
		units, ok := new(big.Int).SetString(c.AmountUnits, 10)
		if !ok || units.Sign() <= 0 {
			continue
		}
		token := strings.ToUpper(c.Token)
		if !slices.Contains(tokens, token) {
			tokens, sums[token] = append(tokens, token), new(big.Rat)
		}
		sums[token].Add(sums[token], new(big.Rat).SetFrac(units, money.Pow10(c.Decimals)))
	}
	var out []TokenAmount
	for _, t := range tokens {
		out = append(out, TokenAmount{Token: t, Amount: decimalString(sums[t], IsStable(t))})
	}
	return out
}

// priced says whether a transfer in token counts toward the receipt's amounts (AmountReceived's
// rule): a token with a required amount, positive unless both it and the requested token are
// stable (one to one).
func (s State) priced(token string) bool {
	r, err := s.requiredIn(token)
	if err != nil {
		return false
	}
	return IsStable(s.RequestedToken()) && IsStable(strings.ToUpper(token)) || r.Amount.Sign() > 0
}
