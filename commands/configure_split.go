package commands

import (
	"context"
	"errors"
	"time"

	"github.com/payledger/payledger/domain/address"
	"github.com/payledger/payledger/domain/split"
	"github.com/payledger/payledger/eventstore"
)

// SplitRecipient is a payee of a split and its share in basis points.
type SplitRecipient = split.Recipient

// SplitState is a merchant's split: configured or not, its contract and recipients.
type SplitState = split.State

// ConfigureMerchantSplit configures a merchant's split contract and its recipients, once.
type ConfigureMerchantSplit struct {
	Merchant   string
	Address    string            // the split contract
	Recipients *[]SplitRecipient // nil: the default, the merchant and the platform recipient
	CodeSeenAt int64             // the time (Unix s) of a block the contract's code was read in; 0: none
	Meta       eventstore.Metadata
}

// ConfigureSplitHandler configures merchants' splits.
type ConfigureSplitHandler struct {
	store    Store
	platform string
	now      func() time.Time
}

// Platform is the platform recipient the handler configures splits with (PLATFORM_RECIPIENT).
func (h *ConfigureSplitHandler) Platform() string { return h.platform }

// Current is merchant's split as its stream says now. Errors: wrapped store errors.
func (h *ConfigureSplitHandler) Current(ctx context.Context, merchant string) (SplitState, error) {
	return LoadSplit(ctx, h.store, merchant)
}

// NewConfigureSplitHandler returns the handler; platformRecipient is PLATFORM_RECIPIENT ("": a
// split with the default recipients is refused). It panics on a nil dependency.
func NewConfigureSplitHandler(store Store, platformRecipient string, now func() time.Time) *ConfigureSplitHandler {
	if store == nil || now == nil {
		panic("commands.NewConfigureSplitHandler: nil dependency")
	}
	return &ConfigureSplitHandler{store: store, platform: platformRecipient, now: now}
}

// Handle configures the split unless it is configured already; then it returns the existing
// split, marked Idempotent. Errors: ErrPlatformRecipient, ErrSplitClaimed, Invalid (no contract address, or a
// broken split rule, saying which), ErrContended, wrapped store errors.
func (h *ConfigureSplitHandler) Handle(ctx context.Context, cmd ConfigureMerchantSplit) (SplitResult, error) {
	c := split.Configure{Merchant: cmd.Merchant, Address: cmd.Address, Platform: h.platform, CodeSeenAt: cmd.CodeSeenAt}
	if cmd.Recipients != nil {
		c.Recipients = *cmd.Recipients
		if c.Recipients == nil {
			c.Recipients = []split.Recipient{}
		}
	}
	if err := h.claim(ctx, cmd, c); err != nil {
		return SplitResult{}, err
	}
	res, err := ConfigureSplit(ctx, h.store, h.now(), cmd.Meta, c)
	switch {
	case errors.Is(err, split.ErrPlatformNotConfigured):
		return res, ErrPlatformRecipient
	case errors.Is(err, split.ErrAddressRequired):
		return res, Invalid("splitAddress is required: " + err.Error())
	case errors.Is(err, split.ErrInvalid):
		return res, Invalid(err.Error())
	}
	return res, err
}

// ErrSplitClaimed: the split contract is configured by another merchant (DESIGN 9).
var ErrSplitClaimed = &Refusal{Kind: KindConflict, Code: "conflict", Message: "This split contract is configured by another merchant"}

var ownerAggregate = Aggregate[split.Owner]{Apply: func(o split.Owner, e eventstore.RecordedEvent) (split.Owner, error) {
	if e.Type != split.EventAddressClaimed {
		return o, unknownSplitEvent(e)
	}
	var c split.AddressClaimed
	if err := decodeSplitEvent(e, &c); err != nil {
		return o, err
	}
	return split.EvolveOwner(o, c), nil
}}

// CheckOwner refuses, with ErrSplitClaimed, a split contract address another merchant owns.
// Errors: ErrSplitClaimed, wrapped store errors.
func (h *ConfigureSplitHandler) CheckOwner(ctx context.Context, merchant, address string) error {
	l, err := Load(ctx, h.store, split.AddressStream(address), ownerAggregate, split.Owner{})
	if err != nil {
		return err
	}
	if _, err := split.DecideClaim(l.State, merchant, address, h.now()); errors.Is(err, split.ErrClaimed) {
		return ErrSplitClaimed
	}
	return nil
}

// claim makes cmd's merchant the owner of the split contract it names, before the split is
// configured, unless the merchant's split is configured already (its later calls change
// nothing) or the split breaks a rule (the configuration refuses it: a refused request claims
// nothing, so it can neither take another merchant's contract nor grow the address streams). The
// claim is its own stream, so two merchants naming one address at once: one claims it, the other
// is refused. A claim whose configuration then fails (a store error) stays the merchant's.
// Errors: ErrSplitClaimed, store errors.
func (h *ConfigureSplitHandler) claim(ctx context.Context, cmd ConfigureMerchantSplit, c split.Configure) error {
	if !address.Valid(cmd.Address) {
		return nil
	}
	if _, err := split.Decide(split.State{}, c, h.now()); err != nil {
		return nil
	}
	current, err := LoadSplit(ctx, h.store, cmd.Merchant)
	if err != nil || current.Configured {
		return err
	}
	_, _, err = Execute(ctx, h.store, split.AddressStream(cmd.Address), ownerAggregate, split.Owner{},
		func(l Loaded[split.Owner]) (Decision, error) {
			evs, err := split.DecideClaim(l.State, cmd.Merchant, cmd.Address, h.now())
			if err != nil || len(evs) == 0 {
				return nil, err
			}
			ev, err := NewEvent(newEventID(), split.EventAddressClaimed, evs[0], cmd.Meta)
			return Decision{ev}, err
		})
	if errors.Is(err, split.ErrClaimed) {
		return ErrSplitClaimed
	}
	return err
}
