package receipt

import (
	"errors"
	"testing"

	"github.com/payledger/payledger/domain/money"
)

// A receipt asks for money: its total is more than zero. An order of free items only, or a direct
// receipt of zero lines, was generated with a total of 0, which no payment can ever cover (its
// requirement is nothing, and Covered counts no share of nothing), so the window failed it; and
// the first transfer to its deposit address made AmountReceived divide by zero.
func TestGenerateRefusesATotalThatIsNotPositive(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name  string
		lines []LineItem
		total money.Cents
		err   error
	}{
		{"one cent", []LineItem{{Kind: KindCustom, Label: "x", Amount: 1}}, 1, nil},
		{"a free line beside a paid one", []LineItem{{Kind: KindItem, Label: "x", Amount: 0}, {Kind: KindCustom, Label: "y", Amount: 500}}, 500, nil},
		{"free items only", []LineItem{{Kind: KindItem, Label: "x", Amount: 0}, {Kind: KindTax, Label: "Tax"}, {Kind: KindFee, Label: "Processing Fee"}}, 0, ErrAmount},
		{"a zero line", []LineItem{{Kind: KindCustom, Label: "x", Amount: 0}}, 0, ErrAmount},
		{"a negative total", []LineItem{{Kind: KindCustom, Label: "x", Amount: -100}}, -100, ErrAmount},
		{"lines that do not add up", []LineItem{{Kind: KindCustom, Label: "x", Amount: 100}}, 101, ErrTotal},
	} {
		t.Run(c.name, func(t *testing.T) {
			g := Generated{ReceiptID: "r", Currency: "USD", LineItems: c.lines, Total: c.total}
			evs, err := Generate(State{}, g, testNow)
			if !errors.Is(err, c.err) || (err == nil) != (len(evs) == 1) {
				t.Fatalf("Generate = %v, %v; want %v", evs, err, c.err)
			}
		})
	}
}

// A receipt generated with a total of 0 before the rule above (its events stay as they are)
// answers what it received, one to one among stable tokens, instead of panicking on a division
// by its zero requirement (the status read, the webhook payload and the payment page all ask).
func TestAmountReceivedOfAZeroRequirement(t *testing.T) {
	t.Parallel()
	s := Evolve(State{}, Generated{ReceiptID: "r", Merchant: "m", Currency: "USD", Total: 0,
		LineItems: []LineItem{{Kind: KindCustom, Label: "x"}}, DepositAddress: "0xD", DepositSplit: "0xS", CreatedAt: 1})
	s, _ = observe(t, s, DepositObservation{Transfer: transfer("0x1", "USDC", "1000000", 6, "0xb1"), Confirmed: true, At: 2})
	s, _ = observe(t, s, DepositObservation{Transfer: transfer("0x2", "USDT", "500000000000000000", 18, "0xb2"), Confirmed: true, At: 3})
	if got := s.AmountReceived(); got != "1.50" {
		t.Fatalf("AmountReceived = %q, want 1.50", got)
	}
	if s.AmountRequired() != "0.00" || s.ReceivedCents() != 0 || s.ExcessCents() != 0 {
		t.Fatalf("required %q received %d excess %d", s.AmountRequired(), s.ReceivedCents(), s.ExcessCents())
	}
}
