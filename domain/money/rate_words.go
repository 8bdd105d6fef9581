package money

import (
	"math/big"
	"math/bits"
	"strconv"
	"strings"
)

// Rate arithmetic on machine words. An order's rates are short decimals (0.0725, 0.029) applied to
// amounts in cents; through math/big, applying and writing them (a GCD after every operation)
// was about 4% of the service's CPU per order (issue 38). These give the same results as the
// math/big forms they stand in for (TestRateWordsAsBig), and decline whatever does not fit.

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

// decimalPlaces are the places Rate.String writes at most.
const decimalPlaces = 1_000_000_000_000

// shortDecimal is floatString12(x) for an x with at most 12 decimal places whose digits fit an
// int64 (ok false otherwise).
func shortDecimal(x *big.Rat) (string, bool) {
	num, den := x.Num(), x.Denom()
	if !num.IsInt64() || !den.IsInt64() || decimalPlaces%den.Int64() != 0 {
		return "", false
	}
	n := num.Int64()
	hi, scaled := bits.Mul64(abs64(n), uint64(decimalPlaces/den.Int64()))
	if hi != 0 || scaled>>63 != 0 {
		return "", false
	}
	s := strconv.FormatUint(scaled/decimalPlaces, 10)
	if frac := scaled % decimalPlaces; frac != 0 {
		s += "." + strings.TrimRight(strconv.FormatUint(frac+decimalPlaces, 10)[1:], "0")
	}
	if n < 0 {
		s = "-" + s
	}
	return s, true
}

// abs64 is |v| (2^63 for the least int64).
func abs64(v int64) uint64 {
	if v < 0 {
		return uint64(-v)
	}
	return uint64(v)
}
