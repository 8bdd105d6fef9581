package commands

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/payledger/payledger/domain/subscription"
	"github.com/payledger/payledger/eventstore"
)

var subscriptionAggregate = Aggregate[subscription.State]{Apply: func(s subscription.State, e eventstore.RecordedEvent) (subscription.State, error) {
	ev, err := subscription.Decode(e.Type, e.Data)
	if errors.Is(err, subscription.ErrUnknownEvent) {
		return s, nil
	}
	if err != nil {
		return s, err
	}
	return subscription.Evolve(s, ev), nil
}}

// LoadSubscription returns a subscription as its stream says (not Exists when there is none).
func LoadSubscription(ctx context.Context, store Store, id string) (subscription.State, error) {
	l, err := Load(ctx, store, subscription.Stream(id), subscriptionAggregate, subscription.State{})
	return l.State, err
}

// ChangeSubscription runs decide through the pipeline on subscription id's stream and returns
// the state after the new events. subscription.ErrInvalid errors become Invalid with their text.
func ChangeSubscription(ctx context.Context, store Store, id string, meta eventstore.Metadata,
	decide func(subscription.State) ([]subscription.Event, error)) (SubscriptionResult, error) {
	var decided []subscription.Event
	loaded, res, err := Execute(ctx, store, subscription.Stream(id), subscriptionAggregate, subscription.State{},
		func(l Loaded[subscription.State]) (Decision, error) {
			evs, err := decide(l.State)
			if err != nil {
				return nil, err
			}
			decided = evs
			out := make(Decision, len(evs))
			for i, e := range evs {
				if out[i], err = NewEvent(newEventID(), subscription.TypeOf(e), e, meta); err != nil {
					return nil, err
				}
			}
			return out, nil
		})
	if errors.Is(err, subscription.ErrInvalid) {
		return SubscriptionResult{}, Invalid(err.Error())
	}
	if err != nil {
		return SubscriptionResult{}, err
	}
	s := loaded.State
	for _, e := range decided {
		s = subscription.Evolve(s, e)
	}
	return SubscriptionResult{State: s, Position: res.Position}, nil
}

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
