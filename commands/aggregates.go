package commands

import (
	"context"

	"github.com/payledger/payledger/domain/receipt"
	"github.com/payledger/payledger/domain/split"
	"github.com/payledger/payledger/domain/subscription"
)

// Aggregates are the queries that fold an aggregate's current state from its stream, for the
// reads that must see the event log itself rather than a read model: a status the receipts
// projection does not show yet, a quote the customer has just been answered, a merchant's split,
// a subscription by id. The HTTP handlers call these instead of loading streams themselves
// (issue 39).
type Aggregates struct{ store Store }

// NewAggregates reads the aggregates of store.
func NewAggregates(store Store) *Aggregates { return &Aggregates{store: store} }

// ReceiptState is receipt id's state (Exists false: no event yet).
func (a *Aggregates) ReceiptState(ctx context.Context, id string) (receipt.State, error) {
	l, err := LoadReceipt(ctx, a.store, id)
	return l.State, err
}

// Split is wallet's split (Configured false: none yet).
func (a *Aggregates) Split(ctx context.Context, wallet string) (split.State, error) {
	return LoadSplit(ctx, a.store, wallet)
}

// Subscription is subscription id's state (Exists false: none).
func (a *Aggregates) Subscription(ctx context.Context, id string) (subscription.State, error) {
	return LoadSubscription(ctx, a.store, id)
}
