package transport

import "testing"

// TestSlots: a key holds at most Max slots, the instance at most Total; a give-back frees one.
func TestSlots(t *testing.T) {
	t.Parallel()
	s := &Slots{Max: 2, Total: 3}
	if !s.Take("a") || !s.Take("a") || s.Take("a") {
		t.Fatal("the key's bound is 2")
	}
	if !s.Take("b") || s.Take("c") {
		t.Fatal("the instance's bound is 3")
	}
	s.Give("a")
	if !s.Take("c") || s.Take("d") {
		t.Fatal("a give-back frees one slot")
	}
	if d := (&Slots{}); !d.Take("x") || func() bool {
		for range streamsPerUser - 1 {
			d.Take("x")
		}
		return d.Take("x")
	}() {
		t.Fatalf("Max 0 is streamsPerUser (%d)", streamsPerUser)
	}
}
