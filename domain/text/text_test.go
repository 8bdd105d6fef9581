package text

import "testing"

func TestReorders(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		r    rune
		want bool
	}{{'a', false}, {' ', false}, {'\u05e7', false}, {'\u200e', false}, {'\u200f', false}, {'\u061c', false},
		{'\n', true}, {'\t', true}, {'\u0007', true}, {'\u0085', true}, {'\u2028', true}, {'\u2029', true}, {'\u202a', true}, {'\u202e', true}, {'\u2066', true}, {'\u2069', true}} {
		if got := Reorders(c.r); got != c.want {
			t.Errorf("Reorders(%U) = %v, want %v", c.r, got, c.want)
		}
	}
}
