package settlement

// The first step of a charging run: which subscriptions are due, and the claim of each.

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"strings"
	"time"

	"github.com/rs/zerolog"

	"github.com/payledger/payledger/commands"
	"github.com/payledger/payledger/domain/subscription"
)

// dueCharges finds what a run charges: the subscriptions the read model lists as due, a page of
// limit at a time, each checked against its stream, made into a claimable charge. It reads only;
// claiming is the run's.
type dueCharges struct {
	store   commands.Store
	due     DueSubscriptions
	now     func() time.Time
	limit   int
	spender interface{ Sender() string } // the operator account that signs the spends (CHAIN_OPERATOR_KEY's address)
	log     zerolog.Logger
}

// list loads a page of the due subscriptions (ids after after) and prepares a charge of each
// that can be charged now; skipped holds the results of those outside their permission and of
// those whose stream holds an event this build cannot read (no claim is made for them); last is
// the page's last id, "" when there are no more pages. A store failure fails the page.
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
		if errors.Is(err, commands.ErrSubscriptionUndecodable) {
			skipped = append(skipped, d.unreadable(id, err))
			continue
		}
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

// errEnded answers a charge of a subscription that has ended (409 conflict).
var errEnded = &commands.Refusal{Kind: commands.KindConflict, Code: "conflict",
	Message: "The subscription has ended: the customer revoked its spend permission; nothing more is charged"}

// prepare checks that st can be charged now and builds its claim. Errors: the domain's
// (not found, cancelled, ended, not due); skip: a result without a claim (outside the permission).
func (d dueCharges) prepare(st subscription.State, id string) (*chargeItem, *ChargeResult, error) {
	now := d.now()
	switch {
	case !st.Exists:
		return nil, nil, subscription.ErrNotFound
	case st.Status == subscription.StatusCancelled:
		return nil, nil, fmt.Errorf("subscription %s: %w", id, subscription.ErrCancelled)
	case st.Status == subscription.StatusEnded: // its permission was revoked: never due again
		return nil, nil, fmt.Errorf("subscription %s: %w (%w)", id, subscription.ErrEnded, errEnded)
	case now.UnixMilli() < st.NextChargeAt:
		return nil, nil, fmt.Errorf("%w: the next charge is due at %d", subscription.ErrNotDue, st.NextChargeAt)
	}
	if !st.Permission.Contains(now) {
		return nil, &ChargeResult{SubscriptionID: id, PeriodIndex: st.NextPeriod(), Status: ResultSkipped,
			Reason: subscription.ErrOutsideWindow.Error(), SubscriptionStatus: string(st.Status), NextChargeAt: st.NextChargeAt}, nil
	}
	if operator := d.spender.Sender(); !subscription.SameAddress(st.Permission.Spender, operator) {
		return nil, d.otherSpender(st, id, operator), nil
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

// unreadable is the result of a due subscription whose stream holds an event this build cannot
// read (a newer build's, during a rollback or a rolling upgrade): it is not charged, as every
// command refuses it, but it is that subscription's own fault and must not hold back the others'
// charges (before, it failed every page it was on, so no one was charged at all). It is logged at
// error level, once a run, naming the stream, and the run counts it (ChargeRun.Unreadable).
func (d dueCharges) unreadable(id string, err error) ChargeResult {
	d.log.Error().Err(err).Str("subscription", id).Str("stream", subscription.Stream(id)).
		Msg("subscription charging: the subscription's stream holds an event this build cannot read; not charged, the others are")
	return ChargeResult{SubscriptionID: id, Status: ResultSkipped, unreadable: true,
		Reason: "the subscription's history holds an event this version of the service cannot read; nothing was charged"}
}

// otherSpender is the result of a due subscription whose permission names a spender other than
// the operator that signs now: CHAIN_OPERATOR_KEY was changed (docs/security.md: "set a new key")
// after the customer signed. Only the spender named may spend (the manager reverts anything else),
// so nothing is sent and no claim is made. Before, the new operator paid for the permission's
// approval, the spend's estimate reverted, and the run recorded SubscriptionChargeFailed against
// the customer every day (past_due after three) with a charge_failed webhook each time: the
// customer blamed for the operator's key. It is logged at error level naming both accounts, since
// only the operator can mend it (the old key back), and the subscription stays as its log says.
func (d dueCharges) otherSpender(st subscription.State, id, operator string) *ChargeResult {
	d.log.Error().Str("subscription", id).Str("spender", st.Permission.Spender).Str("operator", operator).
		Msg("subscription charging: the permission names another spender than the operator (CHAIN_OPERATOR_KEY changed?); not charged")
	return &ChargeResult{SubscriptionID: id, PeriodIndex: st.NextPeriod(), Status: ResultSkipped,
		Reason: fmt.Sprintf("the permission's spender %s is not the service's operator %s; only that account can spend it: nothing was charged",
			st.Permission.Spender, strings.ToLower(operator)),
		SubscriptionStatus: string(st.Status), NextChargeAt: st.NextChargeAt}
}
