package settlement

// The phases of a charging wave (ChargeSubscriptionsHandler.run): the checks, then approvals,
// spends and transfers, each estimated, signed at consecutive nonces, recorded, broadcast and
// awaited together.

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/payledger/payledger/eventstore"
)

// checkSpends checks fresh claims on chain in one batch: a merchant without a deployed split is
// skipped (the claim dropped); a spend the chain would refuse is a failed charge. It returns the
// others, each knowing whether its permission is approved.
func (h *ChargeSubscriptionsHandler) checkSpends(ctx context.Context, fresh []*chargeItem, meta eventstore.Metadata) ([]*chargeItem, error) {
	var ready []*chargeItem
	for _, it := range fresh {
		split, err := h.splitOf(ctx, it.row.Merchant)
		if err != nil {
			return nil, err
		}
		if split == "" {
			if err := h.ledger.Drop(ctx, h.token, it.row.SubscriptionID, it.row.Period); err != nil && !errors.Is(err, ErrClaimLost) {
				return nil, err
			}
			it.res = h.result(it, ResultSkipped, "the merchant's split contract is not deployed; nothing was charged")
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
	statuses, err := h.chain.CheckSpends(ctx, checks)
	if err != nil { // nothing was signed: free the periods for the next run
		h.dropClaims(ctx, ready)
		return nil, fmt.Errorf("check spends: %w", err)
	}
	var ok []*chargeItem
	for i, it := range ready {
		if statuses[i].Refusal != "" {
			if err := h.fail(ctx, it, statuses[i].Refusal, meta); err != nil {
				return nil, err
			}
			continue
		}
		it.approved = statuses[i].Approved
		ok = append(ok, it)
	}
	return ok, nil
}

// dropClaims frees the periods of the items nothing was signed for (status claimed).
func (h *ChargeSubscriptionsHandler) dropClaims(ctx context.Context, items []*chargeItem) {
	for _, it := range items {
		if it.row.Status != ChargeClaimed {
			continue
		}
		if err := h.ledger.Drop(context.WithoutCancel(ctx), h.token, it.row.SubscriptionID, it.row.Period); err != nil && !errors.Is(err, ErrClaimLost) {
			h.Log.Warn().Err(err).Msg("subscription charging: drop claim")
		}
	}
}

// estimate builds each item's call with mk and estimates them all in one batch. It returns the
// items whose call would not revert, their gas set; each of the others is passed to reverted, in
// order, with the node's reason (its error is returned). A node error drops the claims of the
// items nothing was signed for yet (the period is free at once) and is returned.
func (h *ChargeSubscriptionsHandler) estimate(ctx context.Context, what string, items []*chargeItem, mk func(*chargeItem) (TxCall, error),
	reverted func(it *chargeItem, reason string) error) ([]*chargeItem, error) {
	if len(items) == 0 {
		return nil, nil
	}
	calls := make([]TxCall, len(items))
	for i, it := range items {
		var err error
		if calls[i], err = mk(it); err != nil {
			h.dropClaims(ctx, items)
			return nil, fmt.Errorf("%s of %s: %w", what, it.row.SubscriptionID, err)
		}
	}
	est, err := h.chain.EstimateGas(ctx, calls)
	if err != nil {
		h.dropClaims(ctx, items)
		return nil, fmt.Errorf("estimate gas of the %s: %w", what, err)
	}
	var ok []*chargeItem
	for i, it := range items {
		if est[i].Revert != "" {
			if err := reverted(it, est[i].Revert); err != nil {
				return nil, err
			}
			continue
		}
		it.call = calls[i]
		it.call.Gas = est[i].Gas
		ok = append(ok, it)
	}
	return ok, nil
}

// signCall is sendWave's signer of the items' estimated calls.
func (h *ChargeSubscriptionsHandler) signCall(ctx context.Context, kind string) func(*chargeItem, uint64) ([]OperatorTx, error) {
	return func(it *chargeItem, nonce uint64) ([]OperatorTx, error) {
		t, err := h.chain.SignCall(ctx, nonce, it.call)
		if err != nil {
			return nil, err
		}
		return []OperatorTx{h.opTx(kind, t, it.row.Split)}, nil
	}
}

// sendApprovals estimates approveWithSignature for the first-use permissions in one batch, then
// signs them at consecutive nonces, records them (row spending, no spend yet) and broadcasts
// them together. An approval that would revert (the signature or permission refused) is a
// failed charge; nothing is sent for it.
func (h *ChargeSubscriptionsHandler) sendApprovals(ctx context.Context, items []*chargeItem, meta eventstore.Metadata) ([]*chargeItem, error) {
	ok, err := h.estimate(ctx, "approvals", items, func(it *chargeItem) (TxCall, error) {
		return h.chain.ApproveCall(it.st.Permission, it.st.Signature)
	}, func(it *chargeItem, reason string) error {
		return h.fail(ctx, it, "approveWithSignature would revert: "+reason, meta)
	})
	if err != nil {
		return nil, err
	}
	return h.sendWave(ctx, "approvals", ok, []string{ChargeClaimed}, h.signCall(ctx, TxApprove), func(it *chargeItem, txs []OperatorTx) ChargeRow {
		row := it.row
		row.Status, row.ApproveTx = ChargeSpending, txs[0].Hash
		return row
	})
}

// awaitApprovals waits for the approvals: mined -> ready for the spend (a reverted approval is
// left out of the charge; the spend's estimate says whether the permission is approved anyway);
// not mined in time -> pending (a later run takes the row over and sends the spend).
func (h *ChargeSubscriptionsHandler) awaitApprovals(ctx context.Context, items []*chargeItem) ([]*chargeItem, error) {
	if len(items) == 0 {
		return nil, nil
	}
	hashes := make([]string, len(items))
	for i, it := range items {
		hashes[i] = it.row.ApproveTx
	}
	outcomes, err := h.await(ctx, hashes)
	if err != nil {
		return nil, err
	}
	var ready []*chargeItem
	for _, it := range items {
		switch o := outcomes[it.row.ApproveTx]; {
		case o == nil:
			it.res = h.result(it, ResultPending, "the approval is not mined yet; the next run sends the spend")
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

// sendSpends estimates spend(permission, amount) for every item in one batch (their approvals
// are mined), then signs them at consecutive nonces, records them and broadcasts them together.
// A spend that would revert is a failed charge with the node's reason; nothing is sent for it
// and no gas is spent.
func (h *ChargeSubscriptionsHandler) sendSpends(ctx context.Context, items []*chargeItem, meta eventstore.Metadata) ([]*chargeItem, error) {
	ok, err := h.estimate(ctx, "spends", items, func(it *chargeItem) (TxCall, error) {
		return h.chain.SpendCall(it.st.Permission, it.amount)
	}, func(it *chargeItem, reason string) error {
		return h.fail(ctx, it, "the spend would revert: "+reason, meta)
	})
	if err != nil {
		return nil, err
	}
	return h.sendWave(ctx, "spends", ok, []string{ChargeClaimed, ChargeSpending}, h.signCall(ctx, TxSpend), func(it *chargeItem, txs []OperatorTx) ChargeRow {
		row := it.row
		row.Status, row.SpendTx = ChargeSpending, txs[0].Hash
		return row
	})
}

// sendWave signs each item's transactions with sign at consecutive nonces, records them with
// the row next makes (one database transaction for the wave; on a nonce taken or a claim lost
// meanwhile, one per charge), then broadcasts them all in one batch. It returns the items sent.
func (h *ChargeSubscriptionsHandler) sendWave(ctx context.Context, what string, items []*chargeItem, from []string,
	sign func(*chargeItem, uint64) ([]OperatorTx, error), next func(*chargeItem, []OperatorTx) ChargeRow) ([]*chargeItem, error) {
	if len(items) == 0 {
		return nil, nil
	}
	nonces := h.nonces()
	sent, raws, err := h.recordWave(ctx, &nonces, items, from, sign, next)
	if errors.Is(err, ErrNonceTaken) || errors.Is(err, ErrClaimLost) {
		sent, raws, err = nil, nil, nil
		for _, it := range items {
			signed, err := nonces.record(ctx, func(nonce uint64) ([]OperatorTx, error) { return sign(it, nonce) }, func(txs []OperatorTx) error {
				row := next(it, txs)
				if err := h.ledger.Advance(ctx, h.token, row, from, txs); err != nil {
					return err
				}
				it.row = row
				return nil
			})
			if errors.Is(err, ErrClaimLost) {
				it.res = h.result(it, ResultSkipped, "another run took this charge over")
				continue
			}
			if err != nil {
				return sent, err
			}
			for _, t := range signed {
				raws = append(raws, t.Raw)
			}
			sent = append(sent, it)
		}
	}
	if err != nil {
		return nil, err
	}
	if len(raws) > 0 {
		if err := h.chain.BroadcastAll(ctx, raws); err != nil {
			// Recorded: the receipts are awaited anyway, and a later run sends the same bytes again.
			h.Log.Warn().Err(err).Msg("subscription charging: broadcast of " + what)
		}
	}
	return sent, nil
}

// recordWave signs every item at consecutive nonces and records the wave in one transaction.
func (h *ChargeSubscriptionsHandler) recordWave(ctx context.Context, nonces *nonceSource, items []*chargeItem, from []string,
	sign func(*chargeItem, uint64) ([]OperatorTx, error), next func(*chargeItem, []OperatorTx) ChargeRow) ([]*chargeItem, [][]byte, error) {
	if err := nonces.sync(ctx); err != nil {
		return nil, nil, err
	}
	n := nonces.next
	rows, all := make([]ChargeRow, len(items)), make([][]OperatorTx, len(items))
	var raws [][]byte
	for i, it := range items {
		txs, err := sign(it, n)
		if err != nil {
			return nil, nil, err
		}
		n += uint64(len(txs))
		rows[i], all[i] = next(it, txs), txs
		for _, t := range txs {
			raws = append(raws, t.Raw)
		}
	}
	if err := h.ledger.AdvanceAll(ctx, h.token, rows, from, all); err != nil {
		if errors.Is(err, ErrNonceTaken) {
			nonces.known = false
		}
		return nil, nil, err
	}
	nonces.next = n
	for i, it := range items {
		it.row = rows[i]
	}
	return items, raws, nil
}

func (h *ChargeSubscriptionsHandler) opTx(kind string, s SignedTx, split string) OperatorTx {
	return OperatorTx{Sender: h.chain.Sender(), Nonce: s.Nonce, Kind: kind, Hash: strings.ToLower(s.Hash), Raw: s.Raw,
		Split: split, Token: "USDC", Status: TxSigned}
}

// await polls the outcomes of hashes until every one is mined or Await passes; the missing
// ones are nil. Mined operator transactions are recorded as settled.
func (h *ChargeSubscriptionsHandler) await(ctx context.Context, hashes []string) (map[string]*TxOutcome, error) {
	out := map[string]*TxOutcome{}
	deadline := time.Now().Add(h.Await)
	for {
		var missing []string
		for _, x := range hashes {
			if out[x] == nil {
				missing = append(missing, x)
			}
		}
		if len(missing) == 0 {
			return out, nil
		}
		got, err := h.chain.Outcomes(ctx, missing)
		if err != nil {
			return out, fmt.Errorf("transaction receipts: %w", err)
		}
		var settled []SettledTx
		for i, o := range got {
			if o == nil {
				continue
			}
			out[missing[i]] = o
			status, amount := settlement(o)
			settled = append(settled, SettledTx{Hash: missing[i], Status: status, GasUsed: o.GasUsed, Amount: amount})
		}
		if len(settled) > 0 {
			if err := h.ledger.SettleTxs(ctx, settled); err != nil {
				return out, err
			}
			continue
		}
		if time.Now().After(deadline) {
			return out, nil
		}
		if err := sleep(ctx, h.Poll); err != nil {
			return out, err
		}
	}
}

// awaitSpends waits for the spends: mined -> ready for the transfer; reverted -> a failed charge;
// not mined in time -> pending (a later run finds it).
func (h *ChargeSubscriptionsHandler) awaitSpends(ctx context.Context, items []*chargeItem, meta eventstore.Metadata) ([]*chargeItem, error) {
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
	outcomes, err := h.await(ctx, hashes)
	if err != nil {
		return nil, err
	}
	var spent []*chargeItem
	for _, it := range items {
		o := outcomes[it.row.SpendTx]
		switch {
		case o == nil:
			it.res = h.result(it, ResultPending, "the spend is not mined yet; the next run records it")
		case !o.Success:
			if err := h.fail(ctx, it, "the spend transaction reverted on chain ("+it.row.SpendTx+")", meta); err != nil {
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

// sendTransfers estimates the transfer of each spent amount to its split in one batch, then
// signs, records and broadcasts them together. A transfer that would revert stays spent (the
// amount is at the operator) and the next run tries again.
func (h *ChargeSubscriptionsHandler) sendTransfers(ctx context.Context, items []*chargeItem) ([]*chargeItem, error) {
	ok, err := h.estimate(ctx, "transfers", items, func(it *chargeItem) (TxCall, error) {
		return h.chain.TransferCall(it.row.Split, it.amount)
	}, func(it *chargeItem, r string) error {
		row := it.row
		row.Status, row.TransferTx = ChargeSpent, ""
		if err := h.ledger.Advance(ctx, h.token, row, []string{ChargeSpending, ChargeSpent}, nil); err != nil && !errors.Is(err, ErrClaimLost) {
			return err
		}
		h.Log.Warn().Str("subscription_id", it.row.SubscriptionID).Str("reason", r).Msg("subscription charging: the transfer to the split would revert")
		it.res = h.result(it, ResultPending, "the transfer to the split would revert ("+r+"); the next run sends it")
		return nil
	})
	if err != nil {
		return nil, err
	}
	return h.sendWave(ctx, "transfers", ok, []string{ChargeSpending, ChargeSpent}, h.signCall(ctx, TxTransfer), func(it *chargeItem, txs []OperatorTx) ChargeRow {
		row := it.row
		row.Status, row.TransferTx = ChargeTransferring, txs[0].Hash
		return row
	})
}

// awaitTransfers waits for the transfers and records the charges; a reverted transfer goes back
// to spent (the amount is at the operator; the next run sends a new transfer).
func (h *ChargeSubscriptionsHandler) awaitTransfers(ctx context.Context, items []*chargeItem, meta eventstore.Metadata) error {
	if len(items) == 0 {
		return nil
	}
	hashes := make([]string, len(items))
	for i, it := range items {
		hashes[i] = it.row.TransferTx
	}
	outcomes, err := h.await(ctx, hashes)
	if err != nil {
		return err
	}
	var done []*chargeItem
	for _, it := range items {
		o := outcomes[it.row.TransferTx]
		switch {
		case o == nil:
			it.res = h.result(it, ResultPending, "the transfer to the split is not mined yet; the next run records it")
		case !o.Success:
			row := it.row
			row.Status, row.TransferTx = ChargeSpent, ""
			if err := h.ledger.Advance(ctx, h.token, row, []string{ChargeTransferring}, nil); err != nil && !errors.Is(err, ErrClaimLost) {
				return err
			}
			it.res = h.result(it, ResultPending, "the transfer to the split reverted; the next run sends it again")
		default:
			done = append(done, it)
		}
	}
	// The charges are appended concurrently: independent streams, and the store commits
	// concurrent appends together.
	return parallel(ctx, done, 8, func(it *chargeItem) error { return h.record(ctx, it, meta) })
}

// parallel runs f for every item on at most n goroutines and returns the first error.
func parallel(ctx context.Context, items []*chargeItem, n int, f func(*chargeItem) error) error {
	var wg sync.WaitGroup
	var mu sync.Mutex
	var first error
	work := make(chan *chargeItem)
	for range min(n, len(items)) {
		wg.Go(func() {
			for it := range work {
				if err := f(it); err != nil {
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
