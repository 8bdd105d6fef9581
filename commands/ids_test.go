package commands

import (
	"regexp"
	"testing"
	"time"
)

// Receipt ids are unguessable and sort by creation time (so their indexes grow at the right edge).
func TestNewReceiptIDIsTimeOrderedAndRandom(t *testing.T) {
	t.Parallel()
	format := regexp.MustCompile(`^rcpt_[0-9a-f]{28}$`)
	t0 := time.UnixMilli(1_795_000_000_000)
	seen := map[string]bool{}
	prev := ""
	for i := range 2000 {
		id := NewReceiptID(t0.Add(time.Duration(i/2) * time.Millisecond))
		if !format.MatchString(id) || !receiptIDRE.MatchString(id) {
			t.Fatalf("id %q: not rcpt_ and 28 hex digits", id)
		}
		if seen[id] {
			t.Fatalf("id %q twice", id)
		}
		seen[id] = true
		if i%2 == 0 && id <= prev { // a later millisecond sorts after every earlier one
			t.Fatalf("id %q at ms %d sorts before %q", id, i/2, prev)
		}
		prev = max(prev, id)
	}
	a, b := NewReceiptID(t0), NewReceiptID(t0)
	if a[:17] != b[:17] || a[17:] == b[17:] {
		t.Fatalf("same millisecond: %q and %q should share the time part and differ in the random part", a, b)
	}
}
