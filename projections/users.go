package projections

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/big"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/payledger/payledger/domain/receipt"
	"github.com/payledger/payledger/eventstore"
)

// Users credits XP from receipt events (DESIGN 8):
//   - when a receipt becomes paid with a buyer wallet, that wallet gains
//     floor(totalUsd × xpPerDollar), once per receipt. The wallet is the confirmation's only
//     (the chain's sender, the processor's reported wallet), the payer the receipt shows: a
//     wallet named in a payment hint is the browser's word (anyone may post one with a dust
//     transfer), so a confirmation that names none (cash at a terminal, a processor report
//     without a wallet) credits no one;
//   - xpPerDollar is the merchant's shop value when the receipt is first credited: 1 when the
//     merchant has no shop config or never stored the field, an explicit 0 gives none. Shop
//     configuration is not in the log, so the rate is kept per receipt in user_xp_rates, which a
//     rebuild does not empty: a rebuild gives the same XP;
//   - totalUsd is the total in dollars; an EUR receipt uses its latest quoted EUR/USD rate
//     (1 when it was never quoted);
//   - a full refund of the order (the receipt's OrderRefundedCents reach the total) takes the
//     credit back, once: refunds of the excess (stop 70) and of funds returned before a late
//     payment (stop 69) are not the order's, and a chain-proven refund the receipt never
//     claimed counts nowhere (summing every RefundProcessed took the XP of a buyer whose
//     overpayment alone was given back);
//   - a reorg that takes back a refund (RefundReverted) so that the order's refunds fall below
//     the total again gives the debited credit back, once (users_reverted.go, stop 72): the log
//     no longer supports the refund that took it;
//   - wallets are lower-case.
//
// Profiles, presence and follows are CRUD (readmodels.Users); Reset only zeroes XP.
//
// A receipt's history is read through the event-store port (Events), never from the PostgreSQL
// events table: `projections rebuild users` works on every adapter (DESIGN 10).
type Users struct {
	Events StreamReader // the event store the receipts' histories are read from
}

// StreamReader is the part of the event-store port the users projector reads: one stream forward.
type StreamReader interface {
	ReadStream(ctx context.Context, stream string, from uint64, limit int) ([]eventstore.RecordedEvent, error)
}

// NewUsers returns the users projector reading receipts' histories from events.
func NewUsers(events StreamReader) Users { return Users{Events: events} }

var _ Projector = Users{}

// Name implements Projector.
func (Users) Name() string { return "users" }

// Reset implements Projector: every user's XP back to 0 and the per-receipt state emptied
// (the captured rates stay).
func (Users) Reset(ctx context.Context, tx pgx.Tx) error {
	if _, err := tx.Exec(ctx, `UPDATE users SET xp = 0 WHERE xp <> 0; DELETE FROM user_xp`); err != nil {
		return fmt.Errorf("users projector: reset: %w", err)
	}
	return nil
}

// xpEvents are the receipt events that change XP: a payment's confirmation, a processed refund
// and a reverted one.
var xpEvents = []string{receipt.EventConfirmed, receipt.EventRefundProcessed, receipt.EventRefundReverted}

// Relevant implements Selective: only xpEvents change XP. Everything else the projector needs is
// read from the receipt's own events when one of those comes, so the order path (a generation
// per order) costs this projector nothing.
func (Users) Relevant(e eventstore.RecordedEvent) bool {
	return strings.HasPrefix(e.StreamID, ReceiptStreamPrefix) && slices.Contains(xpEvents, e.Type)
}

// Filter implements Filtered: the event store reads only xpEvents of receipts for this projector
// (the order path's events never leave PostgreSQL for it).
func (Users) Filter() (streamPrefixes, types []string) {
	return []string{ReceiptStreamPrefix}, slices.Clone(xpEvents)
}

var _ Paced = Users{}

// ReadInterval implements Paced: nothing waits on XP, and under order load (no payment among the
// appends) each read scans the new events only to find none of its own.
func (Users) ReadInterval() time.Duration { return PacedInterval }

// Apply implements Projector: Prepare, then its writes in tx.
func (u Users) Apply(ctx context.Context, tx pgx.Tx, events []eventstore.RecordedEvent) error {
	apply, err := u.Prepare(ctx, events)
	if err != nil {
		return err
	}
	return apply(ctx, tx)
}

var _ Preparing = Users{}

// Prepare implements Preparing: every history is read before the batch's transaction begins (the
// runner calls it first). The reads take a connection of their own: none may wait for one while
// the transaction holds a row a request waits on, nor leave it idle past its 30 s limit.
func (u Users) Prepare(ctx context.Context, events []eventstore.RecordedEvent) (func(context.Context, pgx.Tx) error, error) {
	if u.Events == nil {
		return nil, errors.New("users projector: no event store to read receipts from")
	}
	type step struct {
		e eventstore.RecordedEvent
		f receiptFacts
	}
	var steps []step
	for _, e := range events {
		if !u.Relevant(e) {
			continue
		}
		f, err := foldUpTo(ctx, u.Events, e.StreamID, e.Version)
		if err != nil {
			return nil, fmt.Errorf("users projector: %s: %w", strings.TrimPrefix(e.StreamID, ReceiptStreamPrefix), err)
		}
		steps = append(steps, step{e, f})
	}
	return func(ctx context.Context, tx pgx.Tx) error {
		for _, st := range steps {
			id := strings.TrimPrefix(st.e.StreamID, ReceiptStreamPrefix)
			var err error
			switch st.e.Type {
			case receipt.EventConfirmed:
				err = credit(ctx, tx, id, st.f)
			case receipt.EventRefundReverted:
				err = giveBack(ctx, tx, id, st.f)
			default:
				err = refund(ctx, tx, id, st.f)
			}
			if err != nil {
				return fmt.Errorf("users projector: %s: %w", id, err)
			}
		}
		return nil
	}, nil
}

// receiptFacts is what XP needs of a receipt, as of one of its events.
type receiptFacts struct {
	merchant, currency string
	total              int64
	buyer              string        // the confirmation's wallet (verified by the chain or the processor)
	eurUSD             string        // the latest quoted EUR/USD rate
	state              receipt.State // the receipt folded as its commands fold it: which refunds are the order's
}

// orderRefunded is what the order's processed refunds brought back, as refundedUsd shows it.
func (f receiptFacts) orderRefunded() int64 { return int64(f.state.OrderRefundedCents()) }

// foldPage is how many of a receipt's events foldUpTo reads at a time.
const foldPage = 1000

// foldUpTo reads the receipt's events up to version (the event being applied) through the port,
// so live and rebuilt XP see exactly the same history on every adapter.
func foldUpTo(ctx context.Context, events StreamReader, stream string, version uint64) (f receiptFacts, err error) {
	fo := receipt.NewFolder(receipt.State{}) // linear in the credits, where Evolve is n² (stop 73)
	defer func() { f.state = fo.State() }()  // the named result: set on every return
	for from := uint64(1); from <= version; {
		batch, err := events.ReadStream(ctx, stream, from, int(min(version-from+1, foldPage)))
		if err != nil {
			return f, err
		}
		if len(batch) == 0 {
			break
		}
		for _, re := range batch {
			if re.Version > version {
				break
			}
			if err := foldEvent(&f, fo, re); err != nil {
				return f, err
			}
		}
		from = batch[len(batch)-1].Version + 1
	}
	return f, nil
}

// foldEvent adds one of the receipt's events to f, its state folded by fo.
func foldEvent(f *receiptFacts, fo *receipt.Folder, re eventstore.RecordedEvent) error {
	// A type this build does not know (a newer build wrote it) is passed over here: XP reads only
	// the facts of the known types below, which an added type cannot change, and it does not go
	// unreported: the receipts projector reads every receipt event, stops on this one with
	// ErrUndecodable (named in the log, its worker stuck on /healthz) and the receipt's commands
	// refuse its stream. Data that does not fit a known type does stop this projector.
	ev, err := receipt.Decode(re.Type, re.Data)
	if errors.Is(err, receipt.ErrUnknownEvent) {
		return nil
	}
	if err != nil {
		return undecodable(re, err)
	}
	fo.Apply(ev)
	switch e := ev.(type) {
	case receipt.Generated:
		f.merchant, f.currency, f.total = strings.ToLower(e.Merchant), e.Currency, int64(e.Total)
	case receipt.TokenQuoted:
		if e.EURUSDRate != "" {
			f.eurUSD = e.EURUSDRate
		}
	case receipt.PaymentConfirmed:
		f.buyer = strings.ToLower(e.BuyerWallet)
	}
	return nil
}

// credit gives the receipt's XP to its buyer, once per receipt.
func credit(ctx context.Context, tx pgx.Tx, id string, f receiptFacts) error {
	if f.buyer == "" {
		return nil
	}
	rate, err := xpRate(ctx, tx, id, f.merchant)
	if err != nil {
		return err
	}
	xp := XPFor(f.total, f.currency, f.eurUSD, rate)
	tag, err := tx.Exec(ctx, `INSERT INTO user_xp (receipt_id, merchant, currency, total_cents, buyer, eur_usd, wallet, xp, credited)
		VALUES ($1, $2, $3, $4, $5, $6, $5, $7, true) ON CONFLICT (receipt_id) DO NOTHING`, id, f.merchant, f.currency, f.total, f.buyer, f.eurUSD, xp)
	if err != nil || tag.RowsAffected() == 0 {
		return err // credited before (a second confirmation)
	}
	return addXP(ctx, tx, f.buyer, xp)
}

// refund takes the credit back, once, when the order's refunds reach the total.
func refund(ctx context.Context, tx pgx.Tx, id string, f receiptFacts) error {
	refunded := f.orderRefunded()
	if refunded < f.total {
		return nil
	}
	var wallet string
	var xp int64
	err := tx.QueryRow(ctx, `UPDATE user_xp u SET refunded_cents = $2, debited = true, xp = 0
		FROM (SELECT xp FROM user_xp WHERE receipt_id = $1 FOR UPDATE) old
		WHERE u.receipt_id = $1 AND u.credited AND NOT u.debited RETURNING u.wallet, old.xp`, id, refunded).Scan(&wallet, &xp)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil
	}
	if err != nil {
		return err
	}
	return addXP(ctx, tx, wallet, -xp)
}

// addXP adds xp to wallet's XP, saturating at bigint's bounds: an overflow would fail the batch,
// and the projector would retry it for ever, crediting no one's XP again.
func addXP(ctx context.Context, tx pgx.Tx, wallet string, xp int64) error {
	if xp == 0 {
		return nil
	}
	_, err := tx.Exec(ctx, `INSERT INTO users (wallet, xp) VALUES ($1, $2)
		ON CONFLICT (wallet) DO UPDATE SET
			xp = greatest(least(users.xp::numeric + excluded.xp, 9223372036854775807), -9223372036854775808)::bigint`, wallet, xp)
	return err
}

// xpRate is the receipt's captured xpPerDollar, capturing the merchant's current value the
// first time (1 without a shop config or without the field).
func xpRate(ctx context.Context, tx pgx.Tx, id, merchant string) (string, error) {
	var rate string
	err := tx.QueryRow(ctx, `SELECT xp_per_dollar::text FROM user_xp_rates WHERE receipt_id = $1`, id).Scan(&rate)
	if err == nil {
		return rate, nil
	}
	if !errors.Is(err, pgx.ErrNoRows) {
		return "", err
	}
	err = tx.QueryRow(ctx, `INSERT INTO user_xp_rates (receipt_id, xp_per_dollar)
		SELECT $1, coalesce((SELECT CASE WHEN jsonb_typeof(config->'xpPerDollar') = 'number' AND (config->>'xpPerDollar')::numeric >= 0
				THEN (config->>'xpPerDollar')::numeric END
			FROM shop_configs WHERE wallet = $2), 1)
		RETURNING xp_per_dollar::text`, id, merchant).Scan(&rate)
	return rate, err
}

// MaxXPPerDollar is the most XP a dollar gives: the shop configuration's bound on xpPerDollar
// (transport's maxXPPerDollar, stop 61). A configuration stored before that bound may hold more
// (1e300 was accepted); its receipts are credited at this rate, not at a product that wraps an
// int64 into a negative or arbitrary XP.
const MaxXPPerDollar = 10_000

// XPFor is floor(totalUsd × rate) for a receipt total in cents: EUR totals are converted with
// eurUSD (1 when empty or invalid). An invalid or negative rate gives 0; a rate above
// MaxXPPerDollar counts as MaxXPPerDollar, and a product past an int64 as the largest int64.
func XPFor(totalCents int64, currency, eurUSD, rate string) int64 {
	r, ok := new(big.Rat).SetString(rate)
	if !ok || r.Sign() <= 0 || totalCents <= 0 {
		return 0
	}
	if maxRate := big.NewRat(MaxXPPerDollar, 1); r.Cmp(maxRate) > 0 {
		r = maxRate
	}
	usd := new(big.Rat).SetFrac64(totalCents, 100)
	if currency == "EUR" {
		if fx, ok := new(big.Rat).SetString(eurUSD); ok && fx.Sign() > 0 {
			usd.Mul(usd, fx)
		}
	}
	v := usd.Mul(usd, r)
	xp := new(big.Int).Quo(v.Num(), v.Denom()) // both positive: Quo truncates = floor
	if !xp.IsInt64() {
		return math.MaxInt64
	}
	return xp.Int64()
}
