package dashboard

import (
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/payledger/payledger/domain/receipt"
)

// TestReceiptPageShowsTheRefundsApartFromTheOrder (stop 72): the refunds of funds received before
// the payment and of processor payments the receipt does not count were in the API's
// refundedBeforePaymentUsd and processorRefundedUsd but had no total on the receipt's page, whose
// "Refunded" is the order's alone: the list labelled each such refund, and no figure added them
// up. The page shows each total beside "Refunded", when not 0.
func TestReceiptPageShowsTheRefundsApartFromTheOrder(t *testing.T) {
	ui, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	base := receipt.Generated{ReceiptID: "rcpt_1", Currency: "USD", Total: 1000}
	early := receipt.State{Status: receipt.StatusPaid, Receipt: base, Payment: &receipt.Payment{}, RefundedCents: 500}
	early.FundsRefundedCents = 150
	processor := receipt.State{Status: receipt.StatusPaid, Receipt: base, Payment: &receipt.Payment{}}
	processor.ProcessorRefundedCents = 2500
	for _, c := range []struct {
		name             string
		st               receipt.State
		refunded, early  string
		processorRefunds string
	}{
		{"early funds", early, "$3.50 USD", "$1.50 USD", ""},
		{"processor payments", processor, "$0.00 USD", "", "$25.00 USD"},
		{"none", receipt.State{Status: receipt.StatusPaid, Receipt: base, Payment: &receipt.Payment{}}, "$0.00 USD", "", ""},
	} {
		rec := httptest.NewRecorder()
		if err := ui.Render(rec, 200, "receipt", Frame{Title: "Receipt"}, dashReceiptOf(c.st)); err != nil {
			t.Fatal(err)
		}
		page := rec.Body.String()
		if !strings.Contains(page, `<dd id="refunded">`+c.refunded+`</dd>`) {
			t.Errorf("%s: Refunded is not the order's %s", c.name, c.refunded)
		}
		for id, want := range map[string]string{"refunded-early": c.early, "refunded-processor": c.processorRefunds} {
			if shown := strings.Contains(page, `id="`+id+`"`); shown != (want != "") || !strings.Contains(page, `<dd id="`+id+`">`+want+`</dd>`) && want != "" {
				t.Errorf("%s: %s shown %v, want %q", c.name, id, shown, want)
			}
		}
	}
}
