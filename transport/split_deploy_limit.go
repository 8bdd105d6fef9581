package transport

import (
	"cmp"
	"context"
	"slices"
	"sync"
	"time"

	"github.com/labstack/echo/v4"
	"github.com/rs/zerolog"

	"github.com/payledger/payledger/readmodels"
	"github.com/payledger/payledger/transport/ratelimit"
)

// SplitDeploysPerHour is how many split deployments the operator pays for on behalf of one
// client address an hour when Config.SplitDeploysPerHour (RATE_LIMIT_SPLIT_DEPLOY_PER_HOUR) is
// zero (its IPv6 /64, and its /56 and /48 at ratelimit.WiderMultiple times each, or its IPv4
// address and its /24 at ratelimit.IPv4NetworkMultiple times: ClientAddress(c).WideBuckets). POST /api/split/deploy without splitAddress makes the operator deploy a
// PaymentSplit (about 1.4 M gas, docs/payments.md) for a merchant that has none, and any wallet
// signs in as a merchant for the price of a signature: bounded only by the public limit and the
// one-at-a-time deployment, one client drained the operator's ETH with fresh wallets, a contract
// a block, and with it every charge, sweep and release the operator sends.
const SplitDeploysPerHour = 5

// DefaultSplitDeployBudgetPerHour is how many split deployments the operator pays for an hour,
// all clients together, when Config.SplitDeployBudgetPerHour
// (RATE_LIMIT_SPLIT_DEPLOY_BUDGET_PER_HOUR) is zero. The per-address bound leaves a client with
// many addresses (a botnet, a /48's 256 /56s) SplitDeploysPerHour an address: the budget bounds
// what the operator spends on deployments whatever the addresses, at about 28 M gas an hour.
const DefaultSplitDeployBudgetPerHour = 20

// budgetReadEvery is how long this instance trusts the budget's count it last read or wrote
// before /healthz (and a deployment's first look) reads it again.
const budgetReadEvery = 5 * time.Second

// SplitBudgetStore counts the split deployments the operator pays for an hour, one count for
// every instance (readmodels.SplitBudget, in the database: migration 055).
type SplitBudgetStore interface {
	// Spend counts one deployment in the hour while it let fewer than limit through: true when
	// counted.
	Spend(ctx context.Context, limit int) (readmodels.BudgetCount, bool, error)
	// Count is the hour's count.
	Count(ctx context.Context) (readmodels.BudgetCount, error)
}

// splitBudgetSpent is the message of the 429 the budget answers.
const splitBudgetSpent = "The split deployments the platform pays for are spent for this hour: retry at resetAt, " +
	"or deploy your PaymentSplit yourself and send its splitAddress"

// limitSplitDeploy counts a request that may make the operator deploy a split (no splitAddress,
// the merchant's split not configured yet, a chain operator configured) against the deployments
// of its client address an hour, then against the operator's budget an hour; past either, 429
// rate_limited with resetAt and Retry-After, nothing deployed.
//
// The budget is counted in the database (SplitBudgetStore), one count for every instance with or
// without Redis: as a limiter's bucket it was counted by each instance alone without Redis, and n
// instances let the operator pay n times it. A budget known spent refuses before the address is
// counted, and an address refused never reaches the budget: a botnet refused per address does not
// spend the budget, and a request refused by a spent budget does not spend its address's share
// (but for a request that finds the last place taken between the two). A spent budget is logged
// when this instance first refuses for it, and every instance's /healthz names it (exhausted).
func (s *Server) limitSplitDeploy(c echo.Context, wallet string, req splitRequest) error {
	if req.SplitAddress != "" || slices.Contains(s.off, "split_distribution") {
		return nil // a pre-deployed contract, or no operator: nothing is deployed
	}
	ctx := c.Request().Context()
	st, err := s.aggregates.Split(ctx, wallet)
	if err != nil || st.Configured {
		return err // configured: answered as it is (a redeployment is for a chain that was reset)
	}
	perAddress := cmp.Or(s.cfg.SplitDeploysPerHour, SplitDeploysPerHour)
	budget := cmp.Or(s.cfg.SplitDeployBudgetPerHour, DefaultSplitDeployBudgetPerHour)
	if known := s.splitBudget.count(ctx, s.now()); s.splitBudget.spent(known, budget, s.now()) {
		return s.splitBudgetRefused(c, budget, known.End())
	}
	if _, err := s.limitEveryAll(c, "splitdeploy", time.Hour, ClientAddress(c).WideBuckets("splitdeploy", perAddress)...); err != nil {
		return err
	}
	got, ok, err := s.splitBudget.spend(ctx, budget, s.now())
	if err != nil {
		return err
	}
	if !ok {
		return s.splitBudgetRefused(c, budget, got.End())
	}
	s.limitHeaders(c, ratelimit.Result{Allowed: true, Limit: budget, Remaining: budget - got.Count, ResetAt: got.End()})
	return nil
}

// splitBudgetRefused is the 429 of a spent budget, logged at this instance's first refusal of
// the hour.
func (s *Server) splitBudgetRefused(c echo.Context, budget int, until time.Time) error {
	if s.splitBudget.firstRefusal(until) {
		zerolog.Ctx(c.Request().Context()).Warn().Int("budgetPerHour", budget).Time("until", until).
			Msg("the split deployments the operator pays for are spent for the hour (RATE_LIMIT_SPLIT_DEPLOY_BUDGET_PER_HOUR): merchants without a split are refused 429 until then")
	}
	s.limitHeaders(c, ratelimit.Result{Limit: budget})
	refusal := s.rateLimited(c, "splitdeploy", until)
	refusal.Message = splitBudgetSpent
	return refusal
}

// spentBudget is the operator's budget of split deployments as this instance knows it: the
// hour's count it last read or wrote (SplitBudgetStore), and the last hour whose refusal it logged.
type spentBudget struct {
	store   SplitBudgetStore
	mu      sync.Mutex
	known   readmodels.BudgetCount
	readAt  time.Time // this instance's clock when known was read or written; zero: never
	reading bool      // a read of the count is under way
	warned  time.Time // the end of the last spent hour logged
}

// count is the hour's count as the store last answered it, read again once older than
// budgetReadEvery or past its hour: one read at a time, the others answered the last count, as is
// a read that fails (the store's errors are the spend's to answer).
func (b *spentBudget) count(ctx context.Context, now time.Time) readmodels.BudgetCount {
	b.mu.Lock()
	known := b.known
	read := !b.reading && (b.readAt.IsZero() || now.Sub(b.readAt) >= budgetReadEvery || !now.Before(known.End()))
	b.reading = b.reading || read
	b.mu.Unlock()
	if !read {
		return known
	}
	got, err := b.store.Count(ctx)
	b.mu.Lock()
	defer b.mu.Unlock()
	b.reading = false
	if err == nil {
		b.learn(got, now)
	}
	return b.known
}

// spend counts a deployment in the store's budget (SplitBudgetStore.Spend) and keeps the count.
func (b *spentBudget) spend(ctx context.Context, budget int, now time.Time) (readmodels.BudgetCount, bool, error) {
	got, ok, err := b.store.Spend(ctx, budget)
	if err != nil {
		return got, false, err
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.learn(got, now)
	return got, ok, nil
}

// learn keeps got, read at now, unless it is older than what is known (an hour's count only goes
// up); b.mu held.
func (b *spentBudget) learn(got readmodels.BudgetCount, now time.Time) {
	if got.Hour.Before(b.known.Hour) || (got.Hour.Equal(b.known.Hour) && got.Count < b.known.Count) {
		return
	}
	b.known, b.readAt = got, now
}

// spent reports whether the count leaves no deployment in its hour at now.
func (b *spentBudget) spent(c readmodels.BudgetCount, budget int, now time.Time) bool {
	return c.Count >= budget && now.Before(c.End())
}

// firstRefusal reports whether the hour ending at until was not refused for yet on this instance.
func (b *spentBudget) firstRefusal(until time.Time) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	first := until.After(b.warned)
	if first {
		b.warned = until
	}
	return first
}

// exhausted names the budgets spent now, for /healthz, from the count every instance shares
// (read at most every budgetReadEvery): refused requests wait for them, not for a fault (the
// status stays ok).
func (s *Server) exhausted(ctx context.Context) []string {
	budget := cmp.Or(s.cfg.SplitDeployBudgetPerHour, DefaultSplitDeployBudgetPerHour)
	now := s.now()
	c := s.splitBudget.count(ctx, now)
	if !s.splitBudget.spent(c, budget, now) {
		return nil
	}
	return []string{"split deployments the operator pays for (RATE_LIMIT_SPLIT_DEPLOY_BUDGET_PER_HOUR) until " + c.End().UTC().Format(time.RFC3339)}
}
