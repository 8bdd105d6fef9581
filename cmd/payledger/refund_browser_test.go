package main

// Issue 41 in a real browser: a receipt paid on the development chain, refunded by half from the
// merchant's browser wallet on its dashboard page; the refund counts once the chain confirms it.

import (
	"context"
	"crypto/ecdsa"
	"fmt"
	"maps"
	"math/big"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"
	"github.com/ethereum/go-ethereum/accounts/abi/bind"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/ethclient"
	"github.com/ethereum/go-ethereum/rpc"

	"github.com/payledger/payledger/chain"
	"github.com/payledger/payledger/chain/contracts"
	"github.com/payledger/payledger/commands"
	"github.com/payledger/payledger/domain/split"
	"github.com/payledger/payledger/eventstore"
	"github.com/payledger/payledger/eventstore/postgres"
	"github.com/payledger/payledger/migrations/pgtest"
)

// startRefundEnv is serve with a development chain and a merchant whose key this test holds (to
// sign in to the dashboard), with a split, so that its receipts have deposit addresses; extra
// variables (such as a short PAYMENT_WINDOW) are added to serve's; onlyTokens (comma-separated
// symbols) configures only those of the development chain's tokens.
const onlyTokens = "test:CHAIN_TOKENS_ONLY"

func startRefundEnv(t *testing.T, extra ...map[string]string) (*portalEnv, string, *ecdsa.PrivateKey) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	dev, err := chain.StartDevChain(ctx, chain.DevChainOptions{BlockInterval: 500 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = dev.Close() })
	rc, err := rpc.DialContext(ctx, dev.URL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(rc.Close)
	mkey, _ := crypto.GenerateKey()
	env := &portalEnv{dev: dev, rpc: rc, eth: ethclient.NewClient(rc), merchant: strings.ToLower(crypto.PubkeyToAddress(mkey.PublicKey).Hex())}
	dbURL := pgtest.URL(t)
	platform := "0x" + strings.Repeat("b", 40)
	vars := map[string]string{"DATABASE_URL": dbURL, "EMBEDDED_POSTGRES": "off"}
	env.key = createKey(t, ctx, vars, env.merchant, "orders:create,receipts:read,receipts:write", "refunds")
	splitKey, _ := crypto.GenerateKey()
	env.split = crypto.PubkeyToAddress(splitKey.PublicKey).Hex()
	if _, err := commands.ConfigureSplit(ctx, postgres.New(pgtest.PoolFor(t, dbURL)), time.Now(), eventstore.Metadata{}, split.Configure{
		Merchant: env.merchant, Address: strings.ToLower(env.split), Platform: platform}); err != nil {
		t.Fatal(err)
	}
	for k, v := range map[string]string{"DEVCHAIN": "off", "ETH_RPC_URL": dev.URL, "CHAIN_ID": fmt.Sprint(dev.ChainID),
		"CHAIN_TOKENS": chain.FormatTokens(dev.Tokens), "DEPOSIT_FACTORY": dev.DepositFactory.Hex(), "PLATFORM_RECIPIENT": platform,
		"RATE_LIMIT_PUBLIC_PER_MINUTE": "100000", "RATE_LIMIT_PER_MINUTE": "100000"} {
		vars[k] = v
	}
	for _, x := range extra {
		maps.Copy(vars, x)
	}
	if only, ok := vars[onlyTokens]; ok { // CHAIN_TOKENS of these development tokens alone
		delete(vars, onlyTokens)
		var tokens []chain.Token
		for _, sym := range strings.Split(only, ",") {
			tok, _ := dev.Token(sym)
			tokens = append(tokens, tok)
		}
		vars["CHAIN_TOKENS"] = chain.FormatTokens(tokens)
	}
	env.base, _ = startServe(t, vars)
	return env, dbURL, mkey
}

// usdcOf is wallet's USDC on the development chain, in base units.
func (e *portalEnv) usdcOf(t *testing.T, wallet common.Address) *big.Int {
	t.Helper()
	usdc, _ := e.dev.Token("USDC")
	return e.tokenOf(t, usdc.Address, wallet)
}

// tokenOf is wallet's balance of token on the development chain, in raw units.
func (e *portalEnv) tokenOf(t *testing.T, token, wallet common.Address) *big.Int {
	t.Helper()
	tok, err := contracts.NewTestToken(token, e.eth)
	if err != nil {
		t.Fatal(err)
	}
	b, err := tok.BalanceOf(&bind.CallOpts{Context: context.Background()}, wallet)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// latteReceipt creates a direct receipt of 12.00 and returns its id and deposit address.
func (e *portalEnv) latteReceipt(t *testing.T) (string, common.Address) {
	t.Helper()
	var created map[string]any
	if code := e.call(t, http.MethodPost, "/api/receipts", `{"lineItems":[{"label":"Two lattes","priceUsd":12}],"totalUsd":12}`, &created); code != 201 {
		t.Fatalf("receipt: %d %v", code, created)
	}
	r := created["receipt"].(map[string]any)
	return r["receiptId"].(string), common.HexToAddress(r["depositAddress"].(string))
}

// sendToken sends units of token from key to the address to: a plain ERC-20 transfer.
func (e *portalEnv) sendToken(t *testing.T, key *ecdsa.PrivateKey, token, to common.Address, units *big.Int) {
	t.Helper()
	if _, err := sendSigned(context.Background(), e.eth, key, e.dev.ChainID, token, new(big.Int), erc20Transfer(to, units)); err != nil {
		t.Fatal(err)
	}
}

// erc20Transfer is the call data of transfer(to, units).
func erc20Transfer(to common.Address, units *big.Int) []byte {
	return append(common.FromHex("0xa9059cbb"), append(common.LeftPadBytes(to.Bytes(), 32), common.LeftPadBytes(units.Bytes(), 32)...)...)
}

// awaitStatus waits until the status read of id satisfies ok, and returns it.
func (e *portalEnv) awaitStatus(t *testing.T, id string, timeout time.Duration, ok func(map[string]any) bool) map[string]any {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		var st map[string]any
		if e.call(t, http.MethodGet, "/api/receipts/status?receiptId="+id, "", &st) == 200 && ok(st) {
			return st
		}
		if time.Now().After(deadline) {
			t.Fatalf("receipt %s: timed out after %v; last status read %v", id, timeout, st)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// receiptPageWithWallet opens receipt id's dashboard page in a browser whose EIP-1193 wallet holds
// the merchant's account, signed in with mkey, for at most 3 minutes; the wallet tells what it sent.
func (e *portalEnv) receiptPageWithWallet(t *testing.T, merchant chain.DevAccount, mkey *ecdsa.PrivateKey, id string) (context.Context, *wallet) {
	t.Helper()
	w := &wallet{key: merchant.Key, account: merchant.Address, chainID: hexutil.EncodeUint64(e.dev.ChainID)}
	ctx, cancel := context.WithTimeout(e.browser(t, w), 3*time.Minute)
	t.Cleanup(cancel)
	signedIn(t, ctx, e.base, mkey)
	navigate(t, ctx, e.base+"/dashboard/receipts/"+id)
	return ctx, w
}

// signedIn puts the merchant's dashboard session (signed in through the API) into the browser.
func signedIn(t *testing.T, ctx context.Context, base string, key *ecdsa.PrivateKey) {
	t.Helper()
	client, _ := dashSession(t, base, key)
	u, _ := url.Parse(base)
	for _, c := range client.Jar.Cookies(u) {
		if err := chromedp.Run(ctx, network.SetCookie(c.Name, c.Value).WithURL(base).WithPath("/").WithHTTPOnly(c.Name != "cb_csrf")); err != nil {
			t.Fatal(err)
		}
	}
}

func TestRefundWithWalletInBrowser(t *testing.T) {
	t.Parallel()
	chromiumPath(t)
	env, _, mkey := startRefundEnv(t)
	customer, merchantWallet := env.dev.Accounts[0], env.dev.Accounts[1]
	usdc, _ := env.dev.Token("USDC")

	// A receipt of 12.00 paid by the customer with a plain USDC transfer to its deposit address.
	id, deposit := env.latteReceipt(t)
	env.sendToken(t, customer.Key, usdc.Address, deposit, big.NewInt(12_000_000))
	env.awaitStatus(t, id, 60*time.Second, func(st map[string]any) bool { return st["status"] == "paid" || st["status"] == "reconciled" })
	before := env.usdcOf(t, customer.Address)

	ctx, w := env.receiptPageWithWallet(t, merchantWallet, mkey, id)

	// The page proposes the whole amount to the customer; half is 6 USDC.
	if got := evalString(t, ctx, `document.getElementById("wallet-refund-to").textContent`); !strings.EqualFold(got, customer.Address.Hex()) {
		t.Fatalf("refund to %q, want the customer %s", got, customer.Address.Hex())
	}
	if got := evalString(t, ctx, `document.getElementById("wallet-refund-amount").textContent`); got != "12" {
		t.Errorf("proposed %q USDC, want the whole 12", got)
	}
	if err := chromedp.Run(ctx, chromedp.Evaluate(`(function () { var a = document.getElementById("refund-amount"); a.value = "6.00";
		a.dispatchEvent(new Event("input")); document.getElementById("refund-reason").value = "One latte was cold"; })()`, nil)); err != nil {
		t.Fatal(err)
	}
	if got := evalString(t, ctx, `document.getElementById("wallet-refund-amount").textContent`); got != "6" {
		t.Errorf("half proposed as %q USDC, want 6", got)
	}
	clicked := time.Now()
	click(t, ctx, "#refund-wallet")
	// The hash is posted and the page reloads: the refund shows, pending until the chain confirms it.
	waitJS(t, ctx, `document.querySelector("#refunds li") !== null`, 30*time.Second)
	pending := evalString(t, ctx, `document.querySelector("#refunds li").dataset.state`)
	waitJS(t, ctx, `document.querySelector("#refunds li[data-state=processed]") !== null && document.documentElement.dataset.ready === "1"`, 60*time.Second)
	t.Logf("refund with wallet: first shown %s, refunded shown %v after the click (2 confirmations, blocks every 500 ms)", pending, time.Since(clicked).Round(time.Millisecond))
	w.mu.Lock()
	hash := w.sentHash
	w.mu.Unlock()
	if got := evalString(t, ctx, `document.querySelector("#refunds li[data-state=processed]").dataset.hash`); hash == "" || !strings.EqualFold(got, hash) {
		t.Errorf("refunded %q, the wallet sent %q", got, hash)
	}
	if got := evalString(t, ctx, `document.querySelector("#refunds li .badge").textContent + "|" + document.getElementById("refunded").textContent`); got != "refunded|$6.00 USD" {
		t.Errorf("page shows %q", got)
	}
	screenshot(t, ctx, "dashboard-refund-desktop.png", 1280, 900)
	screenshot(t, ctx, "dashboard-refund-mobile.png", 375, 812)
	fitsPhone(t, ctx) // the wallet refund and the refunds list, with their addresses and hashes

	env.wantRefundedHalf(t, id, hash, customer.Address, merchantWallet.Address)
	if got := new(big.Int).Sub(env.usdcOf(t, customer.Address), before); got.Int64() != 6_000_000 {
		t.Errorf("the customer's USDC changed by %s base units, want 6000000", got)
	}
}

// wantRefundedHalf checks the status read of receipt id after the wallet refunded 6.00 of its
// 12.00 to customer by the transaction hash: counted on the chain's proof, not refunded whole,
// and showing who sent it (from: the merchant's wallet).
func (e *portalEnv) wantRefundedHalf(t *testing.T, id, hash string, customer, sender common.Address) {
	t.Helper()
	st := e.awaitStatus(t, id, 10*time.Second, func(st map[string]any) bool { return st["refundedUsd"] == 6.0 })
	refunds, _ := st["refunds"].([]any)
	if len(refunds) != 1 || st["status"] == "refunded" {
		t.Fatalf("status read: %v refunds %v", st["status"], st["refunds"])
	}
	want := fmt.Sprint(map[string]any{"amountUsd": 6.0, "token": "USDC", "amount": "6.00", "to": strings.ToLower(customer.Hex()), "from": strings.ToLower(sender.Hex()),
		"transactionHash": strings.ToLower(hash), "state": "processed", "reason": "One latte was cold", "proof": "chain", "unknownTransfer": nil})
	if got := fmt.Sprint(refunds[0]); got != want {
		t.Errorf("refund %s, want %s", got, want)
	}
}
