package settlement

import (
	"context"
	"fmt"
	"time"
)

// AskTurn is the turn, one instance's at a time, to ask the onramp processor: at windows' ends
// (pgstore.NewWindowAskTurn) or in the background reconciliation (pgstore.NewReconcileTurn), each
// an advisory lock of its own.
type AskTurn interface {
	// Take reports whether the turn is this instance's, taking it when it is free.
	Take(ctx context.Context) (bool, error)
	// Give gives the turn back, if held.
	Give()
}

// AskingInTurn makes one instance at a time ask the processor at windows' ends (AskingAtEnd):
// every instance runs the window's passes, and each asked about the same held receipts, each
// with its own backoff (while the processor did not answer, one ask per instance every
// WindowAskBackoff). An instance whose turn it is not leaves the receipts its pass would ask
// about to the one whose turn it is: it neither asks nor expires them. The turn is kept through
// the backoff after an unanswered ask, so that the next ask is the same instance's, and given
// back once a pass has nothing to ask or the processor answered. It returns h; call it before
// Run.
func (h *PaymentWindowHandler) AskingInTurn(turn AskTurn) *PaymentWindowHandler {
	if turn == nil {
		panic("settlement.PaymentWindowHandler.AskingInTurn: nil turn")
	}
	h.turn = turn
	return h
}

// inTurn reports whether this pass asks about asks (h.mu held): always without a turn; else when
// the turn is this instance's, taken now. A pass with nothing to ask gives the turn back, unless
// it is backing off. Errors: the turn's (nothing is asked then).
func (h *PaymentWindowHandler) inTurn(ctx context.Context, asks []windowAsk, now time.Time) (bool, error) {
	switch {
	case h.turn == nil:
		return len(asks) > 0, nil
	case len(asks) == 0:
		h.giveTurn(now)
		return false, nil
	}
	ours, err := h.turn.Take(ctx)
	if err != nil {
		return false, fmt.Errorf("payment window: %d receipts' expiry waits for the turn to ask the onramp processor: %w", len(asks), err)
	}
	return ours, nil
}

// giveTurn gives the turn back unless the asks are backing off at now (h.mu held).
func (h *PaymentWindowHandler) giveTurn(now time.Time) {
	if h.turn != nil && !now.Before(h.askAfter) {
		h.turn.Give()
	}
}
