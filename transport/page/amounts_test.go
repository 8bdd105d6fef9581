package page

import (
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
)

func TestTokenAmountAndDue(t *testing.T) {
	for _, tc := range []struct{ received, required, showReceived, due string }{
		{"5", "12.31", "5.00", "7.31"},
		{"5.000000", "12.310000", "5.00", "7.31"},
		{"12.309999", "12.31", "12.309999", "0.000001"},
		{"0.001", "0.00412", "0.001", "0.00312"},
		{"13", "12.31", "13.00", "0.00"},
		{"12.31", "12.31", "12.31", "0.00"},
		{"x", "12.31", "x", ""},
	} {
		if got := TokenAmount(tc.received); got != tc.showReceived {
			t.Errorf("TokenAmount(%q) = %q, want %q", tc.received, got, tc.showReceived)
		}
		if got := Due(tc.received, tc.required); got != tc.due {
			t.Errorf("Due(%q, %q) = %q, want %q", tc.received, tc.required, got, tc.due)
		}
	}
}

// An underpaid receipt's page says what arrived and what is still due, in the token, and is
// "Partly paid"; a fully paid one says neither.
func TestPageUnderpaidWording(t *testing.T) {
	a, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	render := func(v View) string {
		rec := httptest.NewRecorder()
		if err := a.ServePage(rec, v); err != nil {
			t.Fatal(err)
		}
		return rec.Body.String()
	}
	text := func(html string) string { // the visible words, tags dropped
		return strings.Join(strings.Fields(tagRE.ReplaceAllString(html, "")), " ")
	}
	short := render(View{ReceiptID: "rcpt_1", Status: "pending", InProgress: true, Underpaid: true, Total: "12.31", Currency: "USD",
		AmountReceived: "5.00", AmountRequired: "12.31", AmountDue: "7.31", AmountToken: "USDC"})
	if got := text(short); !strings.Contains(got, "5.00 USDC received, 7.31 USDC still due (of 12.31 USDC)") ||
		!strings.Contains(got, "Status: Partly paid") || !strings.Contains(got, "The payment arrived short.") {
		t.Fatalf("underpaid page reads: %s", got)
	}
	if !strings.Contains(short, `<p id="in-progress" hidden>`) {
		t.Fatal("an underpaid page still says a payment is being confirmed")
	}
	paid := render(View{ReceiptID: "rcpt_2", Status: "paid", Settled: true, Total: "12.31", Currency: "USD",
		AmountReceived: "12.31", AmountRequired: "12.31", AmountDue: "0.00", AmountToken: "USDC"})
	if !strings.Contains(paid, `<span id="due" hidden>`) || !strings.Contains(paid, `<p id="short" hidden>`) || !strings.Contains(text(paid), "Status: Paid") {
		t.Fatalf("paid page: %s", text(paid))
	}
}

var tagRE = regexp.MustCompile(`<[^>]*>`)
