// Package transporttest builds the service as `payledger serve` does (cmd/payledger/app/web.Build)
// for the tests of the audience packages mounted on the HTTP foundation (transport/dashboard,
// transport/portal): their HTTP tests live in external test packages (package x_test), because
// web imports them, and share this harness instead of a wiring of their own. transport's own
// internal tests keep theirs (helpers_test.go): an internal test cannot import this package.
package transporttest

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
	"github.com/payledger/payledger/cmd/payledger/app/web"
	"github.com/payledger/payledger/eventstore/postgres"
	"github.com/payledger/payledger/migrations/pgtest"
	"github.com/payledger/payledger/transport"
	"github.com/payledger/payledger/transport/apirecord"
	"github.com/payledger/payledger/transport/ratelimit"
	"github.com/payledger/payledger/webhooks"
)

// The test configuration's secrets, as transport's own tests use them.
const (
	JWTSecret       = "test-jwt-secret-0123456789abcdef0123456789"
	CronSecret      = "cron-s3cret"
	EdgeSecret      = "edge-s3cret"
	Platform        = "0xbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"
	ProcessorSecret = "whsec_test"
)

// Clock is the tests' clock: the service's Now.
type Clock struct {
	mu sync.Mutex
	t  time.Time
}

// Now is the clock's time.
func (c *Clock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }

// Advance moves the clock on by d.
func (c *Clock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// Env is a server built on a fresh database, with the service it was built on.
type Env struct {
	T     testing.TB
	Srv   *transport.Server
	Svc   *web.Service
	Pool  *pgxpool.Pool
	Clk   *Clock
	Admin *ecdsa.PrivateKey // its wallet is in AdminWallets
}

// Options change the test configuration before the service is built.
type Options struct {
	App  func(*app.Config)
	HTTP func(*transport.Config)
}

// New builds the service as serve does from the test configuration (changed by opts first): a
// fresh database, the test's clock, an in-process rate limiter; and runs the receipts and
// subscriptions projections, the webhook dispatcher and the cache invalidations until the test
// ends.
func New(t testing.TB, opts Options) *Env {
	t.Helper()
	pool := pgtest.Pool(t)
	adminKey, _ := crypto.GenerateKey()
	e := &Env{T: t, Pool: pool, Clk: &Clock{t: time.Now()}, Admin: adminKey}
	cfg := app.Config{Store: postgres.New(pool), Pool: pool, Now: e.Clk.Now, Log: zerolog.Nop(),
		SecretsKey: bytes.Repeat([]byte{7}, 32), JournalPath: filepath.Join(t.TempDir(), "journal.jsonl"), PlatformRecipient: Platform,
		Dispatch: func(d *webhooks.Dispatcher) { d.RetryDelay, d.Timeout = 300*time.Millisecond, time.Second }}
	if opts.App != nil {
		opts.App(&cfg)
	}
	httpCfg := transport.Config{JWTSecret: JWTSecret, CronSecret: CronSecret, EdgeSecret: EdgeSecret,
		AdminWallets: []string{WalletOf(adminKey)}, KeyLimitPerMinute: 10_000, PublicLimitPerMinute: 10_000,
		ProcessorWebhookSecret: ProcessorSecret, PublicBaseURL: "https://pay.example"}
	if opts.HTTP != nil {
		opts.HTTP(&httpCfg)
	}
	svc, err := web.Build(context.Background(), web.Config{App: cfg, HTTP: httpCfg, Limiter: ratelimit.NewMemory(e.Clk.Now),
		LoginChainID: 8453, Log: zerolog.Nop()})
	if err != nil {
		t.Fatal(err)
	}
	svc.HTTP.DB = pinger{} // the datastore answers
	e.Svc = svc
	if e.Srv, err = svc.Server(); err != nil {
		t.Fatal(err)
	}
	e.run() // after the server: it registers its status cache first
	return e
}

type pinger struct{}

func (pinger) Ping(context.Context) error { return nil }

func (e *Env) run() {
	s := e.Svc
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Go(func() { _ = s.Projections.Receipts.Run(ctx) })
	wg.Go(func() { _ = s.Projections.Subscriptions.Run(ctx) })
	wg.Go(func() { _ = s.Dispatcher.Run(ctx) })
	wg.Go(func() { _ = s.Invalidations.Run(ctx) })
	e.T.Cleanup(func() { cancel(); wg.Wait() })
}

// WalletOf is the lower-case address of k.
func WalletOf(k *ecdsa.PrivateKey) string {
	return strings.ToLower(crypto.PubkeyToAddress(k.PublicKey).Hex())
}

// Req is one request to the server.
type Req struct {
	Method, Path, Body string
	Header             map[string]string
	Cookies            []*http.Cookie
}

// Do serves r and records the exchange for ValidateRecorded.
func (e *Env) Do(r Req) *httptest.ResponseRecorder {
	e.T.Helper()
	var body io.Reader
	if r.Body != "" {
		body = strings.NewReader(r.Body)
	}
	hr := httptest.NewRequest(r.Method, r.Path, body)
	if r.Body != "" {
		hr.Header.Set("Content-Type", "application/json")
	}
	for k, v := range r.Header {
		hr.Header.Set(k, v)
	}
	for _, c := range r.Cookies {
		hr.AddCookie(c)
	}
	rec := httptest.NewRecorder()
	e.Srv.ServeHTTP(rec, hr)
	apirecord.Record(hr, rec)
	return rec
}

// Get is a GET with cookies: the status, the body and the headers.
func (e *Env) Get(path string, cookies []*http.Cookie) (int, string, http.Header) {
	e.T.Helper()
	rec := e.Do(Req{Method: http.MethodGet, Path: path, Cookies: cookies})
	return rec.Code, rec.Body.String(), rec.Header()
}

// Decode reads rec's body as a JSON object.
func Decode(t testing.TB, rec *httptest.ResponseRecorder) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(rec.Body.Bytes(), &m); err != nil {
		t.Fatalf("body %q is not a JSON object: %v", rec.Body.String(), err)
	}
	return m
}

// Login signs in with key as a wallet does and returns the session cookies and the CSRF token.
func (e *Env) Login(key *ecdsa.PrivateKey) ([]*http.Cookie, string) {
	e.T.Helper()
	wallet := WalletOf(key)
	rec := e.Do(Req{Method: http.MethodPost, Path: "/api/auth/nonce", Body: `{"wallet":"` + wallet + `"}`})
	if rec.Code != http.StatusOK {
		e.T.Fatalf("nonce: %d %s", rec.Code, rec.Body)
	}
	var resp struct {
		TypedData apitypes.TypedData `json:"typedData"`
	}
	if err := json.Unmarshal(rec.Body.Bytes(), &resp); err != nil {
		e.T.Fatal(err)
	}
	sig, err := chain.SignTypedData(resp.TypedData, key) // as eth_signTypedData_v4 does
	if err != nil {
		e.T.Fatal(err)
	}
	rec = e.Do(Req{Method: http.MethodPost, Path: "/api/auth/login", Body: `{"wallet":"` + wallet + `","signature":"` + sig + `"}`})
	if rec.Code != http.StatusOK {
		e.T.Fatalf("login: %d %s", rec.Code, rec.Body)
	}
	cookies := rec.Result().Cookies()
	csrf := ""
	for _, c := range cookies {
		if c.Name == transport.CSRFCookie {
			csrf = c.Value
		}
	}
	return cookies, csrf
}

// WaitUntil polls cond every 20 ms until it holds, failing the test after d.
func WaitUntil(t testing.TB, what string, d time.Duration, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(d)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
