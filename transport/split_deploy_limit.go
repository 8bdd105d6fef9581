package transport

import (
	"cmp"
	"errors"
	"slices"
	"sync"
	"time"

	"github.com/labstack/echo/v4"
	"github.com/rs/zerolog"

	"github.com/payledger/payledger/transport/ratelimit"
)

// SplitDeploysPerHour is how many split deployments the operator pays for on behalf of one
// client address an hour when Config.SplitDeploysPerHour (RATE_LIMIT_SPLIT_DEPLOY_PER_HOUR) is
// zero (its IPv6 /64, and its /56 and /48 at ratelimit.WiderMultiple times each, as ClientAddress
// counts every limit). POST /api/split/deploy without splitAddress makes the operator deploy a
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

// splitBudgetKey is the limiter's bucket of the budget: one for the service (Redis: every
// instance; in this instance while the limiter fails).
const splitBudgetKey = "splitbudget:operator"

// splitBudgetSpent is the message of the 429 the budget answers.
const splitBudgetSpent = "The split deployments the platform pays for are spent for this hour: retry at resetAt, " +
	"or deploy your PaymentSplit yourself and send its splitAddress"

// limitSplitDeploy counts a request that may make the operator deploy a split (no splitAddress,
// the merchant's split not configured yet, a chain operator configured) against the
// deployments of its client address an hour and the operator's budget an hour, in one count (a
// request either refuses costs the other nothing); past either, 429 rate_limited with resetAt
// and Retry-After, nothing deployed. A spent budget is logged when this instance first finds it
// spent, and /healthz names it while it lasts. A limiter that fails (Redis down) counts in this
// instance instead, as the subscription creations' bound does: never unlimited.
func (s *Server) limitSplitDeploy(c echo.Context, wallet string, req splitRequest) error {
	if req.SplitAddress != "" || slices.Contains(s.off, "split_distribution") {
		return nil // a pre-deployed contract, or no operator: nothing is deployed
	}
	st, err := s.aggregates.Split(c.Request().Context(), wallet)
	if err != nil || st.Configured {
		return err // configured: answered as it is (a redeployment is for a chain that was reset)
	}
	perAddress := cmp.Or(s.cfg.SplitDeploysPerHour, SplitDeploysPerHour)
	budget := cmp.Or(s.cfg.SplitDeployBudgetPerHour, DefaultSplitDeployBudgetPerHour)
	buckets := append(ClientAddress(c).Buckets("splitdeploy", perAddress), ratelimit.Bucket{Key: splitBudgetKey, Limit: budget})
	res, err := s.limitEveryAll(c, "splitdeploy", time.Hour, buckets...)
	var refusal *Error
	if err == nil || res.Key != splitBudgetKey || !errors.As(err, &refusal) {
		return err
	}
	if s.splitBudget.spend(res.RetryAt, s.now()) {
		zerolog.Ctx(c.Request().Context()).Warn().Int("budgetPerHour", budget).Time("until", res.RetryAt).
			Msg("the split deployments the operator pays for are spent for the hour (RATE_LIMIT_SPLIT_DEPLOY_BUDGET_PER_HOUR): merchants without a split are refused 429 until then")
	}
	refusal.Message = splitBudgetSpent
	return refusal
}

// spentBudget remembers until when the operator's budget of split deployments is spent, as this
// instance last found it, for /healthz.
type spentBudget struct {
	mu    sync.Mutex
	until time.Time
}

// spend records the budget spent until; true when it was not spent at now (the first refusal).
func (b *spentBudget) spend(until, now time.Time) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	first := !now.Before(b.until)
	if until.After(b.until) {
		b.until = until
	}
	return first
}

// spentUntil is until when the budget is spent, if it is at now.
func (b *spentBudget) spentUntil(now time.Time) (time.Time, bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.until, now.Before(b.until)
}

// exhausted names the budgets spent now, for /healthz: refused requests wait for them, not for a
// fault (the status stays ok).
func (s *Server) exhausted() []string {
	until, ok := s.splitBudget.spentUntil(s.now())
	if !ok {
		return nil
	}
	return []string{"split deployments the operator pays for (RATE_LIMIT_SPLIT_DEPLOY_BUDGET_PER_HOUR) until " + until.UTC().Format(time.RFC3339)}
}
