package dashboard

import (
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"

	"github.com/payledger/payledger/domain/receipt"
)

// TestReceiptPageSaysWhatARefundReturns: the receipt's refunds list showed a refund of the excess
// (or of funds received before the payment) as "refunded $2.00 USD" like the order's, beside
// "Refunded $0.00 USD", which counts the order's alone: the page read as if a refund were missing
// from its total. Each such refund now says what it returns; the order's says nothing more.
func TestReceiptPageSaysWhatARefundReturns(t *testing.T) {
	ui, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	st := receipt.State{Status: receipt.StatusPaid, Receipt: receipt.Generated{ReceiptID: "rcpt_1", Currency: "USD", Total: 1000},
		Payment: &receipt.Payment{}, RefundedCents: 900}
	st.Refunds = []receipt.RefundRecord{
		{AmountCents: 200, Reason: "Excess returned", TransactionHash: "0x" + strings.Repeat("a", 64), State: receipt.RefundStateProcessed, OfExcess: true},
		{AmountCents: 400, Reason: "Returned before", TransactionHash: "0x" + strings.Repeat("b", 64), State: receipt.RefundStateProcessed, OfFunds: true},
		{AmountCents: 300, Reason: "Cold latte", TransactionHash: "0x" + strings.Repeat("c", 64), State: receipt.RefundStateProcessed},
	}
	st.ExcessRefundedCents, st.FundsRefundedCents = 200, 400
	v := dashReceiptOf(st)
	(&dash{}).dashRefundsOf(&v, st)
	rec := httptest.NewRecorder()
	if err := ui.Render(rec, 200, "receipt", Frame{Title: "Receipt"}, v); err != nil {
		t.Fatal(err)
	}
	page := rec.Body.String()
	items := regexp.MustCompile(`(?s)<li data-state="processed"[^>]*>(.*?)</li>`).FindAllStringSubmatch(page, -1)
	var got []string
	for _, it := range items {
		of := regexp.MustCompile(`<span class="refund-of">([^<]*)</span>`).FindStringSubmatch(it[1])
		if of == nil {
			of = []string{"", "-"}
		}
		got = append(got, of[1])
	}
	want := "of the excess|of funds received before the payment|-"
	if strings.Join(got, "|") != want {
		t.Errorf("the refunds say they return %q, want %q", strings.Join(got, "|"), want)
	}
	if !strings.Contains(page, `<dd id="refunded">$3.00 USD</dd>`) {
		t.Errorf("the order's refunded amount is not $3.00 USD")
	}
}
