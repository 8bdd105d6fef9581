package readmodels

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
)

// SplitBudget counts the split deployments the operator pays for, per hour of the database's
// clock (migration 055, split_deploy_budget): one count for every instance on the database,
// with Redis or without it (RATE_LIMIT_SPLIT_DEPLOY_BUDGET_PER_HOUR, transport's
// limitSplitDeploy). A rate limiter's bucket was counted by each instance on its own without
// Redis, so n instances let the operator pay for n times the budget.
type SplitBudget struct{ pool *pgxpool.Pool }

// NewSplitBudget returns the budget's count over pool.
func NewSplitBudget(pool *pgxpool.Pool) *SplitBudget { return &SplitBudget{pool: pool} }

// BudgetCount is one hour's count of the budget.
type BudgetCount struct {
	// Hour is the start of the hour counted, by the database's clock.
	Hour time.Time
	// Count is how many deployments the hour let through.
	Count int
}

// End is when the hour is over and the budget whole again.
func (c BudgetCount) End() time.Time { return c.Hour.Add(time.Hour) }

// budgetHour is the current hour by the database's clock, in UTC.
const budgetHour = `SELECT date_trunc('hour', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' AS hour`

// spendBudget counts one deployment in the current hour while the hour has let fewer than $1
// through, in one statement (the row is locked by the update: concurrent spends of the last place
// cannot both have it), and deletes the hours more than a day old. It answers the hour and the
// new count, or NULL when the hour was spent.
const spendBudget = `WITH h AS (` + budgetHour + `),
	old AS (DELETE FROM split_deploy_budget WHERE hour < (SELECT hour FROM h) - interval '1 day'),
	up AS (INSERT INTO split_deploy_budget AS b (hour, deployments) SELECT hour, 1 FROM h
		ON CONFLICT (hour) DO UPDATE SET deployments = b.deployments + 1 WHERE b.deployments < $1
		RETURNING deployments)
	SELECT h.hour, (SELECT deployments FROM up) FROM h`

// Spend counts one deployment in the current hour if it let fewer than limit through: true when
// counted, with the new count; false when the hour is spent (its count is then limit). limit is at
// least 1.
func (b *SplitBudget) Spend(ctx context.Context, limit int) (BudgetCount, bool, error) {
	var out BudgetCount
	var n *int
	if err := b.pool.QueryRow(ctx, spendBudget, limit).Scan(&out.Hour, &n); err != nil {
		return BudgetCount{}, false, fmt.Errorf("count a split deployment in the hour's budget: %w", err)
	}
	if n == nil {
		out.Count = limit
		return out, false, nil
	}
	out.Count = *n
	return out, true, nil
}

// Count is the current hour's count (0 when nothing was deployed in it): one read of the hour's
// row by its key.
func (b *SplitBudget) Count(ctx context.Context) (BudgetCount, error) {
	var out BudgetCount
	err := b.pool.QueryRow(ctx, `WITH h AS (`+budgetHour+`)
		SELECT h.hour, coalesce((SELECT deployments FROM split_deploy_budget b WHERE b.hour = h.hour), 0) FROM h`).
		Scan(&out.Hour, &out.Count)
	if err != nil {
		return BudgetCount{}, fmt.Errorf("read the split deployments' budget of the hour: %w", err)
	}
	return out, nil
}
