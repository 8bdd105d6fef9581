package money

import (
	"errors"
	"strings"
	"testing"
)

// ParseCents takes what a client sends: a plain decimal, optionally with a short exponent (a JSON
// number such as 1e2). big.Rat's own syntax is wider and dearer: an exponent of a million took
// about 30 ms of CPU to expand (a request's worth of work a hundred times over), and it read
// fractions ("300/3"), base prefixes ("0x64", "010/1" in octal) and underscores as amounts.
func TestParseCentsTakesOnlyPlainDecimals(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		in   string
		want Cents
	}{{"1e2", 10000}, {"1.5E+1", 1500}, {"2500e-2", 2500}, {" 7.25 ", 725}, {"0100", 10000}, {"5.", 500}, {".5", 50}, {"+12.50", 1250}, {"12.5" + strings.Repeat("0", 60), 1250}} {
		if got, err := ParseCents(c.in); err != nil || got != c.want {
			t.Errorf("ParseCents(%q) = %d, %v; want %d", c.in, got, err, c.want)
		}
	}
	for _, in := range []string{"1e999999", "1e-999999", "1e100", "300/3", "0x64", "0b1", "0o7", "010/1", "1_000", "++5", "+-5", "1e", "e5", ".", "1.2.3", "١٢"} {
		if got, err := ParseCents(in); !errors.Is(err, ErrInvalidAmount) {
			t.Errorf("ParseCents(%q) = %d, %v; want ErrInvalidAmount", in, got, err)
		}
	}
}

// A fraction's trailing zeros are no work: big.Rat reduced "12.5" and a million zeros (a request
// body's worth) over 10^1000001, about 4 s of CPU per amount.
func TestParseCentsTrailingZerosAreCheap(t *testing.T) {
	in := "12.5" + strings.Repeat("0", 1<<20)
	if n := testing.AllocsPerRun(3, func() {
		if got, err := ParseCents(in); err != nil || got != 1250 {
			t.Fatalf("ParseCents(12.5 and 2^20 zeros) = %d, %v; want 1250", got, err)
		}
	}); n > 50 {
		t.Errorf("ParseCents(12.5 and 2^20 zeros) made %.0f allocations; want a handful", n)
	}
	for _, c := range []struct {
		in   string
		want Cents
	}{{"0.000", 0}, {".0", 0}, {"+.0", 0}, {"10.0e1", 10000}, {"100", 10000}, {"5.0", 500}} {
		if got, err := ParseCents(c.in); err != nil || got != c.want {
			t.Errorf("ParseCents(%q) = %d, %v; want %d", c.in, got, err, c.want)
		}
	}
}
