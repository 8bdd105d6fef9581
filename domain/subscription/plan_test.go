package subscription

import (
	"errors"
	"strings"
	"testing"

	"github.com/payledger/payledger/domain/money"
)

// The plan rules: each broken rule is ErrInvalid with the rule as its whole text (the API's
// message, unchanged since the rules lived in the handler).
func TestPlanRules(t *testing.T) {
	cases := []struct {
		name    string
		check   func() error
		wantErr string // "" when the input keeps the rules
	}{
		{"a name", func() error { _, err := PlanName("  Gold  "); return err }, ""},
		{"a blank name", func() error { _, err := PlanName("   "); return err }, "name must be 1 to 100 characters"},
		{"100 runes", func() error { _, err := PlanName(strings.Repeat("é", 100)); return err }, ""},
		{"101 runes", func() error { _, err := PlanName(strings.Repeat("é", 101)); return err }, "name must be 1 to 100 characters"},
		{"1000 runes of description", func() error { return PlanDescription(strings.Repeat("ü", 1000)) }, ""},
		{"1001 runes of description", func() error { return PlanDescription(strings.Repeat("ü", 1001)) }, "description must be at most 1000 characters"},
		{"a name with a right-to-left override", func() error { _, err := PlanName("Basic \u202e00.1$"); return err },
			"name must not contain control characters or bidirectional overrides"},
		{"a name with an isolate", func() error { _, err := PlanName("Pro \u2066x\u2069"); return err },
			"name must not contain control characters or bidirectional overrides"},
		{"a name with an escape sequence", func() error { _, err := PlanName("Pro\x1b[2J"); return err },
			"name must not contain control characters or bidirectional overrides"},
		{"a name with a line break", func() error { _, err := PlanName("Pro\nFree"); return err },
			"name must not contain control characters or bidirectional overrides"},
		{"a Hebrew name with its direction mark", func() error { _, err := PlanName("\u05e4\u05e8\u05d5 \u200f"); return err }, ""},
		{"a description of lines and tabs", func() error { return PlanDescription("Line 1\r\n\tLine 2") }, ""},
		{"a description with an override", func() error { return PlanDescription("monthly\u202e") },
			"description must not contain control characters (other than line breaks and tabs) or bidirectional overrides"},
		{"a description with a NUL", func() error { return PlanDescription("a\x00b") },
			"description must not contain control characters (other than line breaks and tabs) or bidirectional overrides"},
		{"a price", func() error { _, err := PlanPrice("9.99"); return err }, ""},
		{"a zero price", func() error { _, err := PlanPrice("0"); return err }, "priceUsd must be a number greater than 0 with at most 2 decimals"},
		{"three decimals", func() error { _, err := PlanPrice("1.001"); return err }, "priceUsd must be a number greater than 0 with at most 2 decimals"},
		{"an exponent", func() error { _, err := PlanPrice("1e2"); return err }, "priceUsd must be a number greater than 0 with at most 2 decimals"},
		{"a negative price", func() error { _, err := PlanPrice("-1"); return err }, "priceUsd must be a number greater than 0 with at most 2 decimals"},
		{"monthly", func() error { return PlanPeriod("MONTHLY") }, ""},
		{"daily", func() error { return PlanPeriod("DAILY") }, "period must be one of WEEKLY, BIWEEKLY, MONTHLY, QUARTERLY, YEARLY"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := c.check()
			if c.wantErr == "" {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				return
			}
			if !errors.Is(err, ErrInvalid) || err == nil || err.Error() != c.wantErr {
				t.Fatalf("error %v, want ErrInvalid %q", err, c.wantErr)
			}
		})
	}
	if n, _ := PlanName("  Gold  "); n != "Gold" {
		t.Errorf("name %q, want it trimmed", n)
	}
	if p, _ := PlanPrice("9.99"); p != money.Cents(999) {
		t.Errorf("price %d, want 999 cents", p)
	}
}
