package settlement

import (
	"math/big"
	"testing"

	"github.com/payledger/payledger/domain/split"
)

// A contract's shares become basis points of their total when they are whole ones; otherwise
// the split cannot be recorded as it pays and is refused.
func TestSharesInBps(t *testing.T) {
	t.Parallel()
	a, b := "0xAAaa000000000000000000000000000000000001", "0xbbbb000000000000000000000000000000000002"
	for _, c := range []struct {
		name   string
		shares []int64
		want   []int
	}{
		{"basis points", []int64{9950, 50}, []int{9950, 50}},
		{"halves of 2", []int64{1, 1}, []int{5000, 5000}},
		{"quarters of 4", []int64{3, 1}, []int{7500, 2500}},
		{"thirds: refused", []int64{1, 2}, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			rs, err := sharesInBps([]string{a, b}, []*big.Int{big.NewInt(c.shares[0]), big.NewInt(c.shares[1])})
			if c.want == nil {
				if err == nil {
					t.Fatalf("recorded %+v, want a refusal", rs)
				}
				return
			}
			if err != nil || rs[0] != (split.Recipient{Address: "0xaaaa000000000000000000000000000000000001", SharesBps: c.want[0]}) || rs[1].SharesBps != c.want[1] {
				t.Fatalf("%+v %v, want %v", rs, err, c.want)
			}
		})
	}
}

func TestSameRecipients(t *testing.T) {
	t.Parallel()
	a, b := "0xaaaa000000000000000000000000000000000001", "0xbbbb000000000000000000000000000000000002"
	want := []split.Recipient{{Address: a, SharesBps: 9950}, {Address: b, SharesBps: 50}}
	for _, c := range []struct {
		name  string
		given []split.Recipient
		same  bool
	}{
		{"the same", want, true},
		{"reordered, other case", []split.Recipient{{Address: "0xBBBB000000000000000000000000000000000002", SharesBps: 50}, {Address: a, SharesBps: 9950}}, true},
		{"other shares", []split.Recipient{{Address: a, SharesBps: 9900}, {Address: b, SharesBps: 100}}, false},
		{"one left out", want[:1], false},
		{"a repeat", []split.Recipient{want[0], want[0]}, false},
		{"none", []split.Recipient{}, false},
	} {
		if got := sameRecipients(c.given, want); got != c.same {
			t.Errorf("%s: %v, want %v", c.name, got, c.same)
		}
	}
}
