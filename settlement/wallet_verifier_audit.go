package settlement

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/rs/zerolog"

	"github.com/payledger/payledger/commands"
	"github.com/payledger/payledger/domain/receipt"
)

// The verifier's audit of payments it recorded paid: a reorg past the confirmation depth flags
// the receipt (see flag).

// paidAudit remembers the payments recorded paid while the watcher audits them, and flags the
// receipt of one a deep reorg removed.
type paidAudit struct {
	store  commands.Store
	recent interface {
		ChainPaymentsSince(ctx context.Context, since time.Time) ([]ChainPayment, error)
	}
	watcher interface {
		Audit(txHash string, number uint64, blockHash string)
	}
	now func() time.Time

	mu       sync.Mutex
	paid     map[string]paidPayment // lower-case hash -> recorded paid, while audited
	unmarked map[string]reorged     // lower-case hash -> a deep reorg whose flag could not be recorded yet
	resumed  bool                   // the payments confirmed before this start were handed to the audit
}

// resume hands the watcher, once per handler, the payments recorded paid by the chain within
// paidMemory, so that a restart does not end their audit for a reorg past the depth (the
// watcher drops those older than its audit window at once). Errors: wrapped store errors.
func (a *paidAudit) resume(ctx context.Context) error {
	a.mu.Lock()
	done := a.resumed
	a.mu.Unlock()
	if done {
		return nil
	}
	now := a.now()
	list, err := a.recent.ChainPaymentsSince(ctx, now.Add(-paidMemory))
	if err != nil {
		return fmt.Errorf("wallet payments: resuming the audit: %w", err)
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	for _, c := range list {
		hash := strings.ToLower(c.TransactionHash)
		if _, ok := a.paid[hash]; ok || c.BlockHash == "" {
			continue
		}
		a.watcher.Audit(hash, c.BlockNumber, c.BlockHash)
		a.paid[hash] = paidPayment{p: PendingWalletPayment{ReceiptID: c.ReceiptID, AttemptID: c.AttemptID, TransactionHash: hash}, at: now}
	}
	a.resumed = true
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

// flag flags a paid receipt whose paying transaction a deep reorg removed: the receipt
// stays paid (its PaymentConfirmed names the replaced block), and its log records the chain's
// withdrawal as a PaymentFailureIgnored (code receipt.CodeChainWithdrawn, statusAtArrival paid),
// so that the event log never claims a support the chain no longer gives; an error log is the
// operator's alert (docs/decisions.md). A flagged receipt is not reconciled: the work list holds
// it again (the caller lets it be followed again), and the same transaction confirmed at depth restores it (PaymentRestored). A flag
// that cannot be recorded (the datastore down) is tried again at every step: the audit has let
// the payment go, so nothing else would find it again.
func (a *paidAudit) flag(ctx context.Context, r reorged) (commands.ReceiptChange, bool) {
	log := zerolog.Ctx(ctx).Error().Str("receipt_id", r.p.ReceiptID).Str("tx", r.v.TxHash).Uint64("block", r.v.BlockNumber).Str("block_hash", r.v.BlockHash)
	at := a.now().UnixMilli()
	_, res, err := commands.ChangeReceipt(ctx, a.store, r.p.ReceiptID, chainMeta, func(st receipt.State) ([]receipt.Event, error) {
		if st.Status == receipt.StatusGenerated || st.Status == receipt.StatusPending {
			return nil, nil // never paid by this transaction after all
		}
		return receipt.Fail(st, receipt.PaymentFailed{AttemptID: r.p.AttemptID, Code: receipt.CodeChainWithdrawn, Category: "blockchain",
			Reason: "The paying transaction is no longer on the chain (reorg after the confirmation depth).", At: at})
	})
	if err != nil {
		a.mu.Lock()
		a.unmarked[r.v.TxHash] = r
		a.mu.Unlock()
		log.Err(err).Msg("wallet payment reorged after its confirmation depth: the flag could not be recorded yet; retrying at the next step")
		return commands.ReceiptChange{}, false
	}
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
func (a *paidAudit) reorgs(ds []PaymentVerdict) []reorged {
	a.mu.Lock()
	defer a.mu.Unlock()
	out := make([]reorged, 0, len(a.unmarked))
	for hash, r := range a.unmarked {
		out = append(out, r)
		delete(a.unmarked, hash)
	}
	for _, v := range ds {
		if pp, ok := a.paid[v.TxHash]; ok && v.Reorged {
			delete(a.paid, v.TxHash)
			out = append(out, reorged{p: pp.p, v: v})
		}
	}
	return out
}

// remember keeps p, recorded paid by the transaction hash at at, for the audit.
func (a *paidAudit) remember(p PendingWalletPayment, hash string, at time.Time) {
	a.mu.Lock()
	a.paid[hash] = paidPayment{p: p, at: at}
	a.mu.Unlock()
}

// forget drops the paid payments past paidMemory.
func (a *paidAudit) forget(now time.Time) {
	a.mu.Lock()
	defer a.mu.Unlock()
	for hash, pp := range a.paid {
		if now.Sub(pp.at) > paidMemory {
			delete(a.paid, hash)
		}
	}
}
