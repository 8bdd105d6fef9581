package commands

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/payledger/payledger/domain/split"
	"github.com/payledger/payledger/eventstore"
)

// SplitStream is the stream of a merchant's split.
func SplitStream(wallet string) string { return split.Stream(wallet) }

// ErrSplitUndecodable is an event of a split's stream that this build cannot read: data that
// does not fit its type, or ErrUnknownSplitEvent. No retry mends it, and it says nothing of the
// store being reachable: Splits.Get does not answer a remembered split for it.
var ErrSplitUndecodable = errors.New("split event does not decode")

// ErrUnknownSplitEvent is an event in a split's stream (or a split address's) of a type this
// build does not know: a newer build wrote it (a rollback, a rolling upgrade). It is refused, as
// receipt.ErrUnknownEvent and subscription.ErrUnknownEvent are, never skipped: a release to the
// split's recipients must not go by a state that leaves out a change a newer build recorded.
var ErrUnknownSplitEvent = fmt.Errorf("%w: unknown type", ErrSplitUndecodable)

// unknownSplitEvent is ErrUnknownSplitEvent for e (Load adds its stream and version).
func unknownSplitEvent(e eventstore.RecordedEvent) error {
	return fmt.Errorf("%w %s", ErrUnknownSplitEvent, e.Type)
}

// decodeSplitEvent reads e's data into v (ErrSplitUndecodable when it does not fit).
func decodeSplitEvent(e eventstore.RecordedEvent, v any) error {
	if err := json.Unmarshal(e.Data, v); err != nil {
		return fmt.Errorf("%w: %s: %w", ErrSplitUndecodable, e.Type, err)
	}
	return nil
}

var splitAggregate = Aggregate[split.State]{Apply: func(s split.State, e eventstore.RecordedEvent) (split.State, error) {
	switch e.Type {
	case split.EventRedeployed:
		var r split.Redeployed
		if err := decodeSplitEvent(e, &r); err != nil {
			return s, err
		}
		return split.EvolveRedeployed(s, r), nil
	case split.EventConfigured:
		var c split.Configured
		if err := decodeSplitEvent(e, &c); err != nil {
			return s, err
		}
		return split.Evolve(s, c), nil
	}
	return s, unknownSplitEvent(e)
}}

// SplitResult is a merchant's split after a configure command.
type SplitResult struct {
	State      split.State
	Idempotent bool // it was configured before; nothing changed
	Position   eventstore.Position
}

// ConfigureSplit configures a merchant's split once; later calls return the existing split.
// Errors are split.Decide's, or wrapped store errors.
func ConfigureSplit(ctx context.Context, store Store, now time.Time, meta eventstore.Metadata, c split.Configure) (SplitResult, error) {
	var configured []split.Configured
	loaded, res, err := Execute(ctx, store, SplitStream(c.Merchant), splitAggregate, split.State{},
		func(l Loaded[split.State]) (Decision, error) {
			evs, err := split.Decide(l.State, c, now)
			if err != nil || len(evs) == 0 {
				return nil, err
			}
			configured = evs
			ev, err := NewEvent(newEventID(), split.EventConfigured, evs[0], meta)
			return Decision{ev}, err
		})
	if err != nil {
		return SplitResult{}, err
	}
	if loaded.State.Configured {
		return SplitResult{State: loaded.State, Idempotent: true}, nil
	}
	return SplitResult{State: split.Evolve(loaded.State, configured[0]), Position: res.Position}, nil
}

// RedeploySplit records that merchant's split contract was deployed again at address (its
// configured one has no code on this chain). Errors: split.DecideRedeploy's, wrapped store errors.
func RedeploySplit(ctx context.Context, store Store, now time.Time, meta eventstore.Metadata, merchant, address, reason string) (split.State, error) {
	return redeploySplit(ctx, store, now, meta, split.Redeployed{Merchant: merchant, Address: address, Reason: reason})
}

// redeploySplit is RedeploySplit of r's merchant, address and reason, recording r.CodeSeenAt.
func redeploySplit(ctx context.Context, store Store, now time.Time, meta eventstore.Metadata, r split.Redeployed) (split.State, error) {
	var after split.State
	_, _, err := Execute(ctx, store, SplitStream(r.Merchant), splitAggregate, split.State{},
		func(l Loaded[split.State]) (Decision, error) {
			evs, err := split.DecideRedeploy(l.State, r.Merchant, r.Address, r.Reason, now)
			if err != nil {
				return nil, err
			}
			evs[0].CodeSeenAt = r.CodeSeenAt
			after = split.EvolveRedeployed(l.State, evs[0])
			ev, err := NewEvent(newEventID(), split.EventRedeployed, evs[0], meta)
			return Decision{ev}, err
		})
	return after, err
}

// LoadSplit returns a merchant's split.
func LoadSplit(ctx context.Context, store Store, wallet string) (split.State, error) {
	l, err := Load(ctx, store, SplitStream(wallet), splitAggregate, split.State{})
	return l.State, err
}
