package settlement

import (
	"context"
	"fmt"
	"strings"
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
// about to the one whose turn it is: it neither asks nor expires them, and reports those still
// waiting a while after their end (heldElsewhere), so that every instance's health names the
// hold, not only the asker's. The turn is kept through the backoff after an unanswered ask, so
// that the next ask is the same instance's, and given back once a pass has nothing to ask or the
// processor answered. It returns h; call it before Run.
func (h *PaymentWindowHandler) AskingInTurn(turn AskTurn) *PaymentWindowHandler {
	if turn == nil {
		panic("settlement.PaymentWindowHandler.AskingInTurn: nil turn")
	}
	h.turn = turn
	return h
}

// inTurn reports whether this pass asks about asks (h.mu held): always without a turn; else when
// the turn is this instance's, taken now. A pass with nothing to ask gives the turn back, unless
// it is backing off. Errors: the turn's (nothing is asked then); without the turn, the receipts
// left to the instance whose turn it is that still wait longer than windowHeldShown after their
// end (heldElsewhere).
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
	if !ours {
		return false, heldElsewhere(asks, now)
	}
	return true, nil
}

// windowHeldShown is how long after its end a receipt left to the instance whose turn it is to
// ask may wait before this instance's pass reports it: that instance asks at its first pass after
// the end (a second), and a processor that answers ends the wait within its ask's bound
// (windowAskWithin); a receipt still waiting after a backoff's length was asked unanswered, or
// not asked.
const windowHeldShown = WindowAskBackoff

// heldElsewhere is the error of a pass without the turn, naming the receipts of asks that wait
// longer than windowHeldShown after their end for the processor's answer to the instance whose
// turn it is; nil when none does. Only the asker's passes failed while it held them: the other
// instances' /healthz said ok, and their logs named nothing, while the expiries waited. The
// receipts are already in hand (this pass found them due and waiting), so no read is added.
func heldElsewhere(asks []windowAsk, now time.Time) error {
	var held []string
	for _, a := range asks {
		if now.Sub(a.end) > windowHeldShown {
			held = append(held, a.id)
		}
	}
	if len(held) == 0 {
		return nil
	}
	return fmt.Errorf("payment window: %d receipts' expiry held (at most %s after their end) until the onramp processor answers the instance whose turn it is to ask (%s)",
		len(held), WindowEndHold, strings.Join(held, ", "))
}

// giveTurn gives the turn back unless the asks are backing off at now (h.mu held).
func (h *PaymentWindowHandler) giveTurn(now time.Time) {
	if h.turn != nil && !now.Before(h.askAfter) {
		h.turn.Give()
	}
}
