package commands_test

import (
	"path/filepath"
	"testing"

	"github.com/google/uuid"

	"github.com/payledger/payledger/commands"
	"github.com/payledger/payledger/domain/money"
	"github.com/payledger/payledger/eventstore/journal"
)

// The fee an order charges is its recorded feeRate applied to subtotal + tax, as its tax is its
// recorded taxRate's: a fee percentage written with more decimals than a rate is recorded with
// (12) was applied exactly but recorded rounded, so the receipt's history said 0.01 of $0.50 and
// charged 0 (0.0099999999996 of it, half-up), or the reverse.
func TestOrderFeeIsItsRecordedFeeRate(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name             string
		platform, addOn  string // percent, as the site's and the shop's processingFeePct
		price            int64  // cents; no tax
		wantRate         string
		wantFee, wantPlt money.Cents
	}{
		// 0.5 + 0.49999999996 percent is 0.0099999999996, recorded 0.01: 0.01 x 50 = 0.5 -> 1 cent.
		{"add-on rounded up", "0.5", "0.49999999996", 50, "0.01", 1, 0},
		// 0.49999999996 percent alone is 0.0049999999996, recorded 0.005: 0.005 x 100 = 0.5 -> 1.
		{"platform rounded up", "0.49999999996", "0", 100, "0.005", 1, 1},
		// 0.50000000004 percent is 0.0050000000004, recorded 0.005: both give 1 cent of 100.
		{"rounded down", "0.50000000004", "0", 100, "0.005", 1, 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			e := newPayEnv(t)
			e.configureSplit(payMerchant)
			j, err := journal.Open(filepath.Join(t.TempDir(), "journal.jsonl"))
			if err != nil {
				t.Fatal(err)
			}
			issuer := commands.NewIssuer(e.store, &claims{m: map[string][2]string{}}, &vault{saved: map[string]string{}}, j, isEOF, e.now)
			mp := pricing{commands.MerchantPricing{Platform: money.Percent(money.MustRate(c.platform)), AddOn: money.Percent(money.MustRate(c.addOn))}}
			items := catalog{{ID: uuid.NewString(), SKU: "gum", Name: "Gum", Currency: "USD", PriceCents: c.price, StockQty: -1}}
			orders := commands.NewCreateOrderHandler(commands.NewSplits(e.store), items, mp, issuer, payPlatform, e.now)
			issued, err := orders.Handle(e.ctx, commands.CreateOrder{Merchant: payMerchant, Lines: []commands.OrderLine{{SKU: "gum", Qty: qty("1")}}})
			if err != nil {
				t.Fatal(err)
			}
			g := issued.State.Receipt
			if g.FeeRate != c.wantRate || g.Fee != c.wantFee || g.PlatformFee != c.wantPlt || g.MerchantFee != g.Fee-g.PlatformFee {
				t.Fatalf("feeRate %s fee %s (platform %s, merchant %s); want feeRate %s fee %s (platform %s)",
					g.FeeRate, g.Fee, g.PlatformFee, g.MerchantFee, c.wantRate, c.wantFee, c.wantPlt)
			}
			recorded := money.MustRate(g.FeeRate).Apply(g.Subtotal + g.Tax)
			if g.Fee != recorded || g.Total != g.Subtotal+g.Tax+g.Fee {
				t.Fatalf("fee %s, its recorded rate %s gives %s; total %s", g.Fee, g.FeeRate, recorded, g.Total)
			}
			if st := e.state(g.ReceiptID); st.Receipt.Fee != g.Fee || st.Receipt.FeeRate != g.FeeRate {
				t.Fatalf("stored %+v", st.Receipt)
			}
		})
	}
}
