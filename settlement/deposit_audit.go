package settlement

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/payledger/payledger/commands"
	"github.com/payledger/payledger/domain/receipt"
)

// What the deposit detector checks besides the transfers of new blocks, in a step with new blocks,
// in at most one batch of headers and one batch of transaction receipts:
//   - the audit after a reorg (DESIGN 8, 9), in a step that found the cursor's block replaced (a
//     reorg of any depth replaces the newest block read, so no other step needs to look): a
//     receipt paid on chain whose paying block a reorg past CHAIN_CONFIRMATIONS replaced, its
//     transaction nowhere on the chain now, is flagged
//     (receipt.Fail with receipt.CodeChainWithdrawn, kept as a FailureIgnored: the receipt stays
//     paid and is not reconciled); the same transaction mined again and deep enough restores it
//     (receipt.Confirm: PaymentRestored, naming the new block). Everything is read again from
//     the receipts, and a failed audit keeps the cursor (the next step finds the same reorg), so
//     a restart, another instance or a datastore that refused the flag loses nothing. Steps
//     without a reorg cost no round trip for it.
//   - the hint's own check once its transaction is mined (DESIGN 9): a submitted transaction
//     that reverted is told as the receipt's telemetry (PORTAL_CHAIN_TX_REVERTED), never a
//     status; the payment window decides. A hint is checked until its transaction is mined.

// AuditBlocks is how many blocks past its paying block a paid receipt is still audited: a reorg
// deeper than CHAIN_CONFIRMATIONS within that window is flagged, never undone silently.
const AuditBlocks = 64

// hintSlice is how many hints one step checks (the next step takes the next slice); hintMemory
// how long a hint whose transaction was mined is not checked again (the window and its
// monitoring last 25 h at most by default). A restarted detector checks a hint once more.
const (
	hintSlice  = 500
	hintMemory = 25 * time.Hour
)

// auditCheck is one transaction the audit asks the chain about, and why.
type auditCheck struct {
	o    *OpenDeposit
	kind int // checkMoved, checkWithdrawn, checkHint
	hash string
}

const (
	checkMoved     = iota // the paying block was replaced: is the transaction still on the chain?
	checkWithdrawn        // flagged: is the transaction back, deep enough?
	checkHint             // a submitted transaction: mined? reverted?
)

// audit checks open's paid (when reorged), flagged and hinted receipts against the chain at head
// (known: block hashes read already this step) and records what it finds. Errors: RPC errors,
// the first recording error (the next step checks again).
func (d *DepositDetector) audit(ctx context.Context, head uint64, open []OpenDeposit, known map[uint64]string, reorged bool) error {
	checks, err := d.auditChecks(ctx, head, open, known, reorged)
	if err != nil || len(checks) == 0 {
		return err
	}
	hashes := make([]string, len(checks))
	for i, c := range checks {
		hashes[i] = c.hash
	}
	txs, err := d.Chain.Transactions(ctx, hashes)
	if err != nil {
		return fmt.Errorf("deposits: audit: %w", err)
	}
	var firstErr error
	for i, c := range checks {
		if err := d.auditOne(ctx, head, c, txs[i]); err != nil && firstErr == nil {
			firstErr = err
		}
	}
	return firstErr
}

// auditChecks lists the transactions to ask about: after a reorg, the paying transactions of the
// receipts paid within AuditBlocks whose block is no longer the one recorded; the flagged ones;
// this step's slice of the hints.
func (d *DepositDetector) auditChecks(ctx context.Context, head uint64, open []OpenDeposit, known map[uint64]string, reorged bool) ([]auditCheck, error) {
	deep := uint64(max(d.Confirmations, 1))
	var checks []auditCheck
	var paid []*OpenDeposit
	var ask []uint64
	asked := map[uint64]bool{}
	for i := range open {
		o := &open[i]
		switch p := o.Paid; {
		case o.Withdrawn != "":
			checks = append(checks, auditCheck{o: o, kind: checkWithdrawn, hash: o.Withdrawn})
		case reorged && p != nil && depth(head, p.BlockNumber) >= deep && head <= p.BlockNumber+AuditBlocks:
			paid = append(paid, o)
			if _, ok := known[p.BlockNumber]; !ok && !asked[p.BlockNumber] {
				ask, asked[p.BlockNumber] = append(ask, p.BlockNumber), true
			}
		}
	}
	hashes, err := d.withHashes(ctx, known, ask)
	if err != nil {
		return nil, fmt.Errorf("deposits: audit: %w", err)
	}
	for _, o := range paid {
		if !strings.EqualFold(hashes[o.Paid.BlockNumber], o.Paid.BlockHash) {
			checks = append(checks, auditCheck{o: o, kind: checkMoved, hash: o.Paid.TransactionHash})
		}
	}
	return append(checks, d.hintChecks(open)...), nil
}

// hintChecks is this step's slice of the hints not told yet; it forgets the told ones past
// hintMemory.
func (d *DepositDetector) hintChecks(open []OpenDeposit) []auditCheck {
	now := d.Now()
	for k, at := range d.told {
		if now.Sub(at) > hintMemory {
			delete(d.told, k)
		}
	}
	var hints []auditCheck
	for i := range open {
		if h := open[i].Hint; h != nil {
			if _, told := d.told[open[i].ReceiptID+"/"+h.AttemptID]; !told {
				hints = append(hints, auditCheck{o: &open[i], kind: checkHint, hash: h.TransactionHash})
			}
		}
	}
	if len(hints) == 0 {
		return nil
	}
	start := d.hintNext % len(hints)
	slice := hints[start:min(start+hintSlice, len(hints))]
	d.hintNext = start + len(slice)
	return slice
}

// auditOne records what tx (nil: not mined) says of c.
func (d *DepositDetector) auditOne(ctx context.Context, head uint64, c auditCheck, tx *MinedTx) error {
	switch c.kind {
	case checkMoved:
		if tx != nil && !tx.Reverted {
			return nil // mined again elsewhere: the same transaction still pays
		}
		return d.flag(ctx, c.o)
	case checkWithdrawn:
		if tx == nil || tx.Reverted || depth(head, tx.BlockNumber) < uint64(max(d.Confirmations, 1)) {
			return nil
		}
		return d.restore(ctx, c.o, *tx)
	default:
		if tx == nil {
			return nil // not mined yet: checked again
		}
		if tx.Reverted {
			if err := d.reverted(ctx, c.o); err != nil {
				return err
			}
		}
		if d.told == nil {
			d.told = map[string]time.Time{}
		}
		d.told[c.o.ReceiptID+"/"+c.o.Hint.AttemptID] = d.Now()
		return nil
	}
}

// flag records that the paying transaction of o is no longer on the chain (see the file's
// comment); an error log is the operator's alert (docs/decisions.md).
func (d *DepositDetector) flag(ctx context.Context, o *OpenDeposit) error {
	p := *o.Paid
	at := d.Now().UnixMilli()
	_, _, err := commands.ChangeReceipt(ctx, d.Events, o.ReceiptID, depositMeta, func(st receipt.State) ([]receipt.Event, error) {
		if st.Payment == nil || !strings.EqualFold(st.Payment.TransactionHash, p.TransactionHash) || st.ChainWithdrawnTx != "" {
			return nil, nil // paid otherwise since, or flagged already
		}
		return receipt.Fail(st, receipt.PaymentFailed{AttemptID: p.AttemptID, Code: receipt.CodeChainWithdrawn, Category: "blockchain",
			Reason: "The paying transaction is no longer on the chain (reorg after the confirmation depth).", At: at})
	})
	log := d.Log.Error().Str("receipt_id", o.ReceiptID).Str("tx", p.TransactionHash).Uint64("block", p.BlockNumber).Str("block_hash", p.BlockHash)
	if err != nil {
		log.Err(err).Msg("deposits: payment reorged after its confirmation depth: the flag could not be recorded yet; retrying at the next step")
		return fmt.Errorf("deposits: flagging receipt %s: %w", o.ReceiptID, err)
	}
	log.Msg("deposits: payment reorged after its confirmation depth: the paying transaction is no longer on the chain; the receipt stays paid and is not distributed unless the chain confirms it again, investigate (refund or ask for a new payment)")
	return nil
}

// restore records that the flagged transaction of o is on the chain again, at its depth in tx's
// block.
func (d *DepositDetector) restore(ctx context.Context, o *OpenDeposit, tx MinedTx) error {
	at := d.Now().UnixMilli()
	_, _, err := commands.ChangeReceipt(ctx, d.Events, o.ReceiptID, depositMeta, func(st receipt.State) ([]receipt.Event, error) {
		if st.ChainWithdrawnTx == "" || st.Payment == nil {
			return nil, nil
		}
		return receipt.Confirm(st, receipt.PaymentConfirmed{AttemptID: st.Payment.AttemptID, TransactionHash: st.ChainWithdrawnTx,
			VerifiedBy: receipt.VerifiedByChain, BlockNumber: tx.BlockNumber, BlockHash: tx.BlockHash, At: at})
	})
	if err != nil {
		return fmt.Errorf("deposits: restoring receipt %s: %w", o.ReceiptID, err)
	}
	d.Log.Info().Str("receipt_id", o.ReceiptID).Str("tx", o.Withdrawn).Uint64("block", tx.BlockNumber).Msg("deposits: the flagged payment is on the chain again")
	return nil
}

// reverted tells, as o's telemetry, that the transaction submitted for it reverted. A receipt
// past its hourly telemetry limit keeps the reports it has.
func (d *DepositDetector) reverted(ctx context.Context, o *OpenDeposit) error {
	now := d.Now()
	evs := []receipt.Event{receipt.TelemetryRecorded{Event: "error", AttemptID: o.Hint.AttemptID, Code: commands.CodeTxReverted, At: now.UnixMilli()}}
	err := commands.AppendTelemetry(ctx, d.Events, o.ReceiptID, now, evs, depositMeta)
	if err != nil && !errors.Is(err, commands.ErrTelemetryLimited) {
		return fmt.Errorf("deposits: the revert of %s's hint: %w", o.ReceiptID, err)
	}
	return nil
}
