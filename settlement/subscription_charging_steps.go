package settlement

// A charging wave and its steps: the checks, then approvals, spends and transfers, each
// estimated, signed at consecutive nonces, recorded, broadcast and awaited together.

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"sync"

	"github.com/google/uuid"
	"github.com/rs/zerolog"

	"github.com/payledger/payledger/domain/subscription"
	"github.com/payledger/payledger/eventstore"
	"github.com/payledger/payledger/internal/panics"
)

// chargeWave takes fresh claims (status claimed) and recovered rows (spending, spent,
// transferring) through the remaining steps, phased so that every gas limit is estimated on the
// state the transaction will run on: the approvals of first-use permissions (estimated in one
// batch, signed at consecutive nonces, recorded, broadcast together, receipts awaited in a
// batch), then the spends (estimated in one batch now that the approvals are mined), then the
// transfers to the splits. A 'spending' row without a spend hash has only its approval signed.
type chargeWave struct {
	checks    spendChecks
	approvals approvalStep
	spends    spendStep
	transfers transferStep
}

func (w chargeWave) run(ctx context.Context, fresh, recovered []*chargeItem, meta eventstore.Metadata) error {
	var approving, spending, spent, transferring []*chargeItem
	for _, it := range recovered {
		switch it.row.Status {
		case ChargeSpending:
			if it.row.SpendTx == "" {
				approving = append(approving, it)
			} else {
				spending = append(spending, it)
			}
		case ChargeSpent:
			spent = append(spent, it)
		case ChargeTransferring:
			transferring = append(transferring, it)
		}
	}
	ready, err := w.checks.check(ctx, fresh, meta)
	if err != nil {
		return err
	}
	var toApprove, toSpend []*chargeItem
	for _, it := range ready {
		if it.approved {
			toSpend = append(toSpend, it)
		} else {
			toApprove = append(toApprove, it)
		}
	}
	sent, err := w.approvals.send(ctx, toApprove, meta)
	if err != nil {
		return err
	}
	approved, err := w.approvals.await(ctx, append(approving, sent...))
	if err != nil {
		return err
	}
	sent, err = w.spends.send(ctx, append(toSpend, approved...), meta)
	if err != nil {
		return err
	}
	done, err := w.spends.await(ctx, append(spending, sent...), meta)
	if err != nil {
		return err
	}
	moving, err := w.transfers.send(ctx, append(spent, done...))
	if err != nil {
		return err
	}
	return w.transfers.await(ctx, append(transferring, moving...), meta)
}

// approvalStep approves first-use permissions on the manager (approveWithSignature).
type approvalStep struct {
	chain interface {
		ApproveCall(p subscription.Permission, signature string) (TxCall, error)
	}
	txs      chargeTxs
	receipts chargeReceipts
	outcomes chargeOutcomes
}

// send estimates approveWithSignature for the first-use permissions in one batch, then
// signs them at consecutive nonces, records them (row spending, no spend yet) and broadcasts
// them together. An approval that would revert (the signature or permission refused) is a
// failed charge; nothing is sent for it.
func (s approvalStep) send(ctx context.Context, items []*chargeItem, meta eventstore.Metadata) ([]*chargeItem, error) {
	ok, err := s.txs.estimate(ctx, "approvals", items, func(it *chargeItem) (TxCall, error) {
		return s.chain.ApproveCall(it.st.Permission, it.st.Signature)
	}, func(it *chargeItem, reason string) error {
		return s.outcomes.fail(ctx, it, "approveWithSignature would revert: "+reason, meta)
	})
	if err != nil {
		return nil, err
	}
	return s.txs.sendWave(ctx, "approvals", ok, []string{ChargeClaimed}, s.txs.signCall(ctx, TxApprove), func(it *chargeItem, txs []OperatorTx) ChargeRow {
		row := it.row
		row.Status, row.ApproveTx = ChargeSpending, txs[0].Hash
		return row
	})
}

// await waits for the approvals: mined -> ready for the spend (a reverted approval is
// left out of the charge; the spend's estimate says whether the permission is approved anyway);
// not mined in time -> pending (a later run takes the row over and sends the spend).
func (s approvalStep) await(ctx context.Context, items []*chargeItem) ([]*chargeItem, error) {
	if len(items) == 0 {
		return nil, nil
	}
	hashes := make([]string, len(items))
	for i, it := range items {
		hashes[i] = it.row.ApproveTx
	}
	outcomes, err := s.receipts.await(ctx, hashes)
	if err != nil {
		return nil, err
	}
	var ready []*chargeItem
	for _, it := range items {
		switch o := outcomes[it.row.ApproveTx]; {
		case o == nil:
			it.res = resultOf(it, ResultPending, "the approval is not mined yet; the next run sends the spend")
			continue
		case !o.Success:
			it.row.ApproveTx = ""
		default:
			it.approved = true
		}
		ready = append(ready, it)
	}
	return ready, nil
}

// spendStep spends each charge's amount from the customer to the operator (spend on the manager).
type spendStep struct {
	chain interface {
		SpendCall(p subscription.Permission, amount *big.Int) (TxCall, error)
	}
	live     cancelChecks
	txs      chargeTxs
	receipts chargeReceipts
	outcomes chargeOutcomes
}

// send reads the subscriptions again (a cancelled one is charged nothing), estimates
// spend(permission, amount) for the others in one batch (their approvals are mined), then signs
// them at consecutive nonces, records them and broadcasts them together. A spend that would
// revert is a failed charge with the node's reason; nothing is sent for it and no gas is spent.
func (s spendStep) send(ctx context.Context, items []*chargeItem, meta eventstore.Metadata) ([]*chargeItem, error) {
	items, err := s.live.live(ctx, items)
	if err != nil {
		return nil, err
	}
	ok, err := s.txs.estimate(ctx, "spends", items, func(it *chargeItem) (TxCall, error) {
		return s.chain.SpendCall(it.st.Permission, it.amount)
	}, func(it *chargeItem, reason string) error {
		return s.outcomes.fail(ctx, it, "the spend would revert: "+reason, meta)
	})
	if err != nil {
		return nil, err
	}
	return s.txs.sendWave(ctx, "spends", ok, []string{ChargeClaimed, ChargeSpending}, s.txs.signCall(ctx, TxSpend), func(it *chargeItem, txs []OperatorTx) ChargeRow {
		row := it.row
		row.Status, row.SpendTx = ChargeSpending, txs[0].Hash
		return row
	})
}

// await waits for the spends: mined -> ready for the transfer; reverted -> a failed charge;
// not mined in time -> pending (a later run finds it).
func (s spendStep) await(ctx context.Context, items []*chargeItem, meta eventstore.Metadata) ([]*chargeItem, error) {
	if len(items) == 0 {
		return nil, nil
	}
	var hashes []string
	for _, it := range items {
		hashes = append(hashes, it.row.SpendTx)
		if it.row.ApproveTx != "" && !it.approved { // a recovered row's approval: mined?
			hashes = append(hashes, it.row.ApproveTx)
		}
	}
	outcomes, err := s.receipts.await(ctx, hashes)
	if err != nil {
		return nil, err
	}
	var spent []*chargeItem
	for _, it := range items {
		o := outcomes[it.row.SpendTx]
		switch {
		case o == nil:
			it.res = resultOf(it, ResultPending, "the spend is not mined yet; the next run records it")
		case !o.Success:
			if err := s.outcomes.fail(ctx, it, "the spend transaction reverted on chain ("+it.row.SpendTx+")", meta); err != nil {
				return spent, err
			}
		default:
			if a := outcomes[it.row.ApproveTx]; it.row.ApproveTx != "" && !it.approved && (a == nil || !a.Success) {
				it.row.ApproveTx = "" // approved otherwise (the spend went through): not part of this charge
			}
			spent = append(spent, it)
		}
	}
	return spent, nil
}

// transferStep moves each spent amount from the operator to the merchant's split and records the
// charge once the transfer is mined.
type transferStep struct {
	chain interface {
		TransferCall(to string, amount *big.Int) (TxCall, error)
	}
	ledger interface {
		Advance(ctx context.Context, token uuid.UUID, row ChargeRow, from []string, txs []OperatorTx) error
	}
	token    uuid.UUID
	txs      chargeTxs
	receipts chargeReceipts
	outcomes chargeOutcomes
	log      zerolog.Logger
}

// send estimates the transfer of each spent amount to its split in one batch, then
// signs, records and broadcasts them together. A transfer that would revert stays spent (the
// amount is at the operator) and the next run tries again.
func (s transferStep) send(ctx context.Context, items []*chargeItem) ([]*chargeItem, error) {
	ok, err := s.txs.estimate(ctx, "transfers", items, func(it *chargeItem) (TxCall, error) {
		return s.chain.TransferCall(it.row.Split, it.amount)
	}, func(it *chargeItem, r string) error {
		row := it.row
		row.Status, row.TransferTx = ChargeSpent, ""
		if err := s.ledger.Advance(ctx, s.token, row, []string{ChargeSpending, ChargeSpent}, nil); err != nil && !errors.Is(err, ErrClaimLost) {
			return err
		}
		s.log.Warn().Str("subscription_id", it.row.SubscriptionID).Str("reason", r).Msg("subscription charging: the transfer to the split would revert")
		it.res = resultOf(it, ResultPending, "the transfer to the split would revert ("+r+"); the next run sends it")
		return nil
	})
	if err != nil {
		return nil, err
	}
	return s.txs.sendWave(ctx, "transfers", ok, []string{ChargeSpending, ChargeSpent}, s.txs.signCall(ctx, TxTransfer), func(it *chargeItem, txs []OperatorTx) ChargeRow {
		row := it.row
		row.Status, row.TransferTx = ChargeTransferring, txs[0].Hash
		return row
	})
}

// await waits for the transfers and records the charges; a reverted transfer goes back
// to spent (the amount is at the operator; the next run sends a new transfer).
func (s transferStep) await(ctx context.Context, items []*chargeItem, meta eventstore.Metadata) error {
	if len(items) == 0 {
		return nil
	}
	hashes := make([]string, len(items))
	for i, it := range items {
		hashes[i] = it.row.TransferTx
	}
	outcomes, err := s.receipts.await(ctx, hashes)
	if err != nil {
		return err
	}
	var done []*chargeItem
	for _, it := range items {
		o := outcomes[it.row.TransferTx]
		switch {
		case o == nil:
			it.res = resultOf(it, ResultPending, "the transfer to the split is not mined yet; the next run records it")
		case !o.Success:
			row := it.row
			row.Status, row.TransferTx = ChargeSpent, ""
			if err := s.ledger.Advance(ctx, s.token, row, []string{ChargeTransferring}, nil); err != nil && !errors.Is(err, ErrClaimLost) {
				return err
			}
			it.res = resultOf(it, ResultPending, "the transfer to the split reverted; the next run sends it again")
		default:
			done = append(done, it)
		}
	}
	// The charges are appended concurrently: independent streams, and the store commits
	// concurrent appends together.
	return parallel(ctx, s.log, done, 8, func(it *chargeItem) error {
		err := s.outcomes.record(ctx, it, meta)
		if err != nil { // the customer is charged and the log does not say so yet: the next run records it
			s.log.Error().Err(err).Str("subscription_id", it.row.SubscriptionID).Int64("period_index", it.row.Period).
				Msg("subscription charging: a mined charge could not be recorded")
		}
		return err
	})
}

// parallel runs f for every item on at most n goroutines and returns the first error. A panic
// in f is that item's error (internal/panics: logged with its stack, the charging worker's
// failure): it ended the process, and the goroutine's end left the others' items unsent.
func parallel(ctx context.Context, log zerolog.Logger, items []*chargeItem, n int, f func(*chargeItem) error) error {
	var wg sync.WaitGroup
	var mu sync.Mutex
	var first error
	work := make(chan *chargeItem)
	for range min(n, len(items)) {
		wg.Go(func() {
			for it := range work {
				var err error
				if p := panics.Catch(ctx, log, func() { err = f(it) }); p != nil {
					err = fmt.Errorf("subscription %s: %w", it.row.SubscriptionID, p)
				}
				if err != nil {
					mu.Lock()
					if first == nil {
						first = err
					}
					mu.Unlock()
				}
			}
		})
	}
	for _, it := range items {
		if ctx.Err() != nil {
			break
		}
		work <- it
	}
	close(work)
	wg.Wait()
	if first == nil {
		first = ctx.Err()
	}
	return first
}
