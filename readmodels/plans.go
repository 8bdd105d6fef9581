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

// MaxPlans is how many active plans one merchant wallet may have: any wallet can sign in, and
// the public plan list of a wallet that made plans without end (at the per-wallet rate limit,
// hundreds of thousands a day) was read and answered whole, to anyone, on every request.
const MaxPlans = 1000

// ErrTooManyPlans: the wallet has MaxPlans active plans already.
var ErrTooManyPlans = errors.New("too many active subscription plans")

// MaxKeptPlans is how many plans one merchant wallet keeps, active and inactive together.
// MaxPlans bounds the active ones only: create, deactivate, create again added a row each time
// (at transport.PlanCreatesPerHour, 2,400 a day per wallet, without end). Inactive plans are
// kept, since subscriptions made from them are charged at their price and a plan id names the
// merchant a permission pays, and no route deletes one: a merchant at the bound changes an
// existing plan (PUT; an inactive one is reactivated with active: true) instead of creating one.
const MaxKeptPlans = 5000

// ErrTooManyKeptPlans: the wallet keeps MaxKeptPlans plans, active and inactive, already
// (KeptPlansError says which plan it may change instead).
var ErrTooManyKeptPlans = errors.New("too many subscription plans kept, active and inactive")

// KeptPlansError is ErrTooManyKeptPlans with Reusable, the wallet's oldest inactive plan that no
// subscription was made from ("" when it has none): the plan it may change and reactivate rather
// than create another.
type KeptPlansError struct{ Reusable string }

func (e *KeptPlansError) Error() string        { return ErrTooManyKeptPlans.Error() }
func (e *KeptPlansError) Is(target error) bool { return target == ErrTooManyKeptPlans }

// underKeptBound is the condition (SQL) that wallet $2 keeps fewer than $bound plans (the index
// subscription_plans_wallet_all, migration 053).
func underKeptBound(bound string) string {
	return `(SELECT count(*) FROM subscription_plans WHERE wallet = $2) < ` + bound
}

// keptPlansError is the bound that refused a creation for wallet (tx holds its plan lock): the
// kept plans' (with the plan the wallet may reuse) or else the active plans'.
func keptPlansError(ctx context.Context, tx pgx.Tx, wallet string) error {
	var kept int
	if err := tx.QueryRow(ctx, `SELECT count(*) FROM subscription_plans WHERE wallet = $1`, wallet).Scan(&kept); err != nil {
		return err
	}
	if kept < MaxKeptPlans {
		return ErrTooManyPlans
	}
	var reusable string
	err := tx.QueryRow(ctx, `SELECT plan_id FROM subscription_plans WHERE wallet = $1 AND NOT active
		AND plan_id NOT IN (SELECT plan_id FROM subscriptions WHERE merchant = $1)
		ORDER BY updated_at, plan_id LIMIT 1`, wallet).Scan(&reusable)
	if err != nil && !errors.Is(err, pgx.ErrNoRows) {
		return err
	}
	return &KeptPlansError{Reusable: reusable}
}

// underPlanBound is the condition (SQL) that wallet $2 has fewer than $bound active plans.
func underPlanBound(bound string) string {
	return `(SELECT count(*) FROM subscription_plans WHERE wallet = $2 AND active) < ` + bound
}

// lockedForWallet runs f in a transaction holding wallet's plan lock to commit, so that
// concurrent writes cannot each count the others' uncommitted plans as absent.
func (s *Plans) lockedForWallet(ctx context.Context, wallet string, f func(tx pgx.Tx) error) error {
	return pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock(hashtextextended('payledger plans:' || $1::text, 0))`, wallet); err != nil {
			return err
		}
		return f(tx)
	})
}

// Create stores a new plan (ID, Wallet, Name, Description, Price, Period; active). Errors:
// ErrTooManyPlans, ErrTooManyKeptPlans (a *KeptPlansError).
func (s *Plans) Create(ctx context.Context, p Plan, now time.Time) (Plan, error) {
	wallet := strings.ToLower(p.Wallet)
	var out Plan
	err := s.lockedForWallet(ctx, wallet, func(tx pgx.Tx) error {
		var err error
		out, err = scanPlan(tx.QueryRow(ctx, `INSERT INTO subscription_plans
			(plan_id, wallet, name, description, price_cents, period, active, created_at, updated_at)
			SELECT $1, $2, $3, $4, $5, $6, true, $7, $7 WHERE `+underPlanBound("$8")+` AND `+underKeptBound("$9")+` RETURNING `+planColumns,
			p.ID, wallet, p.Name, p.Description, int64(p.Price), p.Period, now, MaxPlans, MaxKeptPlans))
		if errors.Is(err, ErrNotFound) {
			return keptPlansError(ctx, tx, wallet)
		}
		return err
	})
	return out, err
}

// Get returns the plan with id, active or not, or ErrNotFound.
func (s *Plans) Get(ctx context.Context, id string) (Plan, error) {
	return scanPlan(s.pool.QueryRow(ctx, `SELECT `+planColumns+` FROM subscription_plans WHERE plan_id = $1`, id))
}

// Update changes the given fields of plan id if it belongs to wallet; an inactive plan is made
// active only while the wallet has fewer than MaxPlans active ones. Errors: ErrNotFound when no
// plan has the id, ErrNotOwner when it belongs to another wallet, ErrTooManyPlans.
func (s *Plans) Update(ctx context.Context, id, wallet string, patch PlanPatch, now time.Time) (Plan, error) {
	var price *int64
	if patch.Price != nil {
		v := int64(*patch.Price)
		price = &v
	}
	wallet = strings.ToLower(wallet)
	var p Plan
	err := s.lockedForWallet(ctx, wallet, func(tx pgx.Tx) error {
		var err error
		p, err = scanPlan(tx.QueryRow(ctx, `UPDATE subscription_plans SET
			name = coalesce($3, name), description = coalesce($4, description),
			price_cents = coalesce($5, price_cents), period = coalesce($6, period),
			active = coalesce($7, active), updated_at = $8
			WHERE plan_id = $1 AND wallet = $2 AND ($7 IS NOT TRUE OR active OR `+underPlanBound("$9")+`) RETURNING `+planColumns,
			id, wallet, patch.Name, patch.Description, price, patch.Period, patch.Active, now, MaxPlans))
		return err
	})
	if !errors.Is(err, ErrNotFound) {
		return p, err
	}
	switch got, gerr := s.Get(ctx, id); {
	case gerr != nil:
		return Plan{}, gerr
	case got.Wallet != wallet:
		return Plan{}, ErrNotOwner
	default:
		return Plan{}, ErrTooManyPlans
	}
}

// ListActive returns wallet's active plans, oldest first (at most MaxPlans, for wallets that
// made more before the bound).
func (s *Plans) ListActive(ctx context.Context, wallet string) ([]Plan, error) {
	rows, err := s.pool.Query(ctx, `SELECT `+planColumns+` FROM subscription_plans
		WHERE wallet = $1 AND active ORDER BY created_at, plan_id LIMIT $2`, strings.ToLower(wallet), MaxPlans)
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
