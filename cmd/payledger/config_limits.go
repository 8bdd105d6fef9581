package main

import (
	"github.com/payledger/payledger/readmodels"
	"github.com/payledger/payledger/transport"
)

// maxIdempotencyKept bounds IDEMPOTENCY_MAX_KEPT: past a million answers a day the 128 MiB of
// kept bytes binds first (each kept answer is at least a few hundred bytes), so a larger value
// is a typo.
const maxIdempotencyKept = 1_000_000

// maxLimit is the most requests a limit allows in its period: past a billion a minute (or an
// hour), a limit is a typo, and the limiters' interval (the period over the limit) must stay
// above a nanosecond. Deployments and benchmarks that mean "no limit" set tens of millions.
const maxLimit = 1_000_000_000

// readLimits reads the rate limits: per key and per wallet (RATE_LIMIT_PER_MINUTE), per client
// address on public routes (RATE_LIMIT_PUBLIC_PER_MINUTE), of subscription creations per
// client address (RATE_LIMIT_SUBSCRIPTION_CREATE_PER_HOUR), and of the split deployments the
// operator pays for, per client address (RATE_LIMIT_SPLIT_DEPLOY_PER_HOUR) and for the service
// (RATE_LIMIT_SPLIT_DEPLOY_BUDGET_PER_HOUR).
func (c *config) readLimits(r *envReader) {
	c.RateLimitPerMinute = r.limit("RATE_LIMIT_PER_MINUTE", 600)
	c.RateLimitPublicPerMinute = r.limit("RATE_LIMIT_PUBLIC_PER_MINUTE", 60)
	c.RateLimitSubscriptionCreatePerHour = r.limit("RATE_LIMIT_SUBSCRIPTION_CREATE_PER_HOUR", transport.DefaultSubscriptionCreatesPerHour)
	c.RateLimitSplitDeployPerHour = r.limit("RATE_LIMIT_SPLIT_DEPLOY_PER_HOUR", transport.SplitDeploysPerHour)
	c.RateLimitSplitDeployBudgetPerHour = r.limit("RATE_LIMIT_SPLIT_DEPLOY_BUDGET_PER_HOUR", transport.DefaultSplitDeployBudgetPerHour)
	c.IdempotencyMaxKept = int(r.integer("IDEMPOTENCY_MAX_KEPT", readmodels.MaxKeptAnswers, 1))
	if c.IdempotencyMaxKept > maxIdempotencyKept {
		r.bad("IDEMPOTENCY_MAX_KEPT must be at most %d, got %d", maxIdempotencyKept, c.IdempotencyMaxKept)
		c.IdempotencyMaxKept = readmodels.MaxKeptAnswers
	}
}

// limit is the variable as a limit from 1 to maxLimit, or def when it is unset or invalid (a
// problem).
func (r *envReader) limit(name string, def int) int {
	n := r.integer(name, int64(def), 1)
	if n > maxLimit {
		r.bad("%s must be at most %d, got %d", name, maxLimit, n)
		return def
	}
	return int(n)
}
