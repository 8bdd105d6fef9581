package main

// What TestPaymentPageInBrowser checks of the page itself: lines, escaping, the deposit address,
// quotes and QR, layout, keyboard, the 404 page.

import (
	"fmt"
	"io"
	"math/big"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/ethereum/go-ethereum/common"
)

// linesTotalAndBranding is the subtest "lines, total and branding".
func (p *pageRun) linesTotalAndBranding(t *testing.T) {
	env, ctx, total, pageURL := p.env, p.ctx, p.total, p.pageURL
	if err := chromedp.Run(ctx, chromedp.EmulateViewport(1280, 900), chromedp.Navigate(pageURL)); err != nil {
		t.Fatal(err)
	}
	waitJS(t, ctx, `document.documentElement.dataset.ready === "1" && document.getElementById("amount").textContent !== "…"`, 20*time.Second)
	var labels []string
	if err := chromedp.Run(ctx, chromedp.Evaluate(`Array.from(document.querySelectorAll("#lines tbody tr .label")).map(e => e.textContent)`, &labels)); err != nil {
		t.Fatal(err)
	}
	want := []string{"Latte", env.itemName, "Tax", "Processing Fee"}
	if strings.Join(labels, "|") != strings.Join(want, "|") {
		t.Errorf("line labels %q, want %q", labels, want)
	}
	if got, want := evalString(t, ctx, `document.getElementById("total").textContent`), "$"+total.FloatString(2)+" USD"; got != want {
		t.Errorf("total %q, want %q", got, want)
	}
	if got := evalString(t, ctx, `getComputedStyle(document.documentElement).getPropertyValue("--primary").trim()`); got != "#7c3aed" {
		t.Errorf("primary colour %q, want the shop's #7c3aed", got)
	}
	if got := evalString(t, ctx, `document.getElementById("amount").textContent`); got != total.FloatString(2) {
		t.Errorf("USDC amount %q, want %s", got, total.FloatString(2))
	}
	screenshot(t, ctx, "portal-desktop-before.png", 1280, 900)
	screenshot(t, ctx, "portal-mobile-before.png", 375, 812)
	_ = chromedp.Run(ctx, chromedp.EmulateViewport(1280, 900))
}

// xssIsText is the subtest "XSS: shop name and line label are text".
func (p *pageRun) xssIsText(t *testing.T) {
	env, ctx, pageURL := p.env, p.ctx, p.pageURL
	if env.brand != xssShop {
		t.Skip("the screenshots run uses plain names")
	}
	var xss any
	if err := chromedp.Run(ctx, chromedp.Evaluate(`window.__xss === undefined ? null : window.__xss`, &xss)); err != nil {
		t.Fatal(err)
	}
	if xss != nil {
		t.Fatalf("an injected script ran: window.__xss = %v", xss)
	}
	if got := evalString(t, ctx, `document.getElementById("brand").textContent`); got != xssShop {
		t.Errorf("brand %q, want the shop name as text %q", got, xssShop)
	}
	if got := evalString(t, ctx, `document.title`); got != "Pay "+xssShop {
		t.Errorf("title %q", got)
	}
	resp, err := http.Get(pageURL)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	csp := resp.Header.Get("Content-Security-Policy")
	if !strings.Contains(csp, "script-src 'self'") || strings.Contains(csp, "unsafe-inline") || strings.Contains(csp, "unsafe-eval") {
		t.Errorf("CSP %q", csp)
	}
	html := string(b)
	if strings.Contains(html, "<script>window.__xss") || strings.Contains(html, `<img src=x`) || !strings.Contains(html, "&lt;script&gt;window.__xss=1&lt;/script&gt;") {
		t.Errorf("page HTML does not escape the shop name or label:\n%s", html)
	}
	if n := strings.Count(html, "<script"); n != 2 { // the JSON block and app.js
		t.Errorf("%d <script elements, want 2", n)
	}
}

// depositAndTimeLeft is the subtest "the deposit address, never the split, and the time left".
func (p *pageRun) depositAndTimeLeft(t *testing.T) {
	env, ctx, id, deposit := p.env, p.ctx, p.id, p.deposit
	if !common.IsHexAddress(deposit) || strings.EqualFold(deposit, env.split) {
		t.Fatalf("deposit address %q (split %s)", deposit, env.split)
	}
	if got := evalString(t, ctx, `document.getElementById("address").textContent`); got != deposit {
		t.Errorf("address shown %q, want the deposit %s", got, deposit)
	}
	var req map[string]any
	env.call(t, http.MethodGet, "/api/portal/"+id+"/request?token=USDC", "", &req)
	exp, _ := req["expiresAt"].(float64)
	if req["recipient"] != deposit || exp < float64(time.Now().UnixMilli()) {
		t.Errorf("payment request %v", req)
	}
	waitJS(t, ctx, `!document.getElementById("time-left").hidden && /^Time left to pay: /.test(document.getElementById("time-left").textContent)`, 5*time.Second)
	if got := evalString(t, ctx, `document.getElementById("time-left").dataset.expiresAt`); got != fmt.Sprint(int64(exp)) {
		t.Errorf("the page counts down to %s, want %d", got, int64(exp))
	}
}

// currencySwitchAndQR is the subtest "currency switch re-quotes and the QR decodes to the EIP-681 URI".
func (p *pageRun) currencySwitchAndQR(t *testing.T) {
	env, ctx, id, total, deposit := p.env, p.ctx, p.id, p.total, p.deposit
	usdc, _ := env.dev.Token("USDC")
	wantUSDC := fmt.Sprintf("ethereum:%s@%d/transfer?address=%s&uint256=%s", usdc.Address.Hex(), env.dev.ChainID, deposit, units(total, 6))
	if got := evalString(t, ctx, `document.getElementById("uri").getAttribute("href")`); got != wantUSDC {
		t.Errorf("USDC link %q, want %q", got, wantUSDC)
	}
	if err := chromedp.Run(ctx, chromedp.SetValue("#token", "ETH", chromedp.ByID), chromedp.Evaluate(`document.getElementById("token").dispatchEvent(new Event("change"))`, nil)); err != nil {
		t.Fatal(err)
	}
	waitJS(t, ctx, `document.getElementById("amount-token").textContent === "ETH" && document.getElementById("amount").textContent !== "…"`, 20*time.Second)
	ethAmount, _ := new(big.Rat).SetString(new(big.Rat).Quo(total, big.NewRat(2500, 1)).FloatString(8)) // the quote: 8 places
	if got := evalString(t, ctx, `document.getElementById("amount").textContent`); got != strings.TrimRight(ethAmount.FloatString(8), "0") {
		t.Errorf("ETH amount %q, want %s", got, ethAmount.FloatString(8))
	}
	wantETH := fmt.Sprintf("ethereum:%s@%d?value=%s", deposit, env.dev.ChainID, units(ethAmount, 18))
	if got := evalString(t, ctx, `document.getElementById("uri").textContent`); got != wantETH {
		t.Errorf("ETH link %q, want %q", got, wantETH)
	}
	if got := evalString(t, ctx, `document.getElementById("address").textContent`); got != deposit {
		t.Errorf("address %q, want the deposit %s", got, deposit)
	}
	waitJS(t, ctx, `document.getElementById("qr").complete && document.getElementById("qr").naturalWidth > 100`, 10*time.Second)
	qrSrc := evalString(t, ctx, `document.getElementById("qr").src`)
	resp, err := http.Get(qrSrc)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.Header.Get("Content-Type") != "image/png" {
		t.Fatalf("QR content type %q", resp.Header.Get("Content-Type"))
	}
	if got := decodeQR(t, b); got != wantETH {
		t.Errorf("QR decodes to %q, want %q", got, wantETH)
	}
	resp, err = http.Get(env.base + "/api/portal/" + id + "/qr?token=DOGE")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 400 {
		t.Errorf("QR of an unknown token: %d, want 400", resp.StatusCode)
	}
	// Back to USDC for the payment.
	if err := chromedp.Run(ctx, chromedp.SetValue("#token", "USDC", chromedp.ByID), chromedp.Evaluate(`document.getElementById("token").dispatchEvent(new Event("change"))`, nil)); err != nil {
		t.Fatal(err)
	}
	waitJS(t, ctx, `document.getElementById("amount-token").textContent === "USDC" && document.getElementById("uri").textContent.indexOf("transfer") > 0`, 20*time.Second)
}

// narrowScreen is the subtest "375 px: no horizontal scroll, labelled controls".
func (p *pageRun) narrowScreen(t *testing.T) {
	ctx := p.ctx
	if err := chromedp.Run(ctx, chromedp.EmulateViewport(375, 812), chromedp.Sleep(200*time.Millisecond)); err != nil {
		t.Fatal(err)
	}
	var fits bool
	if err := chromedp.Run(ctx, chromedp.Evaluate(`document.documentElement.scrollWidth <= document.documentElement.clientWidth`, &fits)); err != nil {
		t.Fatal(err)
	}
	if !fits {
		t.Errorf("horizontal scroll at 375 px: scrollWidth %s > clientWidth; widest: %s", evalString(t, ctx, `String(document.documentElement.scrollWidth)`),
			evalString(t, ctx, `Array.from(document.querySelectorAll("body *")).filter(e => e.getBoundingClientRect().right > document.documentElement.clientWidth).map(e => e.tagName + "#" + e.id + "." + e.className).join(", ")`))
	}
	unlabelled := evalString(t, ctx, `Array.from(document.querySelectorAll("button, select, a[href]")).filter(function (el) {
		var name = (el.getAttribute("aria-label") || el.textContent || "").trim() || (el.labels && el.labels.length ? "label" : "");
		return !name || el.tabIndex < 0;
	}).map(function (el) { return el.outerHTML; }).join("\n")`)
	if unlabelled != "" {
		t.Errorf("controls without a label or out of the tab order:\n%s", unlabelled)
	}
	if err := chromedp.Run(ctx, chromedp.EmulateViewport(1280, 900)); err != nil {
		t.Fatal(err)
	}
}

// keyboard is the subtest "keyboard: every control is reached by Tab".
func (p *pageRun) keyboard(t *testing.T) {
	ctx := p.ctx
	if err := chromedp.Run(ctx, chromedp.Evaluate(`document.activeElement && document.activeElement.blur()`, nil)); err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for i := 0; i < 20; i++ {
		if err := chromedp.Run(ctx, chromedp.KeyEvent("\t")); err != nil {
			t.Fatal(err)
		}
		seen[evalString(t, ctx, `document.activeElement ? document.activeElement.id : ""`)] = true
	}
	for _, id := range []string{"token", "copy-amount", "copy-address", "uri", "copy-uri", "pay-wallet", "pay-card"} {
		if !seen[id] {
			t.Errorf("#%s is never focused by Tab (focused: %v)", id, seen)
		}
	}
	// The copy buttons work from the keyboard too: focus, Enter, announced to screen readers.
	for _, kind := range []string{"amount", "address"} {
		if err := chromedp.Run(ctx, chromedp.Focus("#copy-"+kind, chromedp.ByID), chromedp.KeyEvent("\r")); err != nil {
			t.Fatal(err)
		}
		waitJS(t, ctx, `document.getElementById("copied").textContent === "Copied `+kind+`"`, 5*time.Second)
	}
}

// unknownReceipt is the subtest "unknown receipt: a 404 page".
func (p *pageRun) unknownReceipt(t *testing.T) {
	env, ctx := p.env, p.ctx
	resp, err := http.Get(env.base + "/portal/rcpt_does_not_exist")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 404 || !strings.Contains(resp.Header.Get("Content-Type"), "text/html") || !strings.Contains(string(b), "Receipt not found") {
		t.Errorf("unknown receipt: %d %s %s", resp.StatusCode, resp.Header.Get("Content-Type"), b)
	}
	if err := chromedp.Run(ctx, chromedp.Navigate(env.base+"/portal/rcpt_does_not_exist")); err != nil {
		t.Fatal(err)
	}
	if got := evalString(t, ctx, `document.querySelector("h1").textContent`); got != "Receipt not found" {
		t.Errorf("404 page heading %q", got)
	}
}
