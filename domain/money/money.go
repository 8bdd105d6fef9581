// Package money is exact money arithmetic: amounts are integer minor units (cents), rates are
// exact decimals (big.Rat), and rounding is half-up to the cent.
package money

import (
	"errors"
	"fmt"
	"math/big"
	"strings"
)

// Cents is an amount in minor units.
type Cents int64

// ErrInvalidAmount is returned for a decimal that is negative, malformed or has more than two
// decimal places.
var ErrInvalidAmount = errors.New("invalid amount")

// ParseCents reads a decimal string such as "12.5" or "3" as cents. At most two decimal places;
// negative values are rejected.
func ParseCents(s string) (Cents, error) {
	r, err := ParseDecimal(s)
	if err != nil {
		return 0, err
	}
	c := new(big.Rat).Mul(r, big.NewRat(100, 1))
	if !isWhole(c) {
		return 0, fmt.Errorf("%w: %q has more than two decimal places", ErrInvalidAmount, s)
	}
	if !c.Num().IsInt64() || c.Num().Int64() > 1e15 {
		return 0, fmt.Errorf("%w: %q is too large", ErrInvalidAmount, s)
	}
	return Cents(c.Num().Int64()), nil
}

// ParseDecimal reads an amount's text exactly: a plain non-negative decimal (see plainDecimal),
// the one syntax every amount a client or a processor sends is read with. Errors wrap
// ErrInvalidAmount.
func ParseDecimal(s string) (*big.Rat, error) {
	t := strings.TrimSpace(s)
	if !plainDecimal(t) {
		return nil, fmt.Errorf("%w: %q", ErrInvalidAmount, s)
	}
	r, ok := new(big.Rat).SetString(significantDecimal(t))
	if !ok || r.Sign() < 0 {
		return nil, fmt.Errorf("%w: %q", ErrInvalidAmount, s)
	}
	return r, nil
}

func isWhole(r *big.Rat) bool { return r.IsInt() }

// plainDecimal reports whether s is digits (an optional "+" first) with an optional fraction and
// an exponent of at most two digits (what a client sends, a JSON number's text included). big.Rat reads far more: a
// fraction ("300/3"), base prefixes ("0x64"), underscores, and exponents it expands digit by
// digit (a million took about 30 ms of CPU, for an amount refused anyway).
func plainDecimal(s string) bool {
	mant, exp, hasExp := strings.Cut(strings.ToLower(s), "e")
	if hasExp {
		exp = strings.TrimPrefix(strings.TrimPrefix(exp, "-"), "+")
		if len(exp) == 0 || len(exp) > 2 || !allDigits(exp) {
			return false
		}
	}
	whole, frac, _ := strings.Cut(strings.TrimPrefix(mant, "+"), ".")
	significant := len(whole) + len(strings.TrimRight(frac, "0")) // "12.50000…" is 12.50, however many zeros
	return len(whole)+len(frac) > 0 && significant <= 40 && allDigits(whole) && allDigits(frac)
}

// significantDecimal is plain decimal s without the trailing zeros of its fraction, which
// plainDecimal lets through in any number: big.Rat reads "12.5" and a million zeros as a
// fraction over 10^1000001 and reduces it, seconds of CPU for 12.50.
func significantDecimal(s string) string {
	mant, exp := s, ""
	if i := strings.IndexAny(s, "eE"); i >= 0 {
		mant, exp = s[:i], s[i:]
	}
	if strings.Contains(mant, ".") {
		mant = strings.TrimSuffix(strings.TrimRight(mant, "0"), ".")
	}
	if mant == "" || mant == "+" {
		mant += "0"
	}
	return mant + exp
}

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// String renders cents as a decimal with two places, e.g. "12.50".
func (c Cents) String() string {
	sign := ""
	v := int64(c)
	if v < 0 {
		sign, v = "-", -v
	}
	return fmt.Sprintf("%s%d.%02d", sign, v/100, v%100)
}

// Float is the amount in major units for JSON output only; it is never used for arithmetic.
func (c Cents) Float() float64 {
	// Both operands are exact below 2^53 and IEEE division rounds correctly, so this is the
	// float64 nearest to c/100, as big.Rat's Float64 would give, without its allocations.
	if c > -1<<53 && c < 1<<53 {
		return float64(c) / 100
	}
	f, _ := new(big.Rat).SetFrac64(int64(c), 100).Float64()
	return f
}

// Rate is an exact decimal rate, 0.0725 for 7.25%.
type Rate struct{ r *big.Rat }

// ParseRate reads a decimal rate such as "0.0725".
func ParseRate(s string) (Rate, error) {
	r, ok := new(big.Rat).SetString(strings.TrimSpace(s))
	if !ok {
		return Rate{}, fmt.Errorf("invalid rate %q", s)
	}
	return Rate{r}, nil
}

// MustRate is ParseRate for constants; it panics on a malformed literal.
func MustRate(s string) Rate {
	r, err := ParseRate(s)
	if err != nil {
		panic(err)
	}
	return r
}

// Percent turns a percentage such as "1.25" into the rate 0.0125.
func Percent(p Rate) Rate { return Rate{new(big.Rat).Quo(p.rat(), big.NewRat(100, 1))} }

func (r Rate) rat() *big.Rat {
	if r.r == nil {
		return new(big.Rat)
	}
	return r.r
}

// Add returns r + q.
func (r Rate) Add(q Rate) Rate { return Rate{new(big.Rat).Add(r.rat(), q.rat())} }

// Cmp compares r and q like big.Rat.Cmp.
func (r Rate) Cmp(q Rate) int { return r.rat().Cmp(q.rat()) }

// Sign is -1, 0 or 1.
func (r Rate) Sign() int { return r.rat().Sign() }

// String renders the rate exactly, with no trailing zeros ("0.0725"), rounded to 12 places.
func (r Rate) String() string {
	if s, ok := ExactDecimal(r.rat(), 12, 0); ok {
		return s
	}
	return floatString12(r.rat())
}

// Recorded is r as String writes it: r itself when that is exact, else r rounded to 12 decimal
// places. A rate that is applied and also recorded is applied as recorded, so that the amount is
// what the recorded rate gives.
func (r Rate) Recorded() Rate {
	if _, ok := ExactDecimal(r.rat(), 12, 0); ok {
		return r
	}
	return MustRate(floatString12(r.rat()))
}

// floatString12 is String through math/big, for any rational (ExactDecimal writes the common
// ones from integers).
func floatString12(x *big.Rat) string {
	s := x.FloatString(12)
	s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	if s == "" || s == "-" {
		return "0"
	}
	return s
}

// Float is the rate for JSON output only.
func (r Rate) Float() float64 {
	f, _ := r.rat().Float64()
	return f
}

// Apply returns amount × r rounded half-up to the cent (half away from zero for negatives).
func (r Rate) Apply(amount Cents) Cents {
	x := r.rat()
	if q, ok := applySmall(int64(amount), x); ok {
		return Cents(q)
	}
	return Cents(roundHalfUp(new(big.Int).Mul(big.NewInt(int64(amount)), x.Num()), x.Denom()).Int64())
}

// RoundHalfUp rounds an exact number of cents to an integer, halves away from zero.
func RoundHalfUp(x *big.Rat) Cents {
	return Cents(RoundHalfUpInt(x).Int64())
}

// RoundHalfUpInt rounds x to an integer, halves away from zero, without the int64 bound of Cents
// (token base units: 18-decimal amounts exceed it).
func RoundHalfUpInt(x *big.Rat) *big.Int {
	return roundHalfUp(new(big.Int).Set(x.Num()), x.Denom())
}

// roundHalfUp is num/den (den > 0) rounded to an integer, halves away from zero; it changes num,
// never den.
func roundHalfUp(num, den *big.Int) *big.Int {
	neg := num.Sign() < 0
	num.Abs(num)
	twice := new(big.Int).Mul(num, big.NewInt(2))
	twice.Add(twice, den)
	q := new(big.Int).Quo(twice, new(big.Int).Mul(den, big.NewInt(2)))
	if neg {
		q.Neg(q)
	}
	return q
}

// PositiveUnits reports whether units is a positive whole number of a token's base units: what
// a transfer must move to pay anything (one of nothing can be logged by anyone, to any address).
func PositiveUnits(units string) bool {
	n, ok := new(big.Int).SetString(units, 10)
	return ok && n.Sign() > 0
}
