package settlement

import (
	"context"
	"fmt"
	"math/big"
	"strings"
	"sync"
	"time"

	"github.com/rs/zerolog"

	"github.com/payledger/payledger/commands"
	"github.com/payledger/payledger/eventstore"
)

// PendingWalletPayment is a receipt pending on a submitted wallet payment: its current attempt is
// a wallet transaction.
type PendingWalletPayment struct {
	ReceiptID, Merchant, AttemptID, Token, TransactionHash, BuyerWallet string
}

// ChainPayment is a wallet payment the chain verifier recorded paid, in block (BlockNumber,
// BlockHash).
type ChainPayment struct {
	ReceiptID, AttemptID, TransactionHash, BlockHash string
	BlockNumber                                      uint64
}

// WalletPaymentReads is what the verifier reads of the receipts: its work list and the payments
// it confirmed lately.
type WalletPaymentReads interface {
	// PendingWalletPayments lists the receipts pending on a wallet payment (and the paid ones a
	// deep reorg flagged) by receipt id, after afterID ("" from the first), at most limit.
	PendingWalletPayments(ctx context.Context, afterID string, limit int) ([]PendingWalletPayment, error)
	// ChainPaymentsSince lists the wallet payments the chain verifier recorded paid at or after
	// since, with their block.
	ChainPaymentsSince(ctx context.Context, since time.Time) ([]ChainPayment, error)
}

// PaymentWatcher is the chain as the wallet verifier reads it: payments followed together, one
// step per poll (chain.PaymentWatcher over chain.Follower). Hashes and addresses are 0x hex.
type PaymentWatcher interface {
	// Decimals is a payment token's decimals (ETH: 18); false for a token the chain does not
	// configure (CHAIN_TOKENS).
	Decimals(token string) (uint8, bool)
	// Watch follows a payment until a verdict. Errors: a payment no transaction could satisfy.
	Watch(w WatchedPayment) error
	// Unwatch stops following a transaction.
	Unwatch(txHash string)
	// Audit watches a transaction recorded paid in block (number, hash) for a reorg past its
	// depth, reported by Step as Reorged: the payments confirmed before a restart.
	Audit(txHash string, number uint64, blockHash string)
	// Step reads the chain once and returns the verdicts reached (paid or failed; a payment not
	// deep enough, or reorged away before its depth, has none yet). An RPC error is returned and
	// decides nothing: the next step resumes.
	Step(ctx context.Context) ([]PaymentVerdict, error)
	// Len is the number of payments followed.
	Len() int
}

// WatchedPayment is what one wallet payment must show on chain.
type WatchedPayment struct {
	TxHash, BuyerWallet, Token, SplitAddress string
	RequiredUnits                            *big.Int // base units
	ToleranceBps                             uint     // how far below RequiredUnits still pays
}

// PaymentVerdict is the chain's final word on a watched payment.
type PaymentVerdict struct {
	TxHash string
	Paid   bool
	// Reorged: a payment reported Paid earlier whose block left the canonical chain after the
	// confirmation depth, the transaction being nowhere on the chain now (BlockNumber and
	// BlockHash are the replaced block). The receipt is not changed: it is flagged.
	Reorged     bool
	FailureCode string // when not paid: a domain/failure code of category blockchain
	BlockNumber uint64
	BlockHash   string
	LogIndex    int      // the first counted Transfer log; -1 for ETH
	AmountUnits *big.Int // what reached the split from the buyer
}

// pendingPage is how many pending payments one read of the work list returns; a sync reads every
// page, so no payment waits behind others however many are pending (a hash never mined stays
// followed, cheaply: its receipt is looked up with a backoff).
const pendingPage = 5_000

// retryBuild is how long a payment whose expectation cannot be built (no split, no quote, a token
// not in CHAIN_TOKENS) waits before the next try; decidedMemory how long a recorded decision
// keeps the (possibly lagging) read model from following the payment again.
const (
	retryBuild    = time.Minute
	decidedMemory = 5 * time.Minute
)

// VerifiedWalletPayments is what one pass recorded.
type VerifiedWalletPayments struct {
	Followed int                      // payments followed after the pass
	Changes  []commands.ReceiptChange // receipts paid or failed
	Reorged  []commands.ReceiptChange // receipts paid whose paying transaction a deep reorg removed (flagged)
}

// VerifyWalletPaymentsHandler verifies submitted wallet payments on chain (DESIGN 8): it keeps a
// chain.Follower fed with the receipts pending on a wallet payment (read from the receipts read
// model, so a restart or another instance's submission is picked up) and records each verdict
// through the receipt aggregate: Paid -> PaymentConfirmed (verifiedBy chain), Failed ->
// PaymentFailed with the chain's failure code. A payment waiting for its depth, or sent back to
// waiting by a reorg, stays pending; an RPC error decides nothing.
//
// Recording is idempotent (a confirmed receipt ignores a second confirmation, a failure of the
// attempt already failed changes nothing), so several instances may run the verifier on one
// database: each payment is confirmed once.
type VerifyWalletPaymentsHandler struct {
	store    commands.Store
	pending  WalletPaymentReads
	splits   *commands.Splits
	follower PaymentWatcher
	now      func() time.Time

	mu       sync.Mutex
	page     int
	followed map[string]PendingWalletPayment // lower-case hash -> payment
	paid     map[string]paidPayment          // lower-case hash -> recorded paid, while audited
	unmarked map[string]reorged              // lower-case hash -> a deep reorg whose flag could not be recorded yet
	skip     map[string]time.Time            // receipt/attempt -> not before (unbuildable, or just decided)
	resumed  bool                            // the payments confirmed before this start were handed to the audit
}

// NewVerifyWalletPaymentsHandler returns the verifier reading the chain through watcher. It
// panics on a nil dependency.
func NewVerifyWalletPaymentsHandler(store commands.Store, pending WalletPaymentReads, splits *commands.Splits, watcher PaymentWatcher,
	now func() time.Time) *VerifyWalletPaymentsHandler {
	if store == nil || pending == nil || splits == nil || watcher == nil || now == nil {
		panic("settlement.NewVerifyWalletPaymentsHandler: nil dependency")
	}
	return &VerifyWalletPaymentsHandler{store: store, pending: pending, splits: splits, follower: watcher, now: now,
		followed: map[string]PendingWalletPayment{}, paid: map[string]paidPayment{}, unmarked: map[string]reorged{},
		skip: map[string]time.Time{}, page: pendingPage}
}

// WithPage sets how many pending payments one read of the work list returns (default 5,000); for
// tests and tuning.
func (h *VerifyWalletPaymentsHandler) WithPage(n int) *VerifyWalletPaymentsHandler {
	h.page = max(n, 1)
	return h
}

// pendingAll reads every page of the work list.
func (h *VerifyWalletPaymentsHandler) pendingAll(ctx context.Context) ([]PendingWalletPayment, error) {
	var all []PendingWalletPayment
	after := ""
	for {
		list, err := h.pending.PendingWalletPayments(ctx, after, h.page)
		if err != nil {
			return nil, err
		}
		all = append(all, list...)
		if len(list) < h.page {
			return all, nil
		}
		after = list[len(list)-1].ReceiptID
	}
}

// Run syncs the work list every refresh and reads the chain every interval until ctx ends. An
// error (the chain or the datastore unreachable) is logged at most once a minute and retried.
func (h *VerifyWalletPaymentsHandler) Run(ctx context.Context, interval, refresh time.Duration, log zerolog.Logger) error {
	ctx = log.WithContext(ctx)
	var lastSync, lastLog time.Time
	for {
		var err error
		if time.Since(lastSync) >= refresh {
			if err = h.Sync(ctx); err == nil {
				lastSync = time.Now()
			}
		}
		if err == nil {
			_, err = h.Step(ctx)
		}
		if err != nil && ctx.Err() == nil && time.Since(lastLog) >= time.Minute {
			log.Warn().Err(err).Msg("wallet payment verification: payments stay pending; retrying")
			lastLog = time.Now()
		}
		if err := sleep(ctx, interval); err != nil {
			return err
		}
	}
}

// Handle is one pass: Sync, then Step.
func (h *VerifyWalletPaymentsHandler) Handle(ctx context.Context) (VerifiedWalletPayments, error) {
	if err := h.Sync(ctx); err != nil {
		return VerifiedWalletPayments{Followed: h.follower.Len()}, err
	}
	return h.Step(ctx)
}

// Sync follows the pending wallet payments not followed yet and stops following those no longer
// pending (decided elsewhere, or replaced by a newer attempt). Errors: wrapped store errors.
func (h *VerifyWalletPaymentsHandler) Sync(ctx context.Context) error {
	if err := h.resumeAudit(ctx); err != nil {
		return err
	}
	list, err := h.pendingAll(ctx)
	if err != nil {
		return err
	}
	now := h.now()
	h.mu.Lock()
	current := make(map[string]bool, len(list))
	var fresh []PendingWalletPayment
	for _, p := range list {
		p.TransactionHash = strings.ToLower(p.TransactionHash)
		hash := p.TransactionHash
		current[hash] = true
		if f, ok := h.followed[hash]; ok && f.ReceiptID == p.ReceiptID && f.AttemptID == p.AttemptID {
			continue
		}
		if until, ok := h.skip[p.ReceiptID+"/"+p.AttemptID]; ok && now.Before(until) {
			continue
		}
		fresh = append(fresh, p)
	}
	for hash := range h.followed {
		if !current[hash] {
			delete(h.followed, hash)
			h.follower.Unwatch(hash)
		}
	}
	h.forgetExpired(now)
	h.mu.Unlock()
	for _, p := range fresh {
		e, err := h.expectation(ctx, p)
		if err != nil {
			zerolog.Ctx(ctx).Warn().Err(err).Str("receipt_id", p.ReceiptID).Msg("wallet payment cannot be verified yet")
			h.mu.Lock()
			h.skip[p.ReceiptID+"/"+p.AttemptID] = now.Add(retryBuild)
			h.mu.Unlock()
			continue
		}
		h.mu.Lock()
		if _, ok := h.followed[e.TxHash]; ok {
			h.follower.Unwatch(e.TxHash) // the same hash, resubmitted by a newer attempt
		}
		if err := h.follower.Watch(e); err == nil {
			h.followed[e.TxHash] = p
		}
		h.mu.Unlock()
	}
	return nil
}

// Step reads the chain once and records the verdicts. An RPC error records nothing and is
// returned: the payments stay pending and the next step resumes. A verdict that cannot be
// recorded (the datastore down) is verified again from the chain after the next Sync.
func (h *VerifyWalletPaymentsHandler) Step(ctx context.Context) (VerifiedWalletPayments, error) {
	ds, err := h.follower.Step(ctx)
	if err != nil {
		return VerifiedWalletPayments{Followed: h.follower.Len()}, fmt.Errorf("wallet payments: reading the chain: %w", err)
	}
	var out VerifiedWalletPayments
	var firstErr error
	var outMu sync.Mutex
	for _, r := range h.reorgs(ds) {
		if change, ok := h.flagReorged(ctx, r); ok {
			out.Reorged = append(out.Reorged, change)
		}
	}
	var vs []verdict
	for _, v := range ds {
		if v.Reorged {
			continue
		}
		h.mu.Lock()
		p, ok := h.followed[v.TxHash]
		delete(h.followed, v.TxHash)
		h.mu.Unlock()
		if !ok {
			continue // removed while the step ran
		}
		vs = append(vs, verdict{p: p, v: v})
	}
	// A block's verdicts are recorded together (recordAll): one read of their receipts, then
	// concurrent appends that the store's group commit batches.
	h.recordAll(ctx, vs, func(x verdict, change commands.ReceiptChange, err error) {
		outMu.Lock()
		defer outMu.Unlock()
		if err != nil {
			firstErr = cmp(firstErr, err)
			return
		}
		h.mu.Lock()
		h.skip[x.p.ReceiptID+"/"+x.p.AttemptID] = h.now().Add(decidedMemory)
		if x.v.Paid {
			h.paid[x.v.TxHash] = paidPayment{p: x.p, at: h.now()}
		}
		h.mu.Unlock()
		out.Changes = append(out.Changes, change)
	})
	out.Followed = h.follower.Len()
	return out, firstErr
}

// recordConcurrency bounds the verdicts recorded at once through record (a store that cannot read
// many streams at once): each holds a database connection (serve's pool has 32) for its read.
const recordConcurrency = 16

// forgetExpired drops the skips that ended and the paid payments past paidMemory. The caller
// holds mu.
func (h *VerifyWalletPaymentsHandler) forgetExpired(now time.Time) {
	for k, until := range h.skip {
		if !now.Before(until) {
			delete(h.skip, k)
		}
	}
	for hash, pp := range h.paid {
		if now.Sub(pp.at) > paidMemory {
			delete(h.paid, hash)
		}
	}
}

func cmp(first, next error) error {
	if first != nil {
		return first
	}
	return next
}

// chainMeta is the metadata of the events the verifier appends.
var chainMeta = eventstore.Metadata{Actor: "chain", Source: "wallet-verifier"}
