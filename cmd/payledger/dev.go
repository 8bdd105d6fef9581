package main

import (
	"bytes"
	"cmp"
	"context"
	"crypto/ecdsa"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"net/http"
	"net/http/cookiejar"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/signer/core/apitypes"
	"github.com/rs/zerolog"

	"github.com/payledger/payledger/chain"
	"github.com/payledger/payledger/transport"
)

const devUsage = `usage:
  payledger dev merchant [--base-url URL] [--name SHOP]
      development only: create (or reuse) a local merchant wallet, sign in to the running service
      with it, configure its split and shop, add two inventory items, create a key with every
      scope, and print the key, the wallet, a ready curl for an order and a one-time sign-in
      link to the dashboard (valid 5 minutes).
      The wallet's key is kept in DEV_DATA_DIR/dev-merchant.key (default .data/), the API key in
      DEV_DATA_DIR/dev-merchant.env; --base-url defaults to PUBLIC_BASE_URL (http://localhost:8080).
`

// The files `dev merchant` keeps in DEV_DATA_DIR: the wallet's private key, and the wallet with
// the API key (which `devchain pay` reads too).
const (
	devMerchantKeyFile = "dev-merchant.key"
	devMerchantEnvFile = "dev-merchant.env"
)

// devItems are the inventory items `dev merchant` creates (upserted by SKU).
var devItems = []map[string]any{
	{"sku": "DEV-COFFEE", "name": "Coffee", "priceUsd": 4.5, "stockQty": -1, "taxable": true},
	{"sku": "DEV-BAGEL", "name": "Bagel", "priceUsd": 3.25, "stockQty": -1, "taxable": true},
}

// devCommand runs the development helpers; it refuses in production.
func devCommand(ctx context.Context, cfg config, getenv func(string) string, log zerolog.Logger, args []string, stdout io.Writer) error {
	if cfg.production() {
		return errors.New("payledger dev is for development only (APP_ENV=production)")
	}
	if cfg.AuthMode == "gateway" {
		return errors.New("payledger dev merchant signs in and uses a key directly: run the service with AUTH_MODE=standalone")
	}
	if len(args) == 0 || args[0] != "merchant" {
		return badUsage("payledger dev: the only command is merchant", devUsage)
	}
	fs := flag.NewFlagSet("dev merchant", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	baseURL := fs.String("base-url", cfg.PublicBaseURL, "the running service")
	name := fs.String("name", "Dev shop", "the shop's name")
	if err := fs.Parse(args[1:]); err != nil {
		return badUsage(err, devUsage)
	}
	if fs.NArg() > 0 {
		return badUsage(fmt.Sprintf("unexpected arguments %q", fs.Args()), devUsage)
	}
	// As listen's: `--base-url localhost:9090` was taken for a URL of scheme "localhost" and
	// reported as a service that does not answer (exit 1), the typo unnamed.
	if err := httpURLFlag("--base-url", *baseURL); err != nil {
		return badUsage(err, devUsage)
	}
	if *baseURL == "" {
		*baseURL = cfg.PublicBaseURL
	}
	m := &devMerchant{base: strings.TrimRight(*baseURL, "/"), dir: devDataDir(getenv), log: log, cfg: cfg}
	return m.run(ctx, *name, stdout)
}

// devMerchant is one run of `payledger dev merchant` against a service.
type devMerchant struct {
	base   string
	dir    string
	log    zerolog.Logger
	cfg    config
	client *http.Client
	csrf   string
	key    *ecdsa.PrivateKey
	wallet string
	apiKey string
	// retryFor bounds the waits of one call the service asks to repeat (0: devRetryFor).
	retryFor time.Duration
}

func (m *devMerchant) run(ctx context.Context, shopName string, out io.Writer) error {
	jar, _ := cookiejar.New(nil)
	// A split deployment waits for its block. No redirect is followed: the API key and the CSRF
	// token travel in headers of their own, which Go's client forwards to any host a redirect
	// names; the service answers these calls itself, so a redirect is an error to report.
	m.client = &http.Client{Jar: jar, Timeout: 3 * time.Minute,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	if _, _, err := m.call(ctx, http.MethodGet, "/healthz", nil, nil); err != nil {
		return fmt.Errorf("the service does not answer at %s (start it with `make run`, or pass --base-url): %w", m.base, err)
	}
	created, err := m.loadWallet()
	if err != nil {
		return err
	}
	m.log.Info().Str("wallet", m.wallet).Bool("created", created).Msg("dev merchant: wallet")
	if err := m.login(ctx); err != nil {
		return err
	}
	split, err := m.configureSplit(ctx)
	if err != nil {
		return err
	}
	if err := m.expect(ctx, http.MethodPost, "/api/shop/config", map[string]any{"name": shopName, "setupComplete": true}, http.StatusOK, nil); err != nil {
		return fmt.Errorf("shop config: %w", err)
	}
	if err := m.ensureKey(ctx); err != nil {
		return err
	}
	for _, it := range devItems {
		if err := m.expectKey(ctx, http.MethodPost, "/api/inventory", it, nil); err != nil {
			return fmt.Errorf("inventory %s: %w", it["sku"], err)
		}
	}
	m.print(out, created, split, shopName)
	m.printSignInLink(ctx, out)
	return nil
}

// printSignInLink prints a one-time link that signs the merchant in to the dashboard, for a
// browser without a wallet. A service that does not issue links (an older one) gets no line.
func (m *devMerchant) printSignInLink(ctx context.Context, out io.Writer) {
	var link struct {
		URL string `json:"url"`
	}
	if err := m.expect(ctx, http.MethodPost, "/api/auth/dev-link", map[string]any{}, http.StatusOK, &link); err != nil {
		m.log.Warn().Err(err).Msg("dev merchant: no dashboard sign-in link")
		return
	}
	fmt.Fprintf(out, "\nDashboard (one-time sign-in link, valid 5 minutes; run this again for a new one):\n  %s\n", link.URL)
}

// loadWallet reads the merchant key from dir/dev-merchant.key, or creates it (0600).
func (m *devMerchant) loadWallet() (bool, error) {
	path := filepath.Join(m.dir, devMerchantKeyFile)
	b, err := os.ReadFile(path)
	created := false
	switch {
	case errors.Is(err, fs.ErrNotExist):
		if m.key, err = crypto.GenerateKey(); err != nil {
			return false, err
		}
		if err := writePrivate(path, hex.EncodeToString(crypto.FromECDSA(m.key))+"\n"); err != nil {
			return false, fmt.Errorf("keep the merchant key: %w", err)
		}
		created = true
	case err != nil:
		return false, err
	default:
		if m.key, err = crypto.HexToECDSA(strings.TrimPrefix(strings.TrimSpace(string(b)), "0x")); err != nil {
			return false, fmt.Errorf("%s does not hold a private key (delete it to start over): %v", path, err)
		}
	}
	m.wallet = strings.ToLower(crypto.PubkeyToAddress(m.key.PublicKey).Hex())
	return created, nil
}

// writePrivate writes a file readable by its owner only (directory 0700), failing if it exists.
func writePrivate(path, content string) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	if _, err := f.WriteString(content); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// login signs the service's EIP-712 login challenge with the merchant key (what a browser wallet
// does with eth_signTypedData_v4) and keeps the session cookie and the CSRF token.
func (m *devMerchant) login(ctx context.Context) error {
	var challenge struct {
		TypedData apitypes.TypedData `json:"typedData"`
		Nonce     string             `json:"nonce"`
	}
	if err := m.expect(ctx, http.MethodPost, "/api/auth/nonce", map[string]string{"wallet": m.wallet}, http.StatusOK, &challenge); err != nil {
		return fmt.Errorf("login nonce: %w", err)
	}
	td := challenge.TypedData
	// Sign only a login for this wallet: never whatever a service puts in front of the key.
	if td.PrimaryType != "Login" || !strings.EqualFold(fmt.Sprint(td.Message["wallet"]), m.wallet) {
		return fmt.Errorf("the service's login challenge is not a Login for %s", m.wallet)
	}
	sig, err := chain.SignTypedData(td, m.key)
	if err != nil {
		return fmt.Errorf("sign the login challenge: %w", err)
	}
	var session struct {
		CSRFToken string `json:"csrfToken"`
	}
	body := map[string]string{"wallet": m.wallet, "signature": sig, "nonce": challenge.Nonce}
	if err := m.expect(ctx, http.MethodPost, "/api/auth/login", body, http.StatusOK, &session); err != nil {
		return fmt.Errorf("login: %w", err)
	}
	m.csrf = session.CSRFToken
	return nil
}

// splitAnswer is the service's answer about the merchant's split (GET and POST /api/split/deploy):
// no address until one is configured.
type splitAnswer struct {
	Split struct {
		Address *string `json:"address"`
	} `json:"split"`
}

// configureSplit configures the merchant's split with the merchant as its only recipient: the
// service deploys the contract when it has a chain and an operator key (the development chain);
// without a chain the merchant's wallet itself is the payment address.
func (m *devMerchant) configureSplit(ctx context.Context) (string, error) {
	var res splitAnswer
	recipients := []map[string]any{{"address": m.wallet, "sharesBps": 10000}}
	err := m.expect(ctx, http.MethodPost, "/api/split/deploy", map[string]any{"recipients": recipients}, http.StatusOK, &res)
	var apiErr *devAPIError
	if errors.As(err, &apiErr) && apiErr.Status == http.StatusBadRequest && strings.Contains(apiErr.Message, "splitAddress is required") {
		m.log.Info().Msg("dev merchant: no chain to deploy a split on; the wallet receives payments directly")
		err = m.expect(ctx, http.MethodPost, "/api/split/deploy", map[string]any{"splitAddress": m.wallet, "recipients": recipients}, http.StatusOK, &res)
	}
	if err != nil {
		return "", fmt.Errorf("split: %w", err)
	}
	if res.Split.Address == nil {
		return "", errors.New("split: the service answered without an address")
	}
	return *res.Split.Address, nil
}

// ensureKey reuses the key kept in dir/dev-merchant.env while the service accepts it, else
// creates one with every scope and keeps it.
func (m *devMerchant) ensureKey(ctx context.Context) error {
	path := filepath.Join(m.dir, devMerchantEnvFile)
	if kept, err := readDevSecrets(path); err == nil && kept["PAYLEDGER_API_KEY"] != "" && kept["WALLET"] == m.wallet {
		m.apiKey = kept["PAYLEDGER_API_KEY"]
		err := m.expectKey(ctx, http.MethodGet, "/api/status/ping", nil, nil)
		if err == nil {
			err = m.expectKey(ctx, http.MethodGet, "/api/inventory", nil, nil)
		}
		if err == nil {
			return nil
		}
		// Only a refusal of the key replaces it: a 429 or 5xx says nothing about the key, and
		// replacing it then left the working key behind on the service and a new one in the file.
		if transientAnswer(err) {
			return fmt.Errorf("could not check the API key kept in %s (%w); it is left as it is: run this again shortly", path, err)
		}
		m.apiKey = ""
	}
	var res struct {
		Key string `json:"key"`
	}
	body := map[string]any{"name": "dev merchant (every scope)", "scopes": transport.Scopes}
	if err := m.expect(ctx, http.MethodPost, "/api/admin/keys", body, http.StatusCreated, &res); err != nil {
		return fmt.Errorf("create key: %w", err)
	}
	m.apiKey = res.Key
	_ = os.Remove(path)
	return writePrivate(path, fmt.Sprintf("# payledger dev merchant (development only)\nWALLET=%s\nPAYLEDGER_API_KEY=%s\n", m.wallet, m.apiKey))
}

func (m *devMerchant) print(out io.Writer, created bool, split, shopName string) {
	state := "reused"
	if created {
		state = "created"
	}
	apiFlag := "" // devchain pay's --base-url default
	if m.base != "http://localhost:8080" {
		apiFlag = " --base-url " + m.base
	}
	order := `{"items":[{"sku":"DEV-COFFEE","qty":2},{"sku":"DEV-BAGEL","qty":1}]}`
	fmt.Fprintf(out, `
merchant wallet:  %s (%s; key in %s)
split address:    %s (each receipt's deposit is swept here, then shared out)
shop:             %s, items DEV-COFFEE 4.50 USD and DEV-BAGEL 3.25 USD
API key:          %s (every scope; kept in %s)

Create an order (its answer holds "receiptId"):

curl -s -X POST %s/api/orders -H 'Ocp-Apim-Subscription-Key: %s' -H 'Content-Type: application/json' -d '%s'

Then:
  open the payment page:  %s/portal/<receiptId>
  pay it on the development chain:  go run ./cmd/payledger devchain pay <receiptId>%s
  read it back:  curl -s %s/api/receipts/<receiptId> -H 'Ocp-Apim-Subscription-Key: %s'
`, m.wallet, state, filepath.Join(m.dir, devMerchantKeyFile), split, shopName, m.apiKey, filepath.Join(m.dir, devMerchantEnvFile),
		m.base, m.apiKey, order, m.base, apiFlag, m.base, m.apiKey)
}

// devAPIError is an error answer of the service.
type devAPIError struct {
	Status  int
	Code    string
	Message string
}

func (e *devAPIError) Error() string {
	return fmt.Sprintf("%d %s: %s", e.Status, e.Code, e.Message)
}

// expect calls the service with the session and fails unless it answers want.
func (m *devMerchant) expect(ctx context.Context, method, path string, body any, want int, out any) error {
	status, raw, err := m.call(ctx, method, path, body, nil)
	if err != nil {
		return err
	}
	return decodeAnswer(status, want, raw, out)
}

// expectKey calls the service with the API key and fails on anything but 2xx.
func (m *devMerchant) expectKey(ctx context.Context, method, path string, body any, out any) error {
	status, raw, err := m.call(ctx, method, path, body, map[string]string{"Ocp-Apim-Subscription-Key": m.apiKey})
	if err != nil {
		return err
	}
	if status/100 == 2 {
		status = http.StatusOK
	}
	return decodeAnswer(status, http.StatusOK, raw, out)
}

func decodeAnswer(status, want int, raw []byte, out any) error {
	if status != want {
		var e struct {
			Error   string `json:"error"`
			Message string `json:"message"`
		}
		_ = json.Unmarshal(raw, &e)
		if e.Message == "" {
			e.Message = strings.TrimSpace(string(raw))
		}
		return &devAPIError{Status: status, Code: e.Error, Message: e.Message}
	}
	if out != nil {
		if err := json.Unmarshal(raw, out); err != nil {
			return fmt.Errorf("unexpected answer %s: %w", raw, err)
		}
	}
	return nil
}

// call sends one request to the service with the session's CSRF token and headers. A 429 (the
// request was refused before anything was done) is sent again, and so is a GET answered 502,
// 503 or 504, after the answer's Retry-After (at most devRetryWait; else 1 s, doubling) while
// the waits stay within m.retryFor (devRetryFor when 0); then the last answer is returned.
func (m *devMerchant) call(ctx context.Context, method, path string, body any, headers map[string]string) (int, []byte, error) {
	h := map[string]string{}
	if m.csrf != "" {
		h["x-csrf-token"] = m.csrf
	}
	maps.Copy(h, headers)
	budget, backoff := cmp.Or(m.retryFor, devRetryFor), time.Second
	for {
		status, raw, after, err := sendJSONRetryAfter(ctx, m.client, method, m.base+path, body, h)
		if err != nil || !retryable(method, status) {
			return status, raw, err
		}
		wait := cmp.Or(min(after, devRetryWait), backoff)
		if wait > budget {
			return status, raw, nil
		}
		budget, backoff = budget-wait, min(2*backoff, devRetryWait)
		m.log.Info().Int("status", status).Str("path", path).Dur("wait", wait).Msg("dev merchant: the service asks to wait; trying again")
		select {
		case <-ctx.Done():
			return 0, nil, ctx.Err()
		case <-time.After(wait):
		}
	}
}

// devRetryFor is how long `dev merchant` waits in all for one call the service answers 429 (or,
// a GET, 502/503/504); devRetryWait the longest one wait.
const (
	devRetryFor  = 30 * time.Second
	devRetryWait = 10 * time.Second
)

// retryable reports whether an answer asks for the same request again later.
func retryable(method string, status int) bool {
	switch status {
	case http.StatusTooManyRequests:
		return true
	case http.StatusBadGateway, http.StatusServiceUnavailable, http.StatusGatewayTimeout:
		return method == http.MethodGet
	}
	return false
}

// transientAnswer reports whether err is no answer about the request itself: no answer at all,
// a 429 or a 5xx.
func transientAnswer(err error) bool {
	var apiErr *devAPIError
	return !errors.As(err, &apiErr) || apiErr.Status == http.StatusTooManyRequests || apiErr.Status >= 500
}

// sendJSON sends body (none when nil) as JSON with the headers and returns the answer's status
// and its first MiB.
func sendJSON(ctx context.Context, client *http.Client, method, url string, body any, headers map[string]string) (int, []byte, error) {
	status, raw, _, err := sendJSONRetryAfter(ctx, client, method, url, body, headers)
	return status, raw, err
}

// sendJSONRetryAfter is sendJSON with the answer's Retry-After in seconds (0 when none).
func sendJSONRetryAfter(ctx context.Context, client *http.Client, method, url string, body any, headers map[string]string) (int, []byte, time.Duration, error) {
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return 0, nil, 0, err
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, url, rd)
	if err != nil {
		return 0, nil, 0, err
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	resp, err := client.Do(req)
	if err != nil {
		return 0, nil, 0, err
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	var after time.Duration
	if n, perr := strconv.Atoi(strings.TrimSpace(resp.Header.Get("Retry-After"))); perr == nil && n > 0 {
		after = time.Duration(min(n, 3600)) * time.Second // bounded: a huge one overflowed
	}
	return resp.StatusCode, raw, after, err
}
