package receipt

import (
	"errors"
	"strings"
	"testing"

	"github.com/payledger/payledger/domain/money"
	"github.com/payledger/payledger/domain/tax"
)

func rate(s string) money.Rate { return money.MustRate(s) }

func catalogRate(t *testing.T, code string, components ...string) money.Rate {
	t.Helper()
	j, err := tax.Lookup(code)
	if err != nil {
		t.Fatal(err)
	}
	j, err = tax.Select(j, components)
	if err != nil {
		t.Fatal(err)
	}
	return j.Total()
}

func TestPriceTable(t *testing.T) {
	t.Parallel()
	ca := catalogRate(t, "US-CA")
	item := func(cents int64, qty int64, taxable bool) Item {
		return Item{Label: "x", Unit: money.Cents(cents), Qty: qty, Taxable: taxable}
	}
	cases := []struct {
		name                         string
		items                        []Item
		taxRate, platform, addOn     money.Rate
		tax, fee, total, platformFee money.Cents
	}{
		{"CA taxable 10.00: tax 72.5 rounds up", []Item{item(1000, 1, true)}, ca, PlatformBaseRate, rate("0"), 73, 5, 1078, 5},
		{"CA taxable 2.00: tax 14.5 rounds up", []Item{item(200, 1, true)}, ca, PlatformBaseRate, rate("0"), 15, 1, 216, 1},
		{"non-taxable item is not taxed", []Item{item(1000, 1, false)}, ca, PlatformBaseRate, rate("0"), 0, 5, 1005, 5},
		{"taxable and non-taxable mix", []Item{item(1000, 1, true), item(500, 1, false)}, ca, PlatformBaseRate, rate("0"), 73, 8, 1581, 8},
		{"quantity multiplies the unit price", []Item{item(333, 3, true)}, ca, PlatformBaseRate, rate("0"), 72, 5, 1076, 5},
		{"manual rate 0.1 overrides", []Item{item(1000, 1, true)}, rate("0.1"), PlatformBaseRate, rate("0"), 100, 6, 1106, 6},
		{"manual rate 0", []Item{item(1000, 1, true)}, rate("0"), PlatformBaseRate, rate("0"), 0, 5, 1005, 5},
		{"manual rate 1", []Item{item(100, 1, true)}, rate("1"), PlatformBaseRate, rate("0"), 100, 1, 201, 1},
		{"merchant add-on 1.25%", []Item{item(10000, 1, false)}, ca, PlatformBaseRate, money.Percent(rate("1.25")), 0, 175, 10175, 50},
		{"add-on on subtotal plus tax", []Item{item(10000, 1, true)}, ca, PlatformBaseRate, money.Percent(rate("1.25")), 725, 188, 10913, 54},
		{"fee 0.5 cent rounds up", []Item{item(100, 1, false)}, ca, PlatformBaseRate, rate("0"), 0, 1, 101, 1},
		{"fee 0.495 cent rounds down", []Item{item(99, 1, false)}, ca, PlatformBaseRate, rate("0"), 0, 0, 99, 0},
		{"tax 0.5 cent rounds up", []Item{item(10, 1, true)}, rate("0.05"), PlatformBaseRate, rate("0"), 1, 0, 11, 0},
		{"CA state component only", []Item{item(1000, 1, true)}, catalogRate(t, "US-CA", "state"), PlatformBaseRate, rate("0"), 60, 5, 1065, 5},
		{"CA state and county components", []Item{item(1000, 1, true)}, catalogRate(t, "US-CA", "state", "county"), PlatformBaseRate, rate("0"), 63, 5, 1068, 5},
		{"8.875% on 100.00: 887.5 rounds up", []Item{item(10000, 1, true)}, rate("0.08875"), PlatformBaseRate, rate("0"), 888, 54, 10942, 54},
		{"EUR: DE VAT on a mix", []Item{item(2000, 1, true), item(500, 1, false)}, catalogRate(t, "DE"), PlatformBaseRate, rate("0"), 380, 14, 2894, 14},
		{"site fee replaces the base", []Item{item(5000, 1, false)}, ca, rate("0.01"), rate("0"), 0, 50, 5050, 50},
		{"free item", []Item{item(0, 1, true)}, ca, PlatformBaseRate, rate("0"), 0, 0, 0, 0},
		{"large quantity", []Item{item(1999, 100, true)}, ca, PlatformBaseRate, rate("0"), 14493, 1072, 215465, 1072},
		{"fee 1.5 cents after tax rounds up", []Item{item(280, 1, true)}, ca, PlatformBaseRate, rate("0"), 20, 2, 302, 2},
		{"maximum add-on 10%", []Item{item(1000, 1, false)}, ca, PlatformBaseRate, money.Percent(rate("10")), 0, 105, 1105, 5},
		{"tax rounds once over all taxable lines", []Item{item(115, 2, true), item(35, 1, true)}, ca, PlatformBaseRate, rate("0"), 19, 1, 285, 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p, err := Price(PriceInput{Items: c.items, TaxRate: c.taxRate, PlatformRate: c.platform, MerchantAddOn: c.addOn})
			if err != nil {
				t.Fatal(err)
			}
			if p.Tax != c.tax || p.Fee != c.fee || p.Total != c.total || p.PlatformFee != c.platformFee {
				t.Fatalf("tax %d fee %d total %d platform %d; want %d %d %d %d", p.Tax, p.Fee, p.Total, p.PlatformFee, c.tax, c.fee, c.total, c.platformFee)
			}
			var sum money.Cents
			for _, l := range p.LineItems {
				sum += l.Amount
			}
			n := len(p.LineItems)
			if sum != p.Total || p.LineItems[n-2].Label != "Tax" || p.LineItems[n-1].Label != "Processing Fee" || p.MerchantFee+p.PlatformFee != p.Fee {
				t.Fatalf("lines %+v do not add up to %d in order", p.LineItems, p.Total)
			}
		})
	}
}

// TestPriceRefusesAmountsPastTheBound: a line, the subtotal, the tax or the total past
// MaxAmount is refused before it is computed (a unit of 10^13 cents times 10,000 wrapped int64 to
// a negative total), and amounts right at the bound are priced.
func TestPriceRefusesAmountsPastTheBound(t *testing.T) {
	t.Parallel()
	item := func(cents, qty int64, taxable bool) Item {
		return Item{Label: "x", Unit: money.Cents(cents), Qty: qty, Taxable: taxable}
	}
	cases := []struct {
		name     string
		items    []Item
		taxRate  money.Rate
		refused  bool
		contains string
	}{
		{"line wraps int64", []Item{item(1_000_000_000_000_000, 10_000, false)}, rate("0"), true, "items[0]"},
		{"line just past the bound", []Item{item(500_000_000_000_001, 2, false)}, rate("0"), true, "items[0]"},
		{"subtotal past the bound", []Item{item(600_000_000_000_000, 1, false), item(600_000_000_000_000, 1, false)}, rate("0"), true, "subtotal"},
		{"tax past the bound", []Item{item(600_000_000_000_000, 1, true)}, rate("1"), true, "tax"},
		{"fee past the bound", []Item{item(1_000_000_000_000_000, 1, false)}, rate("0"), true, "fee"},
		{"at the bound after the fee", []Item{item(995_024_875_621_890, 1, false)}, rate("0"), false, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p, err := Price(PriceInput{Items: c.items, TaxRate: c.taxRate, PlatformRate: PlatformBaseRate})
			if !c.refused {
				if err != nil || p.Total <= 0 || p.Total > MaxAmount {
					t.Fatalf("total %d, %v", p.Total, err)
				}
				return
			}
			if !errors.Is(err, ErrAmountTooLarge) || !strings.Contains(err.Error(), c.contains) || !strings.Contains(err.Error(), MaxAmount.String()) {
				t.Fatalf("err %v (priced %+v); want ErrAmountTooLarge naming %q and the bound", err, p, c.contains)
			}
		})
	}
}

func TestGenerateOnce(t *testing.T) {
	t.Parallel()
	p, err := Price(PriceInput{Items: []Item{{Label: "a", Unit: 100, Qty: 1}}, TaxRate: rate("0"), PlatformRate: PlatformBaseRate})
	if err != nil {
		t.Fatal(err)
	}
	g := Generated{ReceiptID: "r1", LineItems: p.LineItems, Total: p.Total}
	evs, err := Generate(State{}, g, testNow)
	if err != nil || len(evs) != 1 {
		t.Fatalf("%v %v", evs, err)
	}
	s := Evolve(State{}, evs[0])
	if s.Status != StatusGenerated || !s.Exists {
		t.Fatalf("state %+v", s)
	}
	if _, err := Generate(s, g, testNow); err != ErrExists {
		t.Fatalf("second generate: %v", err)
	}
	g.Total++
	if _, err := Generate(State{}, g, testNow); err == nil {
		t.Fatal("a total that is not the sum of the lines was accepted")
	}
}
