package settlement

// The takeover of charges a crashed run left open.

import (
	"context"
	"errors"
	"math/big"
	"time"

	"github.com/google/uuid"
	"github.com/rs/zerolog"

	"github.com/payledger/payledger/commands"
	"github.com/payledger/payledger/eventstore"
)

// openCharges takes over the open rows nobody touched for lease and finishes them from what the
// chain says: their signed bytes are sent again (nothing is signed twice for one step), then the
// wave takes each through its remaining steps.
type openCharges struct {
	store  commands.Store
	ledger interface {
		TakeOver(ctx context.Context, token uuid.UUID, stale time.Duration, subscriptionID string, limit int) ([]ChargeRow, error)
	}
	chain interface {
		BroadcastAll(ctx context.Context, raws [][]byte) error
	}
	token   uuid.UUID
	lease   time.Duration
	limit   int
	claims  chargeClaims
	dropped droppedCharges // the rows whose transaction lost its nonce
	wave    chargeWave
	log     zerolog.Logger
}

// recover finishes the open rows of subscription id ("" any).
func (o openCharges) recover(ctx context.Context, id string, meta eventstore.Metadata) ([]ChargeResult, error) {
	rows, err := o.ledger.TakeOver(ctx, o.token, o.lease, id, o.limit)
	if err != nil || len(rows) == 0 {
		return nil, err
	}
	var items []*chargeItem
	var out []ChargeResult
	for _, r := range rows {
		st, err := commands.LoadSubscription(ctx, o.store, r.SubscriptionID)
		if r.Status == ChargeClaimed && err == nil {
			// Nothing was signed: a failure the log holds for this attempt is finished (its
			// webhook queued, its row closed); else the period is free for this run's claim.
			res, failed, err := o.wave.checks.outcomes.failedAgain(ctx, r, st, meta)
			if err != nil {
				return out, err
			}
			if failed {
				if res != nil {
					out = append(out, *res)
				}
				continue
			}
		}
		if r.Status == ChargeClaimed {
			if err := o.claims.drop(ctx, r); err != nil {
				return out, err
			}
			continue
		}
		if errors.Is(err, commands.ErrSubscriptionUndecodable) {
			// Its outcome cannot be recorded by this build (every command refuses the stream), but
			// it is that subscription's alone: before, it ended the recovery of every open charge.
			// Its row stays open, taken over again once its lease ends.
			o.log.Error().Err(err).Str("subscription", r.SubscriptionID).Int64("period", r.Period).
				Msg("subscription charging: an open charge's subscription holds an event this build cannot read; its outcome waits, the other open charges are recovered")
			continue
		}
		if err != nil {
			return nil, err
		}
		amount, _ := new(big.Int).SetString(r.AmountUnits, 10)
		items = append(items, &chargeItem{row: r, st: st, amount: amount})
	}
	o.log.Info().Int("charges", len(items)).Msg("subscription charging: recovering open charges")
	o.rebroadcast(ctx, items)
	all := items
	if items, err = o.dropped.settle(ctx, items); err != nil {
		return nil, err
	}
	err = o.wave.run(ctx, nil, items, meta)
	for _, it := range all {
		if it.res != nil {
			out = append(out, *it.res)
		}
	}
	return out, err
}

// rebroadcast sends the open charges' signed bytes again: mined ones are "already known" or
// "nonce too low", no error; a failure is only logged, as the wave that follows finds out what
// was mined.
func (o openCharges) rebroadcast(ctx context.Context, items []*chargeItem) {
	var raws [][]byte
	for _, it := range items {
		for _, raw := range it.row.Raws {
			raws = append(raws, raw)
		}
	}
	if len(raws) == 0 {
		return
	}
	if err := o.chain.BroadcastAll(ctx, raws); err != nil {
		o.log.Warn().Err(err).Msg("subscription charging: rebroadcast of open charges")
	}
}
