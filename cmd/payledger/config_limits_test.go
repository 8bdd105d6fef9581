package main

import (
	"crypto/rand"
	"strings"
	"testing"

	"github.com/payledger/payledger/transport"
)

// TestConfigRateLimits: RATE_LIMIT_SUBSCRIPTION_CREATE_PER_HOUR (default
// transport.DefaultSubscriptionCreatesPerHour) is read with the other limits; every limit is
// from 1 to a million, so that a typo is refused at start rather than dividing by zero on every
// request (60,000,000,001 a minute did, in the in-process limiter).
func TestConfigRateLimits(t *testing.T) {
	t.Parallel()
	c, _, err := loadConfig(env(nil), rand.Reader)
	if err != nil || c.RateLimitSubscriptionCreatePerHour != transport.DefaultSubscriptionCreatesPerHour || c.RateLimitPerMinute != 600 ||
		c.RateLimitPublicPerMinute != 60 {
		t.Fatalf("defaults: %d %d %d, %v", c.RateLimitSubscriptionCreatePerHour, c.RateLimitPerMinute, c.RateLimitPublicPerMinute, err)
	}
	c, _, err = loadConfig(env(map[string]string{"RATE_LIMIT_SUBSCRIPTION_CREATE_PER_HOUR": "5"}), rand.Reader)
	if err != nil || c.RateLimitSubscriptionCreatePerHour != 5 {
		t.Fatalf("set to 5: %d, %v", c.RateLimitSubscriptionCreatePerHour, err)
	}
	for _, tc := range []struct{ name, value, want string }{
		{"RATE_LIMIT_SUBSCRIPTION_CREATE_PER_HOUR", "0", "RATE_LIMIT_SUBSCRIPTION_CREATE_PER_HOUR must be an integer >= 1"},
		{"RATE_LIMIT_SUBSCRIPTION_CREATE_PER_HOUR", "ten", "RATE_LIMIT_SUBSCRIPTION_CREATE_PER_HOUR must be an integer >= 1"},
		{"RATE_LIMIT_SUBSCRIPTION_CREATE_PER_HOUR", "1000000001", "RATE_LIMIT_SUBSCRIPTION_CREATE_PER_HOUR must be at most 1000000000"},
		{"RATE_LIMIT_PER_MINUTE", "60000000001", "RATE_LIMIT_PER_MINUTE must be at most 1000000000"},
		{"RATE_LIMIT_PUBLIC_PER_MINUTE", "1000000001", "RATE_LIMIT_PUBLIC_PER_MINUTE must be at most 1000000000"},
	} {
		t.Run(tc.name+"="+tc.value, func(t *testing.T) {
			_, _, err := loadConfig(env(map[string]string{tc.name: tc.value}), rand.Reader)
			if err == nil || !strings.Contains(err.Error(), tc.want) || strings.Count(err.Error(), "\n  - ") != 1 {
				t.Fatalf("%v; want the one problem %q", err, tc.want)
			}
		})
	}
}
