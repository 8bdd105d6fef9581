package projections_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/google/uuid"

	"github.com/payledger/payledger/domain/money"
	"github.com/payledger/payledger/domain/receipt"
	"github.com/payledger/payledger/eventstore"
	"github.com/payledger/payledger/projections"
)

// A receipt's split distribution is in its merchant's event log (split.distributed, for the
// webhook endpoints): receipt.Decode gives the event as a value, which the projector must match.
func TestSplitDistributionInTheMerchantsEventLog(t *testing.T) {
	t.Parallel()
	pool, s := setup(t)
	ctx := context.Background()
	event := func(typ string, v any) eventstore.EventData {
		data, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		return eventstore.EventData{ID: uuid.New(), Type: typ, Data: data}
	}
	g := receipt.Generated{ReceiptID: "split-log", Merchant: "0xmerchant", Source: "direct", Currency: "USD", Total: money.Cents(100),
		LineItems: []receipt.LineItem{{Kind: receipt.KindItem, Label: "x", Amount: 100, Unit: 100, Qty: 1}}, CreatedAt: 1}
	res, err := s.Append(ctx, projections.ReceiptStreamPrefix+g.ReceiptID, eventstore.NoStream(),
		event(receipt.EventGenerated, g),
		event(receipt.EventConfirmed, receipt.PaymentConfirmed{AttemptID: "a", VerifiedBy: "chain", Token: "USDC", TransactionHash: "0xpay"}),
		event(receipt.EventSplitDistributed, receipt.SplitDistributed{TransactionHash: "0xdist", Token: "USDC", At: 3}))
	if err != nil {
		t.Fatal(err)
	}
	p := projections.NewReceipts(nil)
	p.EventLog = true
	r, _ := start(t, pool, s, p)
	waitFor(t, r, res.Position)
	var hash string
	if err := pool.QueryRow(ctx, `SELECT data->>'transactionHash' FROM webhook_events WHERE type = 'split.distributed'`).Scan(&hash); err != nil || hash != "0xdist" {
		t.Fatalf("split.distributed in the event log: %q, %v", hash, err)
	}
}
