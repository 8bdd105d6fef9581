package commands

import (
	"context"
	"errors"

	"github.com/payledger/payledger/domain/split"
	"github.com/payledger/payledger/eventstore"
)

// Redeployed records that merchant's configured split was deployed again at address, a contract
// the service has just deployed because the configured one holds no code on the chain it follows
// (a new development chain, issue 40): the address is claimed for the merchant, then the split
// moves to it, recipients unchanged. codeSeenAt is the time (Unix s) of a block its code was read
// in (0: none; split.Redeployed.CodeSeenAt). Errors: ErrSplitClaimed, Invalid (split.DecideRedeploy's
// refusals), wrapped store errors.
func (h *ConfigureSplitHandler) Redeployed(ctx context.Context, merchant, address, reason string, codeSeenAt int64, meta eventstore.Metadata) (SplitResult, error) {
	_, _, err := Execute(ctx, h.store, split.AddressStream(address), ownerAggregate, split.Owner{},
		func(l Loaded[split.Owner]) (Decision, error) {
			evs, err := split.DecideClaim(l.State, merchant, address, h.now())
			if err != nil || len(evs) == 0 {
				return nil, err
			}
			ev, err := NewEvent(newEventID(), split.EventAddressClaimed, evs[0], meta)
			return Decision{ev}, err
		})
	if errors.Is(err, split.ErrClaimed) {
		return SplitResult{}, ErrSplitClaimed
	}
	if err != nil {
		return SplitResult{}, err
	}
	st, err := redeploySplit(ctx, h.store, h.now(), meta, split.Redeployed{Merchant: merchant, Address: address, Reason: reason, CodeSeenAt: codeSeenAt})
	if errors.Is(err, split.ErrInvalid) {
		return SplitResult{}, Invalid(err.Error())
	}
	return SplitResult{State: st}, err
}
