package main

import (
	"crypto/rand"
	"strings"
	"testing"
	"time"
)

func env(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

func TestConfigDefaultsGenerateSecretsInDevelopment(t *testing.T) {
	t.Parallel()
	c, generated, err := loadConfig(env(nil), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	if c.DatabaseURL != DefaultDatabaseURL || c.HTTPAddr != ":8080" || c.EventStore != "postgres" || c.AuthMode != "standalone" {
		t.Fatalf("defaults: %+v", c)
	}
	if len(c.SecretsKey) != 32 || c.JWTSecret == "" || c.CronSecret == "" || c.ProcessorWebhookSecret == "" {
		t.Fatal("secrets not generated")
	}
	if strings.Join(generated, ",") != "JWT_SECRET,CRON_SECRET,PROCESSOR_WEBHOOK_SECRET,SECRETS_KEY" {
		t.Fatalf("generated = %v", generated)
	}
	if c.RateLimitPerMinute != 600 || c.RateLimitPublicPerMinute != 60 {
		t.Fatalf("rate limits %d %d", c.RateLimitPerMinute, c.RateLimitPublicPerMinute)
	}
}

func TestConfigProblems(t *testing.T) {
	t.Parallel()
	good := strings.Repeat("ab", 32)
	cases := []struct {
		name string
		env  map[string]string
		want []string
	}{
		{"production without secrets", map[string]string{"APP_ENV": "production"},
			[]string{"JWT_SECRET is required in production", "CRON_SECRET is required", "SECRETS_KEY is required", "PROCESSOR_WEBHOOK_SECRET is required",
				"METRICS_TOKEN is required in production", "PUBLIC_BASE_URL must be set to the service's https URL in production"}},
		{"production with an http public URL", map[string]string{"APP_ENV": "production", "PUBLIC_BASE_URL": "http://pay.example.com",
			"JWT_SECRET": good, "CRON_SECRET": good, "SECRETS_KEY": good, "PROCESSOR_WEBHOOK_SECRET": good, "METRICS_TOKEN": good},
			[]string{"PUBLIC_BASE_URL must be set to the service's https URL in production"}},
		{"gateway in production needs the edge secret", map[string]string{"APP_ENV": "production", "AUTH_MODE": "gateway", "PUBLIC_BASE_URL": "https://pay.example.com",
			"JWT_SECRET": good, "CRON_SECRET": good, "SECRETS_KEY": good, "PROCESSOR_WEBHOOK_SECRET": good, "METRICS_ADDR": "127.0.0.1:9090"},
			[]string{"EDGE_SECRET is required"}},
		// Issue 30, finding 12: CRON_SECRET=a started production.
		{"short secrets in production", map[string]string{"APP_ENV": "production", "AUTH_MODE": "gateway", "PUBLIC_BASE_URL": "https://pay.example.com", "JWT_SECRET": good[:31],
			"CRON_SECRET": "a", "SECRETS_KEY": good, "PROCESSOR_WEBHOOK_SECRET": "p", "EDGE_SECRET": "e", "METRICS_TOKEN": "m"},
			[]string{"JWT_SECRET must be at least 32", "CRON_SECRET must be at least 32", "PROCESSOR_WEBHOOK_SECRET must be at least 32",
				"EDGE_SECRET must be at least 32", "METRICS_TOKEN must be at least 32"}},
		{"bad security values", map[string]string{"TRUSTED_PROXIES": "10.0.0.0/8, not-a-cidr", "KEY_CACHE_TTL": "-1m"},
			[]string{"TRUSTED_PROXIES must be comma-separated CIDRs", "KEY_CACHE_TTL must be a positive duration"}},
		{"bad values", map[string]string{"APP_ENV": "staging", "EVENTSTORE": "mongo", "AUTH_MODE": "open", "SECRETS_KEY": "xyz",
			"CHAIN_ID": "abc", "PLATFORM_RECIPIENT": "0x12", "ADMIN_WALLETS": "0xnope", "DATABASE_URL": "mysql://x", "RATE_LIMIT_PER_MINUTE": "0"},
			[]string{"APP_ENV must be", "EVENTSTORE must be", "AUTH_MODE must be", "SECRETS_KEY must be 64 hex", "CHAIN_ID must be",
				"PLATFORM_RECIPIENT must be", "ADMIN_WALLETS has an invalid address", "DATABASE_URL must be", "RATE_LIMIT_PER_MINUTE must be"}},
		{"esdb without url", map[string]string{"EVENTSTORE": "esdb"}, []string{"EVENTSTORE_URL is required"}},
		{"chain values", map[string]string{"CHAIN_CONFIRMATIONS": "0", "CHAIN_TOKENS": "USDC=0x12:6", "CHAIN_OPERATOR_KEY": "secret-ish-" + good[:20],
			"SPEND_PERMISSION_MANAGER": "0x12", "DEVCHAIN": "on", "CHAIN_LOG_RANGE": "0"},
			[]string{"CHAIN_CONFIRMATIONS must be", "CHAIN_TOKENS:", "CHAIN_OPERATOR_KEY must be 64 hex", "SPEND_PERMISSION_MANAGER must be", "DEVCHAIN must be auto or off",
				"CHAIN_LOG_RANGE must be an integer >= 1"}},
		// 64 hex characters that are no key: zero, and the curve's order n (keys are 1..n-1).
		{"operator key zero", map[string]string{"CHAIN_OPERATOR_KEY": strings.Repeat("0", 64)}, []string{"CHAIN_OPERATOR_KEY is not a valid secp256k1 private key"}},
		{"operator key past the order", map[string]string{"CHAIN_OPERATOR_KEY": "fffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141"},
			[]string{"CHAIN_OPERATOR_KEY is not a valid secp256k1 private key"}},
		{"log range too large", map[string]string{"CHAIN_LOG_RANGE": "2001"}, []string{"CHAIN_LOG_RANGE must be at most 2000 blocks, got 2001"}},
		{"log range not a number", map[string]string{"CHAIN_LOG_RANGE": "500 blocks"}, []string{"CHAIN_LOG_RANGE must be an integer >= 1"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, _, err := loadConfig(env(c.env), rand.Reader)
			if err == nil {
				t.Fatal("want an error")
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error lacks %q:\n%v", w, err)
				}
			}
			if lines := strings.Count(err.Error(), "\n  - "); lines != len(c.want) {
				t.Errorf("%d problems reported, want %d:\n%v", lines, len(c.want), err)
			}
		})
	}
}

func TestConfigProductionWithEverything(t *testing.T) {
	t.Parallel()
	good := strings.Repeat("ab", 32)
	c, generated, err := loadConfig(env(map[string]string{"APP_ENV": "production", "PUBLIC_BASE_URL": "https://pay.example.com", "JWT_SECRET": good, "CRON_SECRET": good,
		"SECRETS_KEY": good, "PROCESSOR_WEBHOOK_SECRET": good, "METRICS_TOKEN": good, "ADMIN_WALLETS": "0xAbCdEf0123456789abcdef0123456789ABCDEF01",
		"TRUSTED_PROXIES": "10.0.0.1, 192.168.0.0/16", "KEY_CACHE_TTL": "90s"}), rand.Reader)
	if err != nil || len(generated) != 0 {
		t.Fatalf("err %v generated %v", err, generated)
	}
	if c.EmbeddedPostgres {
		t.Error("production must not start a private database unless asked")
	}
	if len(c.TrustedProxies) != 2 || c.TrustedProxies[0].String() != "10.0.0.1/32" || c.TrustedProxies[1].String() != "192.168.0.0/16" || c.KeyCacheTTL != 90*time.Second {
		t.Errorf("TRUSTED_PROXIES %v, KEY_CACHE_TTL %v", c.TrustedProxies, c.KeyCacheTTL)
	}
	if c.AdminWallets[0] != "0xabcdef0123456789abcdef0123456789abcdef01" {
		t.Errorf("admin wallets not normalised: %v", c.AdminWallets)
	}
}

func TestConfigChain(t *testing.T) {
	t.Parallel()
	c, _, err := loadConfig(env(nil), rand.Reader)
	if err != nil || c.ChainConfirmations != 2 || c.ChainLogRange != 2000 || c.DevChain != "auto" || len(c.ChainTokens) != 0 || c.OperatorKey != "" {
		t.Fatalf("development defaults: %+v, %v", c, err)
	}
	key := strings.Repeat("ab", 32)
	c, _, err = loadConfig(env(map[string]string{"CHAIN_CONFIRMATIONS": "5", "CHAIN_TOKENS": "USDC=0x" + strings.Repeat("1", 40) + ":6",
		"CHAIN_OPERATOR_KEY": "0x" + key, "SPEND_PERMISSION_MANAGER": "0x" + strings.Repeat("2", 40), "DEVCHAIN": "off", "CHAIN_LOG_RANGE": "500"}), rand.Reader)
	if err != nil || c.ChainConfirmations != 5 || c.ChainLogRange != 500 || len(c.ChainTokens) != 1 || c.ChainTokens[0].Decimals != 6 || c.OperatorKey != "0x"+key || c.DevChain != "off" {
		t.Fatalf("chain variables: %+v, %v", c, err)
	}
	// A malformed operator key is reported without being repeated.
	_, _, err = loadConfig(env(map[string]string{"CHAIN_OPERATOR_KEY": key + "zz"}), rand.Reader)
	if err == nil || strings.Contains(err.Error(), key) {
		t.Fatalf("bad key: %v", err)
	}
}
