package money

import (
	"math/big"
	"math/bits"
	"strconv"
	"strings"
)

// Exact decimals on machine words. An order's rates are short decimals (0.0725, 0.029) applied to
// amounts in cents, and a receipt's amounts are short decimals too; through math/big, applying
// and writing them (a GCD after every operation) was about 4% of the service's CPU per order
// (issue 38). These give the same results as the math/big forms they stand in for
// (TestRateWordsAsBig, and the receipt package's TestCentsStringIsFloatString), and decline
// whatever does not fit.

// applySmall is Apply when |amount × numerator| is at most 2^60 and the denominator too, so that
// roundHalfUp's (2|p| + den) / (2 den) fits an uint64.
func applySmall(amount int64, x *big.Rat) (int64, bool) {
	num, den := x.Num(), x.Denom()
	if !num.IsInt64() || !den.IsInt64() {
		return 0, false
	}
	n, d := num.Int64(), uint64(den.Int64())
	hi, p := bits.Mul64(abs64(amount), abs64(n))
	if hi != 0 || p > 1<<60 || d > 1<<60 {
		return 0, false
	}
	q := int64((2*p + d) / (2 * d))
	if (amount < 0) != (n < 0) {
		q = -q
	}
	return q, true
}

// ExactDecimal writes x in decimal when it has at most places (<= 18) decimal places and its
// digits fit an int64, with its trailing zeros trimmed down to keep places ("12.30" for keep 2,
// "12.3" for 0); ok is false otherwise, for the caller's math/big form. It writes what
// big.Rat.FloatString(places) does, trimmed the same way, from integers: Rate.String and the
// receipts' amounts in the common case (issue 38).
func ExactDecimal(x *big.Rat, places, keep int) (string, bool) {
	num, den := x.Num(), x.Denom()
	if !num.IsInt64() || !den.IsInt64() || places > 18 {
		return "", false
	}
	d := uint64(den.Int64())
	k := 0 // the fewest places that hold x exactly
	for ; uint64Pow10[k]%d != 0; k++ {
		if k == places {
			return "", false
		}
	}
	n := num.Int64()
	hi, scaled := bits.Mul64(abs64(n), uint64Pow10[k]/d)
	if hi != 0 || scaled>>63 != 0 {
		return "", false
	}
	s := strconv.FormatUint(scaled/uint64Pow10[k], 10)
	frac := ""
	if k > 0 {
		frac = strconv.FormatUint(scaled%uint64Pow10[k]+uint64Pow10[k], 10)[1:]
	}
	frac = strings.TrimRight(frac, "0")
	for len(frac) < keep {
		frac += "0"
	}
	if frac != "" {
		s += "." + frac
	}
	if n < 0 {
		s = "-" + s
	}
	return s, true
}

// Pow10 is 10^d as a new value the caller may change (token base units per token: d is 6 or 18
// as a rule, from a table up to 10^18).
func Pow10(d uint8) *big.Int {
	if int(d) < len(uint64Pow10) {
		return new(big.Int).SetUint64(uint64Pow10[d])
	}
	return new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(d)), nil)
}

// uint64Pow10 are the powers of ten that fit an uint64.
var uint64Pow10 = [19]uint64{1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18}

// abs64 is |v| (2^63 for the least int64).
func abs64(v int64) uint64 {
	if v < 0 {
		return uint64(-v)
	}
	return uint64(v)
}
