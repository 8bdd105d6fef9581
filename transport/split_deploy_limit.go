package transport

import (
	"slices"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/payledger/payledger/transport/ratelimit"
)

// SplitDeploysPerHour is how many split deployments the operator pays for on behalf of one
// client address an hour (its IPv6 /64, and its /56 at ratelimit.WiderMultiple times, as
// ClientKey counts every limit). POST /api/split/deploy without splitAddress makes the operator
// deploy a PaymentSplit (about 1.4 M gas, docs/payments.md) for a merchant that has none, and any
// wallet signs in as a merchant for the price of a signature: bounded only by the public limit
// and the one-at-a-time deployment, one client drained the operator's ETH with fresh wallets,
// a contract a block, and with it every charge, sweep and release the operator sends.
const SplitDeploysPerHour = 5

// limitSplitDeploy counts a request that may make the operator deploy a split (no splitAddress,
// the merchant's split not configured yet, a chain operator configured) against
// SplitDeploysPerHour of its client address; past it, 429 rate_limited with resetAt and
// Retry-After, nothing deployed. A limiter that fails (Redis down) counts in this instance
// instead, as the subscription creations' bound does: never unlimited.
func (s *Server) limitSplitDeploy(c echo.Context, wallet string, req splitRequest) error {
	if req.SplitAddress != "" || slices.Contains(s.off, "split_distribution") {
		return nil // a pre-deployed contract, or no operator: nothing is deployed
	}
	st, err := s.aggregates.Split(c.Request().Context(), wallet)
	if err != nil || st.Configured {
		return err // configured: answered as it is (a redeployment is for a chain that was reset)
	}
	ctx, key := c.Request().Context(), "splitdeploy:"+ClientKey(c)
	res, err := ratelimit.Result{}, errNoHourLimiter
	if l, ok := s.limiter.(hourLimiter); ok {
		res, err = l.AllowEvery(ctx, key, SplitDeploysPerHour, time.Hour)
	}
	if err != nil {
		s.gate.spareOnce.Do(func() { s.gate.spare = ratelimit.NewMemory(s.now) })
		res, _ = s.gate.spare.AllowEvery(ctx, key, SplitDeploysPerHour, time.Hour) // in-process: never fails
	}
	if !res.Allowed {
		return s.rateLimited(c, "splitdeploy", res.RetryAt)
	}
	return nil
}
