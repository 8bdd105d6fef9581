package commands

// Bounds on subscription creation: POST /api/subscriptions/create is public and a fresh wallet's
// signature costs nothing, yet every subscription it creates is charged each period, and each
// failed charge sends the merchant subscription.charge_failed (its permission running a year,
// past_due retried daily). A creation is accepted only for a permission that can be charged its
// first period now, and a wallet holds a bounded number of live subscriptions to one plan.

import (
	"context"
	"fmt"

	"github.com/payledger/payledger/domain/onchain"
	"github.com/payledger/payledger/domain/subscription"
)

// SpendFunds reads on chain whether a spend of a permission could be made now: the customer's
// USDC balance and its allowance to the manager, the permission not revoked and in force, its
// period's allowance not spent (chain.ChargeOperator.CheckSpends, the charge's own check).
type SpendFunds interface {
	CheckSpends(ctx context.Context, checks []onchain.SpendCheck) ([]onchain.SpendStatus, error)
}

// LiveSubscriptions counts a customer's subscriptions to a plan that are neither cancelled nor
// ended (the subscriptions read model).
type LiveSubscriptions interface {
	LiveSubscriptions(ctx context.Context, customer, planID string) (int, error)
}

// MaxLiveSubscriptionsPerPlan bounds the live subscriptions one wallet holds to one plan: a
// customer who wants another cancels one first. Each is a permission of its own (its own salt),
// charged on its own: past the bound, one funded wallet would have the first charge succeed and
// every other fail, each failure a webhook to the merchant.
const MaxLiveSubscriptionsPerPlan = 3

// errTooManyLive refuses a creation past MaxLiveSubscriptionsPerPlan (409 conflict).
var errTooManyLive = &Refusal{Kind: KindConflict, Code: "conflict",
	Message: fmt.Sprintf("This wallet already holds %d subscriptions to this plan that are not cancelled; cancel one before subscribing again", MaxLiveSubscriptionsPerPlan)}

// errChainUnavailable answers a creation whose permission could not be read on chain (503).
var errChainUnavailable = &Refusal{Kind: KindUnavailable, Code: "chain_unavailable", Message: "The chain did not answer; try again"}

// checkBounds refuses c past the bounds above. It is no judge of c otherwise: a creation the
// decision refuses anyway (DecideCreate on a new stream), or one whose stream exists (a retried
// request: 409 as before), passes here and is answered as it was. Without Funds or Live (not
// configured) that check is not made. The live count is the read model's, which every creation
// waits for before it answers: requests sent at once may pass it together (the per-address limit
// of the route bounds them).
func (h *CreateSubscriptionHandler) checkBounds(ctx context.Context, c subscription.Create) error {
	if h.Funds == nil && h.Live == nil && h.Uncharged == nil {
		return nil
	}
	evs, err := subscription.DecideCreate(subscription.State{}, c, h.now())
	if err != nil || len(evs) != 1 {
		return nil
	}
	if st, err := LoadSubscription(ctx, h.store, c.ID); err != nil || st.Exists {
		return err
	}
	created, _ := evs[0].(subscription.Created)
	if h.Live != nil {
		n, err := h.Live.LiveSubscriptions(ctx, created.Customer, c.PlanID)
		if err != nil {
			return err
		}
		if n >= MaxLiveSubscriptionsPerPlan {
			return errTooManyLive
		}
	}
	if h.Funds == nil {
		return h.checkUncharged(ctx, created.Merchant)
	}
	price := subscription.PriceUnits(c.Plan.PriceUSD)
	st, err := h.Funds.CheckSpends(ctx, []onchain.SpendCheck{{Permission: created.Permission, Amount: price}})
	if err != nil || len(st) != 1 {
		return fmt.Errorf("check the spend permission on chain: %v: %w", err, errChainUnavailable)
	}
	if st[0].Refusal != "" {
		return Invalidf("the spend permission cannot be charged its first period (%s USDC base units) now: %s", price, st[0].Refusal)
	}
	return h.checkUncharged(ctx, created.Merchant)
}
