package settlement

// The first step of a charging run: which subscriptions are due, and the claim of each.

import (
	"context"
	"fmt"
	"math/big"
	"time"

	"github.com/payledger/payledger/commands"
	"github.com/payledger/payledger/domain/subscription"
)

// dueCharges finds what a run charges: the subscriptions the read model lists as due, a page of
// limit at a time, each checked against its stream, made into a claimable charge. It reads only;
// claiming is the run's.
type dueCharges struct {
	store commands.Store
	due   DueSubscriptions
	now   func() time.Time
	limit int
}

// list loads a page of the due subscriptions (ids after after) and prepares a charge of each
// that can be charged now; skipped holds the results of those outside their permission (no claim
// is made for them); last is the page's last id, "" when there are no more pages.
func (d dueCharges) list(ctx context.Context, after string) (items []*chargeItem, skipped []ChargeResult, last string, err error) {
	ids, err := d.due.DueSubscriptions(ctx, d.now(), after, d.limit)
	if err != nil {
		return nil, nil, "", err
	}
	if len(ids) == d.limit {
		last = ids[len(ids)-1]
	}
	for _, id := range ids {
		st, err := commands.LoadSubscription(ctx, d.store, id)
		if err != nil {
			return nil, skipped, "", err
		}
		it, skip, err := d.prepare(st, id)
		switch {
		case err != nil: // cancelled or not due after all (the read model lags): nothing to do
			continue
		case skip != nil:
			skipped = append(skipped, *skip)
			continue
		}
		items = append(items, it)
	}
	return items, skipped, last, nil
}

// prepare checks that st can be charged now and builds its claim. Errors: the domain's
// (not found, cancelled, not due); skip: a result without a claim (outside the permission).
func (d dueCharges) prepare(st subscription.State, id string) (*chargeItem, *ChargeResult, error) {
	now := d.now()
	switch {
	case !st.Exists:
		return nil, nil, subscription.ErrNotFound
	case st.Status == subscription.StatusCancelled:
		return nil, nil, fmt.Errorf("subscription %s: %w", id, subscription.ErrCancelled)
	case now.UnixMilli() < st.NextChargeAt:
		return nil, nil, fmt.Errorf("%w: the next charge is due at %d", subscription.ErrNotDue, st.NextChargeAt)
	}
	if !st.Permission.Contains(now) {
		return nil, &ChargeResult{SubscriptionID: id, PeriodIndex: st.NextPeriod(), Status: ResultSkipped,
			Reason: subscription.ErrOutsideWindow.Error(), SubscriptionStatus: string(st.Status), NextChargeAt: st.NextChargeAt}, nil
	}
	amount, ok := new(big.Int).SetString(st.PriceUnits, 10)
	if !ok || amount.Sign() <= 0 {
		return nil, nil, fmt.Errorf("subscription %s: price %q is not base units", id, st.PriceUnits)
	}
	fee := subscription.PlatformFee(st.Plan.PriceUSD)
	row := ChargeRow{SubscriptionID: id, Period: st.NextPeriod(), Merchant: st.Merchant, Customer: st.Customer,
		AmountUnits: amount.String(), AmountCents: st.Plan.PriceUSD, FeeCents: fee, Attempt: st.ConsecutiveFailures + 1, Status: ChargeClaimed}
	return &chargeItem{row: row, st: st, amount: amount}, nil, nil
}
