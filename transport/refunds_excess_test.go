package transport

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/payledger/payledger/domain/receipt"
)

// refundOf posts, as m, a refund of receipt id for amount (USD, "" for the default) with a hash
// of 64 times the hex digit given, and returns the answer's code.
func (e *env) refundOf(m merchant, id, amount, hash string) int {
	e.t.Helper()
	body := `{"receiptId":"` + id + `","reason":"r","transactionHash":"0x` + strings.Repeat(hash, 64) + `"`
	if amount != "" {
		body += `,"amountUsd":` + amount
	}
	return e.adminCall(m.cookies, m.csrf, http.MethodPost, "/api/receipts/refund", body+"}").Code
}

// excessRefund posts, as m, a refund of receipt id's excess (`"excess": true`; amount "" for the
// whole) with a hash of 64 times the digit given (the answer comes once the reads show it, as
// every refund's does).
func (e *env) excessRefund(m merchant, id, amount, hash string) error {
	e.t.Helper()
	body := `{"receiptId":"` + id + `","reason":"overpaid","excess":true,"transactionHash":"0x` + strings.Repeat(hash, 64) + `"`
	if amount != "" {
		body += `,"amountUsd":` + amount
	}
	rec := e.adminCall(m.cookies, m.csrf, http.MethodPost, "/api/receipts/refund", body+"}")
	if rec.Code != http.StatusOK {
		return fmt.Errorf("excess refund: %d %s", rec.Code, rec.Body)
	}
	var out struct {
		RefundedExcessUSD *float64 `json:"refundedExcessUsd"`
	}
	if err := json.Unmarshal(rec.Body.Bytes(), &out); err != nil || out.RefundedExcessUSD == nil {
		return fmt.Errorf("excess refund's answer without refundedExcessUsd: %s (%v)", rec.Body, err)
	}
	return nil
}

// TestOverpaidReceiptRefundsItsExcessApart (stop 70): through the service as serve builds it, the
// customer sent 12 for a 10.00 receipt. The merchant refunds the 2 of excess apart (the refund
// API's refundable amount of the order stays 10.00), then the order's whole 10.00; refundedUsd
// reads the order's 10, refundedExcessUsd the 2, and a cent more of either is refused. Before,
// the excess counted against the total: at most 10 of the 12 came back.
func TestOverpaidReceiptRefundsItsExcessApart(t *testing.T) {
	t.Parallel()
	e := portalEnv(t)
	m := e.merchant(true)
	id := e.receiptFor(m, "10")
	e.depositCredit(id, "0x"+strings.Repeat("3", 64), "USDC", "12000000", true)
	if st := e.status(m, id); st["status"] != "paid" || st["refundedExcessUsd"] != nil {
		t.Fatalf("overpaid: %v", st)
	}
	if err := e.excessRefund(m, id, "2.01", "4"); err == nil {
		t.Fatal("more than the excess taken")
	}
	if err := e.excessRefund(m, id, "", "4"); err != nil {
		t.Fatalf("the excess: %v", err)
	}
	e.proveRefundForTest(id, "0x"+strings.Repeat("4", 64), "2000000")
	st := e.status(m, id)
	refunds, _ := st["refunds"].([]any)
	if st["status"] != "paid" || st["refundedUsd"] != 0.0 || st["refundedExcessUsd"] != 2.0 || len(refunds) != 1 || refunds[0].(map[string]any)["excess"] != true {
		t.Fatalf("excess refunded: %v", st)
	}
	if code := e.refundOf(m, id, "10", "6"); code != 200 {
		t.Fatalf("the order's whole 10.00 after the excess: %d", code)
	}
	e.proveRefundForTest(id, "0x"+strings.Repeat("6", 64), "10000000")
	if st := e.status(m, id); st["status"] != "refunded" || st["refundedUsd"] != 10.0 || st["refundedExcessUsd"] != 2.0 {
		t.Fatalf("order refunded: %v", st)
	}
	if code := e.refundOf(m, id, "0.01", "7"); code != 400 {
		t.Fatalf("a cent more of the order: %d, want 400", code)
	}
	if err := e.excessRefund(m, id, "0.01", "8"); err == nil {
		t.Fatal("a cent more of the excess taken")
	}
}

// TestFailedReceiptPaidTwiceRefundsBoth (stop 70): through the service as serve builds it, a
// 10.00 receipt failed and the customer then paid it twice after its late watch (10 + 10, paying
// nothing). The refund API takes 20.00 (it refused above 10.00: the funds were valued at most
// at the total) and refuses a cent more; refundedUsd reads 10, refundedExcessUsd 10.
func TestFailedReceiptPaidTwiceRefundsBoth(t *testing.T) {
	t.Parallel()
	e := portalEnv(t)
	m := e.merchant(true)
	id := e.receiptFor(m, "10")
	e.changeForRefundTest(id, func(st receipt.State) ([]receipt.Event, error) {
		return receipt.Expire(st, st.Receipt.ExpiresAt+1, 0) // no late watch
	})
	e.clk.Advance(2 * time.Hour)
	e.depositCredit(id, "0x"+strings.Repeat("3", 64), "USDC", "10000000", true)
	e.depositCredit(id, "0x"+strings.Repeat("5", 64), "USDC", "10000000", true)
	if st := e.status(m, id); st["status"] != "failed" {
		t.Fatalf("paid twice after the watch: %v", st)
	}
	if code := e.refundOf(m, id, "20.01", "4"); code != 400 {
		t.Fatalf("more than the customer sent: %d, want 400", code)
	}
	if code := e.refundOf(m, id, "20", "4"); code != 200 {
		t.Fatalf("both payments back: %d", code)
	}
	e.proveRefundForTest(id, "0x"+strings.Repeat("4", 64), "20000000")
	if st := e.status(m, id); st["status"] != "failed" || st["refundedUsd"] != 10.0 || st["refundedExcessUsd"] != 10.0 {
		t.Fatalf("refunded: %v", st)
	}
	if code := e.refundOf(m, id, "0.01", "6"); code != 400 {
		t.Fatalf("a cent more: %d, want 400", code)
	}
}
