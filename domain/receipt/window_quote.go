package receipt

// The quote of a receipt with a payment window is honoured until the window ends (DESIGN 9):
//   - the first quote in a token made inside the window holds until Generated.ExpiresAt; asking
//     again for that token returns the held quote (no new event), so a payment sent at that
//     quote pays whatever the price does meanwhile (the required amount is the latest quote,
//     RequiredAmount);
//   - once the window has ended no new quote is made (ErrState): a late payment is judged by the
//     quote that was honoured in the window;
//   - a receipt without a window (ExpiresAt 0) is quoted afresh each time, as before.

// holdQuote keeps a recorded quote as the latest in its token (evolvePayment's case of TokenQuoted).
func (s *State) holdQuote(q TokenQuoted) { s.HeldQuotes = withEntry(s.HeldQuotes, q.Token, q) }

// QuoteInWindow prices the receipt in token (Quote) unless the receipt's window holds a quote in
// that token: it returns the events to record (none when the held quote stands) and the quote the
// customer is to pay, valid until the window's end (ValidUntil, 0 without a window). Errors:
// Quote's, ErrState (the window has ended).
func QuoteInWindow(s State, token, tokenUSD, eurUSD string, at int64) ([]Event, TokenQuoted, error) {
	q, err := Quote(s, token, tokenUSD, eurUSD, at)
	if err != nil {
		return nil, TokenQuoted{}, err
	}
	end := s.Receipt.ExpiresAt
	if end == 0 {
		return []Event{q}, q, nil
	}
	if at >= end || s.Expired() {
		return nil, TokenQuoted{}, errWindowEnded(s)
	}
	if held, ok := s.HeldQuotes[token]; ok && held.ValidUntil == end {
		return nil, held, nil
	}
	q.ValidUntil = end
	return []Event{q}, q, nil
}
