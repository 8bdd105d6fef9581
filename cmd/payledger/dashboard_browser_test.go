package main

// The merchant dashboard in a real browser (chromium driven by chromedp) against serve: one
// service, one browser, the steps of issue 28 in order. With PAYLEDGER_SCREENSHOTS=<dir> it also
// writes dashboard-{list,receipt,settings}-{desktop,mobile}.png there (make screenshots).

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/signer/core/apitypes"

	"github.com/payledger/payledger/chain"
	"github.com/payledger/payledger/commands"
	"github.com/payledger/payledger/domain/split"
	"github.com/payledger/payledger/eventstore"
	"github.com/payledger/payledger/eventstore/postgres"
	"github.com/payledger/payledger/migrations/pgtest"
	"github.com/payledger/payledger/webhooks"
)

var devLinkRE = regexp.MustCompile(`(http://\S+/dashboard/login/link\?token=[0-9a-f]{64})`)

// dashSession signs wallet key in through the API (nonce, EIP-712 signature, login) and returns
// a client holding the session cookies, and the CSRF token.
func dashSession(t *testing.T, base string, key *ecdsa.PrivateKey) (*http.Client, string) {
	t.Helper()
	jar, _ := cookiejar.New(nil)
	client := &http.Client{Jar: jar, Timeout: 30 * time.Second}
	wallet := strings.ToLower(crypto.PubkeyToAddress(key.PublicKey).Hex())
	var ch struct {
		TypedData apitypes.TypedData `json:"typedData"`
		Nonce     string             `json:"nonce"`
	}
	if code, raw, err := sendJSON(context.Background(), client, http.MethodPost, base+"/api/auth/nonce", map[string]string{"wallet": wallet}, nil); err != nil || code != 200 || json.Unmarshal(raw, &ch) != nil {
		t.Fatalf("nonce: %d %s %v", code, raw, err)
	}
	sig, err := chain.SignTypedData(ch.TypedData, key)
	if err != nil {
		t.Fatal(err)
	}
	var out struct {
		CSRF string `json:"csrfToken"`
	}
	code, raw, err := sendJSON(context.Background(), client, http.MethodPost, base+"/api/auth/login", map[string]string{"wallet": wallet, "signature": sig, "nonce": ch.Nonce}, nil)
	if err != nil || code != 200 || json.Unmarshal(raw, &out) != nil {
		t.Fatalf("login: %d %s %v", code, raw, err)
	}
	return client, out.CSRF
}

// dashCall sends body with headers and fails unless the answer is want; it returns the answer.
func dashCall(t *testing.T, client *http.Client, method, u string, body any, headers map[string]string, want int) map[string]any {
	t.Helper()
	code, raw, err := sendJSON(context.Background(), client, method, u, body, headers)
	if err != nil || code != want {
		t.Fatalf("%s %s: %d %s %v", method, u, code, raw, err)
	}
	var out map[string]any
	_ = json.Unmarshal(raw, &out)
	return out
}

func evalStrings(t *testing.T, ctx context.Context, expr string) []string {
	t.Helper()
	var out []string
	if err := chromedp.Run(ctx, chromedp.Evaluate(expr, &out)); err != nil {
		t.Fatalf("%s: %v", expr, err)
	}
	return out
}

func navigate(t *testing.T, ctx context.Context, u string) {
	t.Helper()
	if err := chromedp.Run(ctx, chromedp.Navigate(u)); err != nil {
		t.Fatalf("navigate %s: %v", u, err)
	}
	waitJS(t, ctx, `document.documentElement.dataset.ready === "1"`, 20*time.Second)
}

// fitsPhone checks that the page has no horizontal scroll at 375 px (wide tables scroll inside
// their panel), then goes back to the desktop size.
func fitsPhone(t *testing.T, ctx context.Context) {
	t.Helper()
	if err := chromedp.Run(ctx, chromedp.EmulateViewport(375, 812)); err != nil {
		t.Fatal(err)
	}
	wide := evalString(t, ctx, `document.documentElement.scrollWidth <= document.documentElement.clientWidth ? "" :
		Array.from(document.querySelectorAll("body *")).filter(e => e.getBoundingClientRect().right > document.documentElement.clientWidth && !e.closest(".scroll")).map(e => e.tagName + "#" + e.id + "." + e.className).join(", ")`)
	if wide != "" {
		t.Errorf("horizontal scroll at 375 px on %s: %s", evalString(t, ctx, "location.pathname"), wide)
	}
	if err := chromedp.Run(ctx, chromedp.EmulateViewport(1280, 900)); err != nil {
		t.Fatal(err)
	}
}

func click(t *testing.T, ctx context.Context, sel string) {
	t.Helper()
	if err := chromedp.Run(ctx, chromedp.Click(sel, chromedp.ByQuery)); err != nil {
		t.Fatalf("click %s: %v", sel, err)
	}
}

func TestDashboardInBrowser(t *testing.T) {
	chromiumPath(t)
	dir := filepath.Join(t.TempDir(), ".data")
	var hookOK atomic.Bool // the merchant's webhook receiver: failing until the test fixes it
	hook := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !hookOK.Load() {
			http.Error(w, "down for maintenance", http.StatusInternalServerError)
			return
		}
		w.WriteHeader(http.StatusOK)
	}))
	t.Cleanup(hook.Close)
	type endpointHit struct {
		header http.Header
		body   []byte
	}
	endpointHits := make(chan endpointHit, 8) // the webhook endpoint the settings page adds
	endpoint := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(io.LimitReader(r.Body, 1<<20))
		select {
		case endpointHits <- endpointHit{r.Header.Clone(), body}:
		default:
		}
		w.WriteHeader(http.StatusOK)
	}))
	t.Cleanup(endpoint.Close)
	// With its development chain, so that a receipt is paid by transfers to its deposit address
	// (the last subtest); the chain's variables go to this test's own file, which devchain pay reads.
	t.Setenv("DEVCHAIN_ENV_FILE", filepath.Join(t.TempDir(), "devchain.env"))
	vars := map[string]string{"DEV_DATA_DIR": dir, "JOURNAL_PATH": filepath.Join(dir, "journal.jsonl"),
		"RATE_LIMIT_PUBLIC_PER_MINUTE": "100000", "RATE_LIMIT_PER_MINUTE": "100000", "DATABASE_URL": pgtest.URL(t), "EMBEDDED_POSTGRES": "off"}
	base, _ := startServe(t, vars)
	dev := runDevMerchant(t, vars, base)
	link := devLinkRE.FindStringSubmatch(dev.out)
	if link == nil {
		t.Fatalf("dev merchant printed no sign-in link:\n%s", dev.out)
	}
	keyHex, err := os.ReadFile(filepath.Join(dir, devMerchantKeyFile))
	if err != nil {
		t.Fatal(err)
	}
	mkey, err := crypto.HexToECDSA(strings.TrimSpace(string(keyHex)))
	if err != nil {
		t.Fatal(err)
	}
	session, csrf := dashSession(t, base, mkey)
	keyHdr := map[string]string{"Ocp-Apim-Subscription-Key": dev.key}

	// Two receipts: the first with a webhook that fails, paid in cash at the terminal; the second
	// newer and unpaid. Another merchant has one too.
	item := `<img src=x onerror="window.__xss=1">Muffin`
	if os.Getenv("PAYLEDGER_SCREENSHOTS") != "" { // the screenshots show a plain item; every other run tries the injection
		item = "Blueberry Muffin"
	}
	dashCall(t, http.DefaultClient, http.MethodPost, base+"/api/inventory", map[string]any{"sku": "MUFFIN", "name": item, "priceUsd": 6.25, "stockQty": -1}, keyHdr, 201)
	first := dashCall(t, http.DefaultClient, http.MethodPost, base+"/api/orders", map[string]any{"items": []map[string]any{{"sku": "MUFFIN", "qty": 2}},
		"webhook_url": hook.URL + "/hook", "transactionId": "order-1001"}, keyHdr, 200)["receipt"].(map[string]any)["receiptId"].(string)
	dashCall(t, session, http.MethodPost, base+"/api/receipts/terminal", map[string]any{"action": "complete", "receiptId": first, "method": "cash"},
		map[string]string{"x-csrf-token": csrf}, 200)
	second := dashCall(t, http.DefaultClient, http.MethodPost, base+"/api/receipts", map[string]any{"lineItems": []map[string]any{{"label": "Latte", "priceUsd": 4.5}},
		"totalUsd": 4.5}, keyHdr, 201)["receipt"].(map[string]any)["receiptId"].(string)
	other := "0x" + strings.Repeat("cd", 20)
	otherKey := createKey(t, context.Background(), vars, other, "receipts:write,receipts:read", "other")
	if _, err := commands.ConfigureSplit(context.Background(), postgres.New(pgtest.PoolFor(t, vars["DATABASE_URL"])), time.Now(), eventstore.Metadata{},
		split.Configure{Merchant: other, Address: other, Platform: "0x" + strings.Repeat("b", 40)}); err != nil {
		t.Fatal(err)
	}
	foreign := dashCall(t, http.DefaultClient, http.MethodPost, base+"/api/receipts", map[string]any{"lineItems": []map[string]any{{"label": "Secret", "priceUsd": 1}},
		"totalUsd": 1}, map[string]string{"Ocp-Apim-Subscription-Key": otherKey}, 201)["receipt"].(map[string]any)["receiptId"].(string)

	ctx := (&portalEnv{}).browser(t, nil)
	signingWallet(ctx, mkey)
	ctx, cancel := context.WithTimeout(ctx, 4*time.Minute)
	defer cancel()

	t.Run("sign in with the development link", func(t *testing.T) {
		navigate(t, ctx, link[1])
		click(t, ctx, "#link-signin")
		waitJS(t, ctx, `location.pathname === "/dashboard" && document.getElementById("wallet") !== null`, 20*time.Second)
		if got := evalString(t, ctx, `document.getElementById("wallet").textContent`); got != dev.wallet {
			t.Errorf("signed in as %q, want %s", got, dev.wallet)
		}
	})

	t.Run("two receipts newest first, filter by status", func(t *testing.T) {
		if got := evalStrings(t, ctx, `Array.from(document.querySelectorAll("#receipts tbody tr")).map(r => r.dataset.id + " " + r.querySelector(".badge").dataset.status)`); strings.Join(got, ",") != second+" generated,"+first+" paid" {
			t.Errorf("rows %v, want %s then %s", got, second, first)
		}
		if err := chromedp.Run(ctx, chromedp.SetValue("#status", "paid", chromedp.ByID), chromedp.Submit("#status", chromedp.ByID)); err != nil {
			t.Fatal(err)
		}
		waitJS(t, ctx, `location.search.indexOf("status=paid") >= 0 && document.documentElement.dataset.ready === "1"`, 20*time.Second)
		if got := evalStrings(t, ctx, `Array.from(document.querySelectorAll("#receipts tbody tr")).map(r => r.dataset.id)`); strings.Join(got, ",") != first {
			t.Errorf("paid: %v, want only %s", got, first)
		}
		if got := evalString(t, ctx, `document.getElementById("export").getAttribute("href")`); got != "/api/exports/receipts.csv?from=0&status=paid" {
			t.Errorf("CSV link %q", got)
		}
		// "Download CSV", fetched by the page with its session as the link's download is: a CSV
		// of the paid receipt (it used to be 503 "not configured" in serve).
		var got string
		if err := chromedp.Run(ctx, chromedp.Evaluate(`fetch(document.getElementById("export").href, {credentials: "same-origin"}).then(async r => r.status + " " + r.headers.get("content-type") + "\n" + await r.text())`,
			&got, func(p *runtime.EvaluateParams) *runtime.EvaluateParams { return p.WithAwaitPromise(true) })); err != nil {
			t.Fatal(err)
		}
		head, body, _ := strings.Cut(got, "\n")
		rows, err := csv.NewReader(strings.NewReader(body)).ReadAll()
		if !strings.HasPrefix(head, "200 text/csv") || err != nil || len(rows) != 2 || rows[0][0] != "receiptId" || rows[1][0] != first {
			t.Errorf("Download CSV: %q, rows %v (%v); want the header and %s", head, rows, err, first)
		}
		screenshot(t, ctx, "dashboard-list-desktop.png", 1280, 900)
		screenshot(t, ctx, "dashboard-list-mobile.png", 375, 812)
		fitsPhone(t, ctx)
		_ = chromedp.Run(ctx, chromedp.EmulateViewport(1280, 900))
	})

	t.Run("a paid receipt: events in order, verified, escaped", func(t *testing.T) {
		navigate(t, ctx, base+"/dashboard/receipts/"+first)
		if got := evalStrings(t, ctx, `Array.from(document.querySelectorAll("#events li")).map(li => li.dataset.type)`); strings.Join(got, ",") != "ReceiptGenerated,PaymentAttemptStarted,PaymentConfirmed" {
			t.Errorf("events %v", got)
		}
		if got := evalString(t, ctx, `document.getElementById("chain").textContent`); got != "hash chain verified" {
			t.Errorf("chain check %q", got)
		}
		if got := evalString(t, ctx, `document.querySelector("#lines .label").textContent + "|" + String(window.__xss)`); got != item+"|undefined" {
			t.Errorf("line label %q (escaped text, no script)", got)
		}
		screenshot(t, ctx, "dashboard-receipt-desktop.png", 1280, 900)
		screenshot(t, ctx, "dashboard-receipt-mobile.png", 375, 812)
		fitsPhone(t, ctx)
		_ = chromedp.Run(ctx, chromedp.EmulateViewport(1280, 900))
	})

	t.Run("refund half (6.28 of 12.56): the status and the event appear", func(t *testing.T) {
		if err := chromedp.Run(ctx, chromedp.SetValue("#refund-amount", "6.28", chromedp.ByID), chromedp.Evaluate(`document.getElementById("refund-reason").value = "Half: one muffin was missing"`, nil)); err != nil {
			t.Fatal(err)
		}
		click(t, ctx, "#refund-submit")
		// The live badge can turn refund_requested before the form's reload shows the new event, so
		// wait for the reloaded page: the status, the event and the requested amount together.
		waitJS(t, ctx, `document.getElementById("status").dataset.status === "refund_requested" &&
			Array.from(document.querySelectorAll("#events li")).some(li => li.dataset.type === "RefundRequested") &&
			document.getElementById("requested") !== null`, 20*time.Second)
		if got := evalStrings(t, ctx, `Array.from(document.querySelectorAll("#events li")).map(li => li.dataset.type)`); len(got) == 0 || got[len(got)-1] != "RefundRequested" {
			t.Errorf("events after the refund %v", got)
		}
		if got := evalString(t, ctx, `document.getElementById("requested").textContent`); got != "$6.28 USD" {
			t.Errorf("refund requested %q", got)
		}
	})

	t.Run("redeliver a failed webhook", func(t *testing.T) {
		navigate(t, ctx, base+"/dashboard/receipts/"+first)
		deadline := time.Now().Add(30 * time.Second)
		for evalString(t, ctx, `String(document.querySelectorAll("#deliveries tr[data-ok=false]").length)`) == "0" {
			if time.Now().After(deadline) {
				t.Fatal("no failed delivery shown")
			}
			time.Sleep(300 * time.Millisecond)
			navigate(t, ctx, base+"/dashboard/receipts/"+first)
		}
		hookOK.Store(true)
		click(t, ctx, "#deliveries .redeliver")
		waitJS(t, ctx, `Array.from(document.querySelectorAll("#deliveries tr[data-ok=true] .outcome")).some(td => td.textContent.indexOf("HTTP 200") >= 0)`, 20*time.Second)
	})

	t.Run("an open receipt's page and the list follow its status live", func(t *testing.T) {
		navigate(t, ctx, base+"/dashboard/receipts/"+second)
		if got := evalString(t, ctx, `document.getElementById("status").dataset.status + "|" + String(document.getElementById("live-note").hidden)`); got != "generated|true" {
			t.Fatalf("before payment %q", got)
		}
		dashCall(t, session, http.MethodPost, base+"/api/receipts/terminal", map[string]any{"action": "complete", "receiptId": second, "method": "cash"},
			map[string]string{"x-csrf-token": csrf}, 200)
		waitJS(t, ctx, `document.getElementById("status").dataset.status === "paid" && document.getElementById("status").textContent === "paid" && !document.getElementById("live-note").hidden`, 20*time.Second)
		// The list follows its rows too: a refund requested elsewhere shows without a reload.
		navigate(t, ctx, base+"/dashboard")
		row := `document.querySelector('#receipts tr[data-id="` + second + `"] .badge')`
		if got := evalString(t, ctx, row+`.dataset.status`); got != "paid" {
			t.Fatalf("list shows %q", got)
		}
		code, raw, err := sendJSON(context.Background(), session, http.MethodPost, base+"/api/receipts/refund", map[string]any{"receiptId": second, "reason": "live list"},
			map[string]string{"x-csrf-token": csrf})
		if err != nil || code/100 != 2 {
			t.Fatalf("refund: %d %s %v", code, raw, err)
		}
		waitJS(t, ctx, row+`.dataset.status === "refund_requested" && `+row+`.textContent === "refund_requested"`, 20*time.Second)
	})

	t.Run("add a webhook endpoint, send a test event, see it arrive signed and on the page", func(t *testing.T) {
		navigate(t, ctx, base+"/dashboard/settings")
		// Picking one type clears "all events" (the API refuses "*" with other types).
		if err := chromedp.Run(ctx, chromedp.SetValue("#endpoint-url", endpoint.URL+"/endpoint", chromedp.ByID),
			chromedp.Click(`#endpoint-create input[value="webhook.test"]`, chromedp.ByQuery)); err != nil {
			t.Fatal(err)
		}
		if got := evalString(t, ctx, `String(document.querySelector('#endpoint-create input[data-all]').checked)`); got != "false" {
			t.Errorf(`"all events" still checked with a type picked`)
		}
		click(t, ctx, "#endpoint-create [type=submit]")
		waitJS(t, ctx, `document.getElementById("new-endpoint-secret").textContent.indexOf("whsec_") === 0`, 20*time.Second)
		secret := evalString(t, ctx, `document.getElementById("new-endpoint-secret").textContent`)
		navigate(t, ctx, base+"/dashboard/settings")
		if strings.Contains(evalString(t, ctx, `document.body.innerHTML`), secret) {
			t.Error("the endpoint's secret is shown again")
		}
		if got := evalString(t, ctx, `document.querySelector("#endpoints .endpoint .url").textContent + " " + document.querySelector("#endpoints .endpoint .events").textContent`); got != endpoint.URL+"/endpoint webhook.test" {
			t.Errorf("endpoint row %q", got)
		}
		click(t, ctx, "#endpoints .endpoint .send-test")
		var got endpointHit
		select {
		case got = <-endpointHits:
		case <-time.After(30 * time.Second):
			t.Fatal("the test event did not arrive at the endpoint")
		}
		sig, err := webhooks.StandardSignature(secret, got.header.Get("webhook-id"), mustInt(t, got.header.Get("webhook-timestamp")), got.body)
		if err != nil || got.header.Get("webhook-signature") != sig || !strings.HasPrefix(string(got.body), `{"type":"webhook.test"`) {
			t.Errorf("the test event does not verify with the secret the page showed: %v %s", got.header, got.body)
		}
		waitJS(t, ctx, `!document.querySelector("#endpoints .endpoint .done").hidden`, 10*time.Second) // the page says it is queued
		deadline := time.Now().Add(20 * time.Second)
		for evalString(t, ctx, `String(document.querySelectorAll('#endpoints .endpoint-deliveries tr[data-ok=true][data-type="webhook.test"]').length)`) == "0" {
			if time.Now().After(deadline) {
				t.Fatal("the delivery is not on the page after reloading")
			}
			time.Sleep(300 * time.Millisecond)
			navigate(t, ctx, base+"/dashboard/settings")
		}
		if got := evalString(t, ctx, `document.querySelector("#endpoints .endpoint-deliveries .outcome").textContent`); got != "HTTP 200" {
			t.Errorf("delivery outcome %q", got)
		}
	})

	t.Run("create and revoke a key", func(t *testing.T) {
		navigate(t, ctx, base+"/dashboard/settings")
		if err := chromedp.Run(ctx, chromedp.SetValue("#key-name", "till 2", chromedp.ByID),
			chromedp.Click(`#key-create input[value="receipts:read"]`, chromedp.ByQuery)); err != nil {
			t.Fatal(err)
		}
		click(t, ctx, "#key-create [type=submit]")
		waitJS(t, ctx, `document.getElementById("new-key").textContent.indexOf("plk_") === 0`, 20*time.Second)
		secret := evalString(t, ctx, `document.getElementById("new-key").textContent`)
		dashCall(t, http.DefaultClient, http.MethodGet, base+"/api/receipts?limit=1", nil, map[string]string{"Ocp-Apim-Subscription-Key": secret}, 200)
		navigate(t, ctx, base+"/dashboard/settings")
		if strings.Contains(evalString(t, ctx, `document.body.innerHTML`), secret) {
			t.Error("the key is shown again")
		}
		rows := evalStrings(t, ctx, `Array.from(document.querySelectorAll("#keys tbody tr")).filter(r => r.textContent.indexOf("till 2") >= 0).map(r => r.dataset.prefix)`)
		if len(rows) != 1 || !strings.HasPrefix(secret, rows[0]) {
			t.Fatalf("key rows %v for %s", rows, secret[:12])
		}
		screenshot(t, ctx, "dashboard-settings-desktop.png", 1280, 900)
		screenshot(t, ctx, "dashboard-settings-mobile.png", 375, 812)
		fitsPhone(t, ctx)
		_ = chromedp.Run(ctx, chromedp.EmulateViewport(1280, 900))
		click(t, ctx, `#keys tr[data-prefix="`+rows[0]+`"] .revoke`)
		waitJS(t, ctx, `document.querySelector('#keys tr[data-prefix="`+rows[0]+`"]').classList.contains("revoked")`, 20*time.Second)
		code, _, _ := sendJSON(context.Background(), http.DefaultClient, http.MethodGet, base+"/api/receipts?limit=1", nil, map[string]string{"Ocp-Apim-Subscription-Key": secret})
		if code != http.StatusUnauthorized {
			t.Errorf("the revoked key: %d", code)
		}
	})

	t.Run("sign in with the API login's session cookie; another merchant's receipt is 404", func(t *testing.T) {
		u, _ := url.Parse(base)
		if err := chromedp.Run(ctx, network.ClearBrowserCookies()); err != nil {
			t.Fatal(err)
		}
		navigate(t, ctx, base+"/dashboard/settings")
		waitJS(t, ctx, `location.pathname === "/dashboard/login" && document.getElementById("login") !== null`, 10*time.Second)
		if got := evalString(t, ctx, `document.getElementById("login").dataset.next`); got != "/dashboard/settings" {
			t.Errorf("next %q", got)
		}
		var sets []chromedp.Action
		for _, c := range session.Jar.Cookies(u) {
			sets = append(sets, network.SetCookie(c.Name, c.Value).WithDomain(u.Hostname()).WithPath("/").WithHTTPOnly(c.Name == "cb_auth_token"))
		}
		if err := chromedp.Run(ctx, sets...); err != nil {
			t.Fatal(err)
		}
		navigate(t, ctx, base+"/dashboard/receipts/"+foreign)
		if got := evalString(t, ctx, `document.querySelector("h1").textContent + "|" + document.getElementById("wallet").textContent`); got != "Receipt not found|"+dev.wallet {
			t.Errorf("another merchant's receipt shows %q", got)
		}
		req, _ := http.NewRequest(http.MethodGet, base+"/dashboard/receipts/"+foreign, nil)
		resp, err := session.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusNotFound {
			t.Errorf("another merchant's receipt: %d, want 404", resp.StatusCode)
		}
		navigate(t, ctx, base+"/dashboard")
		if got := evalString(t, ctx, `String(document.querySelectorAll("#receipts tbody tr[data-id]").length)`); got != "2" {
			t.Errorf("%s rows with the API session", got)
		}
	})

	t.Run("sign out, then in with the browser wallet, back where it started", func(t *testing.T) {
		click(t, ctx, "#signout")
		waitJS(t, ctx, `location.pathname === "/dashboard/login"`, 20*time.Second)
		navigate(t, ctx, base+"/dashboard/receipts/"+first)
		waitJS(t, ctx, `location.pathname === "/dashboard/login" && document.getElementById("login") !== null`, 10*time.Second)
		click(t, ctx, "#login")
		waitJS(t, ctx, `location.pathname === "/dashboard/receipts/`+first+`" && document.getElementById("wallet") !== null`, 20*time.Second)
		if got := evalString(t, ctx, `document.getElementById("wallet").textContent`); got != dev.wallet {
			t.Errorf("signed in as %q", got)
		}
	})

	t.Run("a receipt paid in two transfers lists both, tax and fee once", func(t *testing.T) {
		id := dashCall(t, http.DefaultClient, http.MethodPost, base+"/api/orders", map[string]any{"items": []map[string]any{{"sku": "DEV-COFFEE", "qty": 2}},
			"taxRate": 0.08}, keyHdr, 200)["receipt"].(map[string]any)["receiptId"].(string)
		for _, extra := range [][]string{{"--amount", "5"}, nil} { // 5 USDC, then what is still due
			var out, errOut bytes.Buffer
			args := append([]string{"devchain", "pay", id, "--base-url", base}, extra...)
			if code := run(context.Background(), args, noEnv, &out, &errOut); code != 0 {
				t.Fatalf("devchain pay %v: exit %d\n%s\n%s", extra, code, out.String(), errOut.String())
			}
			if extra == nil {
				break
			}
			// What is due counts confirmed transfers only: the rest is asked once the first one is.
			waitFor(t, "the first transfer confirmed", func() bool {
				st := dashCall(t, http.DefaultClient, http.MethodGet, base+"/api/receipts/status?receiptId="+id, nil, keyHdr, 200)
				got, _ := st["amountReceived"].(string)
				return got == "5" || got == "5.00"
			})
		}
		waitFor(t, "paid", func() bool {
			st := dashCall(t, http.DefaultClient, http.MethodGet, base+"/api/receipts/status?receiptId="+id, nil, keyHdr, 200)
			return st["status"] == "paid" || st["status"] == "reconciled"
		})
		navigate(t, ctx, base+"/dashboard/receipts/"+id)
		rows := evalStrings(t, ctx, `Array.from(document.querySelectorAll("#transfers tr.transfer")).map(r => r.querySelector(".amount").textContent + "|" + r.querySelector(".tx").textContent.length + "|" + r.querySelector(".sender").textContent.length)`)
		if len(rows) != 2 || rows[0] != "5.00 USDC|66|42" || rows[1] != "4.77 USDC|66|42" {
			t.Errorf("transfers %v, want 5.00 then the 4.77 USDC still due, each with its hash and sender", rows)
		}
		if got := evalString(t, ctx, `String(document.querySelectorAll("#lines tr.tax, #lines tr.fee").length) + "|" + String(document.getElementById("tax")) + "|" + String(document.getElementById("fee"))`); got != "2|null|null" {
			t.Errorf("tax and fee lines, tax total, fee total: %q (want each once, as lines)", got)
		}
		if n := evalString(t, ctx, `String(document.querySelectorAll("#transfers a").length)`); n != "0" {
			t.Errorf("%s explorer links on the development chain", n)
		}
		screenshot(t, ctx, "dashboard-receipt-transfers.png", 1280, 900)
	})
}

// signingWallet answers the page's EIP-1193 requests (the injected provider of browser_test.go)
// as a browser wallet holding key: its account, and eth_signTypedData_v4 of the login challenge.
func signingWallet(ctx context.Context, key *ecdsa.PrivateKey) {
	account := crypto.PubkeyToAddress(key.PublicKey).Hex()
	chromedp.ListenTarget(ctx, func(ev any) {
		b, ok := ev.(*runtime.EventBindingCalled)
		if !ok || b.Name != "__ethBridge" {
			return
		}
		go func() {
			var req struct {
				ID     int      `json:"id"`
				Method string   `json:"method"`
				Params []string `json:"params"`
			}
			_ = json.Unmarshal([]byte(b.Payload), &req)
			ok, val := true, any(nil)
			switch req.Method {
			case "eth_requestAccounts", "eth_accounts":
				val = []string{account}
			case "eth_signTypedData_v4":
				var td apitypes.TypedData
				sig, err := "", json.Unmarshal([]byte(req.Params[1]), &td)
				if err == nil {
					sig, err = chain.SignTypedData(td, key)
				}
				val = sig
				if err != nil {
					ok, val = false, rpcError{-32603, err.Error()}
				}
			default:
				ok, val = false, rpcError{4200, "unsupported: " + req.Method}
			}
			vb, _ := json.Marshal(val)
			_ = chromedp.Run(ctx, chromedp.Evaluate(fmt.Sprintf("window.__ethResolve(%d, %t, %s)", req.ID, ok, vb), nil))
		}()
	})
}
