package settlement

// The daily run lists the due subscriptions from the subscriptions read model: it lists only
// once that model has applied the event log up to the log's head as it was when the run began.

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/payledger/payledger/commands"
	"github.com/payledger/payledger/eventstore"
)

// DueProgress is how far the read model behind DueSubscriptions has applied the event log.
type DueProgress interface {
	// Head is the position of the log's last committed event.
	Head(ctx context.Context) (eventstore.Position, error)
	// Applied is the position the subscriptions read model reflects (its projector's stored
	// checkpoint, moved in the transaction of its writes; a rebuild sets it back to the start in
	// the transaction that empties the model).
	Applied(ctx context.Context) (eventstore.Position, error)
}

// ErrReadModelBehind fails a daily run that found the subscriptions read model behind the log:
// it is being rebuilt (`payledger projections rebuild subscriptions` empties it and replays the
// log) or its projector is stuck. Listing from it would leave the subscriptions not replayed yet
// uncharged until the next day's run; the run is made again at the next tick instead. The cron
// route answers it 503 read_model_behind (a caller retries later), not 500.
var ErrReadModelBehind = &commands.Refusal{Kind: commands.KindUnavailable, Code: "read_model_behind",
	Message: "The subscriptions read model has not applied the event log up to its head (a rebuild replaying it, or its projector stuck): no due subscription was listed from it; try again later"}

// dueFrom waits, up to CatchUp, until the read model has applied the log up to its head as it is
// now, and returns that head (the zero position without Progress: no wait). A projector at work
// reaches it within a couple of seconds (a filtered projector writes its checkpoint past events
// it skips within a second); one that does not in CatchUp is ErrReadModelBehind.
func (h *ChargeSubscriptionsHandler) dueFrom(ctx context.Context) (eventstore.Position, error) {
	if h.Progress == nil {
		return eventstore.Start, nil
	}
	head, err := h.Progress.Head(ctx)
	if err != nil {
		return head, fmt.Errorf("the event log's head: %w", err)
	}
	deadline := time.Now().Add(h.CatchUp)
	for {
		err := h.dueComplete(ctx, head)
		if !errors.Is(err, ErrReadModelBehind) || !time.Now().Before(deadline) {
			return head, err
		}
		if err := sleep(ctx, h.Poll); err != nil {
			return head, err
		}
	}
}

// dueComplete says whether the read model reflects the log up to head: nil, or
// ErrReadModelBehind naming both positions. Checked again after each page is listed, it catches a
// rebuild begun after the wait (the model emptied and its checkpoint reset in one transaction):
// that page, and the pages after it, are not charged from.
func (h *ChargeSubscriptionsHandler) dueComplete(ctx context.Context, head eventstore.Position) error {
	if h.Progress == nil {
		return nil
	}
	at, err := h.Progress.Applied(ctx)
	if err != nil {
		return fmt.Errorf("the subscriptions read model's position: %w", err)
	}
	if at.Less(head) {
		return fmt.Errorf("%w (at %s, the log's head %s)", ErrReadModelBehind, at, head)
	}
	return nil
}
