package main

import (
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"net/netip"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/ethereum/go-ethereum/crypto"
	"github.com/jackc/pgx/v5/pgconn"
	"go.opentelemetry.io/otel/trace"

	"github.com/payledger/payledger/chain"
	"github.com/payledger/payledger/domain/address"
	"github.com/payledger/payledger/domain/receipt"
	"github.com/payledger/payledger/settlement"
	"github.com/payledger/payledger/transport/tracing"
)

// DefaultDatabaseURL is used when DATABASE_URL is unset.
const DefaultDatabaseURL = "postgres://postgres@127.0.0.1:5432/payledger?sslmode=disable"

// config is the service configuration, read from the environment (DESIGN.md section 6).
type config struct {
	DatabaseURL              string
	DatabaseReplicaURL       string // optional: stale-tolerant reads (readmodels.ReplicaReads)
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
	ChainLogRange            int // CHAIN_LOG_RANGE: blocks per eth_getLogs of the deposit detector
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
	MetricsAddr              string         // separate /metrics listener (off the public one)
	TrustedProxies           []netip.Prefix // hops whose X-Forwarded-For is believed
	KeyCacheTTL              time.Duration  // how long degraded mode trusts a confirmed key
	JournalPath              string
	VerifyKey                []byte         // VERIFY_KEY: signs and checks `verify` checkpoints (HMAC-SHA256); kept out of the database, never logged
	DepositFactory           string         // DEPOSIT_FACTORY; "": deployed by serve from the operator key
	PaymentWindow            time.Duration  // PAYMENT_WINDOW: how long a receipt waits to be paid
	PaymentMonitorWindow     time.Duration  // PAYMENT_MONITOR_WINDOW: how long a failed or paid deposit stays watched
	PaymentLateWatch         time.Duration  // PAYMENT_LATE_WATCH: how long after that an expired receipt's deposit is still read (issue 41)
	SweepFailedMinCents      int64          // SWEEP_FAILED_MIN_CENTS: the least, in USD cents, a failed receipt's deposit funds must be worth to be swept (besides 1% of its price; stop 70)
	Tracing                  tracing.Config // OTEL_EXPORTER_OTLP_ENDPOINT, OTEL_SERVICE_NAME: traces (off without an endpoint)
	ExplorerURL              string         // EXPLORER_URL: the chain's block explorer the dashboard links transfers to
	ExportMaxConcurrent      int            // EXPORT_MAX_CONCURRENT: CSV exports at once on this instance (their own connections)
	ExportTimeout            time.Duration  // EXPORT_TIMEOUT: how long one CSV export may last
	// RateLimitSubscriptionCreatePerHour (RATE_LIMIT_SUBSCRIPTION_CREATE_PER_HOUR): creations of
	// subscriptions per client address an hour.
	RateLimitSubscriptionCreatePerHour int
	// RateLimitSplitDeployPerHour (RATE_LIMIT_SPLIT_DEPLOY_PER_HOUR) and
	// RateLimitSplitDeployBudgetPerHour (RATE_LIMIT_SPLIT_DEPLOY_BUDGET_PER_HOUR): split
	// deployments the operator pays for, per client address and for the service, an hour.
	RateLimitSplitDeployPerHour, RateLimitSplitDeployBudgetPerHour int
	// IdempotencyMaxKept (IDEMPOTENCY_MAX_KEPT): Idempotency-Key answers a merchant may keep in
	// 24 h (readmodels.MaxKeptAnswers by default); the 128 MiB of them stays a constant.
	IdempotencyMaxKept int
	// tracer is the provider serve built from Tracing (startTracing); nil outside serve: no spans.
	tracer trace.TracerProvider
}

func (c config) production() bool { return c.AppEnv == "production" }

// secretVars are generated in development when missing and required in production.
var secretVars = []string{"JWT_SECRET", "CRON_SECRET", "SECRETS_KEY", "PROCESSOR_WEBHOOK_SECRET"}

// envReader reads configuration variables and collects every problem found, so that loadConfig
// reports them all at once.
type envReader struct {
	getenv   func(string) string
	problems []string
}

// bad records one problem.
func (r *envReader) bad(format string, args ...any) {
	r.problems = append(r.problems, fmt.Sprintf(format, args...))
}

// str is the variable without surrounding spaces, or def when that is empty.
func (r *envReader) str(name, def string) string {
	if v := strings.TrimSpace(r.getenv(name)); v != "" {
		return v
	}
	return def
}

// integer is the variable as an integer of at least lo, or def when it is unset or invalid (a
// problem).
func (r *envReader) integer(name string, def int64, lo int64) int64 {
	v := r.str(name, "")
	if v == "" {
		return def
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n < lo {
		r.bad("%s must be an integer >= %d, got %q", name, lo, v)
		return def
	}
	return n
}

// maxConnections is the most connections a PostgreSQL server takes (max_connections' ceiling,
// 2^18 - 1): a pool budget above it (DB_MAX_CONNS, EXPORT_MAX_CONCURRENT) is a typo. Read as a
// pool's int32 it also wrapped around: 4294967298 was a pool of 2, 2147483648 a negative one.
const maxConnections = 262_143

// connections is the variable as a number of connections from lo to maxConnections, or def when
// it is unset or invalid (a problem).
func (r *envReader) connections(name string, def, lo int64) int {
	n := r.integer(name, def, lo)
	if n > maxConnections {
		r.bad("%s must be at most %d (PostgreSQL's most connections), got %d", name, maxConnections, n)
		return int(def)
	}
	return int(n)
}

// duration is the variable as a positive Go duration, or def when it is unset or invalid (a
// problem).
func (r *envReader) duration(name string, def time.Duration) time.Duration {
	v := r.str(name, "")
	if v == "" {
		return def
	}
	d, err := time.ParseDuration(v)
	if err != nil || d <= 0 {
		r.bad("%s must be a positive duration such as 5m, got %q", name, v)
		return def
	}
	return d
}

// prefixes is the variable as comma-separated CIDRs (a bare address is its own /32 or /128).
func (r *envReader) prefixes(name string) []netip.Prefix {
	var out []netip.Prefix
	for _, v := range strings.Split(r.getenv(name), ",") {
		if v = strings.TrimSpace(v); v == "" {
			continue
		}
		p, err := netip.ParsePrefix(v)
		if err != nil {
			a, aerr := netip.ParseAddr(v)
			if aerr != nil {
				r.bad("%s must be comma-separated CIDRs, got %q", name, v)
				continue
			}
			p = netip.PrefixFrom(a, a.BitLen())
		}
		out = append(out, p.Masked())
	}
	return out
}

// loadConfig reads and validates the configuration. It returns every problem at once, one line
// each, and the names of the secrets it generated (development only).
func loadConfig(getenv func(string) string, random io.Reader) (config, []string, error) {
	r := &envReader{getenv: getenv}
	c := readConfig(r)
	c.validate(r)
	generated := c.loadSecrets(r, random)
	if len(r.problems) > 0 {
		return c, nil, errors.New("invalid configuration:\n  - " + strings.Join(r.problems, "\n  - "))
	}
	return c, generated, nil
}

// readConfig reads every setting but the secrets, with its default.
func readConfig(r *envReader) config {
	c := config{
		DatabaseURL:            r.str("DATABASE_URL", DefaultDatabaseURL),
		DatabaseReplicaURL:     r.str("DATABASE_REPLICA_URL", ""),
		EventStore:             r.str("EVENTSTORE", "postgres"),
		EventStoreURL:          r.str("EVENTSTORE_URL", ""),
		HTTPAddr:               r.str("HTTP_ADDR", ":8080"),
		AppEnv:                 r.str("APP_ENV", "development"),
		AuthMode:               r.str("AUTH_MODE", "standalone"),
		JWTSecret:              r.str("JWT_SECRET", ""),
		CronSecret:             r.str("CRON_SECRET", ""),
		PlatformRecipient:      r.str("PLATFORM_RECIPIENT", ""),
		ProcessorWebhookSecret: r.str("PROCESSOR_WEBHOOK_SECRET", ""),
		ProcessorAPIURL:        r.str("PROCESSOR_API_URL", ""),
		ProcessorAPIKey:        r.str("PROCESSOR_API_KEY", ""),
		EdgeSecret:             r.str("EDGE_SECRET", ""),
		RedisURL:               r.str("REDIS_URL", ""),
		EthRPCURL:              r.str("ETH_RPC_URL", ""),
		ChainID:                r.integer("CHAIN_ID", 8453, 1),
	}
	c.ChainConfirmations = int(r.integer("CHAIN_CONFIRMATIONS", 2, 1))
	// A provider that caps eth_getLogs (by blocks or by results) refuses a catch-up of every
	// Transfer log over the default range; a smaller one makes more, smaller requests.
	if c.ChainLogRange = int(r.integer("CHAIN_LOG_RANGE", chain.MaxLogRange, 1)); c.ChainLogRange > chain.MaxLogRange {
		r.bad("CHAIN_LOG_RANGE must be at most %d blocks, got %d", chain.MaxLogRange, c.ChainLogRange)
	}
	c.loadChain(r)
	c.readLimits(r)
	c.DBMaxConns = r.connections("DB_MAX_CONNS", 32, 2)
	c.PprofAddr = r.str("PPROF_ADDR", "")
	c.MetricsToken = r.str("METRICS_TOKEN", "")
	c.MetricsAddr = r.str("METRICS_ADDR", "")
	if c.ExplorerURL = strings.TrimRight(r.str("EXPLORER_URL", ""), "/"); c.ExplorerURL != "" {
		if u, err := url.Parse(c.ExplorerURL); err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" || u.RawQuery != "" {
			r.bad("EXPLORER_URL must be an http(s) URL without a query, e.g. https://basescan.org")
		}
	}
	c.Tracing = tracing.Config{Endpoint: r.str("OTEL_EXPORTER_OTLP_ENDPOINT", ""), ServiceName: r.str("OTEL_SERVICE_NAME", "payledger")}
	c.TrustedProxies = r.prefixes("TRUSTED_PROXIES")
	c.KeyCacheTTL = r.duration("KEY_CACHE_TTL", 5*time.Minute)
	c.ExportMaxConcurrent = r.connections("EXPORT_MAX_CONCURRENT", 4, 1)
	c.ExportTimeout = r.duration("EXPORT_TIMEOUT", 5*time.Minute)
	c.JournalPath = r.str("JOURNAL_PATH", ".data/journal.jsonl")
	c.VerifyKey = []byte(r.str("VERIFY_KEY", "")) // checked by `verify`, the one command that uses it
	c.PublicBaseURL = strings.TrimRight(r.str("PUBLIC_BASE_URL", "http://localhost:8080"), "/")
	if u, err := url.Parse(c.PublicBaseURL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		r.bad("PUBLIC_BASE_URL must be an http(s) URL")
	} else if c.AppEnv == "production" && u.Scheme != "https" {
		// Production's payment links, sign-in challenges (their uri) and session audience come
		// from it: left unset, every link a merchant hands a customer named localhost.
		r.bad("PUBLIC_BASE_URL must be set to the service's https URL in production")
	}
	c.readSwitches(r)
	return c
}

// readSwitches reads SITE_CONFIG_REQUIRES_KEY and EMBEDDED_POSTGRES.
func (c *config) readSwitches(r *envReader) {
	// GET /api/site/config needs a key when gateway enforcement is on (spec, Authentication point
	// 1); SITE_CONFIG_REQUIRES_KEY, when set, overrides that either way.
	switch r.str("SITE_CONFIG_REQUIRES_KEY", "") {
	case "":
		c.SiteConfigRequiresKey = c.AuthMode == "gateway"
	case "true", "1":
		c.SiteConfigRequiresKey = true
	case "false", "0":
	default:
		r.bad("SITE_CONFIG_REQUIRES_KEY must be true or false")
	}
	switch r.str("EMBEDDED_POSTGRES", "auto") {
	case "auto", "on", "true", "1":
		c.EmbeddedPostgres = true
	case "off", "false", "0":
	default:
		r.bad("EMBEDDED_POSTGRES must be auto or off")
	}
}

// validate checks the settings readConfig read, reads ADMIN_WALLETS, and keeps production from
// starting a private database it was not asked for.
func (c *config) validate(r *envReader) {
	if c.AppEnv != "development" && c.AppEnv != "production" {
		r.bad("APP_ENV must be development or production, got %q", c.AppEnv)
	}
	if c.EventStore != "postgres" && c.EventStore != "esdb" {
		r.bad("EVENTSTORE must be postgres or esdb, got %q", c.EventStore)
	}
	if c.EventStore == "esdb" && c.EventStoreURL == "" {
		r.bad("EVENTSTORE_URL is required when EVENTSTORE=esdb")
	}
	if c.AuthMode != "standalone" && c.AuthMode != "gateway" {
		r.bad("AUTH_MODE must be standalone or gateway, got %q", c.AuthMode)
	}
	checkPostgresURL(r, "DATABASE_URL", c.DatabaseURL)
	if c.DatabaseReplicaURL != "" {
		checkPostgresURL(r, "DATABASE_REPLICA_URL", c.DatabaseReplicaURL)
	}
	// The OTLP exporter reads an endpoint without a scheme (127.0.0.1:4318) as no endpoint and
	// sends to its default, or nowhere, while serve logs that traces are exported.
	if ep := c.Tracing.Endpoint; ep != "" {
		if u, err := url.Parse(ep); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			r.bad("OTEL_EXPORTER_OTLP_ENDPOINT must be an http(s) URL such as http://localhost:4318")
		}
	}
	for _, name := range []string{"PROCESSOR_API_URL", "ETH_RPC_URL", "REDIS_URL"} {
		if v := r.getenv(name); v != "" {
			if u, err := url.Parse(v); err != nil || u.Scheme == "" || u.Host == "" {
				r.bad("%s must be an absolute URL", name)
			}
		}
	}
	if c.PlatformRecipient != "" && !contractAddress(c.PlatformRecipient) {
		r.bad("PLATFORM_RECIPIENT must be a 0x-prefixed 40-hex-character address other than the zero address")
	}
	c.readAdminWallets(r)
	// serve opens METRICS_ADDR and PPROF_ADDR in the background and keeps running when they
	// fail: METRICS_ADDR=9090 left /metrics on no listener at all.
	for _, a := range []struct{ name, v string }{{"HTTP_ADDR", c.HTTPAddr}, {"METRICS_ADDR", c.MetricsAddr}, {"PPROF_ADDR", c.PprofAddr}} {
		if a.v != "" && !validListenAddr(a.v) {
			r.bad("%s must be host:port or :port (e.g. 127.0.0.1:9090), got %q", a.name, a.v)
		}
	}
	if c.production() && c.EmbeddedPostgres && r.getenv("EMBEDDED_POSTGRES") == "" {
		c.EmbeddedPostgres = false // production never starts a private database unless asked
	}
}

// validListenAddr reports whether addr is what net.Listen takes for TCP: host:port, the port a
// number up to 65535 or a service name.
func validListenAddr(addr string) bool {
	_, port, err := net.SplitHostPort(addr)
	if err != nil || port == "" {
		return false
	}
	_, err = net.LookupPort("tcp", port)
	return err == nil
}

// checkPostgresURL refuses a URL PostgreSQL's driver cannot use (sslmode=disabled, a bad port),
// at start and naming the variable: found only when connecting, development took it for a
// server that does not answer and started a private cluster. The driver's reason is kept, never
// the URL, which may hold a password.
func checkPostgresURL(r *envReader, name, v string) {
	if u, err := url.Parse(v); err != nil || (u.Scheme != "postgres" && u.Scheme != "postgresql") {
		r.bad("%s must be a postgres:// URL", name)
		return
	}
	if _, err := pgconn.ParseConfig(v); err != nil {
		reason := "it cannot be parsed"
		// "cannot parse `<redacted URL>`: <reason>"
		if _, after, ok := strings.Cut(err.Error(), "`: "); ok {
			reason = after
		}
		r.bad("%s is not a usable PostgreSQL URL: %s", name, reason)
	}
}

// readAdminWallets reads the comma-separated ADMIN_WALLETS, lower-cased.
func (c *config) readAdminWallets(r *envReader) {
	for _, w := range strings.Split(r.getenv("ADMIN_WALLETS"), ",") {
		if w = strings.TrimSpace(w); w == "" {
			continue
		}
		if !address.Valid(w) {
			r.bad("ADMIN_WALLETS has an invalid address %q", w)
			continue
		}
		c.AdminWallets = append(c.AdminWallets, strings.ToLower(w))
	}
}

// loadSecrets reads the secrets, generating the missing ones in development (production requires
// them), and returns the names of those it generated.
func (c *config) loadSecrets(r *envReader, random io.Reader) []string {
	g := &secretGenerator{r: r, random: random, production: c.production()}
	g.fill("JWT_SECRET", &c.JWTSecret)
	g.fill("CRON_SECRET", &c.CronSecret)
	g.fill("PROCESSOR_WEBHOOK_SECRET", &c.ProcessorWebhookSecret)
	keyHex := r.str("SECRETS_KEY", "")
	if keyHex != "" {
		if k, err := hex.DecodeString(keyHex); err != nil || len(k) != 32 {
			r.bad("SECRETS_KEY must be 64 hex characters (32 bytes)")
		} else {
			c.SecretsKey = k
		}
	} else {
		g.fill("SECRETS_KEY", &keyHex)
		c.SecretsKey, _ = hex.DecodeString(keyHex)
	}
	if c.AuthMode == "gateway" {
		g.fill("EDGE_SECRET", &c.EdgeSecret)
	}
	c.checkProductionSecrets(r)
	return g.generated
}

// minSecretLen is the shortest secret production accepts: a guessable one would let anyone
// charge subscriptions (cron), forge processor events or gateway stamps, or mint sessions.
const minSecretLen = 32

// checkProductionSecrets refuses short secrets in production, and an open /metrics there (it
// needs METRICS_TOKEN unless METRICS_ADDR serves it on a separate listener).
func (c *config) checkProductionSecrets(r *envReader) {
	if !c.production() {
		return
	}
	for _, s := range []struct{ name, v string }{{"JWT_SECRET", c.JWTSecret}, {"CRON_SECRET", c.CronSecret},
		{"PROCESSOR_WEBHOOK_SECRET", c.ProcessorWebhookSecret}, {"EDGE_SECRET", c.EdgeSecret}} {
		if s.v != "" && len(s.v) < minSecretLen {
			r.bad("%s must be at least %d characters in production", s.name, minSecretLen)
		}
	}
	if c.MetricsToken == "" && c.MetricsAddr == "" {
		r.bad("METRICS_TOKEN is required in production (or METRICS_ADDR, to serve /metrics on a separate listener)")
	}
	if c.MetricsToken != "" && len(c.MetricsToken) < minSecretLen {
		r.bad("METRICS_TOKEN must be at least %d characters in production", minSecretLen)
	}
}

// secretGenerator fills in secrets missing from the environment: 32 random bytes, hex-encoded, in
// development; a problem in production.
type secretGenerator struct {
	r          *envReader
	random     io.Reader
	production bool
	generated  []string // names filled in, in order
}

// fill leaves a set *dst alone and otherwise generates it.
func (g *secretGenerator) fill(name string, dst *string) {
	if *dst != "" {
		return
	}
	if g.production {
		g.r.bad("%s is required in production", name)
		return
	}
	var b [32]byte
	if _, err := io.ReadFull(g.random, b[:]); err != nil {
		g.r.bad("cannot generate %s: %v", name, err)
		return
	}
	*dst = hex.EncodeToString(b[:])
	g.generated = append(g.generated, name)
}

// contractAddress reports whether s is an address that can hold funds or code: the zero address
// (a placeholder left in a template) would take the platform's share of every default split,
// which the split refuses to merchants with an error about a recipient they never named, or
// stand for a factory and a manager that are nowhere (no deposit addresses, while serve logged
// them ready).
func contractAddress(s string) bool {
	return address.Valid(s) && strings.Trim(s[2:], "0") != ""
}

var operatorKeyRE = regexp.MustCompile(`^(0x)?[0-9a-fA-F]{64}$`)

// loadChain reads CHAIN_TOKENS, CHAIN_OPERATOR_KEY, SPEND_PERMISSION_MANAGER and DEVCHAIN (DESIGN 8),
// DEPOSIT_FACTORY, PAYMENT_WINDOW and PAYMENT_MONITOR_WINDOW (DESIGN 9), PAYMENT_LATE_WATCH (issue 41).
// A problem with the operator key never repeats the key.
func (c *config) loadChain(r *envReader) {
	tokens, err := chain.ParseTokens(r.str("CHAIN_TOKENS", ""))
	if err != nil {
		r.bad("%v", err)
	}
	c.ChainTokens = tokens
	if c.OperatorKey = r.str("CHAIN_OPERATOR_KEY", ""); c.OperatorKey != "" && !operatorKeyRE.MatchString(c.OperatorKey) {
		r.bad("CHAIN_OPERATOR_KEY must be 64 hex characters")
	} else if _, err := crypto.HexToECDSA(strings.TrimPrefix(c.OperatorKey, "0x")); c.OperatorKey != "" && err != nil {
		// 64 hex characters that are not a key (zero, or past the curve's order): every signer
		// would fail later, each on its own, with subscriptions merely "not configured".
		r.bad("CHAIN_OPERATOR_KEY is not a valid secp256k1 private key")
	}
	if c.SpendPermissionManager = r.str("SPEND_PERMISSION_MANAGER", ""); c.SpendPermissionManager != "" && !contractAddress(c.SpendPermissionManager) {
		r.bad("SPEND_PERMISSION_MANAGER must be a 0x-prefixed 40-hex-character address other than the zero address")
	}
	if c.DepositFactory = r.str("DEPOSIT_FACTORY", ""); c.DepositFactory != "" && !contractAddress(c.DepositFactory) {
		r.bad("DEPOSIT_FACTORY must be a 0x-prefixed 40-hex-character address other than the zero address")
	}
	c.PaymentWindow = r.duration("PAYMENT_WINDOW", receipt.DefaultPaymentWindow)
	c.PaymentMonitorWindow = r.duration("PAYMENT_MONITOR_WINDOW", receipt.DefaultMonitorWindow)
	c.PaymentLateWatch = r.duration("PAYMENT_LATE_WATCH", settlement.DefaultLateWatch)
	c.SweepFailedMinCents = r.integer("SWEEP_FAILED_MIN_CENTS", 0, 0)
	def := "auto"
	if c.production() {
		def = "off"
	}
	switch c.DevChain = r.str("DEVCHAIN", def); c.DevChain {
	case "auto", "off":
	default:
		r.bad("DEVCHAIN must be auto or off, got %q", c.DevChain)
	}
}
