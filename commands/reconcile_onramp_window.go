package commands

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/payledger/payledger/domain/receipt"
	"github.com/payledger/payledger/eventstore"
)

// The payment window process asks the processor at a receipt's window's end (stop 71). The
// reconciliation resumes an earlier session whose payment is under way only on a pass before the
// end (receipt.State.Resumable), and it passes every 30 s: a payment begun in an earlier session
// in the last 30 s before the end, its webhooks lost, was found by no pass in time, and the
// window process, which did not ask the processor, expired the receipt. Its success was then
// recorded as ignored: the customer charged, the receipt failed. Now the window process asks
// (AskAtWindowEnd) before it expires a receipt that has such a session (AsksAtWindowEnd).

// AsksAtWindowEnd reports whether the payment window process asks the processor about the
// receipt st before it expires it: it has an onramp session other than its current attempt that
// the processor may still be completing (sessionsToAsk: not ended, not the one it failed on)
// and whose payment's failure was not reported.
func AsksAtWindowEnd(st receipt.State) bool {
	return len(windowEndSessions(st)) > 0
}

// windowEndSessions are the sessions AskAtWindowEnd asks about, newest first.
func windowEndSessions(st receipt.State) []receipt.Attempt {
	var out []receipt.Attempt
	for _, a := range sessionsToAsk(st) {
		if a.ID != st.CurrentAttempt && !slices.Contains(st.FailedAttempts, a.ID) {
			out = append(out, a)
		}
	}
	return out
}

// ProcessorUnavailable reports whether err says the processor could not be asked at all (no
// answer, a server error, the service's key refused), rather than answering about a session.
func ProcessorUnavailable(err error) bool { return processorDown(err) }

// windowEndMeta is the metadata of what AskAtWindowEnd records.
var windowEndMeta = eventstore.Metadata{Actor: "verifier", Source: "payment window"}

// AskAtWindowEnd asks the processor, for the payment window process deciding receipt receiptID's
// end at `at`, about the receipt's earlier onramp sessions (AsksAtWindowEnd), newest first, and
// applies the first news: a completion pays the receipt (through the guards, as the
// reconciliation's), a payment under way makes its session the current attempt again
// (receipt.ResumeAtWindowEnd, within hold of the end), which holds the window. It reports whether
// the receipt changed, and the append. A session the processor answers nothing about (unknown to
// it) is skipped. Errors: the processor's when it does not answer (ProcessorUnavailable: the
// window process holds the expiry, at most hold), receipt.ErrNotFound, ErrContended, wrapped
// store errors. Without a processor (PROCESSOR_API_URL unset) it asks nothing.
func (h *ReconcileOnrampHandler) AskAtWindowEnd(ctx context.Context, receiptID string, at time.Time, hold time.Duration) (bool, eventstore.AppendResult, error) {
	if h.processor == nil {
		return false, eventstore.AppendResult{}, nil
	}
	loaded, err := LoadReceipt(ctx, h.store, receiptID)
	if err != nil {
		return false, eventstore.AppendResult{}, err
	}
	for _, a := range windowEndSessions(loaded.State) {
		sess, err := h.processor.Get(ctx, a.SessionID)
		if processorDown(err) {
			return false, eventstore.AppendResult{}, fmt.Errorf("ask onramp session %s at the window's end: %w", a.SessionID, err)
		}
		if err != nil {
			continue
		}
		var changed bool
		var res eventstore.AppendResult
		switch sess.Status {
		case "fulfillment_complete":
			changed, res, err = h.applyAt(ctx, loaded, a, sess, at.UnixMilli(), windowEndMeta)
		case "fulfillment_processing", "ach_pending":
			_, res, err = ChangeReceipt(ctx, h.store, receiptID, windowEndMeta, func(st receipt.State) ([]receipt.Event, error) {
				return receipt.ResumeAtWindowEnd(st, a.ID, sess.Status, at.UnixMilli(), hold), nil
			})
			changed = err == nil && res.Version > loaded.Version
		}
		if err != nil || changed {
			return changed, res, err
		}
	}
	return false, eventstore.AppendResult{}, nil
}
