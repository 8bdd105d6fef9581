package reserve

import (
	"testing"

	"github.com/payledger/payledger/domain/money"
)

// The reserve recommendation is exact decimal arithmetic: a configured ratio is the decimal it
// was written as, not its binary approximation (0.015 as a float64 is 0.01499999...).
func TestRecommendedReserve(t *testing.T) {
	cases := []struct {
		name             string
		volume, refunded int64
		ratio            float64
		want             money.Cents
		wantRate         float64
	}{
		{"no volume", 0, 0, 0.1, 0, 0},
		{"ratio only", 10_000, 0, 0.1, 1_000, 0},
		{"ratio plus refunds", 10_000, 500, 0.1, 1_500, 0.05},
		{"a half cent rounds up, exactly", 100, 0, 0.015, 2, 0},
		{"0.1 + 0.2 is 0.3", 1_000, 200, 0.1, 300, 0.2},
		{"a third of refunds", 3, 1, 0, 1, 1.0 / 3},
		{"half of a cent of ratio on refunds", 5, 1, 0.1, 2, 0.2},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, rate := Recommended(c.volume, c.refunded, c.ratio)
			if got != c.want || rate != c.wantRate {
				t.Fatalf("Recommended = %d (rate %v), want %d (rate %v)", got, rate, c.want, c.wantRate)
			}
		})
	}
}
