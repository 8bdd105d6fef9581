package commands

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/payledger/payledger/domain/split"
	"github.com/payledger/payledger/eventstore"
)

// SplitStream is the stream of a merchant's split.
func SplitStream(wallet string) string { return split.Stream(wallet) }

var splitAggregate = Aggregate[split.State]{Apply: func(s split.State, e eventstore.RecordedEvent) (split.State, error) {
	if e.Type != split.EventConfigured {
		return s, nil
	}
	var c split.Configured
	if err := json.Unmarshal(e.Data, &c); err != nil {
		return s, fmt.Errorf("decode %s: %w", e.Type, err)
	}
	return split.Evolve(s, c), nil
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

// LoadSplit returns a merchant's split.
func LoadSplit(ctx context.Context, store Store, wallet string) (split.State, error) {
	l, err := Load(ctx, store, SplitStream(wallet), splitAggregate, split.State{})
	return l.State, err
}
