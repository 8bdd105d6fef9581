package subscription

import (
	"errors"
	"strings"
	"testing"
	"time"
)

// TestPlanPriceTextBounded: a price of a megabyte of text is refused without parsing it: "12.5"
// and a million zeros is 12.50 to money.ParseCents, which took seconds of CPU per request to
// read it. The largest price still passes.
func TestPlanPriceTextBounded(t *testing.T) {
	if c, err := PlanPrice("10000000000000.00"); err != nil || c != 1_000_000_000_000_000 {
		t.Fatalf("the largest price: %d %v", c, err)
	}
	start := time.Now()
	if _, err := PlanPrice("12.5" + strings.Repeat("0", 1_000_000)); !errors.Is(err, ErrInvalid) {
		t.Fatalf("a megabyte of zeros: %v", err)
	}
	if took := time.Since(start); took > time.Second {
		t.Fatalf("took %s", took)
	}
}
