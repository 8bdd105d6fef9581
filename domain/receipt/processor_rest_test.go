package receipt

import (
	"errors"
	"testing"
)

// What a card or bank payment must bring (OnrampDue): the total less what the confirmed
// transfers to the deposit address already cover, rounded up to the cent. The payment page
// offers the card button for the rest of an underpaid receipt; the session was asked for the
// whole total and its success had to cover the whole total, so a customer who had sent 10.00 of
// 12.31 USDC paid 12.31 again by card (a success of the rest, 2.31, paid nothing).
func TestOnrampDueIsWhatIsStillDue(t *testing.T) {
	t.Parallel()
	quoted := func(s State) State { return Evolve(s, TokenQuoted{Token: "ETH", Amount: "0.005", At: 2}) }
	eur := Evolve(State{}, Generated{ReceiptID: "e", Merchant: "m", Currency: "EUR", Total: 1000,
		LineItems: []LineItem{{Kind: KindCustom, Label: "x", Amount: 1000}}, DepositAddress: "0xD", DepositSplit: "0xS", CreatedAt: 1})
	eur = Evolve(eur, TokenQuoted{Token: "USDC", Amount: "10.8374563", EURUSDRate: "1.08374563", At: 2}) // 10.84 USD due
	for _, c := range []struct {
		name  string
		state State
		want  int64
		err   error
	}{
		{"nothing received: the total", depositReceipt(), 1231, nil},
		{"part received: the rest", credited(depositReceipt(), "0x1", "USDC", "10000000", 6, true), 231, nil},
		{"a transfer not confirmed reduces nothing", credited(depositReceipt(), "0x1", "USDC", "10000000", 6, false), 1231, nil},
		{"the rest rounds up to the cent", credited(depositReceipt(), "0x1", "USDC", "10000001", 6, true), 231, nil},
		// 0.00297 ETH is 0.6 of the 0.00495 threshold (1% tolerance): 0.4 of 12.31 is 4.924.
		{"an ETH part by its share", credited(quoted(depositReceipt()), "0xe", "ETH", "2970000000000000", 18, true), 493, nil},
		{"EUR: the rest of the total at the recorded rate", credited(eur, "0x1", "USDC", "5000000", 6, true), 584, nil},
		{"covered: nothing", credited(depositReceipt(), "0x1", "USDC", "12310000", 6, true), 0, nil},
		{"EUR without a rate", Evolve(State{}, Generated{ReceiptID: "e", Merchant: "m", Currency: "EUR", Total: 1000,
			LineItems: []LineItem{{Kind: KindCustom, Label: "x", Amount: 1000}}, CreatedAt: 1}), 0, ErrAmount},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := OnrampDue(c.state)
			if !errors.Is(err, c.err) || err == nil && int64(got) != c.want {
				t.Fatalf("OnrampDue = %d, %v; want %d, %v", got, err, c.want, c.err)
			}
		})
	}

	// The session of the rest pays the receipt; a cent less does not.
	under := credited(depositReceipt(), "0x1", "USDC", "10000000", 6, true)
	under = withEvents(t, under, AttemptStarted{AttemptID: "a", Kind: "onramp", SessionID: "cos_1", OpenedBy: "service", At: 2})
	success := func(cents int64) ProcessorUpdate {
		return ProcessorUpdate{SessionID: "cos_1", AttemptID: "a", Status: "fulfillment_complete", TransactionHash: "0xab",
			SourceAmountCents: &cents, SessionOwner: "r", At: 9}
	}
	evs, err := DecideProcessorUpdate(under, success(231))
	if s := apply(t, under, evs, err); s.Status != StatusPaid {
		t.Fatalf("the rest by card: %s (%s), want paid", s.Status, types(evs))
	}
	evs, err = DecideProcessorUpdate(under, success(230))
	if s := apply(t, under, evs, err); s.Status != StatusPending || types(evs) != EventPaymentIgnored {
		t.Fatalf("a cent short of the rest: %s (%s), want pending, ignored as underpaid", s.Status, types(evs))
	}
}
