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

// TestAStrangerWhoSendsTheLastCentsIsNotTheBuyer: through the service as serve builds it, a
// customer sends 9.50 USDC of a 10.00 receipt to its deposit address (an exchange kept a fee),
// and a stranger who watches the address (the payment page shows it to anyone with the link)
// sends the missing 0.50. The receipt is paid; the payer the merchant reads (status read and
// webhook payload: buyerWallet) is the customer. Before, it was the stranger, whose transfer
// completed the payment: the wallet the merchant delivers to and the users projection credits
// the receipt's XP to.
func TestAStrangerWhoSendsTheLastCentsIsNotTheBuyer(t *testing.T) {
	t.Parallel()
	e := portalEnv(t)
	m := e.merchant(true)
	id := e.receiptFor(m, "10")
	customer, stranger := "0x"+strings.Repeat("c", 40), "0x"+strings.Repeat("5", 40)
	e.creditFrom(id, customer, "0x"+strings.Repeat("1", 64), "9500000")
	e.creditFrom(id, stranger, "0x"+strings.Repeat("2", 64), "500000")
	rec := e.dev(m, http.MethodGet, "/api/receipts/status?receiptId="+id, "")
	if rec.Code != http.StatusOK {
		t.Fatalf("status: %d %s", rec.Code, rec.Body)
	}
	out := decode(t, rec)
	if out["status"] != "paid" {
		t.Fatalf("status %v, want paid: %v", out["status"], out)
	}
	if out["buyerWallet"] != customer {
		t.Fatalf("buyerWallet %v, want the customer %s (who sent 9.50 of the 10.00, not the stranger's 0.50)", out["buyerWallet"], customer)
	}
}

// creditFrom records a confirmed transfer of units of USDC (6 decimals) from sender to receipt
// id's deposit address, as the deposit detector does, and waits until the read model has it.
func (e *env) creditFrom(id, sender, tx, units string) {
	e.t.Helper()
	seen := receipt.DepositTransferSeen{TransactionHash: tx, LogIndex: 0, BlockNumber: 7, BlockHash: "0xb7", Sender: sender,
		Token: "USDC", AmountUnits: units, Decimals: 6, At: e.clk.Now().UnixMilli()}
	ctx := context.Background()
	_, res, err := commands.ChangeReceipt(ctx, e.svc.Events, id, eventstore.Metadata{Actor: "test"}, func(st receipt.State) ([]receipt.Event, error) {
		return receipt.ObserveDeposit(st, receipt.DepositObservation{Transfer: seen, Confirmed: true, At: seen.At})
	})
	if err != nil {
		e.t.Fatal(err)
	}
	if err := e.srv.waitReadable(ctx, id, res); err != nil {
		e.t.Fatal(err)
	}
}
