package money

import (
	"errors"
	"math/big"
	"math/rand/v2"
	"testing"
)

func TestParseCents(t *testing.T) {
	t.Parallel()
	cases := []struct {
		in   string
		want Cents
		err  bool
	}{
		{"0", 0, false}, {"12", 1200, false}, {"12.5", 1250, false}, {"12.05", 1205, false}, {"0.01", 1, false},
		{"1e2", 10000, false}, {"12.345", 0, true}, {"-1", 0, true}, {"abc", 0, true}, {"", 0, true}, {"1e20", 0, true},
	}
	for _, c := range cases {
		got, err := ParseCents(c.in)
		if (err != nil) != c.err || got != c.want {
			t.Errorf("ParseCents(%q) = %d, %v", c.in, got, err)
		}
		if c.err && err != nil && !errors.Is(err, ErrInvalidAmount) {
			t.Errorf("ParseCents(%q) error %v is not ErrInvalidAmount", c.in, err)
		}
	}
}

func TestRoundHalfUp(t *testing.T) {
	t.Parallel()
	cases := []struct {
		num, den int64
		want     Cents
	}{
		{5, 10, 1}, {4, 10, 0}, {15, 10, 2}, {25, 10, 3}, {-5, 10, -1}, {-4, 10, 0}, {7249999, 1000000, 7}, {1, 3, 0}, {2, 3, 1},
	}
	for _, c := range cases {
		if got := RoundHalfUp(big.NewRat(c.num, c.den)); got != c.want {
			t.Errorf("RoundHalfUp(%d/%d) = %d, want %d", c.num, c.den, got, c.want)
		}
	}
}

// RoundHalfUpInt is RoundHalfUp beyond int64: 18-decimal token amounts.
func TestRoundHalfUpIntBeyondInt64(t *testing.T) {
	t.Parallel()
	wei := new(big.Int).Exp(big.NewInt(10), big.NewInt(20), nil) // 100 ETH in wei
	for _, c := range []struct {
		add  int64 // tenths added to wei
		want *big.Int
	}{{5, new(big.Int).Add(wei, big.NewInt(1))}, {4, wei}, {-5, wei}, {-6, new(big.Int).Sub(wei, big.NewInt(1))}} {
		x := new(big.Rat).Add(new(big.Rat).SetInt(wei), big.NewRat(c.add, 10))
		if got := RoundHalfUpInt(x); got.Cmp(c.want) != 0 {
			t.Errorf("RoundHalfUpInt(%s) = %s, want %s", x.FloatString(1), got, c.want)
		}
	}
}

func TestRateApplyAndString(t *testing.T) {
	t.Parallel()
	cases := []struct {
		rate   string
		amount Cents
		want   Cents
	}{
		{"0.0725", 1000, 73},    // 72.5 -> 73 (half up)
		{"0.0725", 200, 15},     // 14.5 -> 15
		{"0.005", 100, 1},       // 0.5 -> 1
		{"0.005", 99, 0},        // 0.495 -> 0
		{"0.08875", 10000, 888}, // 887.5 -> 888
		{"0", 12345, 0},
		{"1", 12345, 12345},
	}
	for _, c := range cases {
		if got := MustRate(c.rate).Apply(c.amount); got != c.want {
			t.Errorf("%s × %d = %d, want %d", c.rate, c.amount, got, c.want)
		}
	}
	if s := Percent(MustRate("1.25")).Add(MustRate("0.005")).String(); s != "0.0175" {
		t.Errorf("1.25%% + 0.5%% = %s", s)
	}
	if s := Cents(-1205).String(); s != "-12.05" {
		t.Errorf("String = %s", s)
	}
}

// Float divides in float64 for speed; it must give exactly big.Rat's nearest float64.
func TestFloatIsNearestToExactQuotient(t *testing.T) {
	t.Parallel()
	exact := func(c Cents) float64 {
		f, _ := new(big.Rat).SetFrac64(int64(c), 100).Float64()
		return f
	}
	cases := []Cents{0, 1, -1, 5, 10, 99, 101, 105, 115, 4072, 123456789, 1<<53 - 1, -(1<<53 - 1), 1 << 53, 1<<62 + 7, -1 << 62}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 200000 {
		cases = append(cases, Cents(rng.Int64N(1<<54)-1<<53))
	}
	for _, c := range cases {
		if got, want := c.Float(), exact(c); got != want {
			t.Fatalf("Cents(%d).Float() = %v, want %v", c, got, want)
		}
	}
}

// The word forms of Rate.Apply and Rate.String give what math/big gives, over rates with and
// without a short decimal form, amounts of either sign and magnitudes at and past their bounds.
func TestRateWordsAsBig(t *testing.T) {
	t.Parallel()
	dens := []int64{1, 2, 3, 4, 5, 7, 8, 10, 16, 20, 25, 40, 64, 100, 125, 400, 1000, 1024, 3125, 10000, 1_000_000_000_000, 3_000_000_000_000}
	nums := []int64{0, 1, -1, 2, 29, 725, -725, 9999, 123456789, -987654321, 1 << 40, -(1 << 40), 1<<62 + 1, -1 << 63}
	amounts := []int64{0, 1, -1, 5, 99, 1231, -1231, 3750, 1 << 31, -(1 << 45), 1 << 62, -1 << 63}
	for _, d := range dens {
		for _, n := range nums {
			x := big.NewRat(n, d)
			if s, ok := ExactDecimal(x, 12, 0); ok && s != floatString12(x) {
				t.Errorf("ExactDecimal(%s, 12, 0) = %q, math/big %q", x, s, floatString12(x))
			}
			for _, a := range amounts {
				q, ok := applySmall(a, x)
				want := roundHalfUp(new(big.Int).Mul(big.NewInt(a), x.Num()), x.Denom())
				if ok && (!want.IsInt64() || q != want.Int64()) {
					t.Errorf("applySmall(%d, %s) = %d, math/big %s", a, x, q, want)
				}
			}
		}
	}
	if _, ok := ExactDecimal(big.NewRat(29, 400), 12, 0); !ok {
		t.Error("0.0725 was not written from words")
	}
	if _, ok := applySmall(3750, big.NewRat(29, 400)); !ok {
		t.Error("0.0725 of 37.50 was not applied in words")
	}
}
