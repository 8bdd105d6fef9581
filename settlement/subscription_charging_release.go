package settlement

// The release of the splits that received charges to their payees, after a run's charges.

import (
	"context"
	"errors"
	"fmt"

	"github.com/rs/zerolog"

	"github.com/payledger/payledger/commands"
)

// splitReleases releases the splits that received charges, as the distributor does for paid
// receipts; it signs at the operator's nonces like the charges, so it runs inside a run.
type splitReleases struct {
	chain interface {
		OperatorAccount
		SplitReleases
		USDC() string
		BroadcastAll(ctx context.Context, raws [][]byte) error
	}
	ledger interface {
		NextNonce(ctx context.Context, sender string) (uint64, error)
		Undistributed(ctx context.Context, limit int) ([]ChargeRow, error)
		MarkDistributed(ctx context.Context, rows []ChargeRow) error
		RecordRelease(ctx context.Context, tx OperatorTx) error
	}
	splits   *commands.Splits
	receipts chargeReceipts
	limit    int
	log      zerolog.Logger
}

// distribute releases the splits that received charges to their payees, as the distributor does
// for paid receipts: per split, one release per payee with something releasable (a release pays
// everything due, receipts' funds included). Rows are marked once every payee's release is mined
// or nothing was due. Failures are logged: the next run tries again.
func (r splitReleases) distribute(ctx context.Context) {
	if err := r.release(ctx); err != nil && ctx.Err() == nil {
		r.log.Warn().Err(err).Msg("subscription charging: split release failed; retried next run")
	}
}

func (r splitReleases) release(ctx context.Context) error {
	rows, err := r.ledger.Undistributed(ctx, r.limit)
	if err != nil || len(rows) == 0 {
		return err
	}
	bySplit := map[string][]ChargeRow{}
	merchantOf := map[string]string{}
	for _, r := range rows {
		bySplit[r.Split] = append(bySplit[r.Split], r)
		merchantOf[r.Split] = r.Merchant
	}
	raws, hashesOf, failed := r.signAll(ctx, bySplit, merchantOf)
	if len(raws) > 0 {
		unmined, err := r.sendAndAwait(ctx, raws, hashesOf)
		if err != nil {
			return err
		}
		for split, err := range unmined {
			// Not marked: the next run looks again.
			failed = append(failed, err)
			delete(bySplit, split)
		}
	}
	var settle []ChargeRow
	for _, list := range bySplit {
		settle = append(settle, list...)
	}
	return errors.Join(append(failed, r.ledger.MarkDistributed(ctx, settle))...)
}

// signAll signs the releases of every split that received charges, one split's failure its own:
// a split whose stream cannot be read, whose payee has a release pending elsewhere, or whose
// release the node refuses is taken out of bySplit (its rows wait) and the others go on.
func (r splitReleases) signAll(ctx context.Context, bySplit map[string][]ChargeRow, merchantOf map[string]string) (raws [][]byte, hashesOf map[string][]string, failed []error) {
	usdc := r.chain.USDC()
	nonces := chargeNonces(r.chain, r.ledger)
	hashesOf = map[string][]string{} // per split, its releases signed in this pass
	for split := range bySplit {
		signed, err := r.signReleases(ctx, &nonces, split, merchantOf[split], usdc)
		for _, tx := range signed {
			raws, hashesOf[split] = append(raws, tx.Raw), append(hashesOf[split], tx.Hash)
		}
		if errors.Is(err, commands.ErrSplitUndecodable) {
			// The merchant's split stream holds an event this build cannot read: its payees may
			// have changed, so its rows wait (nothing signed for it), but it is that merchant's
			// alone; before, it ended the release of every split that received charges.
			r.log.Error().Err(err).Str("merchant", merchantOf[split]).Str("split", split).
				Msg("subscription charging: the merchant's split holds an event this build cannot read; its charges are not released, the others' are")
			delete(bySplit, split)
			continue
		}
		if errors.Is(err, ErrReleasePending) {
			// Another run's release of a payee is not settled yet (two instances): it pays out
			// everything due, and that run marks these rows; nothing is wrong here.
			delete(bySplit, split)
			continue
		}
		if err != nil {
			// A payee whose release the node refuses (a split whose release burns gas past the
			// ceiling or reverts: a merchant's own pre-deployed contract, a payee the token
			// blocklists) keeps that split's rows undistributed; before, it returned here, every
			// run: no split was released, and the releases signed before it were not even sent.
			r.log.Error().Err(err).Str("merchant", merchantOf[split]).Str("split", split).
				Msg("subscription charging: a release of the merchant's split failed; its charges stay undistributed, the others' are released")
			failed = append(failed, err)
			delete(bySplit, split)
		}
	}
	return raws, hashesOf, failed
}

// sendAndAwait broadcasts the signed releases and waits for their receipts: it answers, per
// split, why one of its releases was not mined or reverted (those splits' rows stay
// undistributed).
func (r splitReleases) sendAndAwait(ctx context.Context, raws [][]byte, hashesOf map[string][]string) (map[string]error, error) {
	if err := r.chain.BroadcastAll(ctx, raws); err != nil {
		return nil, err
	}
	var hashes []string
	for _, hs := range hashesOf {
		hashes = append(hashes, hs...)
	}
	outcomes, err := r.receipts.await(ctx, hashes)
	if err != nil {
		return nil, err
	}
	unmined := map[string]error{}
	for split, hs := range hashesOf {
		for _, x := range hs {
			if o := outcomes[x]; o == nil || !o.Success {
				unmined[split] = fmt.Errorf("release %s of split %s not mined or reverted", x, split)
				break
			}
		}
	}
	return unmined, nil
}

// signReleases signs and records a release of token at split to each of the merchant's payees
// with something releasable. A payee whose release fails is passed over: the others' are signed,
// and returned with the first failure.
func (r splitReleases) signReleases(ctx context.Context, nonces *nonceSource, split, merchant, token string) ([]OperatorTx, error) {
	sp, err := r.splits.Get(ctx, merchant)
	if err != nil {
		return nil, err
	}
	var out []OperatorTx
	var first error
	for _, p := range sp.Recipients {
		due, err := r.chain.Releasable(ctx, split, token, p.Address)
		if err != nil {
			if first == nil || errors.Is(first, ErrReleasePending) {
				first = fmt.Errorf("releasable of %s at %s: %w", p.Address, split, err)
			}
			continue
		}
		if due.Sign() == 0 {
			continue
		}
		signed, err := nonces.record(ctx, func(nonce uint64) ([]OperatorTx, error) {
			t, err := r.chain.SignRelease(ctx, nonce, split, token, p.Address)
			if err != nil {
				return nil, err
			}
			tx := operatorTx(r.chain.Sender(), TxRelease, t, split)
			tx.Payee = p.Address
			return []OperatorTx{tx}, nil
		}, func(txs []OperatorTx) error { return r.ledger.RecordRelease(ctx, txs[0]) })
		if err != nil {
			if first == nil || errors.Is(first, ErrReleasePending) { // a refusal is told over a pending release
				first = fmt.Errorf("release to %s at %s: %w", p.Address, split, err)
			}
			continue
		}
		out = append(out, signed...)
	}
	return out, first
}
