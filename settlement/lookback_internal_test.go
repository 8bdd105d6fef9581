package settlement

import (
	"slices"
	"testing"
	"time"
)

// TestLookbackDue: which deposits are looked back for, from which block (or from the block mined
// when which receipt was issued).
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
		name      string
		cursor    time.Time // the saved cursor's WatchedAt, for a first step
		watched   []string  // nil: no step has moved the cursor yet
		open      []OpenDeposit
		to        uint64
		wantAddr  []string
		wantFrom  uint64    // 111: none known
		wantSince time.Time // zero: none issued before every head remembered
	}{
		{"a first step: every unpaid deposit issued within the hour", time.Time{}, nil,
			[]OpenDeposit{{Address: "a", CreatedAt: sec(25)}, {Address: "b", CreatedAt: sec(-3600)}, {Address: "c", CreatedAt: sec(12), Settled: true}, {Address: "d", CreatedAt: sec(40)}},
			110, []string{"a"}, 104, time.Time{}},
		{"a first step after a cursor saved with its watch list's time: the rows written since", sec(30), nil,
			[]OpenDeposit{{Address: "a", CreatedAt: sec(-7200), Listed: sec(35)}, {Address: "b", CreatedAt: sec(25), Listed: sec(25)},
				{Address: "c", CreatedAt: sec(-60), Listed: sec(-40)}, {Address: "d", CreatedAt: sec(-7200), Listed: sec(40), Settled: true}},
			110, []string{"a", "b"}, 104, sec(-7200)},
		{"watched at the last step", time.Time{}, []string{"a"},
			[]OpenDeposit{{Address: "a", CreatedAt: sec(0)}}, 110, nil, 111, time.Time{}},
		{"issued after every block read", time.Time{}, []string{},
			[]OpenDeposit{{Address: "b", CreatedAt: sec(31)}}, 110, nil, 111, time.Time{}},
		{"issued between two heads: from the block after the older", time.Time{}, []string{},
			[]OpenDeposit{{Address: "b", CreatedAt: sec(25)}}, 110, []string{"b"}, 104, time.Time{}},
		{"issued as a head was read: that head's blocks were there", time.Time{}, []string{},
			[]OpenDeposit{{Address: "b", CreatedAt: sec(20)}}, 110, []string{"b"}, 104, time.Time{}},
		{"issued before every head remembered: from the block mined then", time.Time{}, []string{},
			[]OpenDeposit{{Address: "b", CreatedAt: sec(1)}}, 110, []string{"b"}, 111, sec(1)},
		{"a first step, issued before every head: from the block mined then", time.Time{}, nil,
			[]OpenDeposit{{Address: "b", CreatedAt: sec(-60)}, {Address: "c", CreatedAt: sec(5)}}, 110, []string{"b", "c"}, 111, sec(-60)},
		{"several: the earliest first block", time.Time{}, []string{"a"},
			[]OpenDeposit{{Address: "a", CreatedAt: sec(0)}, {Address: "b", CreatedAt: sec(25)}, {Address: "c", CreatedAt: sec(12)}, {Address: "d", CreatedAt: sec(40)}},
			110, []string{"b", "c"}, 101, time.Time{}},
		{"several, one issued before every head", time.Time{}, []string{"a"},
			[]OpenDeposit{{Address: "a", CreatedAt: sec(0)}, {Address: "b", CreatedAt: sec(25)}, {Address: "c", CreatedAt: sec(3)}, {Address: "e", CreatedAt: sec(7)}},
			110, []string{"b", "c", "e"}, 104, sec(3)},
		{"the blocks up to to were all there when issued", time.Time{}, []string{},
			[]OpenDeposit{{Address: "b", CreatedAt: sec(21)}}, 103, nil, 104, time.Time{}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var l lookback
			heads(&l)
			l.cursorWatched = c.cursor
			if c.watched != nil {
				var open []OpenDeposit
				for _, a := range c.watched {
					open = append(open, OpenDeposit{Address: a})
				}
				l.watching(open, nil)
			}
			got := l.due(c.open, c.to, sec(45))
			if !slices.Equal(got.addresses, c.wantAddr) || got.from != c.wantFrom || !got.since.Equal(c.wantSince) {
				t.Fatalf("due: %v from %d or since %v, want %v from %d or since %v", got.addresses, got.from, got.since, c.wantAddr, c.wantFrom, c.wantSince)
			}
		})
	}
}
