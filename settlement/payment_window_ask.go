package settlement

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/rs/zerolog"

	"github.com/payledger/payledger/commands"
	"github.com/payledger/payledger/eventstore"
)

// WindowEndAsk asks the onramp processor, at the end of a receipt's window, about the receipt's
// earlier onramp sessions, and records what holds the window (commands.ReconcileOnrampHandler:
// a completion pays, a payment under way resumes its session). It reports whether the receipt
// changed; an error for which commands.ProcessorUnavailable holds says the processor did not
// answer.
type WindowEndAsk interface {
	AskAtWindowEnd(ctx context.Context, receiptID string, at time.Time, hold time.Duration) (bool, eventstore.AppendResult, error)
}

// Bounds of the asks at a window's end.
const (
	// WindowEndHold is how long after a receipt's window's end its expiry waits at most for the
	// processor to answer about its earlier sessions; a payment the processor reports under way
	// within it holds the window (receipt.ResumeAtWindowEnd). Past it the receipt is expired
	// unanswered, with a warning naming it.
	WindowEndHold = 5 * time.Minute
	// windowAskWithin bounds one receipt's asks, so that a processor that never answers holds a
	// pass for seconds, not for the client's timeout per session.
	windowAskWithin = 3 * time.Second
	// WindowAskBackoff is how long the asks pause after the processor did not answer: the held
	// receipts wait without asking, and the passes (every second) stay short.
	WindowAskBackoff = 10 * time.Second
)

// windowAsk is a receipt whose expiry waits for the processor's answer, and its window's end.
type windowAsk struct {
	id  string
	end time.Time
}

// AskingAtEnd makes the process ask the onramp processor (ask: commands.ReconcileOnrampHandler)
// before it expires a receipt that has an earlier onramp session the processor may still be
// completing (commands.AsksAtWindowEnd). The reconciliation passes every 30 s and resumes such
// a session's payment only before the end: a payment begun in the last 30 s, its webhooks lost,
// was missed, the receipt expired and the payment's success recorded as ignored. While the
// processor does not answer, the expiry is held at most WindowEndHold after the end, each pass
// reporting the held receipts as its error (the health names the process once that lasts a
// minute); past it the receipt is expired, logged on log. It returns h; call it before Run.
func (h *PaymentWindowHandler) AskingAtEnd(ask WindowEndAsk, log zerolog.Logger) *PaymentWindowHandler {
	if ask == nil {
		panic("settlement.PaymentWindowHandler.AskingAtEnd: nil ask")
	}
	h.ask, h.log = ask, log
	return h
}

// askAtEnd asks the processor about each receipt of asks (h.mu held) and expires those it says
// nothing holds; it returns the receipts changed. After the processor did not answer, no receipt
// is asked for WindowAskBackoff: each is held until WindowEndHold after its end, then expired
// unanswered. With AskingInTurn only the instance whose turn it is asks (inTurn). Errors: the
// turn's, ctx's, else the held receipts', the unanswered ones', the first receipt's.
func (h *PaymentWindowHandler) askAtEnd(ctx context.Context, asks []windowAsk, now time.Time) ([]commands.ReceiptChange, error) {
	if ours, err := h.inTurn(ctx, asks, now); !ours {
		return nil, err
	}
	defer func() { h.giveTurn(now) }()
	var out []commands.ReceiptChange
	var held, unanswered []string
	var first error
	for _, a := range asks {
		change, err := h.askOne(ctx, a, now)
		switch {
		case ctx.Err() != nil:
			return out, ctx.Err()
		case err == nil:
			if change != nil {
				out = append(out, *change)
			}
			continue
		case !commands.ProcessorUnavailable(err):
			if first == nil {
				first = fmt.Errorf("ask about receipt %s at its window's end: %w", a.id, err)
			}
			continue
		}
		if now.Before(a.end.Add(WindowEndHold)) {
			held = append(held, a.id)
			continue
		}
		change, _, err = h.expire(ctx, a.id, now, true)
		if err != nil && first == nil {
			first = fmt.Errorf("expire receipt %s: %w", a.id, err)
		} else if change != nil {
			out = append(out, *change)
			unanswered = append(unanswered, a.id)
			h.log.Warn().Str("receipt", a.id).Err(h.down).Dur("held", WindowEndHold).
				Msg("payment window: receipt expired without the onramp processor's answer about its earlier sessions; a payment completed there is recorded as ignored, to refund")
		}
	}
	switch {
	case len(held) > 0:
		return out, fmt.Errorf("payment window: %d receipts' expiry held (at most %s after their end) until the onramp processor answers about their earlier sessions (%s): %w",
			len(held), WindowEndHold, strings.Join(held, ", "), h.down)
	case len(unanswered) > 0:
		return out, fmt.Errorf("payment window: %d receipts expired without the onramp processor's answer about their earlier sessions (%s): %w",
			len(unanswered), strings.Join(unanswered, ", "), h.down)
	}
	return out, first
}

// askOne asks about receipt a and expires it when nothing holds its window; it returns the
// change, if any. The processor's error (it does not answer, or did not within the backoff) says
// the receipt waits. Errors: the ask's, the expiry's.
func (h *PaymentWindowHandler) askOne(ctx context.Context, a windowAsk, now time.Time) (*commands.ReceiptChange, error) {
	if now.Before(h.askAfter) {
		return nil, h.down
	}
	actx, cancel := context.WithTimeout(ctx, windowAskWithin)
	changed, res, err := h.ask.AskAtWindowEnd(actx, a.id, now, WindowEndHold)
	cancel()
	switch {
	case commands.ProcessorUnavailable(err):
		h.askAfter, h.down = now.Add(WindowAskBackoff), err
		return nil, err
	case err != nil:
		return nil, err
	case changed:
		return &commands.ReceiptChange{ReceiptID: a.id, Result: res}, nil
	}
	change, _, err := h.expire(ctx, a.id, now, true)
	return change, err
}
