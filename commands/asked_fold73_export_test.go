package commands

import (
	"context"

	"github.com/payledger/payledger/domain/receipt"
)

// LoadAsked loads receipt id as a processor's report is judged (askedAggregate): its state and
// what the service asked each onramp session for.
func LoadAsked(ctx context.Context, store Store, id string) (receipt.State, map[string]int64, error) {
	l, err := Load(ctx, store, ReceiptStream(id), askedAggregate, askedState{})
	return l.State.State, l.State.asked, err
}
