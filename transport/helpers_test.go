package transport

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
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
	"github.com/payledger/payledger/internal/secrets"
	"github.com/payledger/payledger/internal/syncbuf"
	"github.com/payledger/payledger/migrations/pgtest"
	"github.com/payledger/payledger/readmodels"
	"github.com/payledger/payledger/transport/apirecord"
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

// syncBuffer collects logs written while they are read (syncbuf.Buffer).
type syncBuffer = syncbuf.Buffer

type env struct {
	t     testing.TB
	srv   *Server
	svc   *app.Service // the service the server was built on (cmd/payledger/app)
	pool  *pgxpool.Pool
	keys  *readmodels.Keys
	clk   *clock
	logs  *syncBuffer
	admin *ecdsa.PrivateKey // its wallet is in AdminWallets

	webhookKeys *secrets.WebhookKeys
	outbox      *readmodels.Outbox
	dispatcher  *webhooks.Dispatcher
	usage       *readmodels.Usage
	endpoints   *readmodels.Endpoints
}

type pinger struct{ err error }

func (p pinger) Ping(context.Context) error { return p.err }

// testDeps are the HTTP layer's dependencies as the service's one construction filled them
// (cmd/payledger/app/web): a test may replace one with a fault-injecting wrapper before the
// server is built. It constructs none of them.
type testDeps struct {
	Deps
}

// newEnv builds a server on a fresh database; mutate adjusts its dependencies first.
func newEnv(t testing.TB, mutate func(*testDeps)) *env {
	t.Helper()
	return newAppEnv(t, nil, mutate, nil)
}

// newEnvWith also adjusts the webhook dispatcher (short retry delay and timeout by default).
func newEnvWith(t testing.TB, mutate func(*testDeps), dispatch func(*webhooks.Dispatcher)) *env {
	t.Helper()
	return newAppEnv(t, nil, mutate, dispatch)
}

// newAppEnv builds the service as serve does (BuildService: cmd/payledger/app, then
// app/web) from a test configuration, which configure may change first: a fresh database, the
// test's clock, an in-process rate limiter; then mutate may replace HTTP dependencies.
func newAppEnv(t testing.TB, configure func(*app.Config), mutate func(*testDeps), dispatch func(*webhooks.Dispatcher)) *env {
	t.Helper()
	pool := pgtest.Pool(t)
	adminKey, _ := crypto.GenerateKey()
	e := &env{t: t, pool: pool, clk: &clock{t: time.Now()}, logs: &syncBuffer{}, admin: adminKey}
	cfg := app.Config{Store: postgres.New(pool), Pool: pool, Now: e.clk.Now, Log: zerolog.Nop(),
		SecretsKey: bytes.Repeat([]byte{7}, 32), JournalPath: filepath.Join(t.TempDir(), "journal.jsonl"), PlatformRecipient: testPlatform,
		Dispatch: func(d *webhooks.Dispatcher) {
			d.RetryDelay, d.Timeout = 300*time.Millisecond, time.Second
			if dispatch != nil {
				dispatch(d)
			}
		}}
	if configure != nil {
		configure(&cfg)
	}
	httpCfg := Config{JWTSecret: testJWTSecret, CronSecret: testCronSecret, EdgeSecret: testEdgeSecret,
		AdminWallets: []string{walletOf(adminKey)}, KeyLimitPerMinute: 10_000, PublicLimitPerMinute: 10_000,
		ProcessorWebhookSecret: testProcessorSecret, PublicBaseURL: "https://pay.example"}
	svc, deps, err := BuildService(context.Background(), cfg, httpCfg, ratelimit.NewMemory(e.clk.Now), 8453, zerolog.New(e.logs))
	if err != nil {
		t.Fatal(err)
	}
	e.svc, e.keys, e.webhookKeys, e.outbox, e.dispatcher, e.usage, e.endpoints = svc, svc.Keys, svc.WebhookKeys, svc.Outbox, svc.Dispatcher, svc.Usage, svc.Endpoints
	d := &testDeps{Deps: deps}
	d.DB = pinger{} // the datastore answers unless a test says otherwise
	if mutate != nil {
		mutate(d)
	}
	if e.srv, err = New(d.Deps); err != nil {
		t.Fatal(err)
	}
	e.runProjections(svc) // after New: the server registers its status cache first
	return e
}

// runProjections runs the receipts and subscriptions projections, the webhook dispatcher and the
// cache invalidations until the test ends (the other workers run where a test needs them).
func (e *env) runProjections(s *app.Service) {
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Go(func() { _ = s.Projections.Receipts.Run(ctx) })
	wg.Go(func() { _ = s.Projections.Subscriptions.Run(ctx) })
	wg.Go(func() {
		if e.dispatcher.Workers > 0 { // a benchmark may start its own later
			_ = e.dispatcher.Run(ctx)
		}
	})
	wg.Go(func() { _ = s.Invalidations.Run(ctx) })
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
	apirecord.Record(hr, rec)
	wantResetAt(e.t, rec)
	return rec
}

// wantResetAt fails a 429 without the spec's resetAt ("rate_limited ... includes resetAt (Unix
// ms); clients back off until then"), whichever route or bound gave it.
func wantResetAt(t testing.TB, rec *httptest.ResponseRecorder) {
	t.Helper()
	if rec.Code != http.StatusTooManyRequests || rec.Body.Len() == 0 {
		return
	}
	var body struct {
		ResetAt *int64 `json:"resetAt"`
	}
	if err := json.Unmarshal(rec.Body.Bytes(), &body); err != nil || body.ResetAt == nil || *body.ResetAt <= 0 {
		t.Fatalf("429 without resetAt: %s (%v)", rec.Body.String(), err)
	}
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
