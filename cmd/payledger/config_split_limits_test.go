package main

import (
	"crypto/rand"
	"strings"
	"testing"

	"github.com/payledger/payledger/transport"
)

// TestConfigSplitDeployLimits: RATE_LIMIT_SPLIT_DEPLOY_PER_HOUR (per client address, default
// transport.SplitDeploysPerHour) and RATE_LIMIT_SPLIT_DEPLOY_BUDGET_PER_HOUR (the operator's, all
// clients together, default transport.DefaultSplitDeployBudgetPerHour) are read with the other
// limits, from 1 to a billion, and reach the HTTP layer's configuration.
func TestConfigSplitDeployLimits(t *testing.T) {
	t.Parallel()
	c, _, err := loadConfig(env(nil), rand.Reader)
	if err != nil || c.RateLimitSplitDeployPerHour != transport.SplitDeploysPerHour ||
		c.RateLimitSplitDeployBudgetPerHour != transport.DefaultSplitDeployBudgetPerHour {
		t.Fatalf("defaults: %d %d, %v", c.RateLimitSplitDeployPerHour, c.RateLimitSplitDeployBudgetPerHour, err)
	}
	c, _, err = loadConfig(env(map[string]string{"RATE_LIMIT_SPLIT_DEPLOY_PER_HOUR": "50", "RATE_LIMIT_SPLIT_DEPLOY_BUDGET_PER_HOUR": "200"}), rand.Reader)
	if err != nil || c.RateLimitSplitDeployPerHour != 50 || c.RateLimitSplitDeployBudgetPerHour != 200 {
		t.Fatalf("set: %d %d, %v", c.RateLimitSplitDeployPerHour, c.RateLimitSplitDeployBudgetPerHour, err)
	}
	for _, tc := range []struct{ name, value, want string }{
		{"RATE_LIMIT_SPLIT_DEPLOY_PER_HOUR", "0", "RATE_LIMIT_SPLIT_DEPLOY_PER_HOUR must be an integer >= 1"},
		{"RATE_LIMIT_SPLIT_DEPLOY_PER_HOUR", "1000000001", "RATE_LIMIT_SPLIT_DEPLOY_PER_HOUR must be at most 1000000000"},
		{"RATE_LIMIT_SPLIT_DEPLOY_BUDGET_PER_HOUR", "none", "RATE_LIMIT_SPLIT_DEPLOY_BUDGET_PER_HOUR must be an integer >= 1"},
	} {
		t.Run(tc.name+"="+tc.value, func(t *testing.T) {
			_, _, err := loadConfig(env(map[string]string{tc.name: tc.value}), rand.Reader)
			if err == nil || !strings.Contains(err.Error(), tc.want) || strings.Count(err.Error(), "\n  - ") != 1 {
				t.Fatalf("%v; want the one problem %q", err, tc.want)
			}
		})
	}
}
