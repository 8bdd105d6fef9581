package commands_test

import (
	"testing"

	"github.com/payledger/payledger/commands"
)

// The terminal's label is the line the customer pays on the payment page: a bidi override or a
// control character made it read as something else, as shop, site and item names may not.
func TestTerminalLabelRefusesReorderingCharacters(t *testing.T) {
	t.Parallel()
	e := newPayEnv(t)
	h := commands.NewTerminalHandler(e.store, brands{payMerchant: "Cafe"}, e.now)
	for _, label := range []string{"Coffee \u202e00.001$", "Tea \u2067x\u2069", "Coffee\nTotal: 0.01", "Tea\u0007", "Tea\u0085x"} {
		_, err := h.Display(e.ctx, commands.TerminalDisplay{Merchant: payMerchant, AmountUSD: "1", Label: label})
		wantRefusal(t, err, "invalid_input", "label must not contain control characters")
	}
	// Direction marks, which Hebrew and Arabic text carries, stay allowed.
	if _, err := h.Display(e.ctx, commands.TerminalDisplay{Merchant: payMerchant, AmountUSD: "1", Label: "\u05e7\u05e4\u05d4\u200f 2"}); err != nil {
		t.Fatalf("a Hebrew label with an RLM: %v", err)
	}
}
