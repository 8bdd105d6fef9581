package projections

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/payledger/payledger/domain/money"
	"github.com/payledger/payledger/domain/subscription"
	"github.com/payledger/payledger/eventstore"
)

// Subscriptions keeps the subscriptions read model: each subscription stream folded with the
// aggregate's own Evolve, so the row is what a replay of the stream gives. An event at or below
// the row's version was applied already and is skipped. Each SubscriptionCharged is also the
// billing record of that charge (subscription_billing, migration 019): the amount, the plan
// price in USD cents of the subscription's snapshot and the platform fee on it.
type Subscriptions struct{}

var _ Selective = Subscriptions{}

// Name implements Projector.
func (Subscriptions) Name() string { return "subscriptions" }

// Reset implements Projector.
func (Subscriptions) Reset(ctx context.Context, tx pgx.Tx) error {
	if _, err := tx.Exec(ctx, `DELETE FROM subscription_billing; DELETE FROM subscriptions`); err != nil {
		return fmt.Errorf("subscriptions projector: reset: %w", err)
	}
	return nil
}

// Relevant implements Selective: only subscription streams.
func (Subscriptions) Relevant(e eventstore.RecordedEvent) bool {
	return strings.HasPrefix(e.StreamID, subscription.StreamPrefix)
}

// Filter implements Filtered: the event store reads only subscription streams for it.
func (Subscriptions) Filter() (streamPrefixes, types []string) {
	return []string{subscription.StreamPrefix}, nil
}

var _ Paced = Subscriptions{}

// ReadInterval implements Paced. A subscription command waits for this projector (its caller's
// next list shows the change), but at rest the first append after a quiet spell is read at once;
// only under other load (orders, none of them its events) does a read wait up to PacedInterval,
// where every 10 ms it scanned the new events to find none of its own.
func (Subscriptions) ReadInterval() time.Duration { return PacedInterval }

// Apply implements Projector.
func (p Subscriptions) Apply(ctx context.Context, tx pgx.Tx, events []eventstore.RecordedEvent) error {
	for _, e := range events {
		if !p.Relevant(e) {
			continue
		}
		if err := applySubscription(ctx, tx, e); err != nil {
			return fmt.Errorf("subscriptions projector: %s v%d: %w", e.StreamID, e.Version, err)
		}
	}
	return nil
}

func applySubscription(ctx context.Context, tx pgx.Tx, e eventstore.RecordedEvent) error {
	id := strings.TrimPrefix(e.StreamID, subscription.StreamPrefix)
	var s subscription.State
	var raw []byte
	err := tx.QueryRow(ctx, `SELECT state FROM subscriptions WHERE subscription_id = $1 FOR UPDATE`, id).Scan(&raw)
	switch {
	case errors.Is(err, pgx.ErrNoRows):
	case err != nil:
		return err
	default:
		if err := json.Unmarshal(raw, &s); err != nil {
			return fmt.Errorf("decode stored state: %w", err)
		}
	}
	if e.Version <= s.Version {
		return nil
	}
	// A type this build does not know (a newer build wrote it: a rollback, a rolling upgrade) is
	// undecodable too: skipping it would show, and have the charger act on, a state the stream
	// does not hold (a subscription a newer build paused, charged as active).
	ev, err := subscription.Decode(e.Type, e.Data)
	if err != nil {
		return undecodable(e, err)
	}
	s = subscription.Evolve(s, ev)
	s.Version = e.Version
	if c, ok := ev.(subscription.Charged); ok && s.Exists {
		if err := billCharge(ctx, tx, id, s, c, e.Version); err != nil {
			return err
		}
	}
	if !s.Exists {
		return nil
	}
	b, err := json.Marshal(s)
	if err != nil {
		return err
	}
	_, err = tx.Exec(ctx, `INSERT INTO subscriptions
		(subscription_id, plan_id, merchant, customer, status, next_charge_at, created_at, version, state)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
		ON CONFLICT (subscription_id) DO UPDATE SET status = $5, next_charge_at = $6, version = $8, state = $9`,
		id, s.PlanID, s.Merchant, s.Customer, string(s.Status), s.NextChargeAt, s.CreatedAt, int64(s.Version), b)
	return err
}

// SubscriptionFeeBps is the platform fee on a subscription charge, as billing reports it.
const SubscriptionFeeBps = subscription.PlatformFeeBps

// SubscriptionFeeCents is the platform fee billed on a charge of priceCents.
func SubscriptionFeeCents(priceCents money.Cents) money.Cents {
	return subscription.PlatformFee(priceCents)
}

// billCharge writes the billing record of the charge c of subscription id (s: the state with c
// applied). A period has one record (the aggregate never charges it twice).
func billCharge(ctx context.Context, tx pgx.Tx, id string, s subscription.State, c subscription.Charged, version uint64) error {
	hashes := c.TransactionHashes
	if hashes == nil {
		hashes = []string{}
	}
	_, err := tx.Exec(ctx, `INSERT INTO subscription_billing (subscription_id, period_index, plan_id, merchant, customer,
			amount_units, amount_cents, platform_fee_cents, transaction_hashes, charged_at, version)
		VALUES ($1, $2, $3, $4, $5, $6::numeric, $7, $8, $9, $10, $11)
		ON CONFLICT (subscription_id, period_index) DO UPDATE SET amount_units = EXCLUDED.amount_units,
			amount_cents = EXCLUDED.amount_cents, platform_fee_cents = EXCLUDED.platform_fee_cents,
			transaction_hashes = EXCLUDED.transaction_hashes, charged_at = EXCLUDED.charged_at, version = EXCLUDED.version`,
		id, c.PeriodIndex, s.PlanID, s.Merchant, s.Customer, c.AmountUnits, int64(s.Plan.PriceUSD),
		int64(SubscriptionFeeCents(s.Plan.PriceUSD)), hashes, time.UnixMilli(c.ChargedAt).UTC(), int64(version))
	if err != nil {
		return fmt.Errorf("billing record: %w", err)
	}
	return nil
}
