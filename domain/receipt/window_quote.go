package receipt

// The quote of a receipt with a payment window is honoured until the window ends (DESIGN 9):
//   - the first quote in a token made inside the window holds until Generated.ExpiresAt; asking
//     again for that token returns the held quote (no new event), so a payment sent at that
//     quote pays whatever the price does meanwhile (the required amount is the latest quote,
//     RequiredAmount);
//   - once the window has ended no new quote is made (ErrState): a late payment is judged by the
//     quote that was honoured in the window;
//   - a receipt without a window (ExpiresAt 0) is quoted afresh each time, as before;
//   - the EUR/USD rate of the receipt's first quote is every later quote's (QuoteRate, also
//     without a window): what is due never falls because of a rate change or another token's
//     quote (DESIGN 10);
//   - a new quote that prices confirmed transfers at the deposit address which cover the receipt
//     pays it (SettleIfCovered): the page never asks for 0 more of a pending receipt;
//   - a new quote is refused past the receipt's bounds (QuoteAllowed, limits.go); a held quote
//     is returned whatever they say, since it records nothing.

// holdQuote keeps a recorded quote as the latest in its token (evolvePayment's case of TokenQuoted),
// keyed by the token's PaymentTokens spelling: the detector's quote of a transfer in "CBBTC" is
// the one the page's "cbBTC" finds held.
func (s *State) holdQuote(q TokenQuoted) {
	s.HeldQuotes = withEntry(s.HeldQuotes, paymentToken(q.Token), q)
}

// QuoteInWindow prices the receipt in token (Quote, at the EUR/USD rate of QuoteRate) unless the
// receipt's window holds a quote in that token: it returns the events to record (none when the
// held quote stands; the payment too when the quote makes the confirmed transfers cover the
// receipt) and the quote the customer is to pay, valid until the window's end (ValidUntil, 0
// without a window). Errors: Quote's, ErrState (the window has ended), ErrQuotesLimited and
// ErrQuotesExhausted (QuoteAllowed: a new quote past the receipt's bounds), Confirm's.
func QuoteInWindow(s State, token, tokenUSD, eurUSD string, at int64) ([]Event, TokenQuoted, error) {
	q, err := Quote(s, token, tokenUSD, QuoteRate(s, eurUSD), at)
	if err != nil {
		return nil, TokenQuoted{}, err
	}
	end := s.Receipt.ExpiresAt
	if end != 0 {
		if at >= end || s.Expired() {
			return nil, TokenQuoted{}, errWindowEnded(s)
		}
		if held, ok := s.HeldQuotes[paymentToken(token)]; ok && held.ValidUntil == end {
			return nil, held, nil
		}
		q.ValidUntil = end
	}
	if err := QuoteAllowed(s, at); err != nil {
		return nil, TokenQuoted{}, err
	}
	pay, err := SettleIfCovered(Evolve(s, q), at)
	if err != nil {
		return nil, TokenQuoted{}, err
	}
	return append([]Event{q}, pay...), q, nil
}
