package subscription

import (
	"testing"

	"github.com/payledger/payledger/domain/money"
)

// TestPlatformFeeAndPriceUnits: the 0.5% platform fee of a charge is half-up to the cent (as an
// order's fee), and a plan price is exact USDC base units at 6 decimals, the largest plan price
// (10^13 USD, PlanPrice's bound) included, past int64.
func TestPlatformFeeAndPriceUnits(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name  string
		price money.Cents
		fee   money.Cents
		units string
	}{
		{"one cent: 0.005 cents rounds down", 1, 0, "10000"},
		{"0.99: 0.495 cents rounds down", 99, 0, "990000"},
		{"1.00: 0.5 cents rounds up", 100, 1, "1000000"},
		{"9.99: 4.995 cents rounds up", 999, 5, "9990000"},
		{"10.00: 5 cents exactly", 1000, 5, "10000000"},
		{"2.99: 1.495 cents rounds down", 299, 1, "2990000"},
		{"3.00: 1.5 cents rounds up", 300, 2, "3000000"},
		{"the largest plan price", 1_000_000_000_000_000, 5_000_000_000_000, "10000000000000000000"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := PlatformFee(c.price); got != c.fee {
				t.Errorf("PlatformFee(%s) = %s, want %s", c.price, got, c.fee)
			}
			if got := PriceUnits(c.price).String(); got != c.units {
				t.Errorf("PriceUnits(%s) = %s, want %s", c.price, got, c.units)
			}
		})
	}
	if p, err := PlanPrice("10000000000000"); err != nil || p != 1_000_000_000_000_000 {
		t.Fatalf("the largest plan price: %d %v", p, err)
	}
	if _, err := PlanPrice("10000000000000.01"); err == nil {
		t.Fatal("a plan price past 10^13 USD was accepted")
	}
}
