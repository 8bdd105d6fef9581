package main

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"encoding/json"
	"fmt"
	"io"
	"math/big"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/accounts/abi/bind"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/ethclient"
	"github.com/ethereum/go-ethereum/rpc"
	"github.com/ethereum/go-ethereum/signer/core/apitypes"

	"github.com/payledger/payledger/chain"
	"github.com/payledger/payledger/chain/contracts"
)

// e2eClient speaks to a running serve as a merchant's tools and a customer's browser would.
type e2eClient struct {
	t       *testing.T
	base    string
	cookies []*http.Cookie
	csrf    string
}

func (c *e2eClient) call(method, path, bearer string, body any) (int, map[string]any) {
	c.t.Helper()
	var rd io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, c.base+path, rd)
	if err != nil {
		c.t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	if bearer != "" {
		req.Header.Set("Authorization", "Bearer "+bearer)
	}
	for _, ck := range c.cookies {
		req.AddCookie(ck)
	}
	if c.csrf != "" {
		req.Header.Set("x-csrf-token", c.csrf)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		c.t.Fatal(err)
	}
	defer resp.Body.Close()
	var m map[string]any
	raw, _ := io.ReadAll(resp.Body)
	_ = json.Unmarshal(raw, &m)
	if resp.StatusCode/100 == 2 && path == "/api/auth/login" {
		c.cookies = resp.Cookies()
		for _, ck := range c.cookies {
			if ck.Name == "cb_csrf" {
				c.csrf = ck.Value
			}
		}
	}
	return resp.StatusCode, m
}

// login signs the EIP-712 challenge with key as a browser wallet would.
func (c *e2eClient) login(key *ecdsa.PrivateKey) {
	c.t.Helper()
	wallet := strings.ToLower(crypto.PubkeyToAddress(key.PublicKey).Hex())
	code, m := c.call(http.MethodPost, "/api/auth/nonce", "", map[string]string{"wallet": wallet})
	if code != http.StatusOK {
		c.t.Fatalf("nonce: %d %v", code, m)
	}
	raw, _ := json.Marshal(m["typedData"])
	var td apitypes.TypedData
	if err := json.Unmarshal(raw, &td); err != nil {
		c.t.Fatal(err)
	}
	sig, err := chain.SignTypedData(td, key)
	if err != nil {
		c.t.Fatal(err)
	}
	if code, m := c.call(http.MethodPost, "/api/auth/login", "", map[string]string{"wallet": wallet, "signature": sig}); code != http.StatusOK {
		c.t.Fatalf("login: %d %v", code, m)
	}
}

// hooks collects the webhooks the service delivers.
type hooks struct {
	mu       sync.Mutex
	statuses []string
}

func (h *hooks) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var m map[string]any
	_ = json.NewDecoder(r.Body).Decode(&m)
	h.mu.Lock()
	defer h.mu.Unlock()
	if s := findString(m, "status"); s != "" {
		h.statuses = append(h.statuses, s)
	}
	w.WriteHeader(http.StatusOK)
}

func (h *hooks) seen() string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return strings.Join(h.statuses, ",")
}

// TestWalletPaymentEndToEnd is the newcomer's walk through the real binary: `payledger devchain`,
// `payledger serve` pointed at it, a merchant (key, wallet login, split deployed by the service),
// an order with a webhook, `payledger devchain pay <receiptId>` (a plain USDC transfer to the
// receipt's deposit address, as a phone wallet sends it: no hash submitted), and the receipt
// going pending -> paid -> reconciled through the router, with a webhook for each. A second
// receipt is paid with --submit: the hash goes to the service as a hint.
func TestWalletPaymentEndToEnd(t *testing.T) {
	// The merchant (a wallet, a key, and a split the service deploys) and the order, with a
	// webhook receiver.
	hk := &hooks{}
	receiver := httptest.NewServer(hk)
	defer receiver.Close()
	d := newDepositServe(t, withDevchainFactory(), withWebhook(receiver.URL+"/hook"))
	ctx, cancel, c, apiKey, id, serveOut, stopServe := d.ctx, d.cancel, d.c, d.apiKey, d.id, d.out, d.stop

	_, pm := c.call(http.MethodGet, "/api/portal/"+id, "", nil)
	deposit := findString(pm["receipt"], "depositAddress")
	if deposit == "" {
		t.Fatalf("the receipt has no deposit address: %v\n%s", pm, serveOut.String())
	}
	var payOut, payErr bytes.Buffer
	if code := run(ctx, []string{"devchain", "pay", id, "--api", c.base, "--token", "USDC"}, noEnv, &payOut, &payErr); code != 0 {
		t.Fatalf("devchain pay %s: exit %d\n%s\n%s\nserve:\n%s", id, code, payOut.String(), payErr.String(), serveOut.String())
	}
	t.Logf("devchain pay printed:\n%s", payOut.String())
	for _, want := range []string{"receipt " + id + ": 12.5 USD, status generated", "request: 12.5 USDC = 12500000 base units, to the deposit address " + deposit,
		"sent 12500000 base units in 0x", "a plain transfer"} {
		if !strings.Contains(payOut.String(), want) {
			t.Errorf("devchain pay output lacks %q", want)
		}
	}
	if strings.Contains(payOut.String(), "submitted") {
		t.Errorf("devchain pay submitted the hash without --submit")
	}

	var seen []string
	for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(300 * time.Millisecond) {
		_, m := c.call(http.MethodGet, "/api/portal/"+id, "", nil)
		s := findString(m["receipt"], "status")
		if s != "" && (len(seen) == 0 || seen[len(seen)-1] != s) {
			seen = append(seen, s)
		}
		if s == "reconciled" && strings.Contains(hk.seen(), "reconciled") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("statuses %v, webhooks %s\n%s", seen, hk.seen(), serveOut.String())
		}
	}
	// Polled every 300 ms, paid may pass unseen between two reads: the webhooks show it. Pending
	// too may be skipped: a transfer the deposit follower first sees already deep enough is seen,
	// confirmed and paid in one append.
	if got := strings.Join(seen, ","); !strings.HasSuffix(got, "reconciled") {
		t.Errorf("statuses seen %s; want (pending,) (paid,) reconciled", got)
	}
	if got := hk.seen(); !strings.Contains(got, "paid") || !strings.Contains(got, "reconciled") {
		t.Errorf("webhooks %s; want paid and reconciled", got)
	}
	if code, h := c.call(http.MethodGet, "/api/receipts/"+id+"/events", apiKey, nil); code != http.StatusOK || strings.Contains(fmt.Sprint(h), "PaymentSubmitted") {
		t.Errorf("history of the plainly paid receipt: %d %v; want no submitted hash", code, h)
	}

	// --submit: the same transfer, and its hash to the service as a hint.
	code, m := c.call(http.MethodPost, "/api/receipts", apiKey, map[string]any{"lineItems": []map[string]any{{"label": "Tea", "priceUsd": 3}}, "totalUsd": 3})
	if code != http.StatusCreated {
		t.Fatalf("create receipt: %d %v", code, m)
	}
	id2 := findString(m, "receiptId")
	payOut.Reset()
	// Pending, or paid when the deposit follower was faster than the submission (answered as is).
	if code := run(ctx, []string{"devchain", "pay", id2, "--api", c.base, "--submit"}, noEnv, &payOut, &payErr); code != 0 ||
		!(strings.Contains(payOut.String(), "submitted the hash as a hint: the receipt is pending") ||
			strings.Contains(payOut.String(), "submitted the hash as a hint: the receipt is paid")) {
		t.Fatalf("devchain pay --submit: exit %d\n%s\n%s", code, payOut.String(), payErr.String())
	}
	req, _ := http.NewRequest(http.MethodGet, c.base+"/api/split/transactions", nil)
	req.Header.Set("Authorization", "Bearer "+apiKey)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), id) || !strings.Contains(string(body), `"distributed"`) {
		t.Errorf("split transactions: %d %s", resp.StatusCode, body)
	}
	stopServe()
	cancel()
	<-d.chainExit
}

func mustKey(t *testing.T) *ecdsa.PrivateKey {
	t.Helper()
	k, err := crypto.GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// TestBaseUnitsRoundUp: a quote converts to base units rounded up, never short.
func TestBaseUnitsRoundUp(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		amount   string
		decimals uint8
		want     string
	}{{"12.50000000", 6, "12500000"}, {"1.23456750", 6, "1234568"}, {"0.00410000", 18, "4100000000000000"}, {"10.83400001", 6, "10834001"}} {
		if got, err := baseUnits(c.amount, c.decimals); err != nil || got.String() != c.want {
			t.Errorf("baseUnits(%s, %d) = %v, %v; want %s", c.amount, c.decimals, got, err, c.want)
		}
	}
	for _, bad := range []string{"", "0", "-1", "abc"} {
		if _, err := baseUnits(bad, 6); err == nil {
			t.Errorf("baseUnits(%q) accepted", bad)
		}
	}
}

// TestDevchainPayPlainTransfer: `devchain pay <receiptId>` pays as a phone wallet does. Against
// a service that answers the portal API (a stand-in here, so that only the tool is under test):
// it quotes, reads the payment request, sends exactly its amountUnits of USDC to its recipient
// (the receipt's deposit address) in a plain ERC-20 transfer, and posts nothing else; with
// --submit it also posts the hash; --amount sends another amount.
func TestDevchainPayPlainTransfer(t *testing.T) {
	t.Parallel()
	dev, envFile := devChainWithEnvFile(t)
	ctx := context.Background()
	usdc, _ := dev.Token("USDC")
	deposit := crypto.PubkeyToAddress(mustKey(t).PublicKey)
	var mu sync.Mutex
	var posted []string
	api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		posted = append(posted, r.Method+" "+r.URL.Path)
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		switch {
		case r.URL.Path == "/api/portal/rcpt_phone":
			fmt.Fprint(w, `{"receipt":{"receiptId":"rcpt_phone","totalUsd":12.31,"currency":"USD","status":"generated"}}`)
		case r.URL.Path == "/api/portal/rcpt_phone/quote":
			fmt.Fprint(w, `{"ok":true,"token":"USDC","amount":"12.31000000"}`)
		case r.URL.Path == "/api/portal/rcpt_phone/request" && r.URL.Query().Get("token") == "USDC":
			fmt.Fprintf(w, `{"receiptId":"rcpt_phone","token":"USDC","amount":"12.31","amountUnits":"12310000","decimals":6,"recipient":%q,"tokenAddress":%q,"chainId":%d,"expiresAt":1}`,
				deposit.Hex(), usdc.Address.Hex(), dev.ChainID)
		case r.URL.Path == "/api/portal/rcpt_phone/payment":
			fmt.Fprint(w, `{"ok":true,"status":"pending","attemptId":"att_1"}`)
		default:
			http.NotFound(w, r)
		}
	}))
	defer api.Close()
	balance := func() *big.Int {
		tok, err := contracts.NewTestToken(usdc.Address, ethclient.NewClient(mustDial(t, dev.URL)))
		if err != nil {
			t.Fatal(err)
		}
		b, err := tok.BalanceOf(&bind.CallOpts{Context: ctx}, deposit)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	pay := func(extra ...string) string {
		t.Helper()
		var out, errOut bytes.Buffer
		args := append([]string{"devchain", "pay", "rcpt_phone", "--base-url", api.URL, "--env-file", envFile}, extra...)
		if code := run(ctx, args, noEnv, &out, &errOut); code != 0 {
			t.Fatalf("devchain pay %v: exit %d\n%s\n%s", extra, code, out.String(), errOut.String())
		}
		return out.String()
	}
	out := pay()
	if got := balance(); got.String() != "12310000" {
		t.Fatalf("the deposit holds %s, want 12310000\n%s", got, out)
	}
	mu.Lock()
	calls := strings.Join(posted, ",")
	mu.Unlock()
	if want := "GET /api/portal/rcpt_phone,POST /api/portal/rcpt_phone/quote,GET /api/portal/rcpt_phone/request"; calls != want {
		t.Fatalf("calls %s, want %s (no hash submitted)", calls, want)
	}
	if !strings.Contains(out, "to the deposit address "+deposit.Hex()) || !strings.Contains(out, "a plain transfer") {
		t.Errorf("output:\n%s", out)
	}
	out = pay("--submit", "--amount", "0.5")
	if got := balance(); got.String() != "12810000" {
		t.Fatalf("the deposit holds %s after --amount 0.5, want 12810000", got)
	}
	mu.Lock()
	calls = strings.Join(posted, ",")
	mu.Unlock()
	if !strings.HasSuffix(calls, "POST /api/portal/rcpt_phone/payment") || !strings.Contains(out, "submitted the hash as a hint: the receipt is pending") {
		t.Fatalf("--submit: calls %s\n%s", calls, out)
	}
}

func mustDial(t *testing.T, url string) *rpc.Client {
	t.Helper()
	c, err := rpc.Dial(url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return c
}

// TestDevchainPayBaseURLFlag: devchain pay names the service's address --base-url, as listen and
// dev merchant do; --api, its older name, still works; without either it is PUBLIC_BASE_URL.
func TestDevchainPayBaseURLFlag(t *testing.T) {
	t.Parallel()
	cfg := config{PublicBaseURL: "http://pay.example:9000"}
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"base-url", []string{"rcpt_1", "--key", "01", "--base-url", "http://127.0.0.1:1/"}, "http://127.0.0.1:1"},
		{"api alias", []string{"rcpt_1", "--key", "01", "--api", "http://127.0.0.1:2"}, "http://127.0.0.1:2"},
		{"default", []string{"rcpt_1", "--key", "01"}, "http://pay.example:9000"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, err := parseReceiptPayFlags(cfg, append(tc.args, "--env-file", filepath.Join(t.TempDir(), "none.env")))
			if err != nil || p.api != tc.want {
				t.Fatalf("api %q, err %v; want %q", p.api, err, tc.want)
			}
		})
	}
}

// devChainWithEnvFile starts a development chain for the test, mining every 200 ms, and writes
// its variables and account keys to an env file of the test's own, as `payledger devchain` does.
func devChainWithEnvFile(t *testing.T) (*chain.DevChain, string) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	dev, err := chain.StartDevChain(ctx, chain.DevChainOptions{BlockInterval: 200 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = dev.Close() })
	envFile := filepath.Join(t.TempDir(), "devchain.env")
	if err := writeDevchainEnv(envFile, dev); err != nil {
		t.Fatal(err)
	}
	return dev, envFile
}
