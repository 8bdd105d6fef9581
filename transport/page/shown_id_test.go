package page

import (
	"strings"
	"testing"
)

// TestShownIDTakesBothNamespaceForms (stop 70): a receipt-not-found page names an id of either
// namespace form (m + 32 hex + _ since stop 70, m + 12 hex + _ before) and nothing else.
func TestShownIDTakesBothNamespaceForms(t *testing.T) {
	for _, c := range []struct {
		id    string
		shown bool
	}{
		{"rcpt_0123456789abcdef0123456789", true},
		{"m0123456789ab_inv-1001", true},
		{"m" + strings.Repeat("ab", 16) + "_inv-1001", true},
		{"m" + strings.Repeat("ab", 16) + "_" + strings.Repeat("z", 64), true},
		{"m" + strings.Repeat("ab", 16) + "_" + strings.Repeat("z", 65), false},
		{"m" + strings.Repeat("ab", 10) + "_inv-1001", false},
		{"Call-+1-555-0100", false},
	} {
		if got := ShownID(c.id) == c.id; got != c.shown {
			t.Errorf("ShownID(%q) shown: %v, want %v", c.id, got, c.shown)
		}
	}
}
