package readmodels

import (
	"encoding/json"
	"testing"

	"github.com/payledger/payledger/domain/receipt"
)

// orderState is the state of a new three-line order, and its receipt's JSON as its event stores it.
func orderState(tb testing.TB) (receipt.State, []byte) {
	g := receipt.Generated{ReceiptID: "rcpt_0193a1b2c3d4e5f6a7b8c9d0", Merchant: "0xd52266c5e4280bcc10fb98e39dfd65a009f3068e", Source: "order",
		Currency: "USD", LineItems: []receipt.LineItem{{Kind: receipt.KindItem, Label: "Latte", Amount: 900, Unit: 450, Qty: 2, SKU: "latte"},
			{Kind: receipt.KindItem, Label: "Beans <1 kg>", Amount: 2400, Unit: 2400, Qty: 1, SKU: "beans"}, {Kind: "tax", Label: "Tax", Amount: 326}},
		Subtotal: 3300, Tax: 326, Total: 3626, JurisdictionCode: "US-CA", TaxRate: "0.0725", TaxComponents: []string{"state"}, FeeRate: "0",
		BrandName: "Acme & Co", Metadata: map[string]string{"order": "42"}, DepositAddress: "0xAbC0000000000000000000000000000000000001",
		CreatedAt: 1764375000000, ExpiresAt: 1764375900000}
	data, err := json.Marshal(g)
	if err != nil {
		tb.Fatal(err)
	}
	return receipt.Evolve(receipt.State{}, g), data
}

// TestStateJSONSplicesTheReceipt: a row that carries its receipt's JSON has the state's JSON that
// json.Marshal writes, byte for byte.
func TestStateJSONSplicesTheReceipt(t *testing.T) {
	st, data := orderState(t)
	want, err := json.Marshal(st)
	if err != nil {
		t.Fatal(err)
	}
	got, err := stateJSON(StateRow{State: st, ReceiptJSON: data})
	if err != nil || string(got) != string(want) {
		t.Fatalf("stateJSON = %s, %v\nwant %s", got, err, want)
	}
}

func BenchmarkStateJSON(b *testing.B) {
	st, data := orderState(b)
	for _, c := range []struct {
		name string
		row  StateRow
	}{{"marshal", StateRow{State: st}}, {"spliced", StateRow{State: st, ReceiptJSON: data}}} {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				if _, err := stateJSON(c.row); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
