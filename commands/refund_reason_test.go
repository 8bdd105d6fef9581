package commands_test

import (
	"strings"
	"testing"

	"github.com/payledger/payledger/commands"
)

// A refund's reason is up to 500 characters, as the message and the dashboard's field say: it was
// counted in bytes, so 200 Japanese characters were refused as over 500.
func TestRefundReasonCountsCharacters(t *testing.T) {
	t.Parallel()
	e := newPayEnv(t)
	h := commands.NewRefundHandler(e.store, &heldHashes{}, e.now)
	id := e.receipt(payMerchant, "USD", 10000)
	e.paid(id)
	_, err := h.Handle(e.ctx, commands.Refund{ReceiptID: id, Reason: strings.Repeat("返", 501), AmountUSD: "1", By: payMerchant})
	wantRefusal(t, err, "invalid_input", "receiptId and a reason (up to 500 characters) are required")
	out, err := h.Handle(e.ctx, commands.Refund{ReceiptID: id, Reason: strings.Repeat("返", 500), AmountUSD: "1", By: payMerchant})
	if err != nil || out.State.RequestedCents != 100 {
		t.Fatalf("a reason of 500 characters: requested %v, %v", out.State.RequestedCents, err)
	}
}
