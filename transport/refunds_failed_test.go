package transport

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/payledger/payledger/commands"
	"github.com/payledger/payledger/domain/receipt"
	"github.com/payledger/payledger/eventstore"
)

// TestRefundAnswerOfAFailedReceiptSaysWhatItsFundsAllow: a failed receipt is refunded only for
// the funds it received (receipt.RefundableCents), and the refund answer's unrefundedUsd says
// what is left of them. It said the total less refunds (9.00 after a 1.00 claim on a 10.00
// receipt that received 4.00), more than any refund could still be.
func TestRefundAnswerOfAFailedReceiptSaysWhatItsFundsAllow(t *testing.T) {
	t.Parallel()
	e := portalEnv(t)
	m := e.merchant(true)
	id := e.receiptFor(m, "10")
	e.depositCredit(id, "0x"+strings.Repeat("3", 64), "USDC", "4000000", true)
	ctx := context.Background()
	_, res, err := commands.ChangeReceipt(ctx, e.svc.Events, id, eventstore.Metadata{Actor: "test"}, func(st receipt.State) ([]receipt.Event, error) {
		return receipt.Expire(st, st.Receipt.ExpiresAt+1, 0)
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := e.srv.waitReadable(ctx, id, res); err != nil {
		t.Fatal(err)
	}
	body := `{"receiptId":"` + id + `","reason":"partial payment","amountUsd":1,"transactionHash":"0x` + strings.Repeat("4", 64) + `"}`
	rec := e.adminCall(m.cookies, m.csrf, http.MethodPost, "/api/receipts/refund", body)
	if rec.Code != 200 {
		t.Fatalf("refund: %d %s", rec.Code, rec.Body)
	}
	out := decode(t, rec)
	if out["status"] != "failed" || out["unrefundedUsd"] != 3.0 || out["requestedRefundUsd"] != 1.0 {
		t.Fatalf("answer %v, want failed with 3.00 unrefunded (4.00 received less the 1.00 claimed)", out)
	}
	body = `{"receiptId":"` + id + `","reason":"partial payment","amountUsd":3.01,"transactionHash":"0x` + strings.Repeat("5", 64) + `"}`
	if rec := e.adminCall(m.cookies, m.csrf, http.MethodPost, "/api/receipts/refund", body); rec.Code != 400 {
		t.Fatalf("a refund beyond the answer's unrefundedUsd: %d %s", rec.Code, rec.Body)
	}
}
