package main

import (
	"context"
	"fmt"
	"math/big"
	"net/http"
	"net/url"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/accounts/abi/bind"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/ethclient"

	"github.com/payledger/payledger/chain"
	"github.com/payledger/payledger/migrations/pgtest"
)

// Issue 26 through the real binary: serve without DEPOSIT_FACTORY deploys the factory from the
// operator key; a receipt shows its deposit address; a plain USDC transfer to it from a phone
// wallet (no hash submitted anywhere) makes the receipt pending, then paid, with the amounts on
// the status read.
func TestServeDepositPaidByPlainTransfer(t *testing.T) {
	d := newDepositServe(t)
	payDepositAndWait(t, d.c, d.apiKey, d.id, d.deposit, d.vars, d.accounts[0], d.out.String)
}

// A transfer mined while serve is stopped is found after its restart: the detector resumes from
// the last block it processed (chain_cursors), and the restarted serve finds the factory the
// first one deployed in the database.
func TestServeDepositPaidWhileServeWasStopped(t *testing.T) {
	d := newDepositServe(t)
	d.stop()
	sendDeposit(t, d.vars, d.accounts[0], d.deposit)
	base, out, stop := startServeStoppable(t, d.serveVars)
	t.Cleanup(stop)
	c := &e2eClient{t: t, base: base}
	waitDepositPaid(t, c, d.apiKey, d.id, d.deposit, d.accounts[0], out.String)
	if first, again := factoryIn(d.out.String()), factoryIn(out.String()); first == "" || again != first {
		t.Errorf("factory before the restart %q, after %q", first, again)
	}
}

// factoryIn is the deposit factory a serve log says it uses.
func factoryIn(log string) string {
	m := regexp.MustCompile(`"factory":"(0x[0-9a-fA-F]{40})"`).FindStringSubmatch(log)
	if m == nil {
		return ""
	}
	return m[1]
}

// depositServe is serve on the development chain (factory deployed by serve, unless
// withDevchainFactory), a merchant with its split and a 12.50 USD receipt with its deposit
// address.
type depositServe struct {
	vars, serveVars     map[string]string
	accounts            [][]string
	c                   *e2eClient
	apiKey, id, deposit string
	out                 *syncBuffer
	stop                func()
	ctx                 context.Context // cancelled (cancel) at the test's end: stops the devchain
	cancel              func()
	chainExit           <-chan int // the devchain command's exit code, once ctx is cancelled
	merchant            string     // the merchant's wallet
	direct              string     // PostgreSQL's URL, not through the proxy
	proxy               *tcpProxy  // withDatabaseProxy's
}

// depositServeOption changes what newDepositServe sets up.
type depositServeOption func(*depositServeOptions)

type depositServeOptions struct {
	devchainFactory bool   // serve uses the factory the devchain deployed instead of deploying one
	webhookURL      string // the receipt's webhook_url
	viaProxy        bool   // serve reaches PostgreSQL through a proxy the test can cut (d.proxy)
}

// withDatabaseProxy has serve reach PostgreSQL through d.proxy, which the test can cut.
func withDatabaseProxy() depositServeOption {
	return func(o *depositServeOptions) { o.viaProxy = true }
}

// withDevchainFactory gives serve the devchain's DEPOSIT_FACTORY.
func withDevchainFactory() depositServeOption {
	return func(o *depositServeOptions) { o.devchainFactory = true }
}

// withWebhook generates the receipt with webhook_url url.
func withWebhook(url string) depositServeOption {
	return func(o *depositServeOptions) { o.webhookURL = url }
}

func newDepositServe(t *testing.T, options ...depositServeOption) *depositServe {
	var o depositServeOptions
	for _, opt := range options {
		opt(&o)
	}
	t.Setenv("DEVCHAIN_ENV_FILE", filepath.Join(t.TempDir(), "devchain.env"))
	d := &depositServe{}
	d.ctx, d.cancel = context.WithCancel(context.Background())
	t.Cleanup(d.cancel)
	var chainOut, chainErr devchainOut
	chainExit := make(chan int, 1)
	d.chainExit = chainExit
	go func() {
		chainExit <- run(d.ctx, []string{"devchain", "--port", "0", "--block-interval", "500ms"}, noEnv, &chainOut, &chainErr)
	}()
	d.vars, d.accounts = readDevchainBanner(t, &chainOut, &chainErr)
	platform := strings.ToLower(crypto.PubkeyToAddress(mustKey(t).PublicKey).Hex())
	d.direct = pgtest.URL(t)
	d.serveVars = map[string]string{"DATABASE_URL": d.direct, "EMBEDDED_POSTGRES": "off", "PLATFORM_RECIPIENT": platform}
	if o.viaProxy {
		u, err := url.Parse(d.direct)
		if err != nil {
			t.Fatal(err)
		}
		d.proxy = newProxy(t, u.Host)
		u.Host = d.proxy.addr
		d.serveVars["DATABASE_URL"] = u.String()
		d.serveVars["JOURNAL_PATH"] = filepath.Join(t.TempDir(), "journal.jsonl")
	}
	keys := []string{"ETH_RPC_URL", "CHAIN_ID", "CHAIN_TOKENS", "CHAIN_OPERATOR_KEY", "SPEND_PERMISSION_MANAGER"}
	if o.devchainFactory {
		keys = append(keys, "DEPOSIT_FACTORY") // else left out: serve deploys one
	}
	for _, k := range keys {
		d.serveVars[k] = d.vars[k]
	}
	var base string
	base, d.out, d.stop = startServeStoppable(t, d.serveVars)
	t.Cleanup(d.stop)
	d.c = &e2eClient{t: t, base: base}
	d.merchantWithSplit(t)
	d.generate(t, o.webhookURL)
	return d
}

// merchantWithSplit logs a merchant in, with an API key, and has serve deploy its split.
func (d *depositServe) merchantWithSplit(t *testing.T) {
	merchantKey := mustKey(t)
	merchant := strings.ToLower(crypto.PubkeyToAddress(merchantKey.PublicKey).Hex())
	d.merchant = merchant
	d.apiKey = createKey(t, d.ctx, d.serveVars, merchant, "receipts:write,receipts:read,split:read", "e2e")
	d.c.login(merchantKey)
	if code, m := d.c.call(http.MethodPost, "/api/split/deploy", "", map[string]any{}); code != http.StatusOK && code != http.StatusCreated {
		t.Fatalf("split deploy: %d %v\n%s", code, m, d.out.String())
	}
}

// generate creates the 12.50 USD receipt (with webhookURL unless "") and reads its deposit address.
func (d *depositServe) generate(t *testing.T, webhookURL string) {
	order := map[string]any{"lineItems": []map[string]any{{"label": "Coffee", "priceUsd": 12.5}}, "totalUsd": 12.5}
	if webhookURL != "" {
		order["webhook_url"] = webhookURL
	}
	code, m := d.c.call(http.MethodPost, "/api/receipts", d.apiKey, order)
	if code != http.StatusCreated {
		t.Fatalf("create receipt: %d %v", code, m)
	}
	d.id = findString(m, "receiptId")
	_, m = d.c.call(http.MethodGet, "/api/receipts/"+d.id, d.apiKey, nil)
	r, _ := m["receipt"].(map[string]any)
	d.deposit, _ = r["depositAddress"].(string)
	if !common.IsHexAddress(d.deposit) || r["amountRequired"] != "12.50" || r["amountReceived"] != nil || r["paidLate"] != false {
		t.Fatalf("receipt before payment: %v\n%s", r, d.out.String())
	}
}

// payDepositAndWait sends 12.50 USDC from account to deposit by a plain transfer, waits until
// the status read says paid with the amounts, and checks the receipt's history: the transfer was
// seen, then confirmed, then paid. (Which statuses the polling saw depends on timing: a transfer
// first found already deep enough is paid in the same append that records it seen.)
func payDepositAndWait(t *testing.T, c *e2eClient, apiKey, id, deposit string, vars map[string]string, account []string, logs func() string) {
	sendDeposit(t, vars, account, deposit)
	waitDepositPaid(t, c, apiKey, id, deposit, account, logs)
	code, h := c.call(http.MethodGet, "/api/receipts/"+id+"/events", apiKey, nil)
	evs, _ := h["events"].([]any)
	var types []string
	for _, e := range evs {
		if m, ok := e.(map[string]any); ok {
			types = append(types, fmt.Sprint(m["type"]))
		}
	}
	if code != http.StatusOK || !inOrder(types, "DepositTransferSeen", "DepositTransferConfirmed", "PaymentConfirmed") {
		t.Errorf("history %d: %v", code, types)
	}
}

// inOrder reports whether want occur in got in that order (others may come between).
func inOrder(got []string, want ...string) bool {
	for _, g := range got {
		if len(want) > 0 && g == want[0] {
			want = want[1:]
		}
	}
	return len(want) == 0
}

// sendDeposit sends 12.50 USDC from account to deposit by a plain transfer and waits until it is
// mined.
func sendDeposit(t *testing.T, vars map[string]string, account []string, deposit string) {
	ec, err := ethclient.Dial(vars["ETH_RPC_URL"])
	if err != nil {
		t.Fatal(err)
	}
	defer ec.Close()
	key, err := crypto.HexToECDSA(strings.TrimPrefix(account[2], "0x"))
	if err != nil {
		t.Fatal(err)
	}
	opts, _ := bind.NewKeyedTransactorWithChainID(key, big.NewInt(chain.DevChainID))
	usdc := common.HexToAddress(strings.Split(strings.Split(vars["CHAIN_TOKENS"], "USDC=")[1], ":")[0])
	tx, err := chain.SendToken(opts, ec, usdc, common.HexToAddress(deposit), big.NewInt(12_500_000))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	if _, err := bind.WaitMined(ctx, ec, tx); err != nil {
		t.Fatal(err)
	}
}

// waitDepositPaid waits until the status read says paid (or reconciled) with the deposit's
// amounts.
func waitDepositPaid(t *testing.T, c *e2eClient, apiKey, id, deposit string, account []string, logs func() string) {
	var seen []string
	for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(200 * time.Millisecond) {
		_, m := c.call(http.MethodGet, "/api/receipts/status?receiptId="+id, apiKey, nil)
		if s, _ := m["status"].(string); s != "" && (len(seen) == 0 || seen[len(seen)-1] != s) {
			seen = append(seen, s)
		}
		if m["status"] == "paid" || m["status"] == "reconciled" {
			if m["amountReceived"] != "12.50" || m["depositAddress"] != deposit || !strings.EqualFold(findString(m, "buyerWallet"), account[1]) {
				t.Fatalf("paid status read: %v", m)
			}
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("statuses %v\n%s", seen, logs())
		}
	}
}
