package money

import (
	"math/big"
	"regexp"
	"strconv"
)

// jsonNumberRE is a JSON number's grammar, with an exponent of at most three digits.
var jsonNumberRE = regexp.MustCompile(`^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]{1,3})?$`)

// WholeNumber reads a count given as a JSON number: an integer, or a whole number written with a
// fraction or an exponent (5.0, 1e2: what a client's float gives, json.dumps(1.0) in Python).
// Anything else is an error: a fraction, a number past int64, or a literal longer than 64
// characters. An order's qty, an item's stockQty and a split's sharesBps are read by it.
func WholeNumber(lit string) (int64, error) {
	if n, err := strconv.ParseInt(lit, 10, 64); err == nil {
		return n, nil
	}
	if len(lit) > 64 || !jsonNumberRE.MatchString(lit) {
		return 0, strconv.ErrSyntax
	}
	r, ok := new(big.Rat).SetString(lit)
	if !ok || !r.IsInt() || !r.Num().IsInt64() {
		return 0, strconv.ErrSyntax
	}
	return r.Num().Int64(), nil
}
