package commands

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math/big"
	"regexp"

	"github.com/payledger/payledger/domain/money"
	"github.com/payledger/payledger/domain/receipt"
	"github.com/payledger/payledger/eventstore"
)

// ChangeReceipt runs decide on a receipt's current state and appends the events it returns,
// retrying from a fresh load when another writer got there first. It returns the state after
// the events. Errors: decide's, receipt.ErrNotFound, wrapped store errors.
func ChangeReceipt(ctx context.Context, store Store, id string, meta eventstore.Metadata,
	decide func(receipt.State) ([]receipt.Event, error)) (receipt.State, eventstore.AppendResult, error) {
	var after receipt.State
	_, res, err := Execute(ctx, store, ReceiptStream(id), receiptAggregate, receipt.State{},
		func(l Loaded[receipt.State]) (Decision, error) {
			if !l.State.Exists {
				return nil, receipt.ErrNotFound
			}
			evs, err := decide(l.State)
			if err != nil {
				return nil, err
			}
			after = l.State
			for _, e := range evs {
				after = receipt.Evolve(after, e)
			}
			return receiptEvents(evs, meta)
		})
	return after, res, err
}

// receiptEvents are the decided receipt events as events to append, with meta.
func receiptEvents(evs []receipt.Event, meta eventstore.Metadata) (Decision, error) {
	out := make(Decision, len(evs))
	for i, e := range evs {
		var err error
		if out[i], err = NewEvent(newEventID(), receipt.TypeOf(e), e, meta); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// PaymentTokens are the tokens a receipt can be paid or quoted in.
var PaymentTokens = []string{"ETH", "USDC", "USDT", "cbBTC", "cbXRP"}

var (
	txHashRE = regexp.MustCompile(`^0x[0-9a-fA-F]{64}$`)
	walletRE = regexp.MustCompile(`^0x[0-9a-fA-F]{40}$`)
)

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
