package commands

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math/big"
	"regexp"

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
// that is not a plain non-negative decimal (money.ParseDecimal), longer than maxSourceAmountLen,
// or above maxSourceCents.
func dollarsToCents(n string) (*int64, error) {
	if n == "" {
		return nil, nil
	}
	if len(n) > maxSourceAmountLen {
		return nil, fmt.Errorf("invalid amount %q", truncated(n))
	}
	r, err := money.ParseDecimal(n)
	if err != nil {
		return nil, fmt.Errorf("invalid amount %q", n)
	}
	c := money.RoundHalfUpInt(r.Mul(r, big.NewRat(100, 1)))
	if !c.IsInt64() || c.Int64() > maxSourceCents {
		return nil, fmt.Errorf("amount %q is too large", n)
	}
	v := c.Int64()
	return &v, nil
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
