package main

import (
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/url"
	"regexp"
	"strconv"
	"strings"

	"github.com/payledger/payledger/chain"
)

// DefaultDatabaseURL is used when DATABASE_URL is unset.
const DefaultDatabaseURL = "postgres://postgres@127.0.0.1:5432/payledger?sslmode=disable"

// config is the service configuration, read from the environment (DESIGN.md section 6).
type config struct {
	DatabaseURL              string
	EventStore               string // postgres | esdb
	EventStoreURL            string
	HTTPAddr                 string
	AppEnv                   string // development | production
	AuthMode                 string // standalone | gateway
	JWTSecret                string
	AdminWallets             []string
	CronSecret               string
	PlatformRecipient        string
	ProcessorWebhookSecret   string
	ProcessorAPIURL          string
	ProcessorAPIKey          string
	SecretsKey               []byte // 32 bytes, from 64 hex characters
	EdgeSecret               string
	RedisURL                 string
	EthRPCURL                string
	ChainID                  int64
	ChainConfirmations       int
	ChainTokens              []chain.Token
	OperatorKey              string // CHAIN_OPERATOR_KEY, 64 hex; never logged
	SpendPermissionManager   string
	DevChain                 string // auto | off
	RateLimitPerMinute       int
	RateLimitPublicPerMinute int
	EmbeddedPostgres         bool
	SiteConfigRequiresKey    bool
	DBMaxConns               int
	PprofAddr                string
	PublicBaseURL            string
	MetricsToken             string
	JournalPath              string
}

func (c config) production() bool { return c.AppEnv == "production" }

var walletRE = regexp.MustCompile(`^0x[0-9a-fA-F]{40}$`)

// secretVars are generated in development when missing and required in production.
var secretVars = []string{"JWT_SECRET", "CRON_SECRET", "SECRETS_KEY", "PROCESSOR_WEBHOOK_SECRET"}

// loadConfig reads and validates the configuration. It returns every problem at once, one line
// each, and the names of the secrets it generated (development only).
func loadConfig(getenv func(string) string, random io.Reader) (config, []string, error) {
	var problems []string
	bad := func(format string, args ...any) { problems = append(problems, fmt.Sprintf(format, args...)) }
	str := func(name, def string) string {
		if v := strings.TrimSpace(getenv(name)); v != "" {
			return v
		}
		return def
	}
	integer := func(name string, def int64, lo int64) int64 {
		v := str(name, "")
		if v == "" {
			return def
		}
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n < lo {
			bad("%s must be an integer >= %d, got %q", name, lo, v)
			return def
		}
		return n
	}
	c := config{
		DatabaseURL:            str("DATABASE_URL", DefaultDatabaseURL),
		EventStore:             str("EVENTSTORE", "postgres"),
		EventStoreURL:          str("EVENTSTORE_URL", ""),
		HTTPAddr:               str("HTTP_ADDR", ":8080"),
		AppEnv:                 str("APP_ENV", "development"),
		AuthMode:               str("AUTH_MODE", "standalone"),
		JWTSecret:              str("JWT_SECRET", ""),
		CronSecret:             str("CRON_SECRET", ""),
		PlatformRecipient:      str("PLATFORM_RECIPIENT", ""),
		ProcessorWebhookSecret: str("PROCESSOR_WEBHOOK_SECRET", ""),
		ProcessorAPIURL:        str("PROCESSOR_API_URL", ""),
		ProcessorAPIKey:        str("PROCESSOR_API_KEY", ""),
		EdgeSecret:             str("EDGE_SECRET", ""),
		RedisURL:               str("REDIS_URL", ""),
		EthRPCURL:              str("ETH_RPC_URL", ""),
		ChainID:                integer("CHAIN_ID", 8453, 1),
	}
	c.ChainConfirmations = int(integer("CHAIN_CONFIRMATIONS", 2, 1))
	c.loadChain(str, bad)
	c.RateLimitPerMinute = int(integer("RATE_LIMIT_PER_MINUTE", 600, 1))
	c.RateLimitPublicPerMinute = int(integer("RATE_LIMIT_PUBLIC_PER_MINUTE", 60, 1))
	c.DBMaxConns = int(integer("DB_MAX_CONNS", 32, 2))
	c.PprofAddr = str("PPROF_ADDR", "")
	c.MetricsToken = str("METRICS_TOKEN", "")
	c.JournalPath = str("JOURNAL_PATH", ".data/journal.jsonl")
	c.PublicBaseURL = strings.TrimRight(str("PUBLIC_BASE_URL", "http://localhost:8080"), "/")
	if u, err := url.Parse(c.PublicBaseURL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		bad("PUBLIC_BASE_URL must be an http(s) URL")
	}
	// GET /api/site/config needs a key when gateway enforcement is on (spec, Authentication point
	// 1); SITE_CONFIG_REQUIRES_KEY, when set, overrides that either way.
	switch str("SITE_CONFIG_REQUIRES_KEY", "") {
	case "":
		c.SiteConfigRequiresKey = c.AuthMode == "gateway"
	case "true", "1":
		c.SiteConfigRequiresKey = true
	case "false", "0":
	default:
		bad("SITE_CONFIG_REQUIRES_KEY must be true or false")
	}
	switch str("EMBEDDED_POSTGRES", "auto") {
	case "auto", "on", "true", "1":
		c.EmbeddedPostgres = true
	case "off", "false", "0":
	default:
		bad("EMBEDDED_POSTGRES must be auto or off")
	}

	if c.AppEnv != "development" && c.AppEnv != "production" {
		bad("APP_ENV must be development or production, got %q", c.AppEnv)
	}
	if c.EventStore != "postgres" && c.EventStore != "esdb" {
		bad("EVENTSTORE must be postgres or esdb, got %q", c.EventStore)
	}
	if c.EventStore == "esdb" && c.EventStoreURL == "" {
		bad("EVENTSTORE_URL is required when EVENTSTORE=esdb")
	}
	if c.AuthMode != "standalone" && c.AuthMode != "gateway" {
		bad("AUTH_MODE must be standalone or gateway, got %q", c.AuthMode)
	}
	if u, err := url.Parse(c.DatabaseURL); err != nil || (u.Scheme != "postgres" && u.Scheme != "postgresql") {
		bad("DATABASE_URL must be a postgres:// URL")
	}
	for _, name := range []string{"PROCESSOR_API_URL", "ETH_RPC_URL", "REDIS_URL"} {
		if v := getenv(name); v != "" {
			if u, err := url.Parse(v); err != nil || u.Scheme == "" || u.Host == "" {
				bad("%s must be an absolute URL", name)
			}
		}
	}
	if c.PlatformRecipient != "" && !walletRE.MatchString(c.PlatformRecipient) {
		bad("PLATFORM_RECIPIENT must be a 0x-prefixed 40-hex-character address")
	}
	for _, w := range strings.Split(getenv("ADMIN_WALLETS"), ",") {
		if w = strings.TrimSpace(w); w == "" {
			continue
		}
		if !walletRE.MatchString(w) {
			bad("ADMIN_WALLETS has an invalid address %q", w)
			continue
		}
		c.AdminWallets = append(c.AdminWallets, strings.ToLower(w))
	}
	if c.production() && c.EmbeddedPostgres && getenv("EMBEDDED_POSTGRES") == "" {
		c.EmbeddedPostgres = false // production never starts a private database unless asked
	}

	var generated []string
	secret := func(name string, dst *string) {
		if *dst != "" {
			return
		}
		if c.production() {
			bad("%s is required in production", name)
			return
		}
		var b [32]byte
		if _, err := io.ReadFull(random, b[:]); err != nil {
			bad("cannot generate %s: %v", name, err)
			return
		}
		*dst = hex.EncodeToString(b[:])
		generated = append(generated, name)
	}
	secret("JWT_SECRET", &c.JWTSecret)
	secret("CRON_SECRET", &c.CronSecret)
	secret("PROCESSOR_WEBHOOK_SECRET", &c.ProcessorWebhookSecret)
	keyHex := str("SECRETS_KEY", "")
	if keyHex != "" {
		if k, err := hex.DecodeString(keyHex); err != nil || len(k) != 32 {
			bad("SECRETS_KEY must be 64 hex characters (32 bytes)")
		} else {
			c.SecretsKey = k
		}
	} else {
		secret("SECRETS_KEY", &keyHex)
		c.SecretsKey, _ = hex.DecodeString(keyHex)
	}
	if c.AuthMode == "gateway" {
		secret("EDGE_SECRET", &c.EdgeSecret)
	}
	if c.production() && len(c.JWTSecret) > 0 && len(c.JWTSecret) < 32 {
		bad("JWT_SECRET must be at least 32 characters in production")
	}
	if len(problems) > 0 {
		return c, nil, errors.New("invalid configuration:\n  - " + strings.Join(problems, "\n  - "))
	}
	return c, generated, nil
}

var operatorKeyRE = regexp.MustCompile(`^(0x)?[0-9a-fA-F]{64}$`)

// loadChain reads CHAIN_TOKENS, CHAIN_OPERATOR_KEY, SPEND_PERMISSION_MANAGER and DEVCHAIN (DESIGN 8).
// A problem with the operator key never repeats the key.
func (c *config) loadChain(str func(name, def string) string, bad func(format string, args ...any)) {
	tokens, err := chain.ParseTokens(str("CHAIN_TOKENS", ""))
	if err != nil {
		bad("%v", err)
	}
	c.ChainTokens = tokens
	if c.OperatorKey = str("CHAIN_OPERATOR_KEY", ""); c.OperatorKey != "" && !operatorKeyRE.MatchString(c.OperatorKey) {
		bad("CHAIN_OPERATOR_KEY must be 64 hex characters")
	}
	if c.SpendPermissionManager = str("SPEND_PERMISSION_MANAGER", ""); c.SpendPermissionManager != "" && !walletRE.MatchString(c.SpendPermissionManager) {
		bad("SPEND_PERMISSION_MANAGER must be a 0x-prefixed 40-hex-character address")
	}
	def := "auto"
	if c.production() {
		def = "off"
	}
	switch c.DevChain = str("DEVCHAIN", def); c.DevChain {
	case "auto", "off":
	default:
		bad("DEVCHAIN must be auto or off, got %q", c.DevChain)
	}
}
