package settlement

// What a charge leaves behind: its events, its row closed, its webhooks and its result.

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/rs/zerolog"

	"github.com/payledger/payledger/commands"
	"github.com/payledger/payledger/domain/subscription"
	"github.com/payledger/payledger/eventstore"
)

// chargeOutcomes records how a charge ended: the subscription's event through the command
// pipeline (load, decide, append with the expected version), the row closed, the webhook queued.
type chargeOutcomes struct {
	store  commands.Store
	ledger interface {
		Finish(ctx context.Context, token uuid.UUID, row ChargeRow, status, reason string, at time.Time) error
	}
	token    uuid.UUID
	now      func() time.Time
	notifier ChargeNotifier // nil: no webhooks
	log      zerolog.Logger
}

// record appends SubscriptionCharged (once: a period already charged is what a recovery finds
// after a crash between the event and the row) and closes the row as charged.
func (o chargeOutcomes) record(ctx context.Context, it *chargeItem, meta eventstore.Metadata) error {
	var hashes []string
	for _, x := range []string{it.row.ApproveTx, it.row.SpendTx, it.row.TransferTx} {
		if x != "" {
			hashes = append(hashes, x)
		}
	}
	res, err := commands.ChangeSubscription(ctx, o.store, it.row.SubscriptionID, meta, func(s subscription.State) ([]subscription.Event, error) {
		return subscription.DecideCharge(s, subscription.Charge{Period: it.row.Period, AmountUnits: it.row.AmountUnits, TransactionHashes: hashes}, o.now())
	})
	at := o.now()
	switch {
	case errors.Is(err, subscription.ErrAlreadyCharged):
		if it.st, err = commands.LoadSubscription(ctx, o.store, it.row.SubscriptionID); err != nil {
			return err
		}
		at = time.UnixMilli(it.st.LastChargeAt)
	case err != nil:
		return fmt.Errorf("record charge of %s: %w", it.row.SubscriptionID, err)
	default:
		it.st = res.State
	}
	// The webhook is queued before the row is closed, and a failure to queue it fails the step:
	// the row stays open and the recovery records the charge again (already charged), queues
	// the webhook (once per key) and closes the row. Queued after the close with its failure only
	// logged, a database error or a crash between the two lost the merchant's notification of a
	// charge for good.
	p := payload(it)
	p["transactionHashes"], p["chargedAt"] = hashes, at.UnixMilli()
	if o.notifier != nil {
		key := fmt.Sprintf("%s:%d:charged", it.row.SubscriptionID, it.row.Period)
		if err := o.notifier.Queue(ctx, EventSubscriptionCharged, key, it.row.SubscriptionID, it.row.Merchant, p); err != nil {
			return fmt.Errorf("queue the charged webhook of %s: %w", it.row.SubscriptionID, err)
		}
	}
	if err := o.ledger.Finish(ctx, o.token, it.row, ChargeCharged, "", at); err != nil && !errors.Is(err, ErrClaimLost) {
		return err
	}
	r := resultOf(it, ResultCharged, "")
	r.AmountUnits, r.TransactionHashes = it.row.AmountUnits, hashes
	it.res = r
	return nil
}

// payload is the webhook payload of a charge outcome (docs/webhooks.md); the sender adds event,
// idempotencyKey and timestamp.
func payload(it *chargeItem) map[string]any {
	return map[string]any{"subscriptionId": it.row.SubscriptionID, "planId": it.st.PlanID, "merchantWallet": it.row.Merchant,
		"customerWallet": it.row.Customer, "periodIndex": it.row.Period, "amountUnits": it.row.AmountUnits,
		"amountUsd": it.row.AmountCents.Float(), "token": "USDC", "status": string(it.st.Status), "nextChargeAt": it.st.NextChargeAt}
}

// fail appends SubscriptionChargeFailed for the row's attempt (once: a recovery that finds the
// attempt recorded does not record it again) and closes the row as failed. A refusal because the
// customer revoked the permission also ends the subscription (SubscriptionPermissionRevoked), so
// that it is never tried again; the merchant's charge_failed says so (status ended).
func (o chargeOutcomes) fail(ctx context.Context, it *chargeItem, reason string, meta eventstore.Metadata) error {
	decide := subscription.DecideFailure
	if reason == subscription.ReasonRevoked {
		decide = subscription.DecideRevoked
	}
	res, err := commands.ChangeSubscription(ctx, o.store, it.row.SubscriptionID, meta, func(s subscription.State) ([]subscription.Event, error) {
		if s.NextPeriod() == it.row.Period && s.ConsecutiveFailures >= it.row.Attempt {
			return nil, nil // this attempt is recorded already
		}
		return decide(s, subscription.RecordFailure{Period: it.row.Period, Reason: reason}, o.now())
	})
	if errors.Is(err, subscription.ErrCancelled) {
		return o.cancelled(ctx, it, reason)
	}
	if err != nil {
		return fmt.Errorf("record failed charge of %s: %w", it.row.SubscriptionID, err)
	}
	it.st = res.State
	// Queued before the row is closed, and a failure to queue fails the step, as for a charge:
	// the row stays open and the recovery (failedAgain) queues it once the failure is in the log.
	// Queued after the close with its failure only logged, a database error there lost the
	// merchant's charge_failed for good (and with it, for a revoked permission, the news that
	// the subscription ended).
	p := payload(it)
	p["reason"], p["attempt"] = reason, it.row.Attempt
	if o.notifier != nil {
		key := fmt.Sprintf("%s:%d:failed:%d", it.row.SubscriptionID, it.row.Period, it.row.Attempt)
		if err := o.notifier.Queue(ctx, EventSubscriptionChargeFailed, key, it.row.SubscriptionID, it.row.Merchant, p); err != nil {
			return fmt.Errorf("queue the charge_failed webhook of %s: %w", it.row.SubscriptionID, err)
		}
	}
	if err := o.ledger.Finish(ctx, o.token, it.row, ChargeFailed, reason, o.now()); err != nil && !errors.Is(err, ErrClaimLost) {
		return err
	}
	r := resultOf(it, ResultFailed, reason)
	r.Attempt = it.row.Attempt
	it.res = r
	return nil
}

// failedAgain finishes a claimed row (nothing signed) whose attempt's failure the log holds
// already: a run that recorded it and could not queue its webhook or close its row. It queues
// the webhook (once per key) and closes the row, with the failure's reason as recorded; ok is
// false for a row whose failure is not recorded (its period is free again, as before).
func (o chargeOutcomes) failedAgain(ctx context.Context, r ChargeRow, st subscription.State, meta eventstore.Metadata) (res *ChargeResult, ok bool, err error) {
	if !st.Exists || st.NextPeriod() != r.Period || st.ConsecutiveFailures < r.Attempt || st.LastFailureReason == "" {
		return nil, false, nil
	}
	it := &chargeItem{row: r, st: st}
	if err := o.fail(ctx, it, st.LastFailureReason, meta); err != nil {
		return nil, true, err
	}
	return it.res, true, nil
}

// cancelled closes the row of a charge that failed (reason) after its subscription was
// cancelled: nothing was charged and nothing more will be, so no SubscriptionChargeFailed is
// recorded (the aggregate refuses it) and no charge_failed webhook is sent; the result is
// skipped, with the subscription as it is now. Before, the merchant was sent a charge_failed
// notification the log does not have, saying the cancelled subscription was still active.
func (o chargeOutcomes) cancelled(ctx context.Context, it *chargeItem, reason string) error {
	st, err := commands.LoadSubscription(ctx, o.store, it.row.SubscriptionID)
	if err != nil {
		return err
	}
	it.st = st
	reason = "the subscription was cancelled; nothing was charged (" + reason + ")"
	if err := o.ledger.Finish(ctx, o.token, it.row, ChargeFailed, reason, o.now()); err != nil && !errors.Is(err, ErrClaimLost) {
		return err
	}
	it.res = resultOf(it, ResultSkipped, reason)
	return nil
}

// resultOf is the result of it with status and reason.
func resultOf(it *chargeItem, status, reason string) *ChargeResult {
	return &ChargeResult{SubscriptionID: it.row.SubscriptionID, PeriodIndex: it.row.Period, Status: status, Reason: reason,
		SubscriptionStatus: string(it.st.Status), NextChargeAt: it.st.NextChargeAt}
}
