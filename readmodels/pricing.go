package readmodels

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// Price is one asset's USD price and when it was set.
type Price struct {
	Asset    string
	USDPrice string // exact decimal
	SetAt    time.Time
	SetBy    string
}

// Prices stores token prices and the EUR/USD rate.
type Prices struct{ pool *pgxpool.Pool }

// NewPrices returns the store on pool.
func NewPrices(pool *pgxpool.Pool) *Prices { return &Prices{pool: pool} }

// All returns every set price.
func (p *Prices) All(ctx context.Context) (map[string]Price, error) {
	rows, err := p.pool.Query(ctx, `SELECT asset, usd_price, set_at, set_by FROM prices`)
	if err != nil {
		return nil, fmt.Errorf("read prices: %w", err)
	}
	list, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (Price, error) {
		var pr Price
		err := r.Scan(&pr.Asset, &pr.USDPrice, &pr.SetAt, &pr.SetBy)
		return pr, err
	})
	if err != nil {
		return nil, err
	}
	out := make(map[string]Price, len(list))
	for _, pr := range list {
		out[pr.Asset] = pr
	}
	return out, nil
}

// Set stores prices, each stamped now.
func (p *Prices) Set(ctx context.Context, prices []Price) error {
	batch := &pgx.Batch{}
	for _, pr := range prices {
		batch.Queue(`INSERT INTO prices (asset, usd_price, set_at, set_by) VALUES ($1, $2, $3, $4)
			ON CONFLICT (asset) DO UPDATE SET usd_price = EXCLUDED.usd_price, set_at = EXCLUDED.set_at, set_by = EXCLUDED.set_by`,
			pr.Asset, pr.USDPrice, pr.SetAt, pr.SetBy)
	}
	if err := p.pool.SendBatch(ctx, batch).Close(); err != nil {
		return fmt.Errorf("save prices: %w", err)
	}
	return nil
}

// Usage counts API calls per merchant and day in memory and flushes them to api_usage.
type Usage struct {
	pool *pgxpool.Pool
	now  func() time.Time
	// Every is how often Run flushes (usageFlushEvery unless a test shortens it).
	Every time.Duration
	// FinalWait bounds Run's last flush, after its context ended (usageFinalWait unless a test
	// shortens it).
	FinalWait time.Duration
	mu        sync.Mutex
	n         map[usageKey]int64
}

// usageFlushEvery is Run's pace; after usageFailuresToStop flushes in a row fail, Run returns the
// last error, so that the worker's supervisor logs it and /healthz names the worker (the counts
// stay in memory, flushed once a flush succeeds).
const (
	usageFlushEvery     = 5 * time.Second
	usageFailuresToStop = 10
	// usageFinalWait: the last flush runs after serve's signal, inside its drain; a database that
	// hangs (a lock, a lost server) held the stop for good, until a second signal.
	usageFinalWait = 5 * time.Second
)

type usageKey struct {
	wallet string
	day    string
}

// NewUsage returns a counter on pool.
func NewUsage(pool *pgxpool.Pool, now func() time.Time) *Usage {
	return &Usage{pool: pool, now: now, Every: usageFlushEvery, FinalWait: usageFinalWait, n: map[usageKey]int64{}}
}

// Count adds one call for wallet.
func (u *Usage) Count(wallet string) {
	k := usageKey{wallet, u.now().UTC().Format("2006-01-02")}
	u.mu.Lock()
	u.n[k]++
	u.mu.Unlock()
}

// Flush writes the counted calls.
func (u *Usage) Flush(ctx context.Context) error {
	u.mu.Lock()
	pending := u.n
	u.n = map[usageKey]int64{}
	u.mu.Unlock()
	if len(pending) == 0 {
		return nil
	}
	batch := &pgx.Batch{}
	for k, n := range pending {
		batch.Queue(`INSERT INTO api_usage (wallet, day, calls) VALUES ($1, $2::date, $3)
			ON CONFLICT (wallet, day) DO UPDATE SET calls = api_usage.calls + EXCLUDED.calls`, k.wallet, k.day, n)
	}
	if err := u.pool.SendBatch(ctx, batch).Close(); err != nil {
		u.mu.Lock() // put them back: counts must not be lost to a passing error
		for k, n := range pending {
			u.n[k] += n
		}
		u.mu.Unlock()
		return fmt.Errorf("flush usage: %w", err)
	}
	return nil
}

// Run flushes every u.Every until ctx ends, and once more at the end, for at most u.FinalWait
// (the counts of a last flush that fails are lost with the process). A flush that keeps failing
// (usageFailuresToStop in a row) ends Run with its error: every failure used to be dropped, so
// billing's apiCalls stopped moving with no log line and no /healthz entry.
func (u *Usage) Run(ctx context.Context) error {
	t := time.NewTicker(u.Every)
	defer t.Stop()
	failed := 0
	for {
		select {
		case <-ctx.Done():
			last, cancel := context.WithTimeout(context.WithoutCancel(ctx), u.FinalWait)
			defer cancel()
			return u.Flush(last)
		case <-t.C:
			if err := u.Flush(ctx); err == nil || ctx.Err() != nil {
				failed = 0
			} else if failed++; failed >= usageFailuresToStop {
				return err
			}
		}
	}
}

// Calls returns wallet's API calls since from (a UTC day) and in all.
func (u *Usage) Calls(ctx context.Context, wallet string, from time.Time) (period, all int64, err error) {
	err = u.pool.QueryRow(ctx, `SELECT coalesce(sum(calls) FILTER (WHERE day >= $2::date), 0), coalesce(sum(calls), 0) FROM api_usage WHERE wallet = $1`,
		wallet, from.UTC().Format("2006-01-02")).Scan(&period, &all)
	return period, all, err
}

// Money sums a merchant's receipts from the receipts read model (amounts in cents, by the
// receipt's currency); paid means a payment was confirmed.
type MoneySummary struct {
	Currency      string
	PaidCount     int64
	PaidCents     int64
	PlatformCents int64
	MerchantCents int64
	RefundedCents int64
}

// Summaries returns wallet's paid volume, fees and refunds per currency for receipts paid in
// [from, to).
func (r *Receipts) Summaries(ctx context.Context, wallet string, from, to time.Time) ([]MoneySummary, error) {
	rows, err := r.pool.Query(ctx, `SELECT currency, count(*), coalesce(sum(total_cents), 0),
			coalesce(sum((state->'receipt'->>'platformFeeCents')::bigint), 0),
			coalesce(sum((state->'receipt'->>'merchantFeeCents')::bigint), 0),
			coalesce(sum((state->>'refundedCents')::bigint - coalesce((state->>'fundsRefundedCents')::bigint, 0) - coalesce((state->>'excessRefundedCents')::bigint, 0)), 0)
		FROM receipts WHERE merchant_wallet = $1 AND state->'payment' IS NOT NULL
		  AND (state->'payment'->>'at')::bigint >= $2 AND (state->'payment'->>'at')::bigint < $3
		GROUP BY currency ORDER BY currency`, wallet, from.UnixMilli(), to.UnixMilli())
	if err != nil {
		return nil, fmt.Errorf("summarise receipts: %w", err)
	}
	return pgx.CollectRows(rows, func(row pgx.CollectableRow) (MoneySummary, error) {
		var m MoneySummary
		err := row.Scan(&m.Currency, &m.PaidCount, &m.PaidCents, &m.PlatformCents, &m.MerchantCents, &m.RefundedCents)
		return m, err
	})
}

// OrdersCreated counts wallet's receipts from orders created since from, and in all.
func (r *Receipts) OrdersCreated(ctx context.Context, wallet string, from time.Time) (period, all int64, err error) {
	err = r.pool.QueryRow(ctx, `SELECT count(*) FILTER (WHERE created_at >= $2), count(*) FROM receipts
		WHERE merchant_wallet = $1 AND state->'receipt'->>'source' = 'order'`, wallet, from).Scan(&period, &all)
	return period, all, err
}

// Settled returns, per token, what wallet's paid and reconciled receipts brought in minus
// refunds, in cents of the receipt's currency.
type Settled struct {
	Token         string
	Currency      string
	Receipts      int64
	SettledCents  int64
	RefundedCents int64
}

// SettledByToken sums settled receipts by payment token.
func (r *Receipts) SettledByToken(ctx context.Context, wallet string) ([]Settled, error) {
	rows, err := r.pool.Query(ctx, `SELECT coalesce(state->'payment'->>'token', ''), currency, count(*),
			coalesce(sum(total_cents - (state->>'refundedCents')::bigint + coalesce((state->>'fundsRefundedCents')::bigint, 0) + coalesce((state->>'excessRefundedCents')::bigint, 0)), 0),
			coalesce(sum((state->>'refundedCents')::bigint - coalesce((state->>'fundsRefundedCents')::bigint, 0) - coalesce((state->>'excessRefundedCents')::bigint, 0)), 0)
		FROM receipts WHERE merchant_wallet = $1 AND state->'payment' IS NOT NULL
		GROUP BY 1, 2 ORDER BY 1, 2`, wallet)
	if err != nil {
		return nil, fmt.Errorf("settled by token: %w", err)
	}
	return pgx.CollectRows(rows, func(row pgx.CollectableRow) (Settled, error) {
		var s Settled
		err := row.Scan(&s.Token, &s.Currency, &s.Receipts, &s.SettledCents, &s.RefundedCents)
		return s, err
	})
}

// SplitTransaction is a receipt whose split was distributed.
type SplitTransaction struct {
	ReceiptID       string
	TotalCents      int64
	FeeCents        int64
	Currency        string
	At              int64
	TransactionHash string
}

// SplitTransactions lists wallet's distributed receipts, newest first.
func (r *Receipts) SplitTransactions(ctx context.Context, wallet string, limit int) ([]SplitTransaction, error) {
	rows, err := r.pool.Query(ctx, `SELECT receipt_id, total_cents, coalesce((state->'receipt'->>'feeCents')::bigint, 0), currency,
			(state->>'splitDistributedAt')::bigint, coalesce(state->>'splitTransactionHash', '')
		FROM receipts WHERE merchant_wallet = $1 AND state->>'splitDistributedAt' IS NOT NULL
		ORDER BY (state->>'splitDistributedAt')::bigint DESC, receipt_id LIMIT $2`, wallet, limit)
	if err != nil {
		return nil, fmt.Errorf("split transactions: %w", err)
	}
	return pgx.CollectRows(rows, func(row pgx.CollectableRow) (SplitTransaction, error) {
		var s SplitTransaction
		err := row.Scan(&s.ReceiptID, &s.TotalCents, &s.FeeCents, &s.Currency, &s.At, &s.TransactionHash)
		return s, err
	})
}
