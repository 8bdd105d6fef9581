package receipt

import (
	"math/big"
	"math/rand/v2"
	"testing"
)

// TestCentsStringIsFloatString: the integer path writes every whole number of cents (and
// fractions whose denominator divides 100) exactly as the math/big path does.
func TestCentsStringIsFloatString(t *testing.T) {
	rats := []*big.Rat{big.NewRat(0, 1), big.NewRat(1, 1), big.NewRat(-1, 1), big.NewRat(1, 2), big.NewRat(-1, 4),
		big.NewRat(3, 5), big.NewRat(7, 20), big.NewRat(13, 25), big.NewRat(1, 50), big.NewRat(-5, 100), big.NewRat(1, 3),
		big.NewRat(1, 8), big.NewRat(1, 1000), big.NewRat(4072, 100), big.NewRat(1<<53, 100), big.NewRat(1<<60, 1),
		new(big.Rat).SetFrac64(-(1 << 53), 7)}
	rnd := rand.New(rand.NewPCG(1, 2))
	for range 20000 {
		rats = append(rats, new(big.Rat).SetFrac64(rnd.Int64N(2_000_000_000)-1_000_000_000, []int64{1, 2, 4, 5, 10, 20, 25, 50, 100}[rnd.IntN(9)]))
	}
	for _, r := range rats {
		for _, stable := range []bool{true, false} {
			want := ratString(r, stable)
			if got := decimalString(r, stable); got != want {
				t.Fatalf("decimalString(%s, %v) = %q, want %q", r, stable, got, want)
			}
		}
	}
}
