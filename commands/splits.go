package commands

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/payledger/payledger/domain/split"
)

// SplitFreshness is how long a configured split read from its stream is used before it is read
// again. A configured split's recipients never change, but its address does when it is deployed
// again (split.Redeployed, by this instance or another): deposits and onramp sessions must not go
// on paying the address it left, which holds no code on the chain followed.
const SplitFreshness = 2 * time.Second

// Splits reads merchants' splits for the commands that need one configured (orders, onramp,
// wallet payments, deposits). A configured split is remembered for SplitFreshness, and also
// beyond it while its stream cannot be read (the datastore down: degraded orders); an
// unconfigured one is read again each time.
type Splits struct {
	store      Store
	now        func() time.Time
	configured sync.Map // wallet -> rememberedSplit
}

type rememberedSplit struct {
	state split.State
	read  time.Time
}

// NewSplits returns a split reader over store. It panics on a nil store: a wiring mistake.
func NewSplits(store Store) *Splits {
	if store == nil {
		panic("commands.NewSplits: nil store")
	}
	return &Splits{store: store, now: time.Now}
}

// WithClock sets the clock that ages remembered splits (tests).
func (s *Splits) WithClock(now func() time.Time) *Splits {
	s.now = now
	return s
}

// Get returns wallet's split, configured or not: the remembered one while fresh, else read from
// its stream (the remembered one when that read fails, unless the stream holds an event this
// build cannot read: a newer build may have changed the split, ErrSplitUndecodable). Errors:
// ErrSplitUndecodable, wrapped store errors.
func (s *Splits) Get(ctx context.Context, wallet string) (split.State, error) {
	v, ok := s.configured.Load(wallet)
	if ok && s.now().Sub(v.(rememberedSplit).read) < SplitFreshness {
		return v.(rememberedSplit).state, nil
	}
	st, err := s.Reload(ctx, wallet)
	if err != nil && ok && !errors.Is(err, ErrSplitUndecodable) {
		return v.(rememberedSplit).state, nil
	}
	return st, err
}

// Reload reads wallet's split from its stream again, past the remembered one: a split deployed
// again on a new chain (split.Redeployed) has moved. Errors: wrapped store errors.
func (s *Splits) Reload(ctx context.Context, wallet string) (split.State, error) {
	at := s.now()
	st, err := LoadSplit(ctx, s.store, wallet)
	if err == nil && st.Configured {
		s.configured.Store(wallet, rememberedSplit{state: st, read: at})
	}
	return st, err
}

// Require returns wallet's configured split, or ErrSplitRequired.
func (s *Splits) Require(ctx context.Context, wallet string) (split.State, error) {
	st, err := s.Get(ctx, wallet)
	if err != nil {
		return st, err
	}
	if !st.Configured {
		return st, ErrSplitRequired
	}
	return st, nil
}
