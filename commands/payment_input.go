package commands

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math/big"
	"regexp"
	"strings"

	"github.com/payledger/payledger/domain/money"
)

// The shape rules and helpers the payment use cases share.

var txHashRE = regexp.MustCompile(`^0x[0-9a-fA-F]{64}$`)

// Messages of the shape rules that several payment commands share.
const (
	msgTxHash = "transactionHash must be 0x followed by 64 hex characters"
	msgAmount = "amountUsd must be a positive amount with at most 2 decimals"
)

// newAttemptID names a new payment attempt.
func newAttemptID() string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return "att_" + hex.EncodeToString(b[:])
}

// maxSourceAmountLen and maxSourceCents bound a processor's USD amount: its text (a plain decimal
// never needs more; big.Rat would expand "1e1000000" digit by digit) and its value (money's bound
// on amounts, ten trillion dollars; past int64 the cents wrapped, even to a negative amount).
const (
	maxSourceAmountLen = 64
	maxSourceCents     = 1_000_000_000_000_000
)

// dollarsToCents reads a USD amount ("" for none), rounding half-up to the cent. Errors: text
// that is not a plain non-negative decimal (digits, a fraction, an exponent of at most two
// digits), longer than maxSourceAmountLen, or above maxSourceCents.
func dollarsToCents(n string) (*int64, error) {
	if n == "" {
		return nil, nil
	}
	if len(n) > maxSourceAmountLen || !plainUSD(n) {
		return nil, fmt.Errorf("invalid amount %q", truncated(n))
	}
	r, ok := new(big.Rat).SetString(n)
	if !ok || r.Sign() < 0 {
		return nil, fmt.Errorf("invalid amount %q", n)
	}
	c := money.RoundHalfUpInt(r.Mul(r, big.NewRat(100, 1)))
	if !c.IsInt64() || c.Int64() > maxSourceCents {
		return nil, fmt.Errorf("amount %q is too large", n)
	}
	v := c.Int64()
	return &v, nil
}

// plainUSD reports whether s is digits with an optional fraction and an optional exponent of at
// most two digits, what a JSON number's text is; big.Rat reads far more (fractions "3/1", base
// prefixes, underscores, exponents of any size).
func plainUSD(s string) bool {
	mant, exp, hasExp := strings.Cut(strings.ToLower(s), "e")
	if hasExp {
		exp = strings.TrimPrefix(strings.TrimPrefix(exp, "-"), "+")
		if len(exp) == 0 || len(exp) > 2 || !digitsOnly(exp) {
			return false
		}
	}
	whole, frac, _ := strings.Cut(mant, ".")
	return len(whole)+len(frac) > 0 && digitsOnly(whole) && digitsOnly(frac)
}

func digitsOnly(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// truncated is s cut to maxSourceAmountLen bytes, for an error message.
func truncated(s string) string {
	if len(s) > maxSourceAmountLen {
		return s[:maxSourceAmountLen] + "…"
	}
	return s
}

// numberText is n's text, "" for none.
func numberText(n *json.Number) string {
	if n == nil {
		return ""
	}
	return n.String()
}
