package dashboard

import (
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/payledger/payledger/domain/receipt"
)

// TestReceiptPageShowsTheExcessRefunded: the excess refunded apart from the order (stop 70) was
// in the API's refundedExcessUsd but not on the receipt's page, whose "Refunded" is the order's
// alone: a receipt refunded 2.00 of excess read "Refunded $0.00". The page now shows it, when not 0.
func TestReceiptPageShowsTheExcessRefunded(t *testing.T) {
	ui, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	st := receipt.State{Status: receipt.StatusPaid, Receipt: receipt.Generated{ReceiptID: "rcpt_1", Currency: "USD", Total: 1000},
		Payment: &receipt.Payment{}, RefundedCents: 200}
	st.ExcessRefundedCents = 200
	for _, c := range []struct {
		st   receipt.State
		want string
	}{{st, `<dd id="refunded-excess">$2.00 USD</dd>`}, {receipt.State{Status: receipt.StatusPaid, Receipt: st.Receipt, Payment: &receipt.Payment{}}, ""}} {
		rec := httptest.NewRecorder()
		if err := ui.Render(rec, 200, "receipt", Frame{Title: "Receipt"}, dashReceiptOf(c.st)); err != nil {
			t.Fatal(err)
		}
		if page := rec.Body.String(); (c.want == "") == strings.Contains(page, `id="refunded-excess"`) || !strings.Contains(page, c.want) {
			t.Errorf("refunded excess %d cents: the page lacks %q (or shows a 0)", c.st.ExcessRefundedCents, c.want)
		}
	}
}
