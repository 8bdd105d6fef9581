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

// dollarsToCents reads a USD amount ("" for none), rounding half-up to the cent.
func dollarsToCents(n string) (*int64, error) {
	if n == "" {
		return nil, nil
	}
	r, ok := new(big.Rat).SetString(n)
	if !ok || r.Sign() < 0 {
		return nil, fmt.Errorf("invalid amount %q", n)
	}
	c := int64(money.RoundHalfUp(r.Mul(r, big.NewRat(100, 1))))
	return &c, nil
}

// numberText is n's text, "" for none.
func numberText(n *json.Number) string {
	if n == nil {
		return ""
	}
	return n.String()
}
