package commands

import (
	"context"
	"errors"
	"fmt"

	"github.com/payledger/payledger/domain/subscription"
	"github.com/payledger/payledger/eventstore"
)

// ErrSubscriptionUndecodable marks an event of a subscription's stream that this build cannot
// read (subscription.ErrUnknownEvent, or data that does not fit its type), as ErrSplitUndecodable
// does for splits: no retry mends it and it is that subscription's alone, so the charging run
// passes over it and charges the others, where a store failure fails the run.
var ErrSubscriptionUndecodable = errors.New("subscription event does not decode")

// subscriptionAggregate refuses an event it cannot decode, of a type this build does not know
// (subscription.ErrUnknownEvent: a newer build wrote it) as one whose data does not fit, as the
// receipt aggregate does: a command must not charge, or answer, a subscription from a state that
// leaves out a pause or a cancellation a newer build recorded. Load names the stream and version.
var subscriptionAggregate = Aggregate[subscription.State]{Apply: func(s subscription.State, e eventstore.RecordedEvent) (subscription.State, error) {
	ev, err := subscription.Decode(e.Type, e.Data)
	if err != nil {
		return s, fmt.Errorf("%w: %w", ErrSubscriptionUndecodable, err)
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
