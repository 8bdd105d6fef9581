package address

import (
	"strings"
	"testing"
)

func TestValid(t *testing.T) {
	t.Parallel()
	cases := []struct {
		in   string
		want bool
	}{
		{"0x" + strings.Repeat("a", 40), true},
		{"0x" + strings.Repeat("F", 40), true},
		{"0xAbCdEf0123456789abcdef0123456789ABCDEF01", true},
		{"0X" + strings.Repeat("a", 40), false},
		{strings.Repeat("a", 42), false},
		{"0x" + strings.Repeat("a", 39), false},
		{"0x" + strings.Repeat("a", 41), false},
		{"0x" + strings.Repeat("g", 40), false},
		{"0x" + strings.Repeat("a", 39) + "\n", false},
		{"", false},
	}
	for _, c := range cases {
		if got := Valid(c.in); got != c.want {
			t.Errorf("Valid(%q) = %v, want %v", c.in, got, c.want)
		}
	}
}
