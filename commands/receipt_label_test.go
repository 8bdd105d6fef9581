package commands_test

import (
	"testing"

	"github.com/payledger/payledger/commands"
)

// A direct receipt's line label is a line the customer pays on the payment page, as the
// terminal's: a bidi override or a control character made it read as something else.
func TestReceiptLineLabelRefusesReorderingCharacters(t *testing.T) {
	t.Parallel()
	e := newOrderEnv(t, nil, payPlatform)
	for _, label := range []string{"Coffee \u202e00.001$", "Tea \u2067x\u2069", "Coffee\nTotal: 0.01", "Tea\u0007"} {
		lines := []commands.ReceiptLine{{Label: label, PriceUSD: amount("3.50")}}
		_, err := e.direct.Handle(e.ctx, commands.CreateReceipt{Merchant: payMerchant, Lines: &lines, TotalUSD: amount("3.50")})
		wantRefusal(t, err, "invalid_input", "lineItems[0].label must not contain control characters")
	}
	lines := []commands.ReceiptLine{{Label: "\u05e7\u05e4\u05d4\u200f 2", PriceUSD: amount("3.50")}}
	if _, err := e.direct.Handle(e.ctx, commands.CreateReceipt{Merchant: payMerchant, Lines: &lines, TotalUSD: amount("3.50")}); err != nil {
		t.Fatalf("a Hebrew label with an RLM: %v", err)
	}
}
