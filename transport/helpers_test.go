package transport

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/signer/core/apitypes"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/rs/zerolog"

	"github.com/payledger/payledger/chain"
	"github.com/payledger/payledger/cmd/payledger/app"
	"github.com/payledger/payledger/docs"
	"github.com/payledger/payledger/eventstore/postgres"
	"github.com/payledger/payledger/migrations/pgtest"
	"github.com/payledger/payledger/readmodels"
	"github.com/payledger/payledger/transport/ratelimit"
	"github.com/payledger/payledger/webhooks"
)

const (
	testJWTSecret  = "test-jwt-secret-0123456789abcdef0123456789"
	testCronSecret = "cron-s3cret"
	testEdgeSecret = "edge-s3cret"
	testPlatform   = "0xbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"

	testProcessorSecret = "whsec_test"
)

type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}
func (s *syncBuffer) String() string { s.mu.Lock(); defer s.mu.Unlock(); return s.b.String() }

type env struct {
	t     testing.TB
	srv   *Server
	app   *app.Application // what the server was handed
	pool  *pgxpool.Pool
	keys  *readmodels.Keys
	clk   *clock
	logs  *syncBuffer
	admin *ecdsa.PrivateKey // its wallet is in AdminWallets

	webhookKeys *readmodels.WebhookKeys
	outbox      *readmodels.Outbox
	dispatcher  *webhooks.Dispatcher
	usage       *readmodels.Usage
	endpoints   *readmodels.Endpoints
}

type pinger struct{ err error }

func (p pinger) Ping(context.Context) error { return p.err }

// testDeps are what a test may change before the server is built: the HTTP layer's dependencies
// and the application's (cmd/payledger/app, the composition root serve uses).
type testDeps struct {
	Deps
	App app.Deps
}

// newEnv builds a server on a fresh database; mutate adjusts its dependencies first.
func newEnv(t testing.TB, mutate func(*testDeps)) *env {
	t.Helper()
	return newEnvWith(t, mutate, nil)
}

// newEnvWith also adjusts the webhook dispatcher (short retry delay and timeout by default).
func newEnvWith(t testing.TB, mutate func(*testDeps), dispatch func(*webhooks.Dispatcher)) *env {
	t.Helper()
	pool := pgtest.Pool(t)
	adminKey, _ := crypto.GenerateKey()
	e := &env{t: t, pool: pool, keys: readmodels.NewKeys(pool), clk: &clock{t: time.Now()}, logs: &syncBuffer{}, admin: adminKey}
	store := postgres.New(pool)
	webhookKeys, err := readmodels.NewWebhookKeys(pool, bytes.Repeat([]byte{7}, 32))
	if err != nil {
		t.Fatal(err)
	}
	e.webhookKeys = webhookKeys
	e.outbox = readmodels.NewOutbox(pool)
	e.usage = readmodels.NewUsage(pool, e.clk.Now)
	metrics := NewMetrics(readmodels.NewOps(pool))
	e.endpoints = readmodels.NewEndpoints(pool, webhookKeys)
	disp := &webhooks.Dispatcher{Outbox: e.outbox, Keys: webhookKeys, Events: store, Log: zerolog.Nop(),
		RetryDelay: 300 * time.Millisecond, Timeout: time.Second, Metrics: metrics, Endpoints: e.endpoints}
	if dispatch != nil {
		dispatch(disp)
	}
	e.dispatcher = disp.Init()
	caches := readmodels.NewInvalidations(pool)
	caches.Register(readmodels.RevokedChannel, e.keys.Cache())
	d := &testDeps{Deps: Deps{
		Log: zerolog.New(e.logs), DB: pinger{}, Keys: e.keys, Nonces: readmodels.NewNonces(pool), Sessions: readmodels.NewSessions(pool),
		OpenAPIJSON: openapiJSON(t), Signer: chain.Login{ChainID: 8453}, Limiter: ratelimit.NewMemory(e.clk.Now), Now: e.clk.Now,
		Events: store, Shops: readmodels.NewShops(pool), Sites: readmodels.NewSites(pool),
		Inventory: readmodels.NewInventory(pool), Receipts: readmodels.NewReceipts(pool),
		Outbox: e.outbox, Webhooks: e.dispatcher,
		Prices: readmodels.NewPrices(pool), Usage: e.usage, Figures: readmodels.NewReceipts(pool), Metrics: metrics,
		Invalidations: caches, Users: readmodels.NewUsers(pool).KeepTopInMemory(caches),
		Plans: readmodels.NewPlans(pool), SubscriptionLists: readmodels.NewSubscriptions(pool),
		WebhookEndpoints: e.endpoints, EndpointSender: e.dispatcher, Idempotent: readmodels.NewIdempotentResponses(pool, webhookKeys),
		Exports: readmodels.NewExports(pool),
		Config: Config{JWTSecret: testJWTSecret, CronSecret: testCronSecret, EdgeSecret: testEdgeSecret,
			AdminWallets: []string{walletOf(adminKey)}, KeyLimitPerMinute: 10_000, PublicLimitPerMinute: 10_000,
			ProcessorWebhookSecret: testProcessorSecret, PublicBaseURL: "https://pay.example"},
	}, App: app.Deps{Store: store, Pool: pool, Now: e.clk.Now, Log: zerolog.Nop(), Dispatcher: e.dispatcher,
		Invalidations: caches, WebhookKeys: webhookKeys, PlatformRecipient: testPlatform}}
	if mutate != nil {
		mutate(d)
	}
	a, err := app.New(d.App) // as serve builds it
	if err != nil {
		t.Fatal(err)
	}
	e.app = a
	withApplication(&d.Deps, a)
	srv, err := New(d.Deps)
	if err != nil {
		t.Fatal(err)
	}
	e.srv = srv
	e.runProjections(a, d.Invalidations) // after New: the server registers its status cache first
	return e
}

// withApplication hands the server the application's handlers, queries, projections and caches.
func withApplication(d *Deps, a *app.Application) {
	d.Commands, d.Splits, d.Journaled, d.Charger = a.Commands, a.Queries.Splits, a.Queries.Journaled, a.Processes.Charger
	d.Events = a.Events // as serve: the store the write side appends through
	d.ReceiptsView, d.SubscriptionsView = a.Projections.Receipts, a.Projections.Subscriptions
	d.PricingCache, d.InventoryCache = a.Caches.Pricing, a.Caches.Inventory
}

// runProjections runs the receipts and subscriptions projections, the webhook dispatcher and the
// cache invalidations until the test ends.
func (e *env) runProjections(a *app.Application, caches *readmodels.Invalidations) {
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Go(func() { _ = a.Projections.Receipts.Run(ctx) })
	wg.Go(func() { _ = a.Projections.Subscriptions.Run(ctx) })
	wg.Go(func() {
		if e.dispatcher.Workers > 0 { // a benchmark may start its own later
			_ = e.dispatcher.Run(ctx)
		}
	})
	if caches != nil {
		wg.Go(func() { _ = caches.Run(ctx) })
	}
	e.t.Cleanup(func() { cancel(); wg.Wait() })
}

func walletOf(k *ecdsa.PrivateKey) string {
	return strings.ToLower(crypto.PubkeyToAddress(k.PublicKey).Hex())
}

// key creates a subscription key for wallet with scopes.
func (e *env) key(wallet string, scopes ...string) string {
	e.t.Helper()
	secret, _, err := e.keys.Create(context.Background(), wallet, "test", scopes)
	if err != nil {
		e.t.Fatal(err)
	}
	return secret
}

type req struct {
	method, path, body string
	header             map[string]string
	cookies            []*http.Cookie
	remote             string
}

func (e *env) do(r req) *httptest.ResponseRecorder {
	e.t.Helper()
	var body io.Reader
	if r.body != "" {
		body = strings.NewReader(r.body)
	}
	hr := httptest.NewRequest(r.method, r.path, body)
	if r.body != "" {
		hr.Header.Set("Content-Type", "application/json")
	}
	if r.remote != "" {
		hr.RemoteAddr = r.remote
	}
	for k, v := range r.header {
		hr.Header.Set(k, v)
	}
	for _, c := range r.cookies {
		hr.AddCookie(c)
	}
	rec := httptest.NewRecorder()
	e.srv.ServeHTTP(rec, hr)
	record(hr, rec)
	return rec
}

func decode(t testing.TB, rec *httptest.ResponseRecorder) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(rec.Body.Bytes(), &m); err != nil {
		t.Fatalf("body %q is not a JSON object: %v", rec.Body.String(), err)
	}
	return m
}

// signNonce asks for a login challenge for key's wallet and signs it as a wallet would.
func (e *env) signNonce(signer *ecdsa.PrivateKey, wallet string) (nonce, signature string) {
	e.t.Helper()
	rec := e.do(req{method: http.MethodPost, path: "/api/auth/nonce", body: `{"wallet":"` + wallet + `"}`})
	if rec.Code != http.StatusOK {
		e.t.Fatalf("nonce: %d %s", rec.Code, rec.Body)
	}
	var resp struct {
		TypedData apitypes.TypedData `json:"typedData"`
		Nonce     string             `json:"nonce"`
	}
	if err := json.Unmarshal(rec.Body.Bytes(), &resp); err != nil {
		e.t.Fatal(err)
	}
	sig, err := chain.SignTypedData(resp.TypedData, signer) // as eth_signTypedData_v4 does
	if err != nil {
		e.t.Fatal(err)
	}
	return resp.Nonce, sig
}

func loginBody(wallet, signature string) string {
	return `{"wallet":"` + wallet + `","signature":"` + signature + `"}`
}

// login signs in with key and returns the session cookies and the CSRF token.
func (e *env) login(key *ecdsa.PrivateKey) ([]*http.Cookie, string) {
	e.t.Helper()
	wallet := walletOf(key)
	_, sig := e.signNonce(key, wallet)
	rec := e.do(req{method: http.MethodPost, path: "/api/auth/login", body: loginBody(wallet, sig)})
	if rec.Code != http.StatusOK {
		e.t.Fatalf("login: %d %s", rec.Code, rec.Body)
	}
	cookies := rec.Result().Cookies()
	csrf := ""
	for _, c := range cookies {
		if c.Name == CSRFCookie {
			csrf = c.Value
		}
	}
	return cookies, csrf
}

func openapiJSON(t testing.TB) []byte {
	t.Helper()
	b, err := docs.OpenAPIJSON()
	if err != nil {
		t.Fatal(err)
	}
	return b
}
