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

// TestExportRowOfASubmittedPaymentAgreesWithTheStatusRead: a receipt whose wallet payment was
// submitted (pending, no transfer credited yet) shows in its status read the token and the
// buyer's wallet of the submission; its export row had both empty, so the merchant's file did not
// say in what, or from whom, the pending payment comes.
func TestExportRowOfASubmittedPaymentAgreesWithTheStatusRead(t *testing.T) {
	t.Parallel()
	e := portalEnv(t)
	m := e.merchant(true)
	id := e.receiptFor(m, "12.34")
	ctx := context.Background()
	at := e.clk.Now().UnixMilli()
	_, res, err := commands.ChangeReceipt(ctx, e.svc.Events, id, eventstore.Metadata{Actor: "test"}, func(st receipt.State) ([]receipt.Event, error) {
		started, err := receipt.StartAttempt(st, receipt.AttemptStarted{AttemptID: "att-1", Kind: "wallet", At: at})
		if err != nil {
			return nil, err
		}
		for _, ev := range started {
			st = receipt.Evolve(st, ev)
		}
		submitted, err := receipt.Submit(st, receipt.PaymentSubmitted{AttemptID: "att-1", Source: "wallet", Token: "USDC",
			TransactionHash: "0x" + strings.Repeat("6", 64), BuyerWallet: "0x" + strings.Repeat("b", 40), At: at})
		return append(started, submitted...), err
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := e.srv.waitReadable(ctx, id, res); err != nil {
		t.Fatal(err)
	}
	st := e.status(m, id)
	if st["status"] != "pending" || st["buyerWallet"] != "0x"+strings.Repeat("b", 40) {
		t.Fatalf("status read: %v", st)
	}
	out := e.dev(m, http.MethodGet, "/api/exports/receipts.csv", "")
	if out.Code != 200 {
		t.Fatalf("export: %d %s", out.Code, out.Body)
	}
	var row []string
	for _, r := range readCSV(t, out.Body.String())[1:] {
		if r[0] == id {
			row = r
		}
	}
	if row == nil {
		t.Fatalf("no row for %s", id)
	}
	for col, field := range map[int]string{2: "status", 8: "token", 10: "transactionHash", 11: "buyerWallet"} {
		want, _ := st[field].(string)
		if row[col] != want {
			t.Errorf("%s exported as %q, the status read says %q", field, row[col], want)
		}
	}
}
