package commands

import (
	"context"
	"errors"
	"time"

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
// split, marked Idempotent. Errors: ErrPlatformRecipient, Invalid (no contract address, or a
// broken split rule, saying which), ErrContended, wrapped store errors.
func (h *ConfigureSplitHandler) Handle(ctx context.Context, cmd ConfigureMerchantSplit) (SplitResult, error) {
	c := split.Configure{Merchant: cmd.Merchant, Address: cmd.Address, Platform: h.platform}
	if cmd.Recipients != nil {
		c.Recipients = *cmd.Recipients
		if c.Recipients == nil {
			c.Recipients = []split.Recipient{}
		}
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
