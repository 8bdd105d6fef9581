package settlement

import (
	"context"
	"fmt"
	"math/big"
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
	retryBuild = time.Minute
	// A hint stays pending after its verdict (only the deposit follower decides the receipt):
	// decidedMemory keeps it from being followed again, and its revert from being told twice,
	// while the payment window and its monitoring last.
	decidedMemory = 25 * time.Hour
)

// VerifiedWalletPayments is what one pass recorded.
type VerifiedWalletPayments struct {
	Followed int                      // payments followed after the pass
	Changes  []commands.ReceiptChange // receipts paid or failed
	Reorged  []commands.ReceiptChange // receipts paid whose paying transaction a deep reorg removed (flagged)
}

// VerifyWalletPaymentsHandler follows the hashes customers submit (DESIGN 9: hints): it keeps a
// chain.Follower fed with the receipts pending on a submitted wallet payment (read from the
// receipts read model, so a restart or another instance's submission is picked up), each watched
// against the receipt's own deposit address. A hint never pays or fails a receipt: the deposit
// follower decides from the deposit address alone, and section 8's split path is retired (a
// transfer to the split pays nothing). What the verifier records: a submitted transaction that
// reverted, as telemetry (PORTAL_CHAIN_TX_REVERTED); the audit of chain payments for a reorg past
// the depth (flag); and a flagged payment's transaction confirmed again (PaymentRestored).
//
// Recording is idempotent (a confirmed receipt ignores a second confirmation, a failure of the
// attempt already failed changes nothing), so several instances may run the verifier on one
// database: each payment is confirmed once.
//
// The handler only sequences a pass; its parts are small types of their own: the follow list
// (followList: which payments the watcher follows, and what each must show, expectations), the
// recording of verdicts (verdictRecorder) and the audit of payments recorded paid (paidAudit).
type VerifyWalletPaymentsHandler struct {
	follower PaymentWatcher
	now      func() time.Time
	follow   *followList
	audit    *paidAudit
	verdicts verdictRecorder
}

// NewVerifyWalletPaymentsHandler returns the verifier reading the chain through watcher. It
// panics on a nil dependency.
func NewVerifyWalletPaymentsHandler(store commands.Store, pending WalletPaymentReads, splits *commands.Splits, watcher PaymentWatcher,
	now func() time.Time) *VerifyWalletPaymentsHandler {
	if store == nil || pending == nil || splits == nil || watcher == nil || now == nil {
		panic("settlement.NewVerifyWalletPaymentsHandler: nil dependency")
	}
	return &VerifyWalletPaymentsHandler{follower: watcher, now: now,
		follow: &followList{pending: pending, watcher: watcher, expect: expectations{store: store, splits: splits, tokens: watcher},
			page: pendingPage, followed: map[string]PendingWalletPayment{}, skip: map[string]time.Time{}},
		audit: &paidAudit{store: store, recent: pending, watcher: watcher, now: now,
			paid: map[string]paidPayment{}, unmarked: map[string]reorged{}},
		verdicts: verdictRecorder{store: store, now: now}}
}

// WithPage sets how many pending payments one read of the work list returns (default 5,000); for
// tests and tuning.
func (h *VerifyWalletPaymentsHandler) WithPage(n int) *VerifyWalletPaymentsHandler {
	h.follow.page = max(n, 1)
	return h
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
	if err := h.audit.resume(ctx); err != nil {
		return err
	}
	now := h.now()
	if err := h.follow.sync(ctx, now); err != nil {
		return err
	}
	h.audit.forget(now)
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
	for _, r := range h.audit.reorgs(ds) {
		if change, ok := h.audit.flag(ctx, r); ok {
			h.follow.release(r.p) // watched again from the next Sync (the work list holds it)
			out.Reorged = append(out.Reorged, change)
		}
	}
	var vs []verdict
	for _, v := range ds {
		if v.Reorged {
			continue
		}
		p, ok := h.follow.take(v.TxHash)
		if !ok {
			continue // removed while the step ran
		}
		if !v.Paid && v.FailureCode == commands.CodeTxReverted {
			if err := h.verdicts.revertedTelemetry(ctx, p); err != nil {
				firstErr = cmp(firstErr, err)
				h.follow.release(p) // followed again from the next Sync
				continue
			}
		}
		vs = append(vs, verdict{p: p, v: v})
	}
	// A block's verdicts are recorded together (recordAll): one read of their receipts, then
	// concurrent appends that the store's group commit batches.
	h.verdicts.recordAll(ctx, vs, func(x verdict, change commands.ReceiptChange, err error) {
		outMu.Lock()
		defer outMu.Unlock()
		if err != nil {
			firstErr = cmp(firstErr, err)
			return
		}
		h.follow.hold(x.p, h.now().Add(decidedMemory))
		if change.Result.Position == (eventstore.Position{}) {
			return // a hint's verdict: nothing appended to the receipt
		}
		h.audit.remember(x.p, x.v.TxHash, h.now()) // restored: audited again
		out.Changes = append(out.Changes, change)
	})
	out.Followed = h.follower.Len()
	return out, firstErr
}

// recordConcurrency bounds the verdicts recorded at once through record (a store that cannot read
// many streams at once): each holds a database connection (serve's pool has 32) for its read.
const recordConcurrency = 16

func cmp(first, next error) error {
	if first != nil {
		return first
	}
	return next
}

// chainMeta is the metadata of the events the verifier appends.
var chainMeta = eventstore.Metadata{Actor: "chain", Source: "wallet-verifier"}
