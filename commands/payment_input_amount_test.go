package commands

import (
	"strings"
	"testing"
)

// A processor's USD amount is read as a plain decimal within money's bound: past int64 its cents
// wrapped (92233720368547758.08 dollars read as a negative amount, 1e20 as an arbitrary one) and
// a huge exponent was expanded digit by digit.
func TestDollarsToCentsBoundsTheProcessorsAmount(t *testing.T) {
	for _, ok := range []struct {
		in   string
		want int64
	}{{"10", 1000}, {"10.5", 1050}, {"10.005", 1001}, {"1e2", 10000}, {"1.5E+1", 1500}, {"0.00", 0}, {"10000000000000", 1_000_000_000_000_000}} {
		got, err := dollarsToCents(ok.in)
		if err != nil || got == nil || *got != ok.want {
			t.Errorf("dollarsToCents(%q) = %v, %v; want %d", ok.in, got, err, ok.want)
		}
	}
	for _, bad := range []string{"92233720368547758.08", "1e20", "10000000000000.01", "1e99", "-1", "3/1", "0x10", "1_000", "1e", "1e123",
		"1" + strings.Repeat("0", 100), "1e1000000"} {
		if got, err := dollarsToCents(bad); err == nil {
			t.Errorf("dollarsToCents(%q) = %d, want an error", bad, *got)
		}
	}
}
