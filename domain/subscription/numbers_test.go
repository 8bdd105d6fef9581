package subscription

import (
	"errors"
	"strings"
	"testing"
	"time"
)

// TestPermissionNumbersBounded: a permission's allowance and salt are refused, quickly, past
// MaxNumberChars of text. Decimal text of a megabyte (the body's bound) took seconds of CPU to
// parse, on a public route, before anything else was checked.
func TestPermissionNumbersBounded(t *testing.T) {
	huge := strings.Repeat("9", 1_000_000)
	for _, tc := range []struct {
		name string
		set  func(*Permission)
		want error
	}{
		{"uint256 salt in decimal", func(p *Permission) { p.Salt = "1" + strings.Repeat("0", 76) }, nil},
		{"uint256 salt in hex with leading zeros", func(p *Permission) { p.Salt = "0x00" + strings.Repeat("f", 64) }, nil},
		{"a megabyte of salt", func(p *Permission) { p.Salt = huge }, ErrInvalid},
		{"a megabyte of hex salt", func(p *Permission) { p.Salt = "0x" + huge }, ErrInvalid},
		{"a megabyte of allowance", func(p *Permission) { p.Allowance = huge }, ErrInvalid},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := createCmd()
			tc.set(&c.Permission)
			start := time.Now()
			_, err := DecideCreate(State{}, c, testNow)
			if !errors.Is(err, tc.want) {
				t.Fatalf("%v, want %v", err, tc.want)
			}
			if took := time.Since(start); took > time.Second {
				t.Fatalf("took %s", took)
			}
		})
	}
}
