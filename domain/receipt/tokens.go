package receipt

import "strings"

// PaymentTokens is every token a receipt can be paid or quoted in: the one list that the API's
// inputs, the payment page and the pricing take. Which of them are fixed at 1 USD is StableTokens
// (required.go); the others are priced (PricedTokens).
func PaymentTokens() []string { return []string{"ETH", "USDC", "USDT", "cbBTC", "cbXRP"} }

// paymentToken is token as PaymentTokens spells it, compared without case (the chain's
// configuration spells symbols in upper case: a transfer in cbBTC arrives as "CBBTC"); token
// itself when it is none of them.
func paymentToken(token string) string {
	for _, t := range PaymentTokens() {
		if strings.EqualFold(t, token) {
			return t
		}
	}
	return token
}

// PricedTokens are the payment tokens that are not stable: their USD price is configured, and a
// payment in them is valued by a quote.
func PricedTokens() []string {
	var out []string
	for _, t := range PaymentTokens() {
		if !IsStable(t) {
			out = append(out, t)
		}
	}
	return out
}

// RequiredIn is what a payment of the receipt in token must bring (RequiredAmount), a quoted
// token priced by the latest quote the state keeps (State.Quotes): the one place the API's
// payment request, the deposit follower and the amounts shown read it. Errors: as
// RequiredAmount.
func (s State) RequiredIn(token string) (Required, error) { return s.requiredIn(token) }
