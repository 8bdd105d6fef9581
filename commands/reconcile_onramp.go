package commands

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/payledger/payledger/domain/receipt"
	"github.com/payledger/payledger/eventstore"
)

// OpenAttempts lists receipts whose current onramp attempt the processor has still to decide
// (generated, pending, or ach_pending: an accepted ACH payment settles later; or failed by an
// earlier attempt while a card session opened after it is open, receipt.State.OnrampOpen),
// started before a time: a page in (attempt start, receipt id) order after the cursor (afterStarted, afterReceipt), with
// the attempt start of the page's last receipt.
type OpenAttempts interface {
	OpenOnrampAttemptsPage(ctx context.Context, before, afterStarted time.Time, afterReceipt string, limit int) ([]string, time.Time, error)
}

// ReconcileOnramp asks the processor about every open onramp attempt started at least MinAge
// ago, and applies what it says: the events the browser or the processor's webhook never brought.
type ReconcileOnramp struct {
	MinAge time.Duration
}

// Reconciled is what a reconciliation pass did.
type Reconciled struct {
	Checked, Updated int
	Changes          []ReceiptChange // the appends of the updated receipts, for read-your-writes
	// Failed are the receipts whose verification failed: skipped, the next pass tries again.
	Failed []FailedVerification
	// ProcessorDown says the processor could not be asked (nil when it answered): the pass's
	// last maxUnanswered calls, or all its calls, were unanswered. After maxUnanswered in a row
	// the pass stops: the Unasked rest of its page is asked on a later round of the list.
	ProcessorDown error
	Unasked       int
}

// maxUnanswered is how many calls in a row the processor may leave unanswered (processorDown)
// before a pass stops. Each unanswered call can take the client's whole timeout (10 s), so a
// processor that accepts connections and never answers made a pass of 500 open attempts last
// over 80 minutes, during which the background reconciler retried no merchant webhook (the same
// pass does both) and asked no attempt of a later page.
const maxUnanswered = 3

// processorDown reports whether err says the processor could not be asked at all (its client's
// Unavailable: no answer, a server error, a refused key), rather than answering about a session.
func processorDown(err error) bool {
	var u interface{ Unavailable() bool }
	return errors.As(err, &u) && u.Unavailable()
}

// FailedVerification is a receipt whose verification failed, and why.
type FailedVerification struct {
	ReceiptID string
	Err       error
}

// ReceiptChange is an append to a receipt.
type ReceiptChange struct {
	ReceiptID string
	Result    eventstore.AppendResult
}

// reconcileBatch bounds one pass. Passes page through the open attempts, oldest first, and start
// from the oldest again after the last page: attempts the processor has nothing new about
// (abandoned checkouts, a session its API does not answer for) never keep the ones behind them
// from being asked; each is asked once every ceil(open/batch) passes.
const reconcileBatch = 500

// attemptCursor is where the next pass reads: after this attempt start and receipt id.
type attemptCursor struct {
	started time.Time
	receipt string
}

// ReconcileOnrampHandler verifies onramp attempts with the processor's session API.
type ReconcileOnrampHandler struct {
	store     Store
	processor Processor // nil: the onramp is not configured, nothing to verify
	open      OpenAttempts
	clock     judgeClock // the database's with JudgedBy (reconcile_onramp_clock.go)
	mu        sync.Mutex // the cursor: the background reconciler and POST /api/cron/reconcile
	cursor    attemptCursor
}

// NewReconcileOnrampHandler returns the handler. processor may be nil (PROCESSOR_API_URL unset:
// there is nothing to verify); it panics on another nil dependency.
func NewReconcileOnrampHandler(store Store, processor Processor, open OpenAttempts, now func() time.Time) *ReconcileOnrampHandler {
	if store == nil || open == nil || now == nil {
		panic("commands.NewReconcileOnrampHandler: nil dependency")
	}
	return &ReconcileOnrampHandler{store: store, processor: processor, open: open, clock: judgeClock{now: now}}
}

// Handle verifies up to 500 open attempts, the page after the last pass's (from the oldest again
// after the last page). A receipt whose verification fails is listed in Failed and skipped (a
// later pass tries again); after maxUnanswered calls in a row that the processor left unanswered
// the pass stops, saying so in ProcessorDown. The pass judges by the database's clock with
// JudgedBy, read once. Errors: the database clock's, the listing's.
func (h *ReconcileOnrampHandler) Handle(ctx context.Context, cmd ReconcileOnramp) (Reconciled, error) {
	var out Reconciled
	if h.processor == nil {
		return out, nil
	}
	now, err := h.clock.read(ctx)
	if err != nil {
		return out, err
	}
	ids, err := h.nextPage(ctx, now().Add(-cmd.MinAge))
	if err != nil {
		return out, err
	}
	unanswered := 0
	for i, id := range ids {
		if unanswered >= maxUnanswered {
			out.Unasked = len(ids) - i
			break
		}
		out.Checked++
		changed, res, err := h.verify(ctx, id, now)
		if unanswered++; !processorDown(err) {
			unanswered = 0 // an answer (or a failure of ours) ends the run
		}
		if err != nil {
			out.Failed = append(out.Failed, FailedVerification{ReceiptID: id, Err: err})
			continue
		}
		if changed {
			out.Updated++
			out.Changes = append(out.Changes, ReceiptChange{ReceiptID: id, Result: res})
		}
	}
	if unanswered >= maxUnanswered || unanswered > 0 && unanswered == out.Checked {
		out.ProcessorDown = fmt.Errorf("the onramp processor did not answer the pass's last %d calls (%d open attempts left to a later pass): %w",
			unanswered, out.Unasked, out.Failed[len(out.Failed)-1].Err)
	}
	return out, nil
}

// nextPage is the next page of open attempts started before before; after the last page the
// next pass starts from the first again.
func (h *ReconcileOnrampHandler) nextPage(ctx context.Context, before time.Time) ([]string, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	ids, last, err := h.open.OpenOnrampAttemptsPage(ctx, before, h.cursor.started, h.cursor.receipt, reconcileBatch)
	if err != nil {
		return nil, err
	}
	if len(ids) < reconcileBatch {
		h.cursor = attemptCursor{}
	} else {
		h.cursor = attemptCursor{started: last, receipt: ids[len(ids)-1]}
	}
	return ids, nil
}

// decidable reports whether a session status the processor reports can change the receipt st,
// so that Verify applies it. Only the completion or a rejection (the bank payment's
// return, which the session reports after the acceptance) moves an accepted ACH payment on. A
// failure applies only to a generated or pending receipt (receipt.Fail), returns an ACH one, or
// ends a card session retried on a failed one (receipt.State.OnrampOpen); on any other it is
// recorded as PaymentFailureIgnored, and the signed event of that failure records it once.
// Deciding it here recorded it again on every call: after every checkout_success report, which
// anyone with the page's link may post (20 an hour), a receipt paid or expired with a card
// checkout left behind grew its own stream, which every command replays, for good.
func decidable(st receipt.State, session string) bool {
	failure := receipt.ProcessorUpdate{Status: session}.IsFailure()
	switch status := st.Status; {
	case status == receipt.StatusACHPending:
		return session == "fulfillment_complete" || session == "rejected" // rejected: the payment's return (receipt.DecideProcessorUpdate)
	case failure && status == receipt.StatusFailed:
		return st.OnrampOpen() // a card session retried after a decline: its failure replaces the first
	case failure:
		return status == receipt.StatusGenerated || status == receipt.StatusPending
	}
	return true
}

// Verify asks the processor for the session of the receipt's current onramp attempt and applies
// its status through the guards (a success pays only with a source amount that covers what is
// due: the processor's events may omit it, its Get is where it is verified). It reports whether
// the receipt changed, and the append. A receipt without a current onramp session, or a session
// in a status the processor does not report as news, changes nothing; of an ach_pending receipt
// only the session's completion or rejection (the payment's return) is applied, and a failure
// only to a generated or pending receipt (decidable). When the current session brings nothing,
// the receipt's earlier sessions are asked about their completion (verifyEarlier), and so they
// are before the current session's failure is applied. Errors: the
// processor's (of the current session), the database clock's (JudgedBy), receipt.ErrNotFound,
// ErrContended, wrapped store errors.
func (h *ReconcileOnrampHandler) Verify(ctx context.Context, receiptID string) (bool, eventstore.AppendResult, error) {
	if h.processor == nil {
		return false, eventstore.AppendResult{}, nil
	}
	now, err := h.clock.read(ctx)
	if err != nil {
		return false, eventstore.AppendResult{}, err
	}
	return h.verify(ctx, receiptID, now)
}

// verify is Verify judged by now.
func (h *ReconcileOnrampHandler) verify(ctx context.Context, receiptID string, now func() time.Time) (bool, eventstore.AppendResult, error) {
	loaded, err := LoadReceipt(ctx, h.store, receiptID)
	if err != nil {
		return false, eventstore.AppendResult{}, err
	}
	a, ok := loaded.State.Current()
	if !ok || a.Kind != "onramp" || a.SessionID == "" {
		return false, eventstore.AppendResult{}, nil
	}
	sess, err := h.processor.Get(ctx, a.SessionID)
	if err != nil {
		return false, eventstore.AppendResult{}, err
	}
	if slices.Contains(receipt.ProcessorStatuses, sess.Status) && decidable(loaded.State, sess.Status) {
		if (receipt.ProcessorUpdate{Status: sess.Status}).IsFailure() {
			// An earlier session's payment under way, or done, comes first: the current one's
			// failure would fail the receipt, and a failed receipt is not asked about again. So
			// the failure waits for a pass in which the processor answered about every one.
			if changed, res, err := h.verifyEarlier(ctx, loaded, true, now); err != nil || changed {
				return changed, res, err
			}
		}
		if changed, res, err := h.apply(ctx, loaded, a, sess, now); err != nil || changed {
			return changed, res, err
		}
	}
	return h.verifyEarlier(ctx, loaded, false, now)
}

// verifyEarlier asks about the receipt's earlier onramp sessions (sessionsToAsk, the newest few
// besides the current one) while it is open, and applies the first completion it finds. A customer
// who left a checkout and started another may still pay the first in its own tab: its success
// pays the receipt from any attempt, but when its webhook was lost only the current session was
// asked, and the receipt stayed unpaid (then failed, when the processor expired the second
// checkout) while the customer had paid. Only a completion is applied: the failure or progress
// of an attempt other than the current changes nothing (recorded as ignored on every pass, it
// would grow the stream), except a payment under way that makes it the current attempt again,
// once (earlierNews). A session the processor answers nothing about is skipped; once it does not
// answer at all, the rest are left to a later pass, and, before the current session's failure
// (beforeFailure) while the window is open, that is the processor's error: the failure is not
// applied in this pass (stop 69 review: applied, it failed the receipt, which left the list with
// the earlier payment unasked). After the window's end no payment under way resumes the receipt
// (Resumable), so the failure is applied: a session the processor never answers about does not
// keep the current one open, and the receipt pending, for good.
func (h *ReconcileOnrampHandler) verifyEarlier(ctx context.Context, loaded Loaded[receipt.State], beforeFailure bool, now func() time.Time) (bool, eventstore.AppendResult, error) {
	st := loaded.State
	if st.Expired() || !slices.Contains(earlierAsked, st.Status) {
		return false, eventstore.AppendResult{}, nil
	}
	for _, a := range sessionsToAsk(st) {
		if a.ID == st.CurrentAttempt {
			continue
		}
		sess, err := h.processor.Get(ctx, a.SessionID)
		if processorDown(err) && beforeFailure && now().UnixMilli() < st.Receipt.ExpiresAt {
			return false, eventstore.AppendResult{}, fmt.Errorf("ask earlier onramp session %s before the current one's failure: %w", a.SessionID, err)
		}
		if processorDown(err) {
			break // the next would wait as long: a later pass asks again
		}
		if err != nil || !earlierNews(st, a, sess.Status, now().UnixMilli()) {
			continue
		}
		if changed, res, err := h.apply(ctx, loaded, a, sess, now); err != nil || changed {
			return changed, res, err
		}
	}
	return false, eventstore.AppendResult{}, nil
}

// earlierNews reports whether an earlier session's status is applied (verifyEarlier): its
// completion, or its payment under way when that makes it the current attempt again
// (receipt.State.Resumable: once per session, before the window's end), so that it holds the
// window when its webhook was lost. Any other status of it changes nothing.
func earlierNews(st receipt.State, a receipt.Attempt, status string, now int64) bool {
	underWay := status == "fulfillment_processing" || status == "ach_pending"
	return status == "fulfillment_complete" || underWay && st.Resumable(a.ID, now)
}

// earlierAsked are the statuses in which a receipt's earlier sessions are asked about: a
// completion of one would pay it.
var earlierAsked = []receipt.Status{receipt.StatusGenerated, receipt.StatusPending, receipt.StatusFailed, receipt.StatusACHPending}

// apply decides the processor's view sess of the receipt's attempt a through the guards, at now.
func (h *ReconcileOnrampHandler) apply(ctx context.Context, loaded Loaded[receipt.State], a receipt.Attempt, sess OnrampSession,
	now func() time.Time) (bool, eventstore.AppendResult, error) {
	return h.applyAt(ctx, loaded, a, sess, now().UnixMilli(), eventstore.Metadata{Actor: "verifier", Source: "verifier"})
}

// applyAt is apply at `at` (Unix ms), recorded with meta.
func (h *ReconcileOnrampHandler) applyAt(ctx context.Context, loaded Loaded[receipt.State], a receipt.Attempt, sess OnrampSession,
	at int64, meta eventstore.Metadata) (bool, eventstore.AppendResult, error) {
	exact := numberText(sess.SourceAmountUSD)
	amount, err := dollarsToCents(exact)
	if err != nil {
		amount, exact = nil, "" // an unreadable amount is left unknown: a success confirms nothing
	}
	u := receipt.ProcessorUpdate{SessionID: sess.ID, AttemptID: a.ID, Status: sess.Status, ErrorCode: sess.ErrorCode, RequestID: sess.RequestID,
		TransactionHash: sess.TransactionHash, Wallet: sess.WalletAddress, SourceAmountCents: amount, SourceAmountUSD: exact, SessionUnique: a.SessionUnique,
		At: at}
	receiptID := loaded.State.Receipt.ReceiptID
	if a.OpenedBy != "processor" {
		u.SessionOwner = receiptID // the service started this session for this receipt, asking for the amount due
	}
	res, err := changeByProcessor(ctx, h.store, receiptID, meta, u)
	return err == nil && res.Version > loaded.Version, res, err
}
