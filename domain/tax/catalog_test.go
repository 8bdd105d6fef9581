package tax

import "testing"

// Every jurisdiction's total, summed once by the catalog, is the sum of its components, also
// after Select keeps some of them.
func TestTotalIsTheComponentsSum(t *testing.T) {
	t.Parallel()
	for _, j := range All() {
		sum := Jurisdiction{Components: j.Components}.Total()
		if !j.summed || j.Total().Cmp(sum) != 0 {
			t.Errorf("%s: total %s (summed %v), components add up to %s", j.Code, j.Total(), j.summed, sum)
		}
	}
	ca, err := Lookup("US-CA")
	if err != nil {
		t.Fatal(err)
	}
	if ca.Total().String() != "0.0725" {
		t.Errorf("US-CA total %s, want 0.0725", ca.Total())
	}
	state, err := Select(ca, []string{"state"})
	if err != nil || state.Total().String() != "0.06" {
		t.Errorf("US-CA state alone: %v total %s, want 0.06", err, state.Total())
	}
}
