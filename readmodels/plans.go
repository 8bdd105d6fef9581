package readmodels

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/payledger/payledger/domain/money"
)

// Plan is a merchant's subscription plan (spec, Subscription plan). Wallets are lower-case.
type Plan struct {
	ID          string
	Wallet      string
	Name        string
	Description string
	Price       money.Cents
	Period      string
	Active      bool
	CreatedAt   time.Time
	UpdatedAt   time.Time
}

// PlanPatch holds the fields of a plan to change; nil fields stay as they are.
type PlanPatch struct {
	Name        *string
	Description *string
	Price       *money.Cents
	Period      *string
	Active      *bool
}

// Plans is the CRUD store of subscription plans.
type Plans struct{ pool *pgxpool.Pool }

// NewPlans returns the plan store over pool.
func NewPlans(pool *pgxpool.Pool) *Plans { return &Plans{pool: pool} }

const planColumns = `plan_id, wallet, name, description, price_cents, period, active, created_at, updated_at`

func scanPlan(row pgx.Row) (Plan, error) {
	var p Plan
	var cents int64
	err := row.Scan(&p.ID, &p.Wallet, &p.Name, &p.Description, &cents, &p.Period, &p.Active, &p.CreatedAt, &p.UpdatedAt)
	if errors.Is(err, pgx.ErrNoRows) {
		return Plan{}, ErrNotFound
	}
	p.Price = money.Cents(cents)
	return p, err
}

// Create stores a new plan (ID, Wallet, Name, Description, Price, Period; active).
func (s *Plans) Create(ctx context.Context, p Plan, now time.Time) (Plan, error) {
	return scanPlan(s.pool.QueryRow(ctx, `INSERT INTO subscription_plans
		(plan_id, wallet, name, description, price_cents, period, active, created_at, updated_at)
		VALUES ($1, $2, $3, $4, $5, $6, true, $7, $7) RETURNING `+planColumns,
		p.ID, strings.ToLower(p.Wallet), p.Name, p.Description, int64(p.Price), p.Period, now))
}

// Get returns the plan with id, active or not, or ErrNotFound.
func (s *Plans) Get(ctx context.Context, id string) (Plan, error) {
	return scanPlan(s.pool.QueryRow(ctx, `SELECT `+planColumns+` FROM subscription_plans WHERE plan_id = $1`, id))
}

// Update changes the given fields of plan id if it belongs to wallet. Errors: ErrNotFound when
// no plan has the id, ErrNotOwner when it belongs to another wallet.
func (s *Plans) Update(ctx context.Context, id, wallet string, patch PlanPatch, now time.Time) (Plan, error) {
	var price *int64
	if patch.Price != nil {
		v := int64(*patch.Price)
		price = &v
	}
	p, err := scanPlan(s.pool.QueryRow(ctx, `UPDATE subscription_plans SET
		name = coalesce($3, name), description = coalesce($4, description),
		price_cents = coalesce($5, price_cents), period = coalesce($6, period),
		active = coalesce($7, active), updated_at = $8
		WHERE plan_id = $1 AND wallet = $2 RETURNING `+planColumns,
		id, strings.ToLower(wallet), patch.Name, patch.Description, price, patch.Period, patch.Active, now))
	if errors.Is(err, ErrNotFound) {
		if _, gerr := s.Get(ctx, id); gerr == nil {
			return Plan{}, ErrNotOwner
		}
	}
	return p, err
}

// ListActive returns wallet's active plans, oldest first.
func (s *Plans) ListActive(ctx context.Context, wallet string) ([]Plan, error) {
	rows, err := s.pool.Query(ctx, `SELECT `+planColumns+` FROM subscription_plans
		WHERE wallet = $1 AND active ORDER BY created_at, plan_id`, strings.ToLower(wallet))
	if err != nil {
		return nil, fmt.Errorf("list plans: %w", err)
	}
	defer rows.Close()
	out := []Plan{}
	for rows.Next() {
		p, err := scanPlan(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	return out, rows.Err()
}

// ErrNotOwner is returned when a plan exists but belongs to another wallet.
var ErrNotOwner = errors.New("the plan belongs to another wallet")
