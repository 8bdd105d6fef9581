package transport

import (
	"context"
	"testing"

	"github.com/payledger/payledger/commands"
	"github.com/payledger/payledger/domain/receipt"
	"github.com/payledger/payledger/eventstore"
)

// legacyReceipt records, for merchant m, a 1.00 USD receipt whose transactionId is txID as the
// event log holds it, bypassing the API's rule: since stop 66 an order's transactionId is one
// line of text, but receipts recorded before keep tabs, line breaks and formulas, and the export
// still has to defuse them.
func (e *env) legacyReceipt(t *testing.T, m merchant, txID string) string {
	t.Helper()
	ctx := context.Background()
	now := e.clk.Now()
	g := receipt.Generated{ReceiptID: commands.NewReceiptID(now), Merchant: m.wallet, Source: "direct", Currency: "USD", TaxRate: "0",
		TaxComponents: []string{}, LineItems: []receipt.LineItem{{Kind: receipt.KindCustom, Label: "Order", Amount: 100}},
		Subtotal: 100, Total: 100, TransactionID: txID}
	_, res, err := commands.GenerateReceipt(ctx, e.svc.Events, now, eventstore.Metadata{}, g)
	if err != nil {
		t.Fatal(err)
	}
	if err := e.srv.waitReadable(ctx, g.ReceiptID, res); err != nil {
		t.Fatal(err)
	}
	return g.ReceiptID
}
