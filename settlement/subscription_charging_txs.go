package settlement

// The operator's transactions of a charging step: estimated in one batch, signed at consecutive
// nonces, recorded, broadcast together, and their receipts awaited.

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/rs/zerolog"
)

// chargeTxs sends a wave of one step's transactions (approvals, spends or transfers). It knows
// the chain's estimating, signing and broadcasting, and the ledger's recording of the rows.
type chargeTxs struct {
	chain interface {
		OperatorAccount
		EstimateGas(ctx context.Context, calls []TxCall) ([]GasEstimate, error)
		SignCall(ctx context.Context, nonce uint64, call TxCall) (SignedTx, error)
		BroadcastAll(ctx context.Context, raws [][]byte) error
	}
	ledger interface {
		NextNonce(ctx context.Context, sender string) (uint64, error)
		Advance(ctx context.Context, token uuid.UUID, row ChargeRow, from []string, txs []OperatorTx) error
		AdvanceAll(ctx context.Context, token uuid.UUID, rows []ChargeRow, from []string, txs [][]OperatorTx) error
	}
	token  uuid.UUID
	claims chargeClaims
	log    zerolog.Logger
}

// estimate builds each item's call with mk and estimates them all in one batch. It returns the
// items whose call would not revert, their gas set; each of the others is passed to reverted, in
// order, with the node's reason (its error is returned). A node error drops the claims of the
// items nothing was signed for yet (the period is free at once) and is returned.
func (w chargeTxs) estimate(ctx context.Context, what string, items []*chargeItem, mk func(*chargeItem) (TxCall, error),
	reverted func(it *chargeItem, reason string) error) ([]*chargeItem, error) {
	if len(items) == 0 {
		return nil, nil
	}
	calls := make([]TxCall, len(items))
	for i, it := range items {
		var err error
		if calls[i], err = mk(it); err != nil {
			w.claims.dropAll(ctx, items)
			return nil, fmt.Errorf("%s of %s: %w", what, it.row.SubscriptionID, err)
		}
	}
	est, err := w.chain.EstimateGas(ctx, calls)
	if err != nil {
		w.claims.dropAll(ctx, items)
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
func (w chargeTxs) signCall(ctx context.Context, kind string) func(*chargeItem, uint64) ([]OperatorTx, error) {
	return func(it *chargeItem, nonce uint64) ([]OperatorTx, error) {
		t, err := w.chain.SignCall(ctx, nonce, it.call)
		if err != nil {
			return nil, err
		}
		return []OperatorTx{operatorTx(w.chain.Sender(), kind, t, it.row.Split)}, nil
	}
}

// sendWave signs each item's transactions with sign at consecutive nonces, records them with
// the row next makes (one database transaction for the wave; on a nonce taken or a claim lost
// meanwhile, one per charge), then broadcasts them all in one batch. It returns the items sent.
func (w chargeTxs) sendWave(ctx context.Context, what string, items []*chargeItem, from []string,
	sign func(*chargeItem, uint64) ([]OperatorTx, error), next func(*chargeItem, []OperatorTx) ChargeRow) ([]*chargeItem, error) {
	if len(items) == 0 {
		return nil, nil
	}
	nonces := chargeNonces(w.chain, w.ledger)
	sent, raws, err := w.recordWave(ctx, &nonces, items, from, sign, next)
	if errors.Is(err, ErrNonceTaken) || errors.Is(err, ErrClaimLost) {
		sent, raws, err = nil, nil, nil
		for _, it := range items {
			signed, err := nonces.record(ctx, func(nonce uint64) ([]OperatorTx, error) { return sign(it, nonce) }, func(txs []OperatorTx) error {
				row := next(it, txs)
				if err := w.ledger.Advance(ctx, w.token, row, from, txs); err != nil {
					return err
				}
				it.row = row
				return nil
			})
			if errors.Is(err, ErrClaimLost) {
				it.res = resultOf(it, ResultSkipped, "another run took this charge over")
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
		if err := w.chain.BroadcastAll(ctx, raws); err != nil {
			// Recorded: the receipts are awaited anyway, and a later run sends the same bytes again.
			w.log.Warn().Err(err).Msg("subscription charging: broadcast of " + what)
		}
	}
	return sent, nil
}

// recordWave signs every item at consecutive nonces and records the wave in one transaction.
func (w chargeTxs) recordWave(ctx context.Context, nonces *nonceSource, items []*chargeItem, from []string,
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
	if err := w.ledger.AdvanceAll(ctx, w.token, rows, from, all); err != nil {
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

// operatorTx is the operator's transaction s of kind, signed, not sent yet.
func operatorTx(sender, kind string, s SignedTx, split string) OperatorTx {
	return OperatorTx{Sender: sender, Nonce: s.Nonce, Kind: kind, Hash: strings.ToLower(s.Hash), Raw: s.Raw,
		Split: split, Token: "USDC", Status: TxSigned}
}

// chargeNonces is a nonce source of the operator for one phase.
func chargeNonces(chain OperatorAccount, ledger interface {
	NextNonce(ctx context.Context, sender string) (uint64, error)
}) nonceSource {
	return nonceSource{sender: chain.Sender(), pending: chain.PendingNonce, ledger: ledger}
}

// chargeReceipts waits for the operator's transactions to be mined and records them settled.
type chargeReceipts struct {
	chain interface {
		Outcomes(ctx context.Context, hashes []string) ([]*TxOutcome, error)
	}
	ledger interface {
		SettleTxs(ctx context.Context, txs []SettledTx) error
	}
	wait time.Duration // how long to wait for the receipts
	poll time.Duration
}

// await polls the outcomes of hashes until every one is mined or wait passes; the missing
// ones are nil. Mined operator transactions are recorded as settled.
func (r chargeReceipts) await(ctx context.Context, hashes []string) (map[string]*TxOutcome, error) {
	out := map[string]*TxOutcome{}
	deadline := time.Now().Add(r.wait)
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
		got, err := r.chain.Outcomes(ctx, missing)
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
			if err := r.ledger.SettleTxs(ctx, settled); err != nil {
				return out, err
			}
			continue
		}
		if time.Now().After(deadline) {
			return out, nil
		}
		if err := sleep(ctx, r.poll); err != nil {
			return out, err
		}
	}
}
