package receipt

import (
	"errors"
	"strings"
)

// Valuation of funds at the deposit address (DESIGN 10, Quotes and valuation):
//   - a transfer in a configured token the receipt has no quote in (or, for a stable token, an EUR
//     receipt without a recorded rate) is valued at a quote made when the transfer is observed, at
//     the current price (ValueTransfer, a TokenQuoted like any other, held for the window); funds
//     that cover the receipt at that price pay it;
//   - without a price the transfer is credited but covers nothing yet: the receipt stays pending,
//     and the first quote in that token (the detector's, once a price is had, or the payment
//     page's) values it and pays the receipt if the funds cover it (SettleIfCovered);
//   - the EUR/USD rate of a receipt's first quote holds for its window (QuoteRate): every later
//     quote, in any token, uses it, so what is due in a token never falls because of a rate
//     change or another token's quote.

// QuoteRate is the EUR/USD rate a new quote of s uses: the rate its first quote recorded, else
// current (the rate the service has now; "" for none).
func QuoteRate(s State, current string) string {
	if s.EURUSDRate != "" {
		return s.EURUSDRate
	}
	return current
}

// ValueTransfer is the quote that values a transfer in token for s, made at prices (the current
// USD prices by asset: tokens by symbol, EUR/USD as "EUR"; nil when the service has no price
// source): none when the receipt can already price token, when prices lack what the quote needs,
// or when the receipt takes no quote (settled, ach_pending). The quote is held until the window's
// end (ValidUntil), as the payment page's would be; after the end it values the late transfer.
func ValueTransfer(s State, token string, prices map[string]string, at int64) []Event {
	_, err := s.requiredIn(token)
	if err == nil || !(errors.Is(err, ErrNoQuote) || errors.Is(err, ErrNoEURRate)) {
		return nil
	}
	tokenUSD := "1"
	if !IsStable(strings.ToUpper(token)) {
		p, ok := priceOf(prices, token)
		if !ok {
			return nil
		}
		tokenUSD = p
	}
	eurUSD := ""
	if s.Receipt.Currency == "EUR" {
		eurUSD = QuoteRate(s, prices["EUR"])
	}
	q, err := Quote(s, token, tokenUSD, eurUSD, at)
	if err != nil {
		return nil
	}
	q.ValidUntil = s.Receipt.ExpiresAt
	return []Event{q}
}

// priceOf is token's price among prices, its symbol compared without case.
func priceOf(prices map[string]string, token string) (string, bool) {
	for asset, p := range prices {
		if strings.EqualFold(asset, token) {
			return p, true
		}
	}
	return "", false
}

// SettleIfCovered is the chain's payment of s when its confirmed transfers cover what is due now
// (a quote has just priced them), the last confirmed transfer completing it; none when they do
// not, or when s is paid already. Errors: Confirm's.
func SettleIfCovered(s State, at int64) ([]Event, error) {
	if s.Receipt.DepositAddress == "" || s.Payment != nil {
		return nil, nil
	}
	for i := len(s.Credits) - 1; i >= 0; i-- {
		if c := s.Credits[i]; c.Counts() {
			return payIfCovered(s, c, at)
		}
	}
	return nil, nil
}
