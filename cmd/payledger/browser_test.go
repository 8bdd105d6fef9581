package main

// The payment page in a real browser: Debian's chromium driven by chromedp against serve, with a
// development chain of this test, a local onramp processor and a browser wallet (an EIP-1193
// provider injected into the page whose requests come to this test through a binding; the test
// signs with a funded development account and sends to the development chain).
//
// Without chromium the test fails, saying how to install it, unless PAYLEDGER_SKIP_BROWSER=1.
// With PAYLEDGER_SCREENSHOTS=<dir> it also writes portal-{desktop,mobile}-{before,after}.png
// there (make screenshots).

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/big"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/ethclient"
	"github.com/ethereum/go-ethereum/rpc"

	"github.com/payledger/payledger/chain"
	"github.com/payledger/payledger/commands"
	"github.com/payledger/payledger/domain/split"
	"github.com/payledger/payledger/eventstore"
	"github.com/payledger/payledger/eventstore/postgres"
	"github.com/payledger/payledger/migrations/pgtest"
	"github.com/payledger/payledger/readmodels"
)

// chromiumPath finds Debian's chromium, or fails (skips with PAYLEDGER_SKIP_BROWSER=1).
func chromiumPath(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if _, err := os.Stat("/usr/bin/chromium"); err == nil {
		return "/usr/bin/chromium"
	}
	if os.Getenv("PAYLEDGER_SKIP_BROWSER") == "1" {
		t.Skip("chromium is not installed and PAYLEDGER_SKIP_BROWSER=1")
	}
	t.Fatal("chromium is not installed: the payment page's browser tests need it. Install it with " +
		"`apt-get install -y chromium` (CI's .ci/run does), or set PAYLEDGER_SKIP_BROWSER=1 to skip them")
	return ""
}

// portalEnv is serve with a development chain, a processor and a merchant with receipts.
type portalEnv struct {
	base     string
	dev      *chain.DevChain
	rpc      *rpc.Client
	eth      *ethclient.Client
	split    string // checksummed
	key      string // developer key (orders:create, receipts:read)
	merchant string
	brand    string
	itemName string
	onramp   chan string // paths the processor was called on
	procURL  string
}

const (
	xssShop = `<script>window.__xss=1</script>Café "Ünïcode" & Co`
	xssItem = `<img src=x onerror="window.__xss=2">Muffin<script>window.__xss=3</script>`
)

func startPortalEnv(t *testing.T) *portalEnv {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	dev, err := chain.StartDevChain(ctx, chain.DevChainOptions{BlockInterval: 500 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = dev.Close() })
	t.Cleanup(cancel)
	rc, err := rpc.DialContext(ctx, dev.URL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(rc.Close)

	env := &portalEnv{dev: dev, rpc: rc, eth: ethclient.NewClient(rc), onramp: make(chan string, 16)}
	proc := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.Method == http.MethodPost && r.URL.Path == "/v1/onramp_sessions":
			env.onramp <- r.URL.Path
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprintf(w, `{"id":"sess_browser","status":"initialized","redirectUrl":"%s/checkout/sess_browser"}`, env.procURL)
		case strings.HasPrefix(r.URL.Path, "/v1/onramp_sessions/"):
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprint(w, `{"id":"sess_browser","status":"initialized"}`)
		case strings.HasPrefix(r.URL.Path, "/checkout/"):
			w.Header().Set("Content-Type", "text/html")
			fmt.Fprint(w, `<!doctype html><title>Processor checkout</title><h1>Processor checkout</h1>`)
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(proc.Close)
	env.procURL = proc.URL

	dbURL := pgtest.URL(t)
	env.merchant = "0x" + strings.Repeat("ab", 20)
	platform := "0x" + strings.Repeat("b", 40)
	vars := map[string]string{"DATABASE_URL": dbURL, "EMBEDDED_POSTGRES": "off"}
	env.key = createKey(t, ctx, vars, env.merchant, "orders:create,receipts:read", "page")

	// The merchant: a split at a fresh address, a branded shop (its name tries to inject a
	// script), a taxable item whose name does too, a price for ETH.
	splitKey, _ := crypto.GenerateKey()
	env.split = crypto.PubkeyToAddress(splitKey.PublicKey).Hex()
	pool := pgtest.PoolFor(t, dbURL)
	if _, err := commands.ConfigureSplit(ctx, postgres.New(pool), time.Now(), eventstore.Metadata{}, split.Configure{
		Merchant: env.merchant, Address: strings.ToLower(env.split), Platform: platform}); err != nil {
		t.Fatal(err)
	}
	// The screenshots (make screenshots) show a plain shop; every other run tries the injections.
	env.brand, env.itemName = xssShop, xssItem
	if os.Getenv("PAYLEDGER_SCREENSHOTS") != "" {
		env.brand, env.itemName = "Harbour Coffee Roasters", "Blueberry Muffin"
	}
	if _, err := readmodels.NewShops(pool).Update(ctx, env.merchant, time.Now(), func(c *readmodels.ShopConfig) error {
		c.Name = env.brand
		c.Theme.PrimaryColor, c.Theme.SecondaryColor, c.Theme.AccentColor = "#7c3aed", "#f5f3ff", "#047857"
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	inv := readmodels.NewInventory(pool)
	for _, it := range []readmodels.Item{
		{Wallet: env.merchant, SKU: "latte", Name: "Latte", PriceCents: 450, Currency: "USD", StockQty: -1, Taxable: true, HasTaxable: true, HasStock: true},
		{Wallet: env.merchant, SKU: "muffin", Name: env.itemName, PriceCents: 325, Currency: "USD", StockQty: -1, Taxable: true, HasTaxable: true, HasStock: true},
	} {
		if _, _, err := inv.Upsert(ctx, it); err != nil {
			t.Fatal(err)
		}
	}
	if err := readmodels.NewPrices(pool).Set(ctx, []readmodels.Price{{Asset: "ETH", USDPrice: "2500", SetAt: time.Now(), SetBy: "test"}}); err != nil {
		t.Fatal(err)
	}

	for k, v := range map[string]string{"DEVCHAIN": "off", "ETH_RPC_URL": dev.URL,
		"CHAIN_ID": fmt.Sprint(dev.ChainID), "CHAIN_TOKENS": chain.FormatTokens(dev.Tokens), "DEPOSIT_FACTORY": dev.DepositFactory.Hex(),
		"PROCESSOR_API_URL": proc.URL, "PROCESSOR_API_KEY": "sk_test_browser", "PLATFORM_RECIPIENT": platform,
		"RATE_LIMIT_PUBLIC_PER_MINUTE": "100000", "RATE_LIMIT_PER_MINUTE": "100000"} {
		vars[k] = v
	}
	env.base, _ = startServe(t, vars)
	return env
}

// depositOf is receipt id's deposit address as the public portal view shows it.
func (e *portalEnv) depositOf(t *testing.T, id string) string {
	t.Helper()
	var out map[string]any
	e.call(t, http.MethodGet, "/api/portal/"+id, "", &out)
	r, _ := out["receipt"].(map[string]any)
	d, _ := r["depositAddress"].(string)
	return d
}

// parseTransferURI reads an EIP-681 ERC-20 transfer URI:
// ethereum:<token>@<chainId>/transfer?address=<to>&uint256=<units>.
func parseTransferURI(t *testing.T, uri string) (token, to common.Address, amount *big.Int) {
	t.Helper()
	rest, ok := strings.CutPrefix(uri, "ethereum:")
	tok, rest, ok2 := strings.Cut(rest, "@")
	_, query, ok3 := strings.Cut(rest, "/transfer?")
	addr, units, ok4 := strings.Cut(strings.TrimPrefix(query, "address="), "&uint256=")
	amount, ok5 := new(big.Int).SetString(units, 10)
	if !ok || !ok2 || !ok3 || !ok4 || !ok5 || !common.IsHexAddress(tok) || !common.IsHexAddress(addr) {
		t.Fatalf("not an ERC-20 transfer URI: %q", uri)
	}
	return common.HexToAddress(tok), common.HexToAddress(addr), amount
}

// order creates a receipt of 2 lattes and a muffin in US-CA (tax and fee lines).
func (e *portalEnv) order(t *testing.T) map[string]any {
	t.Helper()
	body := `{"items":[{"sku":"latte","qty":2},{"sku":"muffin","qty":1}],"jurisdictionCode":"US-CA"}`
	var out map[string]any
	code := e.call(t, http.MethodPost, "/api/orders", body, &out)
	if code != 200 && code != 201 {
		t.Fatalf("POST /api/orders: %d %v", code, out)
	}
	return out["receipt"].(map[string]any)
}

func (e *portalEnv) call(t *testing.T, method, path, body string, out any) int {
	t.Helper()
	req, _ := http.NewRequest(method, e.base+path, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Ocp-Apim-Subscription-Key", e.key)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if out != nil {
		_ = json.Unmarshal(b, out)
	}
	return resp.StatusCode
}

// pageRun is one browser tab on one receipt's payment page, which the subtests of
// TestPaymentPageInBrowser share in order: each leaves the page where the next starts.
type pageRun struct {
	env     *portalEnv
	payer   chain.DevAccount
	w       *wallet
	ctx     context.Context
	id      string
	total   *big.Rat
	pageURL string
	deposit string
}

func TestPaymentPageInBrowser(t *testing.T) {
	t.Parallel()
	chromiumPath(t) // fail (or skip) first when there is no browser
	env := startPortalEnv(t)
	payer := env.dev.Accounts[0]
	w := &wallet{key: payer.Key, account: payer.Address, chainID: "0x1"}
	ctx := env.browser(t, w)
	ctx, cancel := context.WithTimeout(ctx, 4*time.Minute)
	defer cancel()

	r := env.order(t)
	id := r["receiptId"].(string)
	total := new(big.Rat)
	total.SetString(fmt.Sprint(r["totalUsd"]))
	p := &pageRun{env: env, payer: payer, w: w, ctx: ctx, id: id, total: total, pageURL: env.base + "/portal/" + id}

	t.Run("lines, total and branding", p.linesTotalAndBranding)
	t.Run("XSS: shop name and line label are text", p.xssIsText)
	p.deposit = env.depositOf(t, id)
	t.Run("the deposit address, never the split, and the time left", p.depositAndTimeLeft)
	t.Run("currency switch re-quotes and the QR decodes to the EIP-681 URI", p.currencySwitchAndQR)
	t.Run("375 px: no horizontal scroll, labelled controls", p.narrowScreen)
	t.Run("pay with the wallet: paid through the event stream, no reload", p.payWithWallet)
	t.Run("a phone wallet: the QR's target paid by a plain transfer, the page turns paid", p.phoneWallet)
	t.Run("wallet errors: catalog texts, telemetry, no status change", p.walletErrors)
	t.Run("keyboard: every control is reached by Tab", p.keyboard)
	t.Run("an underpayment: pending, received of required shown, the controls stay", p.underpayment)
	t.Run("card or bank: the onramp, then the processor's page", p.cardOrBank)
	t.Run("unknown receipt: a 404 page", p.unknownReceipt)
}
