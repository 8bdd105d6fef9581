package settlement

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/rs/zerolog"

	"github.com/payledger/payledger/commands"
	"github.com/payledger/payledger/domain/receipt"
)

// The verifier's audit of payments it recorded paid: a reorg past the confirmation depth flags
// the receipt (see flagReorged).

// resumeAudit hands the watcher, once per handler, the payments recorded paid by the chain within
// paidMemory, so that a restart does not end their audit for a reorg past the depth (the
// watcher drops those older than its audit window at once). Errors: wrapped store errors.
func (h *VerifyWalletPaymentsHandler) resumeAudit(ctx context.Context) error {
	h.mu.Lock()
	done := h.resumed
	h.mu.Unlock()
	if done {
		return nil
	}
	now := h.now()
	list, err := h.pending.ChainPaymentsSince(ctx, now.Add(-paidMemory))
	if err != nil {
		return fmt.Errorf("wallet payments: resuming the audit: %w", err)
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, c := range list {
		hash := strings.ToLower(c.TransactionHash)
		if _, ok := h.paid[hash]; ok || c.BlockHash == "" {
			continue
		}
		h.follower.Audit(hash, c.BlockNumber, c.BlockHash)
		h.paid[hash] = paidPayment{p: PendingWalletPayment{ReceiptID: c.ReceiptID, AttemptID: c.AttemptID, TransactionHash: hash}, at: now}
	}
	h.resumed = true
	return nil
}

// paidPayment is a payment recorded paid, remembered while the chain audits it.
type paidPayment struct {
	p  PendingWalletPayment
	at time.Time
}

// paidMemory bounds how long a recorded payment is remembered for the audit (AuditBlocks blocks
// on any chain payledger targets are well within it).
const paidMemory = time.Hour

// flagReorged flags a paid receipt whose paying transaction a deep reorg removed: the receipt
// stays paid (its PaymentConfirmed names the replaced block), and its log records the chain's
// withdrawal as a PaymentFailureIgnored (code receipt.CodeChainWithdrawn, statusAtArrival paid),
// so that the event log never claims a support the chain no longer gives; an error log is the
// operator's alert (docs/decisions.md). A flagged receipt is not reconciled: the work list holds
// it again, and the same transaction confirmed at depth restores it (PaymentRestored). A flag
// that cannot be recorded (the datastore down) is tried again at every step: the audit has let
// the payment go, so nothing else would find it again.
func (h *VerifyWalletPaymentsHandler) flagReorged(ctx context.Context, r reorged) (commands.ReceiptChange, bool) {
	log := zerolog.Ctx(ctx).Error().Str("receipt_id", r.p.ReceiptID).Str("tx", r.v.TxHash).Uint64("block", r.v.BlockNumber).Str("block_hash", r.v.BlockHash)
	at := h.now().UnixMilli()
	_, res, err := commands.ChangeReceipt(ctx, h.store, r.p.ReceiptID, chainMeta, func(st receipt.State) ([]receipt.Event, error) {
		if st.Status == receipt.StatusGenerated || st.Status == receipt.StatusPending {
			return nil, nil // never paid by this transaction after all
		}
		return receipt.Fail(st, receipt.PaymentFailed{AttemptID: r.p.AttemptID, Code: receipt.CodeChainWithdrawn, Category: "blockchain",
			Reason: "The paying transaction is no longer on the chain (reorg after the confirmation depth).", At: at})
	})
	if err != nil {
		h.mu.Lock()
		h.unmarked[r.v.TxHash] = r
		h.mu.Unlock()
		log.Err(err).Msg("wallet payment reorged after its confirmation depth: the flag could not be recorded yet; retrying at the next step")
		return commands.ReceiptChange{}, false
	}
	h.mu.Lock()
	delete(h.skip, r.p.ReceiptID+"/"+r.p.AttemptID) // watched again from the next Sync (the work list holds it)
	h.mu.Unlock()
	log.Msg("wallet payment reorged after its confirmation depth: the paying transaction is no longer on the chain; the receipt stays paid and is not distributed unless the chain confirms it again, investigate (refund or ask for a new payment)")
	return commands.ReceiptChange{ReceiptID: r.p.ReceiptID, Result: res}, true
}

// reorged is a paid payment a deep reorg removed, to be flagged.
type reorged struct {
	p PendingWalletPayment
	v PaymentVerdict
}

// reorgs returns the payments to flag: those whose flag is still to be recorded, then those the
// audit reports in ds that this handler recorded paid or resumed at start (flagging twice, from
// two instances, appends one flag: a flagged receipt ignores the second).
func (h *VerifyWalletPaymentsHandler) reorgs(ds []PaymentVerdict) []reorged {
	h.mu.Lock()
	defer h.mu.Unlock()
	out := make([]reorged, 0, len(h.unmarked))
	for hash, r := range h.unmarked {
		out = append(out, r)
		delete(h.unmarked, hash)
	}
	for _, v := range ds {
		if pp, ok := h.paid[v.TxHash]; ok && v.Reorged {
			delete(h.paid, v.TxHash)
			out = append(out, reorged{p: pp.p, v: v})
		}
	}
	return out
}
