package settlement

import (
	"slices"
	"testing"
	"time"
)

// TestLookbackDue: which deposits are looked back for, from which block.
func TestLookbackDue(t *testing.T) {
	t0 := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	sec := func(n int) time.Time { return t0.Add(time.Duration(n) * time.Second) }
	heads := func(l *lookback) {
		l.sawHead(100, sec(10))
		l.sawHead(100, sec(11)) // no newer block: the earlier time stands
		l.sawHead(103, sec(20))
		l.sawHead(110, sec(30))
	}
	cases := []struct {
		name     string
		watched  []string // nil: no step has moved the cursor yet
		open     []OpenDeposit
		to       uint64
		wantAddr []string
		wantFrom uint64
	}{
		{"a first step: every unpaid deposit issued within the hour", nil,
			[]OpenDeposit{{Address: "a", CreatedAt: sec(25)}, {Address: "b", CreatedAt: sec(-3600)}, {Address: "c", CreatedAt: sec(12), Settled: true}, {Address: "d", CreatedAt: sec(40)}},
			110, []string{"a"}, 104},
		{"watched at the last step", []string{"a"},
			[]OpenDeposit{{Address: "a", CreatedAt: sec(0)}}, 110, nil, 0},
		{"issued after every block read", []string{},
			[]OpenDeposit{{Address: "b", CreatedAt: sec(31)}}, 110, nil, 0},
		{"issued between two heads: from the block after the older", []string{},
			[]OpenDeposit{{Address: "b", CreatedAt: sec(25)}}, 110, []string{"b"}, 104},
		{"issued as a head was read: that head's blocks were there", []string{},
			[]OpenDeposit{{Address: "b", CreatedAt: sec(20)}}, 110, []string{"b"}, 104},
		{"issued before every head remembered: maxRange blocks", []string{},
			[]OpenDeposit{{Address: "b", CreatedAt: sec(1)}}, 110, []string{"b"}, 101},
		{"several: the earliest first block", []string{"a"},
			[]OpenDeposit{{Address: "a", CreatedAt: sec(0)}, {Address: "b", CreatedAt: sec(25)}, {Address: "c", CreatedAt: sec(12)}, {Address: "d", CreatedAt: sec(40)}},
			110, []string{"b", "c"}, 101},
		{"the blocks up to to were all there when issued", []string{},
			[]OpenDeposit{{Address: "b", CreatedAt: sec(21)}}, 103, nil, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var l lookback
			heads(&l)
			if c.watched != nil {
				var open []OpenDeposit
				for _, a := range c.watched {
					open = append(open, OpenDeposit{Address: a})
				}
				l.watching(open, nil)
			}
			addr, from := l.due(c.open, c.to, 10, sec(45))
			if !slices.Equal(addr, c.wantAddr) || (len(addr) > 0 && from != c.wantFrom) {
				t.Fatalf("due: %v from %d, want %v from %d", addr, from, c.wantAddr, c.wantFrom)
			}
		})
	}
}
