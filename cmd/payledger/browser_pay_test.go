package main

// The payments TestPaymentPageInBrowser makes from the page: the browser wallet, a phone wallet,
// wallet errors, an underpayment, card or bank.

import (
	"encoding/json"
	"fmt"
	"io"
	"math/big"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/payledger/payledger/internal/wait"
)

// payWithWallet is the subtest "pay with the wallet: paid through the event stream, no reload".
func (p *pageRun) payWithWallet(t *testing.T) {
	env, w, ctx, id, pageURL := p.env, p.w, p.ctx, p.id, p.pageURL
	clicked := time.Now()
	if err := chromedp.Run(ctx, chromedp.Evaluate(`window.__sameDocument = 42`, nil), chromedp.Click("#pay-wallet", chromedp.ByID)); err != nil {
		t.Fatal(err)
	}
	waitJS(t, ctx, `document.getElementById("status").dataset.status === "pending" || document.getElementById("status").dataset.status === "paid"`, 60*time.Second)
	pending := time.Since(clicked)
	var guarded bool
	if err := chromedp.Run(ctx, chromedp.Evaluate(`document.getElementById("status").dataset.status !== "pending" || (document.getElementById("pay").hidden && !document.getElementById("in-progress").hidden)`, &guarded)); err != nil || !guarded {
		t.Errorf("while the payment is pending the payment controls must be hidden (%v)", err)
	}
	waitJS(t, ctx, `document.getElementById("status").dataset.status === "paid" || document.getElementById("status").dataset.status === "reconciled"`, 60*time.Second)
	t.Logf("wallet payment: click -> pending shown in %v, -> paid shown in %v (2 confirmations, blocks every 500 ms)", pending.Round(time.Millisecond), time.Since(clicked).Round(time.Millisecond))
	var viaStream bool
	if err := chromedp.Run(ctx, chromedp.Evaluate(`!window.__paymentPolling && window.__paymentEvents.readyState === 1`, &viaStream)); err != nil || !viaStream {
		t.Errorf("paid did not come through the open event stream (polling fallback used, or the stream closed): %v", err)
	}
	var same float64
	if err := chromedp.Run(ctx, chromedp.Evaluate(`window.__sameDocument || 0`, &same)); err != nil || same != 42 {
		t.Errorf("the page was reloaded (%v, %v)", same, err)
	}
	w.mu.Lock()
	calls, added, hash := strings.Join(w.calls, ","), w.added, w.sentHash
	w.mu.Unlock()
	if len(added) != 1 || added[0]["chainId"] != hexutil.EncodeUint64(env.dev.ChainID) || fmt.Sprint(added[0]["rpcUrls"]) != "["+env.dev.URL+"]" {
		t.Errorf("wallet_addEthereumChain: %v", added)
	}
	for _, m := range []string{"eth_requestAccounts", "wallet_switchEthereumChain", "wallet_addEthereumChain", "eth_sendTransaction"} {
		if !strings.Contains(calls, m) {
			t.Errorf("the page never called %s (calls: %s)", m, calls)
		}
	}
	waitJS(t, ctx, `!document.getElementById("receipt-view").hidden && !document.getElementById("pay")`, 5*time.Second)
	if got := evalString(t, ctx, `document.getElementById("paid-tx").textContent`); !strings.EqualFold(got, hash) {
		t.Errorf("receipt view transaction %q, want %s", got, hash)
	}
	var st map[string]any
	env.call(t, http.MethodGet, "/api/receipts/status?receiptId="+id, "", &st)
	if st["status"] != "paid" && st["status"] != "reconciled" {
		t.Errorf("the service says %v", st)
	}
	screenshot(t, ctx, "portal-mobile-after.png", 375, 812)
	screenshot(t, ctx, "portal-desktop-after.png", 1280, 900)
	// Reopened, the paid receipt shows the receipt view and no payment controls.
	if err := chromedp.Run(ctx, chromedp.EmulateViewport(1280, 900), chromedp.Navigate(pageURL)); err != nil {
		t.Fatal(err)
	}
	waitJS(t, ctx, `document.documentElement.dataset.ready === "1"`, 10*time.Second)
	var controls int
	if err := chromedp.Run(ctx, chromedp.Evaluate(`document.querySelectorAll("#pay, #pay-wallet, #pay-card, #token").length + (document.getElementById("receipt-view").hidden ? 100 : 0)`, &controls)); err != nil || controls != 0 {
		t.Errorf("paid receipt page: %d payment controls (or a hidden receipt view): %v", controls, err)
	}
}

// phoneWallet is the subtest "a phone wallet: the QR's target paid by a plain transfer, the page turns paid".
func (p *pageRun) phoneWallet(t *testing.T) {
	env, w, ctx, deposit := p.env, p.w, p.ctx, p.deposit
	r3 := env.order(t)
	id3 := r3["receiptId"].(string)
	if err := chromedp.Run(ctx, chromedp.Navigate(env.base+"/portal/"+id3)); err != nil {
		t.Fatal(err)
	}
	waitJS(t, ctx, `document.documentElement.dataset.ready === "1" && document.getElementById("uri").textContent.indexOf("ethereum:") === 0 && document.getElementById("qr").complete && document.getElementById("qr").naturalWidth > 100`, 20*time.Second)
	resp, err := http.Get(evalString(t, ctx, `document.getElementById("qr").src`))
	if err != nil {
		t.Fatal(err)
	}
	png, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	token, to, amount := parseTransferURI(t, decodeQR(t, png))
	if d := env.depositOf(t, id3); to != common.HexToAddress(d) || strings.EqualFold(d, env.split) || strings.EqualFold(d, deposit) {
		t.Fatalf("the QR pays %s; want the receipt's own deposit %s (split %s, the other receipt's %s)", to.Hex(), d, env.split, deposit)
	}
	// Another account, as a phone would: a plain ERC-20 transfer, no hash submitted anywhere.
	phone := env.dev.Accounts[1]
	sent := time.Now()
	if _, err := sendSigned(ctx, env.eth, phone.Key, env.dev.ChainID, token, new(big.Int), erc20Transfer(to, amount)); err != nil {
		t.Fatal(err)
	}
	waitJS(t, ctx, `document.getElementById("status").dataset.status === "paid" || document.getElementById("status").dataset.status === "reconciled"`, 90*time.Second)
	t.Logf("plain transfer to the deposit address: paid shown %v after sending", time.Since(sent).Round(time.Millisecond))
	w.mu.Lock()
	calls := strings.Count(strings.Join(w.calls, ","), "eth_sendTransaction")
	w.mu.Unlock()
	if calls != 1 { // the wallet button's payment only
		t.Errorf("the browser wallet sent %d transactions", calls)
	}
}

// walletErrors is the subtest "wallet errors: catalog texts, telemetry, no status change".
func (p *pageRun) walletErrors(t *testing.T) {
	env, w, ctx := p.env, p.w, p.ctx
	r2 := env.order(t)
	id2 := r2["receiptId"].(string)
	poorKey, _ := crypto.GenerateKey()
	w.mu.Lock()
	w.reject = true
	w.mu.Unlock()
	if err := chromedp.Run(ctx, chromedp.Navigate(env.base+"/pay/"+id2)); err != nil {
		t.Fatal(err)
	}
	waitJS(t, ctx, `document.documentElement.dataset.ready === "1" && document.getElementById("uri").textContent.indexOf("ethereum:") === 0`, 20*time.Second)
	if err := chromedp.Run(ctx, chromedp.Click("#pay-wallet", chromedp.ByID)); err != nil {
		t.Fatal(err)
	}
	waitJS(t, ctx, `!document.getElementById("wallet-error").hidden`, 20*time.Second)
	if got := evalString(t, ctx, `document.getElementById("wallet-error").textContent`); !strings.HasPrefix(got, "The customer rejected the transaction in the wallet.") {
		t.Errorf("rejection shown as %q", got)
	}
	// A wallet without funds: the page checks the balance and says so before sending.
	w.mu.Lock()
	w.reject, w.key, w.account = false, poorKey, crypto.PubkeyToAddress(poorKey.PublicKey)
	w.mu.Unlock()
	if err := chromedp.Run(ctx, chromedp.Evaluate(`document.getElementById("wallet-error").hidden = true`, nil), chromedp.Click("#pay-wallet", chromedp.ByID)); err != nil {
		t.Fatal(err)
	}
	waitJS(t, ctx, `!document.getElementById("wallet-error").hidden`, 20*time.Second)
	if got := evalString(t, ctx, `document.getElementById("wallet-error").textContent`); !strings.HasPrefix(got, "The wallet's balance was insufficient.") {
		t.Errorf("insufficient balance shown as %q", got)
	}
	if got := evalString(t, ctx, `document.getElementById("status").dataset.status`); got != "generated" {
		t.Errorf("status after wallet errors %q, want generated", got)
	}
	// The page posts its telemetry on its own after showing the error: wait for it to land.
	recorded := func() (string, bool) {
		var hist map[string]any
		env.call(t, http.MethodGet, "/api/receipts/"+id2+"/events", "", &hist)
		b, _ := json.Marshal(hist)
		return string(b), strings.Count(string(b), `"error"`) >= 2 &&
			strings.Contains(string(b), `"code":"PORTAL_CHAIN_USER_REJECTED"`) && strings.Contains(string(b), `"code":"PORTAL_CHAIN_INSUFFICIENT_BALANCE"`)
	}
	if !wait.Poll(20*time.Second, func() bool { _, ok := recorded(); return ok }) {
		b, _ := recorded()
		t.Errorf("wallet errors not recorded as telemetry with their catalog codes: %s", b)
	}
	var st map[string]any
	env.call(t, http.MethodGet, "/api/receipts/status?receiptId="+id2, "", &st)
	if st["status"] != "generated" {
		t.Errorf("the service's status after wallet errors: %v", st)
	}
}

// underpayment is the subtest "an underpayment: pending, received of required shown, the controls stay".
func (p *pageRun) underpayment(t *testing.T) {
	payer, w, ctx, total := p.payer, p.w, p.ctx, p.total
	// Section 8 failed a short payment (slippage); DESIGN 9 keeps it pending, underpaid, and the
	// payment window decides.
	w.mu.Lock()
	w.key, w.account, w.short = payer.Key, payer.Address, true
	w.mu.Unlock()
	defer func() { w.mu.Lock(); w.short = false; w.mu.Unlock() }()
	if err := chromedp.Run(ctx, chromedp.Click("#pay-wallet", chromedp.ByID)); err != nil {
		t.Fatal(err)
	}
	waitJS(t, ctx, `document.getElementById("status").dataset.status === "pending" && !document.getElementById("received").hidden && !document.getElementById("pay").hidden`, 60*time.Second)
	less := new(big.Rat).Sub(total, big.NewRat(1, 1_000_000))
	if got, want := evalString(t, ctx, `document.getElementById("amount-received").textContent + " of " + document.getElementById("amount-required").textContent`),
		strings.TrimRight(less.FloatString(6), "0")+" of "+total.FloatString(2); got != want {
		t.Errorf("shown %q, want %q", got, want)
	}
	// What arrived and what is still due, in the token; no "being confirmed" for a short payment.
	want := strings.TrimRight(less.FloatString(6), "0") + " USDC received, 0.000001 USDC still due (of " + total.FloatString(2) + " USDC)"
	if got := evalString(t, ctx, `document.getElementById("received").textContent.replace(/\s+/g, " ").trim()`); got != want {
		t.Errorf("underpaid page reads %q, want %q", got, want)
	}
	if got := evalString(t, ctx, `document.getElementById("status").textContent + "|" + document.getElementById("in-progress").hidden + "|" + document.getElementById("short").hidden`); got != "Partly paid|true|false" {
		t.Errorf("status, in-progress hidden, short hidden: %q", got)
	}
	// The card or bank session asks for what is still due, and the button says so.
	if got := evalString(t, ctx, `document.getElementById("pay-card").textContent`); got != "Pay the rest by card or bank" {
		t.Errorf("the underpaid page's card button reads %q", got)
	}
	screenshot(t, ctx, "portal-underpaid.png", 375, 812)
}

// cardOrBank is the subtest "card or bank: the onramp, then the processor's page".
func (p *pageRun) cardOrBank(t *testing.T) {
	env, ctx := p.env, p.ctx
	if err := chromedp.Run(ctx, chromedp.Click("#pay-card", chromedp.ByID)); err != nil {
		t.Fatal(err)
	}
	select {
	case <-env.onramp:
	case <-time.After(20 * time.Second):
		t.Fatal("the processor was never asked for a session")
	}
	waitJS(t, ctx, `location.href.indexOf("/checkout/sess_browser") > 0`, 20*time.Second)
}
