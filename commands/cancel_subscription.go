package commands

import (
	"context"
	"fmt"
	"time"

	"github.com/payledger/payledger/domain/subscription"
	"github.com/payledger/payledger/eventstore"
)

// CancelSubscription is a customer's cancellation; By is the signed-in wallet.
type CancelSubscription struct {
	ID   string
	By   string
	Meta eventstore.Metadata
}

// CancelSubscriptionHandler cancels subscriptions.
type CancelSubscriptionHandler struct {
	store Store
	now   func() time.Time
}

// NewCancelSubscriptionHandler returns the handler; it panics on a nil dependency.
func NewCancelSubscriptionHandler(store Store, now func() time.Time) *CancelSubscriptionHandler {
	if store == nil || now == nil {
		panic("commands.NewCancelSubscriptionHandler: nil dependency")
	}
	return &CancelSubscriptionHandler{store: store, now: now}
}

// Handle cancels on behalf of cmd.By. Errors: subscription.ErrNotFound, ErrNotCustomer,
// ErrCancelled (as the domain returns them), ErrContended, wrapped store errors.
func (h *CancelSubscriptionHandler) Handle(ctx context.Context, cmd CancelSubscription) (SubscriptionResult, error) {
	if cmd.ID == "" {
		return SubscriptionResult{}, Invalid("subscriptionId is required")
	}
	return ChangeSubscription(ctx, h.store, cmd.ID, cmd.Meta, func(s subscription.State) ([]subscription.Event, error) {
		evs, err := subscription.DecideCancel(s, subscription.Cancel{By: cmd.By}, h.now())
		if err != nil {
			return nil, fmt.Errorf("subscription %s: %w", cmd.ID, err)
		}
		return evs, nil
	})
}
