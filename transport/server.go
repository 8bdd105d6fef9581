// Package transport is the HTTP surface: echo routes, middleware, the error envelope and (in
// later parts) the API handlers and webhook delivery.
package transport

import (
	"context"
	"fmt"
	"net/http"
	"net/netip"
	"time"

	"github.com/labstack/echo/v4"
	"github.com/labstack/echo/v4/middleware"
	"github.com/rs/zerolog"
	"go.opentelemetry.io/otel/trace"

	"github.com/payledger/payledger/commands"
	"github.com/payledger/payledger/domain/receipt"
	"github.com/payledger/payledger/domain/split"
	"github.com/payledger/payledger/domain/subscription"
	"github.com/payledger/payledger/internal/cache"
	"github.com/payledger/payledger/readmodels"
	"github.com/payledger/payledger/settlement"
	"github.com/payledger/payledger/transport/tracing"
)

// MaxBodyBytes is the largest request body accepted.
const MaxBodyBytes = 1 << 20

// CorrelationHeader carries the request's correlation id in and out.
const CorrelationHeader = "X-Correlation-Id"

// WorkerHealth names the background workers stuck now (cmd/payledger/app.Health): no progress
// for 10 of their intervals while they have work, or stopped.
type WorkerHealth interface {
	Check() []string
	// Leading names the workers that run on one instance at a time and run on this one now.
	Leading() []string
}

// Pinger reports whether the datastore answers.
type Pinger interface {
	Ping(ctx context.Context) error
}

// Config is the access-control configuration of the HTTP layer.
type Config struct {
	GatewayMode          bool
	EdgeSecret           string
	JWTSecret            string
	CronSecret           string
	AdminWallets         []string // lower-case
	Production           bool
	KeyLimitPerMinute    int
	PublicLimitPerMinute int
	// SiteConfigRequiresKey makes GET /api/site/config a developer route.
	SiteConfigRequiresKey bool
	// ProcessorWebhookSecret keys the HMAC of the onramp processor's events.
	ProcessorWebhookSecret string
	// PublicBaseURL is where payment pages are served, for the links the API returns.
	PublicBaseURL string
	// KeyCacheTTL is how long degraded mode trusts a key the datastore last confirmed
	// (KEY_CACHE_TTL; zero: DefaultKeyCacheTTL).
	KeyCacheTTL time.Duration
	// TrustedProxies are the hops (TRUSTED_PROXIES) whose X-Forwarded-For is believed for the
	// client address; none: the connection's address.
	TrustedProxies []netip.Prefix
	// MetricsSeparate keeps /metrics off this router: METRICS_ADDR serves MetricsHandler.
	MetricsSeparate bool
	// MetricsToken, when set, is the bearer token /metrics requires.
	MetricsToken string
	// PaymentChain is where the payment page asks wallets to pay (zero: no wallet payments).
	PaymentChain PaymentChain
	// OnrampConfigured: a card/bank processor is configured (PROCESSOR_API_URL), so the payment
	// page offers it; set from the application, never by hand.
	OnrampConfigured bool
	// ExportMaxConcurrent (EXPORT_MAX_CONCURRENT) and ExportTimeout (EXPORT_TIMEOUT): exports.go.
	ExportMaxConcurrent int
	ExportTimeout       time.Duration
	// SubscriptionCreatesPerHour (RATE_LIMIT_SUBSCRIPTION_CREATE_PER_HOUR) is how many
	// POST /api/subscriptions/create one client address sends an hour (subscriptions.go; zero:
	// DefaultSubscriptionCreatesPerHour).
	SubscriptionCreatesPerHour int
	// SplitDeploysPerHour (RATE_LIMIT_SPLIT_DEPLOY_PER_HOUR) and SplitDeployBudgetPerHour
	// (RATE_LIMIT_SPLIT_DEPLOY_BUDGET_PER_HOUR) bound the split deployments the operator pays for,
	// per client address and for the service (split_deploy_limit.go; zero: the defaults).
	SplitDeploysPerHour, SplitDeployBudgetPerHour int
}

// Deps are what the HTTP layer needs: the use cases it calls (built by the composition root,
// cmd/payledger/app), the read models and stores its routes read and write, and its configuration.
type Deps struct {
	Log    zerolog.Logger
	DB     Pinger
	Health WorkerHealth
	// Off names the optional capabilities this configuration leaves off (app.Config.Capabilities):
	// /healthz lists them, the start's "capabilities" log line says why.
	Off     []string
	Keys    KeyStore
	Nonces  NonceStore
	Signer  LoginSigner
	Limiter Limiter
	Now     func() time.Time
	Config  Config

	// Commands are the request use cases; every field is required.
	Commands commands.Handlers
	// Splits reads the merchants' splits; Journaled finds an order accepted in degraded mode that
	// the event store does not hold yet.
	Splits    *commands.Splits
	Journaled JournaledReceipts
	// Charger charges subscriptions (nil: the charging routes answer 503).
	Charger *settlement.ChargeSubscriptionsHandler
	// Aggregates fold a receipt, split or subscription from its stream (commands.Aggregates), and
	// Histories read a receipt's audited history: the reads that must see the event log itself.
	Aggregates Aggregates
	Histories  Histories
	Shops      ShopStore
	Sites      SiteStore

	Inventory    InventoryStore
	Receipts     ReceiptReader
	ReceiptsView Waiter // the receipts projection, for read-your-writes

	Outbox   Outbox
	Webhooks WebhookSender

	Prices  PriceStore
	Usage   UsageCounter
	Figures Figures
	Users   UserStore
	Plans   PlanStore

	// SubscriptionLists is the subscriptions read model and SubscriptionsView its projection
	// (read-your-writes).
	SubscriptionLists SubscriptionLists
	SubscriptionsView Waiter

	// Sessions remembers the admin sessions ended before their expiry (DESIGN 9).
	Sessions SessionStore

	Metrics *Metrics // optional: a fresh registry without scrape-time gauges

	OpenAPIJSON []byte // served at /api/openapi.json

	// WebhookEndpoints stores webhook endpoints and the merchants' event log; EndpointSender
	// sends an endpoint message now (manual redelivery).
	WebhookEndpoints EndpointStore
	EndpointSender   EndpointSender
	// Idempotent keeps the first answer of every POST with an Idempotency-Key.
	Idempotent IdempotentStore
	// Exports streams the CSV exports.
	Exports ExportSource
	// SplitBudget counts the split deployments the operator pays for an hour, for every instance
	// (split_deploy_limit.go).
	SplitBudget SplitBudgetStore

	// Invalidations, when set, keeps the server's status cache; it must run (Run) after New.
	// Without it every status read goes to the database. PricingCache and InventoryCache are the
	// order sources' caches (nil without Invalidations): the server forgets what its writes change.
	Invalidations  *cache.Invalidations
	PricingCache   *cache.Cache[commands.MerchantPricing]
	InventoryCache *cache.Cache[readmodels.Item]

	// Mounts register the audience packages' routes (the merchant dashboard, transport/dashboard;
	// the payment page, transport/portal) on this server after its own (foundation.go).
	Mounts []Mount

	// Tracer, when set, gives each request a span (transport/tracing) and the read-your-writes
	// wait its own; nil: no traces.
	Tracer trace.TracerProvider
	// Replica, when set, sends the reads that tolerate staleness to a replica
	// (DATABASE_REPLICA_URL, replica.go); nil: every read on the primary.
	Replica ReplicaRouter
}

// Aggregates fold an aggregate's current state from its event stream (commands.Aggregates).
type Aggregates interface {
	ReceiptState(ctx context.Context, id string) (receipt.State, error)
	Split(ctx context.Context, wallet string) (split.State, error)
	Subscription(ctx context.Context, id string) (subscription.State, error)
}

var _ Aggregates = (*commands.Aggregates)(nil)

// Histories read a receipt's audited history with the hash chain's check.
type Histories interface {
	ReceiptHistory(ctx context.Context, id, merchant string) (commands.History, error)
}

// JournaledReceipts finds a receipt accepted in degraded mode while it waits in the journal.
type JournaledReceipts interface {
	Journaled(id string) (receipt.State, bool)
}

var _ JournaledReceipts = (*commands.Issuer)(nil)

// Server is the HTTP API: the echo instance and the access policy of every route.
type Server struct {
	Echo       *echo.Echo
	replica    ReplicaRouter // nil: every read on the primary (replica.go)
	policies   map[string]Policy
	cfg        Config
	keys       KeyStore
	nonces     NonceStore
	sessions   SessionStore
	signer     LoginSigner
	limiter    Limiter
	now        func() time.Time
	aggregates Aggregates
	histories  Histories
	shops      ShopStore
	sites      SiteStore

	inventory    InventoryStore
	receipts     ReceiptReader
	receiptsView Waiter
	caches       caches

	outbox   Outbox
	webhooks WebhookSender
	prices   PriceStore
	usage    UsageCounter
	figures  Figures
	metrics  *Metrics
	users    UserStore
	plans    PlanStore

	subscriptionLists SubscriptionLists
	subscriptionsView Waiter

	// The use cases the routes call, and the reads beside them.
	cmd          commands.Handlers
	splits       *commands.Splits
	journaled    JournaledReceipts
	openapi      []byte
	receiptWatch *receiptWatch // wakes the event streams of the payment page and the dashboard
	known        *lastKnown
	gate         *failGate   // client addresses blocked for wrong cron secrets or signatures
	splitBudget  spentBudget // the operator's split deployments of the hour (split_deploy_limit.go)
	stalls       *stallWatch

	endpoints      EndpointStore
	endpointSender EndpointSender
	streams        Slots
	streamAddrs    Slots // the merchant streams of each client address (streamsPerAddress)
	idem           IdempotentStore
	idemLock       time.Duration // how long a running request's key is held unrenewed (idemLock)
	exports        ExportSource
	exportSlots    Slots
	exportTimeout  time.Duration
	revocations    *cache.Signal // wakes streams to re-check their credential (stream_credentials.go)
	tracer         trace.Tracer
	audience       string   // every session token's aud (sessionAudience), read once
	off            []string // the optional capabilities left off (Deps.Off): split_deploy_limit.go
}

// ServeHTTP lets the server be used as an http.Handler.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) { s.Echo.ServeHTTP(w, r) }

// New returns the server with middleware and every route registered. It builds no use case: the
// composition root (cmd/payledger/app) hands it the handlers.
func New(d Deps) (*Server, error) {
	if err := checkDeps(d); err != nil {
		return nil, err
	}
	e := echo.New()
	e.HideBanner, e.HidePort = true, true
	e.HTTPErrorHandler = errorHandler
	e.IPExtractor = clientAddress(d.Config.TrustedProxies)
	// A slow client cannot hold a connection: the headers within 10 s, the whole request within
	// 30 s, the answer within 30 s (the payment page's event stream lifts its write deadline).
	e.Server.ReadHeaderTimeout = 10 * time.Second
	e.Server.ReadTimeout = 30 * time.Second
	e.Server.WriteTimeout = 30 * time.Second
	e.Server.IdleTimeout = 2 * time.Minute
	s := &Server{Echo: e, policies: map[string]Policy{}, cfg: d.Config, keys: d.Keys, nonces: d.Nonces, sessions: d.Sessions,
		signer: d.Signer, limiter: d.Limiter, now: d.Now, aggregates: d.Aggregates, histories: d.Histories, shops: d.Shops, sites: d.Sites,
		inventory: d.Inventory, receipts: d.Receipts, receiptsView: d.ReceiptsView,
		cmd: d.Commands, splits: d.Splits, journaled: d.Journaled, subscriptionLists: d.SubscriptionLists, subscriptionsView: d.SubscriptionsView,
		outbox: d.Outbox, webhooks: d.Webhooks,
		prices: d.Prices, usage: d.Usage, figures: d.Figures, metrics: d.Metrics,
		endpoints: d.WebhookEndpoints, endpointSender: d.EndpointSender, idem: d.Idempotent, idemLock: idemLock,
		exports: d.Exports, replica: d.Replica, audience: sessionAudience(d.Config.PublicBaseURL), off: d.Off,
		streamAddrs: Slots{Max: streamsPerAddress}}
	if s.metrics == nil {
		s.metrics = NewMetrics(nil)
	}
	s.exportBudget(d.Config)
	s.watchRevocations(d.Invalidations)
	s.tracer = tracing.Tracer(d.Tracer)
	if d.Invalidations != nil {
		s.caches = newCaches(d.Invalidations, d.PricingCache, d.InventoryCache)
	}
	s.receiptWatch = newReceiptWatch(d.Invalidations, e.Server)
	e.Pre(securityHeaders(d.Config.Production), preflight)
	e.Use(correlation(d.Log))
	if d.Tracer != nil {
		e.Use(tracing.Middleware(d.Tracer))
	}
	e.Use(noStore, s.accessLog, recoverPanics)
	e.Use(s.edgeOnly, middleware.BodyLimit(fmt.Sprintf("%dB", MaxBodyBytes)), textOnly)
	s.openapi = d.OpenAPIJSON
	s.users = d.Users
	s.plans = d.Plans
	s.known = newLastKnown(d.Config.KeyCacheTTL, d.Now)
	s.splitBudget.store = d.SplitBudget
	s.gate = newFailGate()
	s.stalls = &stallWatch{now: d.Now}
	s.subscriptionRoutes(d.Charger)
	s.routes(d.DB, d.Health, d.Off)
	for _, mount := range d.Mounts {
		if err := mount(s); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// checkDeps refuses a Deps that misses a required field or whose configuration cannot serve. Every
// capability the README describes as always on (Idempotency-Key, exports, webhook endpoints,
// sessions) is required: a missing one fails at start, naming it, instead
// of answering 503 at request time (DESIGN 10).
func checkDeps(d Deps) error {
	required := []struct {
		name    string
		missing bool
	}{
		{"DB", d.DB == nil}, {"Health", d.Health == nil}, {"Keys", d.Keys == nil}, {"Nonces", d.Nonces == nil}, {"Sessions", d.Sessions == nil},
		{"Signer", d.Signer == nil}, {"Limiter", d.Limiter == nil}, {"Now", d.Now == nil}, {"Aggregates", d.Aggregates == nil}, {"Histories", d.Histories == nil},
		{"Shops", d.Shops == nil}, {"Sites", d.Sites == nil}, {"Inventory", d.Inventory == nil}, {"Receipts", d.Receipts == nil},
		{"ReceiptsView", d.ReceiptsView == nil}, {"Splits", d.Splits == nil}, {"Journaled", d.Journaled == nil},
		{"Outbox", d.Outbox == nil}, {"Webhooks", d.Webhooks == nil}, {"Prices", d.Prices == nil}, {"Usage", d.Usage == nil},
		{"Figures", d.Figures == nil}, {"Users", d.Users == nil}, {"Plans", d.Plans == nil},
		{"SubscriptionLists", d.SubscriptionLists == nil}, {"SubscriptionsView", d.SubscriptionsView == nil},
		{"WebhookEndpoints", d.WebhookEndpoints == nil}, {"EndpointSender", d.EndpointSender == nil},
		{"Idempotent (Idempotency-Key)", d.Idempotent == nil}, {"Exports", d.Exports == nil}, {"SplitBudget", d.SplitBudget == nil},
		{"OpenAPIJSON", len(d.OpenAPIJSON) == 0},
	}
	for _, r := range required {
		if r.missing {
			return fmt.Errorf("transport: missing dependency %s (every capability but the optional ones is required)", r.name)
		}
	}
	if missingHandler(d.Commands) {
		return fmt.Errorf("transport: missing command handler (every field of Deps.Commands is required)")
	}
	if d.Config.JWTSecret == "" || d.Config.CronSecret == "" || (d.Config.GatewayMode && d.Config.EdgeSecret == "") {
		return fmt.Errorf("transport: JWT and cron secrets (and the edge secret in gateway mode) are required")
	}
	if d.Config.KeyLimitPerMinute <= 0 || d.Config.PublicLimitPerMinute <= 0 {
		return fmt.Errorf("transport: rate limits must be positive")
	}
	return nil
}

// missingHandler reports whether a use case is missing.
func missingHandler(h commands.Handlers) bool {
	return h.CreateOrder == nil || h.CreateReceipt == nil || h.StartOnramp == nil || h.SubmitWalletPayment == nil ||
		h.RecordTelemetry == nil || h.ApplyProcessorEvent == nil || h.ReconcileOnramp == nil || h.Refund == nil ||
		h.DisplayTerminal == nil || h.CompleteTerminal == nil || h.QuoteToken == nil || h.ConfigureSplit == nil ||
		h.CreateSubscription == nil || h.CancelSubscription == nil
}

func (s *Server) routes(db Pinger, workers WorkerHealth, off []string) {
	health := s.health(db, workers, off)
	s.handle(http.MethodGet, "/healthz", Policy{Access: Open}, health)
	// Uptime monitors that check with HEAD (some do by default) read a 405 as the service down.
	// Only here: a HEAD on a stream would hold one of its caller's stream slots.
	s.handle(http.MethodHead, "/healthz", Policy{Access: Open}, health)
	if !s.cfg.MetricsSeparate {
		s.handle(http.MethodGet, "/metrics", Policy{Access: Open}, s.metricsHandler())
	}
	s.handle(http.MethodGet, "/api/openapi.json", Policy{Access: Open}, func(c echo.Context) error {
		return c.Blob(http.StatusOK, echo.MIMEApplicationJSON, s.openapi)
	})
	s.handle(http.MethodGet, "/api/status/ping", Policy{Access: Developer}, s.ping)

	s.handle(http.MethodPost, "/api/auth/nonce", Policy{Access: Public}, s.issueNonce)
	s.handle(http.MethodPost, "/api/auth/login", Policy{Access: Public}, s.login)
	s.handle(http.MethodPost, "/api/auth/logout", Policy{Access: Public}, s.logout)
	s.handle(http.MethodPost, "/api/auth/logout-all", Policy{Access: Admin}, s.logoutAll)
	s.handle(http.MethodGet, "/api/auth/me", Policy{Access: Admin}, s.me)

	s.handle(http.MethodPost, "/api/admin/keys", Policy{Access: Admin}, s.createKey)
	s.handle(http.MethodGet, "/api/admin/keys", Policy{Access: Admin}, s.listKeys)
	s.handle(http.MethodDelete, "/api/admin/keys/:id", Policy{Access: Admin}, s.revokeKey)

	s.handle(http.MethodGet, "/api/shop/config", Policy{Access: Developer, Scope: "shop:read"}, s.getShopConfig)
	s.handle(http.MethodPost, "/api/shop/config", Policy{Access: Admin}, s.postShopConfig)
	sitePolicy := Policy{Access: Public}
	if s.cfg.SiteConfigRequiresKey {
		sitePolicy = Policy{Access: Developer}
	}
	s.handle(http.MethodGet, "/api/site/config", sitePolicy, s.getSiteConfig)
	s.handle(http.MethodPost, "/api/site/config", Policy{Access: Admin, Role: RoleAdmin}, s.postSiteConfig)
	s.handle(http.MethodGet, "/api/split/deploy", Policy{Access: Developer, Scope: "split:read"}, s.getSplit)
	s.handle(http.MethodPost, "/api/split/deploy", Policy{Access: Admin}, s.postSplit)
	s.handle(http.MethodPost, "/api/split/withdraw", Policy{Access: Open}, s.withdraw)
	s.handle(http.MethodGet, "/api/tax/catalog", Policy{Access: Developer}, s.taxCatalog)
	s.receiptRoutes()
	s.endpointRoutes()
	s.exportRoutes()
	s.userRoutes()
	s.planRoutes()
	s.graphqlRoutes()
}

// receiptRoutes are the routes of inventory, orders, receipts, their payments and billing.
func (s *Server) receiptRoutes() {
	s.handle(http.MethodGet, "/api/inventory", Policy{Access: Developer, Scope: "inventory:read"}, s.listInventory)
	s.handle(http.MethodPost, "/api/inventory", Policy{Access: Developer, Scope: "inventory:write"}, s.postInventory)
	s.handle(http.MethodDelete, "/api/inventory", Policy{Access: Developer, Scope: "inventory:write"}, s.deleteInventory)
	s.handle(http.MethodPost, "/api/orders", Policy{Access: Developer, Scope: "orders:create"}, s.createOrder)
	s.handle(http.MethodPost, "/api/receipts", Policy{Access: Developer, Scope: "receipts:write"}, s.createReceipt)
	s.handle(http.MethodGet, "/api/receipts", Policy{Access: Developer, Scope: "receipts:read"}, s.listReceipts)
	s.handle(http.MethodGet, "/api/receipts/status", Policy{Access: Developer, Scope: "receipts:read"}, s.receiptStatus)
	s.handle(http.MethodGet, "/api/receipts/:id", Policy{Access: Developer, Scope: "receipts:read"}, s.getReceipt)
	s.handle(http.MethodGet, "/api/receipts/:id/events", Policy{Access: Developer, Scope: "receipts:read"}, s.receiptEvents)

	s.handle(http.MethodPost, "/api/processor/webhook", Policy{Access: Signed}, s.processorWebhook)
	s.handle(http.MethodPost, "/api/portal/:id/onramp", Policy{Access: Public}, s.startOnramp)
	s.handle(http.MethodPost, "/api/portal/:id/telemetry", Policy{Access: Public}, s.telemetry)
	s.handle(http.MethodPost, "/api/portal/:id/payment", Policy{Access: Public}, s.walletPayment)
	s.handle(http.MethodPost, "/api/receipts/refund", Policy{Access: Admin}, s.refund)
	s.handle(http.MethodPost, "/api/receipts/terminal", Policy{Access: Admin}, s.terminal)
	s.handle(http.MethodGet, "/api/terminal/check-payment", Policy{Access: Public}, s.checkPayment)
	s.handle(http.MethodPost, "/api/cron/reconcile", Policy{Access: Cron}, s.cronReconcile)
	s.handle(http.MethodGet, "/api/webhooks/deliveries", Policy{Access: Developer, Scope: "receipts:read"}, s.listDeliveries)
	s.handle(http.MethodPost, "/api/webhooks/deliveries/:id/redeliver", Policy{Access: Admin}, s.redeliver)

	s.handle(http.MethodGet, "/api/pricing/config", Policy{Access: Developer}, s.getPricing)
	s.handle(http.MethodPost, "/api/pricing/config", Policy{Access: Admin, Role: RoleAdmin}, s.postPricing)
	s.handle(http.MethodPost, "/api/portal/:id/quote", Policy{Access: Public}, s.quote)
	s.handle(http.MethodGet, "/api/billing/balance", Policy{Access: Developer}, s.billing)
	s.handle(http.MethodGet, "/api/reserve/balances", Policy{Access: Developer}, s.reserveBalances)
	s.handle(http.MethodGet, "/api/reserve/recommend", Policy{Access: Developer}, s.reserveRecommend)
	s.handle(http.MethodGet, "/api/split/transactions", Policy{Access: Developer, Scope: "split:read"}, s.splitTransactions)
}

// health answers ok, or degraded when the datastore does not answer or a background worker is
// stuck; stuck names those workers (names only: their errors go to the log, which may hold
// addresses a public route must not show).
func (s *Server) health(db Pinger, workers WorkerHealth, off []string) echo.HandlerFunc {
	type answer struct {
		Status string   `json:"status"`
		Stuck  []string `json:"stuck,omitempty"`
		Off    []string `json:"off,omitempty"`
		// Leading: where several instances share a database, the one that answers this runs
		// these jobs (the others stand by for them).
		Leading []string `json:"leading,omitempty"`
		// Exhausted names the budgets spent now (split_deploy_limit.go): a bound, not a fault.
		Exhausted []string `json:"exhausted,omitempty"`
	}
	return func(c echo.Context) error {
		ctx, cancel := context.WithTimeout(c.Request().Context(), time.Second)
		defer cancel()
		out := answer{Status: "ok", Stuck: workers.Check(), Off: off, Leading: workers.Leading(), Exhausted: s.exhausted(ctx)}
		err := db.Ping(ctx)
		if err != nil {
			zerolog.Ctx(c.Request().Context()).Warn().Err(err).Msg("datastore does not answer")
		}
		if err != nil || len(out.Stuck) > 0 {
			out.Status = "degraded"
		}
		s.metrics.setDegraded(err != nil)
		return c.JSON(http.StatusOK, out)
	}
}
