package money

import "testing"

// TestWholeNumber: the one reading of a count given as a JSON number (an order's qty, an item's
// stockQty, a split's sharesBps).
func TestWholeNumber(t *testing.T) {
	for lit, want := range map[string]int64{"5": 5, "-1": -1, "5.0": 5, "1e2": 100, "9950.0": 9950, "2E+1": 20, "-1.0": -1} {
		if got, err := WholeNumber(lit); err != nil || got != want {
			t.Errorf("WholeNumber(%q) = %d, %v; want %d", lit, got, err, want)
		}
	}
	for _, lit := range []string{"1.5", "1e-1", "1e300", "0x10", "1_000", "", "1e1000", "1." + string(make([]byte, 70))} {
		if got, err := WholeNumber(lit); err == nil {
			t.Errorf("WholeNumber(%q) = %d; want an error", lit, got)
		}
	}
}
