package commands

import (
	"context"
	"sync"

	"github.com/payledger/payledger/domain/split"
)

// Splits reads merchants' splits for the commands that need one configured (orders, onramp,
// wallet payments). A configured split never changes, so it is remembered; an unconfigured one
// is read again each time.
type Splits struct {
	store      Store
	configured sync.Map // wallet -> split.State
}

// NewSplits returns a split reader over store. It panics on a nil store: a wiring mistake.
func NewSplits(store Store) *Splits {
	if store == nil {
		panic("commands.NewSplits: nil store")
	}
	return &Splits{store: store}
}

// Get returns wallet's split, configured or not. Errors: wrapped store errors.
func (s *Splits) Get(ctx context.Context, wallet string) (split.State, error) {
	if st, ok := s.configured.Load(wallet); ok {
		return st.(split.State), nil
	}
	st, err := LoadSplit(ctx, s.store, wallet)
	if err == nil && st.Configured {
		s.configured.Store(wallet, st)
	}
	return st, err
}

// Reload reads wallet's split from its stream again, past the remembered one: a split deployed
// again on a new chain (split.Redeployed) has moved. Errors: wrapped store errors.
func (s *Splits) Reload(ctx context.Context, wallet string) (split.State, error) {
	st, err := LoadSplit(ctx, s.store, wallet)
	if err == nil && st.Configured {
		s.configured.Store(wallet, st)
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
