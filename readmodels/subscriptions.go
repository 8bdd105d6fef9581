package readmodels

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/payledger/payledger/domain/subscription"
)

// Subscriptions reads the subscriptions read model (projections.Subscriptions).
type Subscriptions struct{ pool *pgxpool.Pool }

// NewSubscriptions returns the reader over pool.
func NewSubscriptions(pool *pgxpool.Pool) *Subscriptions { return &Subscriptions{pool: pool} }

// SubscriptionListMax bounds a list read (and a page of one).
const SubscriptionListMax = 1000

// ByCustomer lists the first SubscriptionListMax subscriptions of a customer wallet, oldest first.
func (s *Subscriptions) ByCustomer(ctx context.Context, wallet string) ([]subscription.State, error) {
	list, _, err := s.CustomerPage(ctx, wallet, SubscriptionListMax, "")
	return list, err
}

// ByMerchant lists the first SubscriptionListMax subscriptions to a merchant wallet's plans,
// oldest first.
func (s *Subscriptions) ByMerchant(ctx context.Context, wallet string) ([]subscription.State, error) {
	list, _, err := s.MerchantPage(ctx, wallet, SubscriptionListMax, "")
	return list, err
}

// CustomerPage is a page of at most limit (1 to SubscriptionListMax) of a customer wallet's
// subscriptions, oldest first, after cursor ("" from the first), and the cursor of the next
// page ("" when this one is the last). Errors: ErrBadCursor for a cursor no page gave.
func (s *Subscriptions) CustomerPage(ctx context.Context, wallet string, limit int, cursor string) ([]subscription.State, string, error) {
	return s.page(ctx, `customer`, wallet, limit, cursor)
}

// MerchantPage is CustomerPage for the subscriptions to a merchant wallet's plans.
func (s *Subscriptions) MerchantPage(ctx context.Context, wallet string, limit int, cursor string) ([]subscription.State, string, error) {
	return s.page(ctx, `merchant`, wallet, limit, cursor)
}

// page reads one page of the list of column = wallet in (created_at, subscription_id) order: a
// list longer than one page used to end at its first SubscriptionListMax rows, so a merchant's
// newer subscribers could never be read.
func (s *Subscriptions) page(ctx context.Context, column, wallet string, limit int, cursor string) ([]subscription.State, string, error) {
	limit = min(max(limit, 1), SubscriptionListMax)
	afterAt, afterID := int64(math.MinInt64), ""
	if cursor != "" {
		var err error
		if afterAt, afterID, err = decodeSubscriptionCursor(cursor); err != nil {
			return nil, "", err
		}
	}
	list, err := s.query(ctx, `SELECT state FROM subscriptions WHERE `+column+` = $1
		AND (created_at, subscription_id) > ($3, $4) ORDER BY created_at, subscription_id LIMIT $2`,
		wallet, limit+1, afterAt, afterID)
	if err != nil || len(list) <= limit {
		return list, "", err
	}
	list = list[:limit]
	last := list[limit-1]
	return list, encodeSubscriptionCursor(last.CreatedAt, last.ID), nil
}

// Subscription list cursors are opaque to clients: base64 of "<createdAt ms>|<subscription id>".
func encodeSubscriptionCursor(createdAt int64, id string) string {
	return base64.RawURLEncoding.EncodeToString([]byte(strconv.FormatInt(createdAt, 10) + "|" + id))
}

func decodeSubscriptionCursor(c string) (int64, string, error) {
	raw, err := base64.RawURLEncoding.DecodeString(c)
	if err != nil {
		return 0, "", ErrBadCursor
	}
	at, id, ok := strings.Cut(string(raw), "|")
	n, err := strconv.ParseInt(at, 10, 64)
	if !ok || err != nil || id == "" {
		return 0, "", ErrBadCursor
	}
	return n, id, nil
}

// NewestByMerchant lists the newest n (at most SubscriptionListMax) subscriptions to a merchant
// wallet's plans, newest first (the index on merchant, created_at read backwards).
func (s *Subscriptions) NewestByMerchant(ctx context.Context, wallet string, n int) ([]subscription.State, error) {
	return s.query(ctx, `SELECT state FROM subscriptions WHERE merchant = $1
		ORDER BY created_at DESC, subscription_id DESC LIMIT $2`, wallet, min(max(n, 0), SubscriptionListMax))
}

// query reads the states sql selects for wallet ($1, lower-cased), a limit ($2) and more.
func (s *Subscriptions) query(ctx context.Context, sql, wallet string, limit int, more ...any) ([]subscription.State, error) {
	rows, err := s.pool.Query(ctx, sql, append([]any{strings.ToLower(wallet), limit}, more...)...)
	if err != nil {
		return nil, fmt.Errorf("list subscriptions: %w", err)
	}
	defer rows.Close()
	out := []subscription.State{}
	for rows.Next() {
		var raw []byte
		if err := rows.Scan(&raw); err != nil {
			return nil, err
		}
		var st subscription.State
		if err := json.Unmarshal(raw, &st); err != nil {
			return nil, fmt.Errorf("decode subscription: %w", err)
		}
		out = append(out, st)
	}
	return out, rows.Err()
}

// ChargeTotals is what a merchant's subscription charges brought in (USD): the billing records.
type ChargeTotals struct {
	Charges       int64
	VolumeCents   int64
	PlatformCents int64
}

// ChargeTotals sums wallet's billing records (projections.Subscriptions: one per
// SubscriptionCharged, migration 019) with charged_at in [from, to).
func (s *Subscriptions) ChargeTotals(ctx context.Context, wallet string, from, to time.Time) (ChargeTotals, error) {
	var t ChargeTotals
	err := s.pool.QueryRow(ctx, `SELECT count(*), coalesce(sum(amount_cents), 0), coalesce(sum(platform_fee_cents), 0)
		FROM subscription_billing WHERE merchant = lower($1) AND charged_at >= $2 AND charged_at < $3`,
		wallet, from, to).Scan(&t.Charges, &t.VolumeCents, &t.PlatformCents)
	if err != nil {
		return t, fmt.Errorf("subscription charge totals: %w", err)
	}
	return t, nil
}
