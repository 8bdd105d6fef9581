package settlement

// What a charge leaves behind: its events, its webhooks, its result, and the release of the
// splits that received charges.

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/payledger/payledger/commands"
	"github.com/payledger/payledger/domain/subscription"
	"github.com/payledger/payledger/eventstore"
)

// record appends SubscriptionCharged (once: a period already charged is what a recovery finds
// after a crash between the event and the row) and closes the row as charged.
func (h *ChargeSubscriptionsHandler) record(ctx context.Context, it *chargeItem, meta eventstore.Metadata) error {
	var hashes []string
	for _, x := range []string{it.row.ApproveTx, it.row.SpendTx, it.row.TransferTx} {
		if x != "" {
			hashes = append(hashes, x)
		}
	}
	res, err := commands.ChangeSubscription(ctx, h.store, it.row.SubscriptionID, meta, func(s subscription.State) ([]subscription.Event, error) {
		return subscription.DecideCharge(s, subscription.Charge{Period: it.row.Period, AmountUnits: it.row.AmountUnits, TransactionHashes: hashes}, h.now())
	})
	at := h.now()
	switch {
	case errors.Is(err, subscription.ErrAlreadyCharged):
		if it.st, err = commands.LoadSubscription(ctx, h.store, it.row.SubscriptionID); err != nil {
			return err
		}
		at = time.UnixMilli(it.st.LastChargeAt)
	case err != nil:
		return fmt.Errorf("record charge of %s: %w", it.row.SubscriptionID, err)
	default:
		it.st = res.State
	}
	if err := h.ledger.Finish(ctx, h.token, it.row, ChargeCharged, "", at); err != nil && !errors.Is(err, ErrClaimLost) {
		return err
	}
	r := h.result(it, ResultCharged, "")
	r.AmountUnits, r.TransactionHashes = it.row.AmountUnits, hashes
	it.res = r
	p := h.payload(it)
	p["transactionHashes"], p["chargedAt"] = hashes, at.UnixMilli()
	h.notify(ctx, EventSubscriptionCharged, fmt.Sprintf("%s:%d:charged", it.row.SubscriptionID, it.row.Period), it, p)
	return nil
}

// payload is the webhook payload of a charge outcome (docs/webhooks.md); the sender adds event,
// idempotencyKey and timestamp.
func (h *ChargeSubscriptionsHandler) payload(it *chargeItem) map[string]any {
	return map[string]any{"subscriptionId": it.row.SubscriptionID, "planId": it.st.PlanID, "merchantWallet": it.row.Merchant,
		"customerWallet": it.row.Customer, "periodIndex": it.row.Period, "amountUnits": it.row.AmountUnits,
		"amountUsd": it.row.AmountCents.Float(), "token": "USDC", "status": string(it.st.Status), "nextChargeAt": it.st.NextChargeAt}
}

// notify queues a webhook; a failure is logged, never the charge's.
func (h *ChargeSubscriptionsHandler) notify(ctx context.Context, event, key string, it *chargeItem, p map[string]any) {
	if h.Notify == nil {
		return
	}
	if err := h.Notify.Queue(ctx, event, key, it.row.SubscriptionID, it.row.Merchant, p); err != nil {
		h.Log.Warn().Err(err).Str("subscription_id", it.row.SubscriptionID).Msg("subscription charging: queue webhook")
	}
}

// fail appends SubscriptionChargeFailed for the row's attempt (once: a recovery that finds the
// attempt recorded does not record it again) and closes the row as failed.
func (h *ChargeSubscriptionsHandler) fail(ctx context.Context, it *chargeItem, reason string, meta eventstore.Metadata) error {
	res, err := commands.ChangeSubscription(ctx, h.store, it.row.SubscriptionID, meta, func(s subscription.State) ([]subscription.Event, error) {
		if s.NextPeriod() == it.row.Period && s.ConsecutiveFailures >= it.row.Attempt {
			return nil, nil // this attempt is recorded already
		}
		return subscription.DecideFailure(s, subscription.RecordFailure{Period: it.row.Period, Reason: reason}, h.now())
	})
	if err != nil && !errors.Is(err, subscription.ErrCancelled) {
		return fmt.Errorf("record failed charge of %s: %w", it.row.SubscriptionID, err)
	}
	if err == nil {
		it.st = res.State
	}
	if err := h.ledger.Finish(ctx, h.token, it.row, ChargeFailed, reason, h.now()); err != nil && !errors.Is(err, ErrClaimLost) {
		return err
	}
	r := h.result(it, ResultFailed, reason)
	r.Attempt = it.row.Attempt
	it.res = r
	p := h.payload(it)
	p["reason"], p["attempt"] = reason, it.row.Attempt
	h.notify(ctx, EventSubscriptionChargeFailed, fmt.Sprintf("%s:%d:failed:%d", it.row.SubscriptionID, it.row.Period, it.row.Attempt), it, p)
	return nil
}

func (h *ChargeSubscriptionsHandler) result(it *chargeItem, status, reason string) *ChargeResult {
	return &ChargeResult{SubscriptionID: it.row.SubscriptionID, PeriodIndex: it.row.Period, Status: status, Reason: reason,
		SubscriptionStatus: string(it.st.Status), NextChargeAt: it.st.NextChargeAt}
}

// distribute releases the splits that received charges to their payees, as the distributor does
// for paid receipts: per split, one release per payee with something releasable (a release pays
// everything due, receipts' funds included). Rows are marked once every payee's release is mined
// or nothing was due. Failures are logged: the next run tries again.
func (h *ChargeSubscriptionsHandler) distribute(ctx context.Context) {
	if err := h.release(ctx); err != nil && ctx.Err() == nil {
		h.Log.Warn().Err(err).Msg("subscription charging: split release failed; retried next run")
	}
}

func (h *ChargeSubscriptionsHandler) release(ctx context.Context) error {
	rows, err := h.ledger.Undistributed(ctx, h.Limit)
	if err != nil || len(rows) == 0 {
		return err
	}
	bySplit := map[string][]ChargeRow{}
	merchantOf := map[string]string{}
	for _, r := range rows {
		bySplit[r.Split] = append(bySplit[r.Split], r)
		merchantOf[r.Split] = r.Merchant
	}
	usdc := h.chain.USDC()
	nonces := h.nonces()
	var raws [][]byte
	var hashes []string
	var settle []ChargeRow
	for split, list := range bySplit {
		signed, err := h.signReleases(ctx, &nonces, split, merchantOf[split], usdc)
		if err != nil {
			return err
		}
		for _, tx := range signed {
			raws, hashes = append(raws, tx.Raw), append(hashes, tx.Hash)
		}
		settle = append(settle, list...)
	}
	if len(raws) > 0 {
		if err := h.chain.BroadcastAll(ctx, raws); err != nil {
			return err
		}
		outcomes, err := h.await(ctx, hashes)
		if err != nil {
			return err
		}
		for _, x := range hashes {
			if o := outcomes[x]; o == nil || !o.Success {
				return fmt.Errorf("release %s not mined or reverted", x) // nothing marked: the next run looks again
			}
		}
	}
	return h.ledger.MarkDistributed(ctx, settle)
}

// signReleases signs and records a release of token at split to each of the merchant's payees
// with something releasable.
func (h *ChargeSubscriptionsHandler) signReleases(ctx context.Context, nonces *nonceSource, split, merchant, token string) ([]OperatorTx, error) {
	sp, err := h.splits.Get(ctx, merchant)
	if err != nil {
		return nil, err
	}
	var out []OperatorTx
	for _, p := range sp.Recipients {
		due, err := h.chain.Releasable(ctx, split, token, p.Address)
		if err != nil {
			return nil, fmt.Errorf("releasable of %s at %s: %w", p.Address, split, err)
		}
		if due.Sign() == 0 {
			continue
		}
		signed, err := nonces.record(ctx, func(nonce uint64) ([]OperatorTx, error) {
			t, err := h.chain.SignRelease(ctx, nonce, split, token, p.Address)
			if err != nil {
				return nil, err
			}
			tx := h.opTx(TxRelease, t, split)
			tx.Payee = p.Address
			return []OperatorTx{tx}, nil
		}, func(txs []OperatorTx) error { return h.ledger.RecordRelease(ctx, txs[0]) })
		if err != nil {
			return nil, fmt.Errorf("release to %s at %s: %w", p.Address, split, err)
		}
		out = append(out, signed...)
	}
	return out, nil
}

// nonces is a nonce source of the operator for one phase.
func (h *ChargeSubscriptionsHandler) nonces() nonceSource {
	return nonceSource{sender: h.chain.Sender(), pending: h.chain.PendingNonce, ledger: h.ledger}
}
