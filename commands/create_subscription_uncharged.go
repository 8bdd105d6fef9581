package commands

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// UnchargedSubscriptions counts a merchant's subscriptions created at or after since that have
// never been charged and are not cancelled (the subscriptions read model), and the creation time
// of the oldest of them.
type UnchargedSubscriptions interface {
	UnchargedSince(ctx context.Context, merchant string, since time.Time) (n int, oldest time.Time, err error)
}

// MaxUnchargedSubscriptionsPerHour bounds a merchant's new subscriptions not charged yet, all its
// plans together, created within an hour. The per-address limit of the route does not stop many
// addresses (a botnet, 20 an hour each), and a permission funded at creation can be emptied right
// after: each such subscription fails its charges, each failure a webhook to the merchant. A
// real subscriber is charged at the next daily run and stops counting; a fake one, whose charge
// fails, keeps counting for its hour, and the merchant may cancel it to free its place. 100 an
// hour is far above the new subscribers of the merchants this service is for, and bounds the
// fake ones a merchant receives to 2,400 a day.
const MaxUnchargedSubscriptionsPerHour = 100

// ErrUnchargedLimited is the sentinel of UnchargedLimited (errors.Is).
var ErrUnchargedLimited = errors.New("too many new subscriptions not charged yet")

// UnchargedLimited refuses a creation past MaxUnchargedSubscriptionsPerHour of the plan's
// merchant (429 rate_limited) until ResetAt: when the oldest of them is an hour old.
type UnchargedLimited struct{ resetAt time.Time }

func (e *UnchargedLimited) Error() string {
	return fmt.Sprintf("%v: at most %d an hour per merchant", ErrUnchargedLimited, MaxUnchargedSubscriptionsPerHour)
}

// Is makes UnchargedLimited match ErrUnchargedLimited.
func (e *UnchargedLimited) Is(target error) bool { return target == ErrUnchargedLimited }

// ResetAt is when a creation may be tried again (Unix ms): the spec's resetAt.
func (e *UnchargedLimited) ResetAt() int64 { return e.resetAt.UnixMilli() }

// checkUncharged refuses a creation for merchant past MaxUnchargedSubscriptionsPerHour. It runs
// after every other check: a request refused anyway costs the merchant's bound nothing. Requests
// sent at once may pass it together (the read model is updated as each creation is answered);
// the per-address limit bounds those.
func (h *CreateSubscriptionHandler) checkUncharged(ctx context.Context, merchant string) error {
	if h.Uncharged == nil {
		return nil
	}
	n, oldest, err := h.Uncharged.UnchargedSince(ctx, merchant, h.now().Add(-time.Hour))
	if err != nil {
		return fmt.Errorf("count the merchant's uncharged subscriptions: %w", err)
	}
	if n >= MaxUnchargedSubscriptionsPerHour {
		return &UnchargedLimited{resetAt: oldest.Add(time.Hour)}
	}
	return nil
}
