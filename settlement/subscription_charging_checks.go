package settlement

// The on-chain check of a wave's fresh claims, and the freeing of claims nothing was signed for.

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/rs/zerolog"

	"github.com/payledger/payledger/commands"
	"github.com/payledger/payledger/domain/split"
	"github.com/payledger/payledger/domain/subscription"
	"github.com/payledger/payledger/eventstore"
)

// spendChecks decides which fresh claims go on: the merchant's split must be deployed, and the
// chain must accept the spend now (one batch of reads). A refused spend is a failed charge.
type spendChecks struct {
	chain interface {
		OperatorAccount
		CheckSpends(ctx context.Context, checks []SpendCheck) ([]SpendStatus, error)
	}
	splits   *commands.Splits
	code     deployedSplits // shared across runs: code, once seen, stays
	claims   chargeClaims
	outcomes chargeOutcomes
}

// check checks fresh claims on chain in one batch: a merchant without a deployed split is
// skipped (the claim dropped); a spend the chain would refuse is a failed charge. It returns the
// others, each knowing whether its permission is approved.
func (c spendChecks) check(ctx context.Context, fresh []*chargeItem, meta eventstore.Metadata) ([]*chargeItem, error) {
	var ready []*chargeItem
	for _, it := range fresh {
		split, err := c.splitOf(ctx, it.row.Merchant)
		if errors.Is(err, commands.ErrSplitUndecodable) {
			if err := c.unreadable(ctx, it, err); err != nil {
				return nil, err
			}
			continue
		}
		if err != nil {
			return nil, err
		}
		if split == "" {
			if err := c.claims.drop(ctx, it.row); err != nil {
				return nil, err
			}
			it.res = resultOf(it, ResultSkipped, "the merchant's split contract is not deployed; nothing was charged")
			continue
		}
		it.row.Split = split
		ready = append(ready, it)
	}
	if len(ready) == 0 {
		return nil, nil
	}
	checks := make([]SpendCheck, len(ready))
	for i, it := range ready {
		checks[i] = SpendCheck{Permission: it.st.Permission, Amount: it.amount}
	}
	statuses, err := c.chain.CheckSpends(ctx, checks)
	if err != nil { // nothing was signed: free the periods for the next run
		c.claims.dropAll(ctx, ready)
		return nil, fmt.Errorf("check spends: %w", err)
	}
	var ok []*chargeItem
	for i, it := range ready {
		refusal := statuses[i].Refusal
		if strings.HasPrefix(refusal, subscription.ReasonPeriodSpent) {
			// This on-chain period was charged already (only the operator spends): a late charge
			// pushed the schedule into it. Not the customer's failure: nothing is recorded, the
			// claim is freed and a later run charges it once the chain's period turns. Before,
			// it was a failed charge every day until then (past_due, a charge_failed each time).
			if err := c.claims.drop(ctx, it.row); err != nil {
				return nil, err
			}
			it.res = resultOf(it, ResultSkipped, refusal+"; charged once the permission's next on-chain period starts")
			continue
		}
		if refusal != "" {
			if err := c.outcomes.fail(ctx, it, refusal, meta); err != nil {
				return nil, err
			}
			continue
		}
		it.approved = statuses[i].Approved
		ok = append(ok, it)
	}
	return ok, nil
}

// splitOf is the merchant's split contract, "" when none is configured or deployed.
func (c spendChecks) splitOf(ctx context.Context, merchant string) (string, error) {
	sp, err := c.splits.Get(ctx, merchant)
	if err != nil || !sp.Configured {
		return "", err
	}
	has, err := c.code.holdsCode(ctx, c.chain, sp.Address)
	if err != nil || !has {
		return "", err
	}
	return sp.Address, nil
}

// unreadable drops its claim and skips it: its merchant's split stream holds an event this
// build cannot read (err), so where the charge would go, and to whom it is released, is not
// known. It is that merchant's alone: before, the wave's check returned on it and no one in the
// wave was charged, every run. Logged at error level naming the stream; the run counts it
// (ChargeRun.Unreadable).
func (c spendChecks) unreadable(ctx context.Context, it *chargeItem, err error) error {
	c.claims.log.Error().Err(err).Str("subscription", it.row.SubscriptionID).Str("merchant", it.row.Merchant).
		Str("stream", split.Stream(it.row.Merchant)).
		Msg("subscription charging: the merchant's split holds an event this build cannot read; not charged, the others are")
	if err := c.claims.drop(ctx, it.row); err != nil {
		return err
	}
	it.res = resultOf(it, ResultSkipped, "the merchant's split holds a change this version of the service cannot read; nothing was charged")
	it.res.unreadable = true
	return nil
}

// chargeClaims frees the claims of this process (token) whose periods nothing was signed for,
// so that the next run may claim them at once.
type chargeClaims struct {
	ledger interface {
		Drop(ctx context.Context, token uuid.UUID, subscriptionID string, period int64) error
	}
	token uuid.UUID
	log   zerolog.Logger
}

// drop frees row's period; a claim another run took over meanwhile is not an error.
func (c chargeClaims) drop(ctx context.Context, row ChargeRow) error {
	if err := c.ledger.Drop(ctx, c.token, row.SubscriptionID, row.Period); err != nil && !errors.Is(err, ErrClaimLost) {
		return err
	}
	return nil
}

// dropAll frees the periods of the items nothing was signed for (status claimed).
func (c chargeClaims) dropAll(ctx context.Context, items []*chargeItem) {
	for _, it := range items {
		if it.row.Status != ChargeClaimed {
			continue
		}
		if err := c.drop(context.WithoutCancel(ctx), it.row); err != nil {
			c.log.Warn().Err(err).Msg("subscription charging: drop claim")
		}
	}
}

// cancelChecks reads each charge's subscription again right before its spend is signed: a
// cancel that landed after the claim (or after the approval was sent) charges nothing. A cancel
// after this check cannot stop the spend; the charge is then recorded (money that moved is
// always in the log) and the subscription stays cancelled.
type cancelChecks struct {
	store  commands.Store
	claims chargeClaims
	ledger interface {
		Finish(ctx context.Context, token uuid.UUID, row ChargeRow, status, reason string, at time.Time) error
	}
	token uuid.UUID
	now   func() time.Time
}

// live returns the items whose subscription is not cancelled. A cancelled one's claim is freed
// (claimed) or closed as failed without an event (an approval was sent, no spend): nothing was
// charged, and its result is skipped.
func (c cancelChecks) live(ctx context.Context, items []*chargeItem) ([]*chargeItem, error) {
	var out []*chargeItem
	for _, it := range items {
		st, err := commands.LoadSubscription(ctx, c.store, it.row.SubscriptionID)
		if err != nil {
			c.claims.dropAll(ctx, items)
			return nil, err
		}
		if st.Status != subscription.StatusCancelled {
			out = append(out, it)
			continue
		}
		it.st = st
		const reason = "the subscription was cancelled before the spend was sent; nothing was charged"
		if it.row.Status == ChargeClaimed {
			err = c.claims.drop(ctx, it.row)
		} else if err = c.ledger.Finish(ctx, c.token, it.row, ChargeFailed, reason, c.now()); errors.Is(err, ErrClaimLost) {
			err = nil
		}
		if err != nil {
			return nil, err
		}
		it.res = resultOf(it, ResultSkipped, reason)
	}
	return out, nil
}
