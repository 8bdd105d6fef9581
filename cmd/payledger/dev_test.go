package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/rs/zerolog"

	"github.com/payledger/payledger/migrations/pgtest"
)

var (
	devKeyRE    = regexp.MustCompile(`API key:\s+(plk_\S+)`)
	devWalletRE = regexp.MustCompile(`merchant wallet:\s+(0x[0-9a-f]{40}) \((created|reused)`)
	devSplitRE  = regexp.MustCompile(`split address:\s+(0x[0-9a-fA-F]{40})`)
	devCurlRE   = regexp.MustCompile(`(?m)^curl -s -X POST (\S+) -H '([^']+)' -H 'Content-Type: application/json' -d '([^']+)'$`)
)

type devRun struct{ key, wallet, state, split, url, header, body, out string }

func runDevMerchant(t *testing.T, vars map[string]string, base string) devRun {
	t.Helper()
	var out, errOut bytes.Buffer
	if code := run(context.Background(), []string{"dev", "merchant", "--base-url", base}, env(vars), &out, &errOut); code != 0 {
		t.Fatalf("dev merchant exit %d:\n%s\n%s", code, out.String(), errOut.String())
	}
	s := out.String()
	k, w, sp, c := devKeyRE.FindStringSubmatch(s), devWalletRE.FindStringSubmatch(s), devSplitRE.FindStringSubmatch(s), devCurlRE.FindStringSubmatch(s)
	if k == nil || w == nil || sp == nil || c == nil {
		t.Fatalf("dev merchant output lacks the key, wallet, split or curl:\n%s", s)
	}
	if !strings.Contains(s, base+"/portal/<receiptId>") || !strings.Contains(s, "devchain pay <receiptId>") {
		t.Fatalf("no next steps:\n%s", s)
	}
	return devRun{key: k[1], wallet: w[1], state: w[2], split: sp[1], url: c[1], header: c[2], body: c[3], out: s}
}

// TestDevMerchantAgainstServe: from a running development service (with its development chain),
// `payledger dev merchant` makes a merchant whose printed curl creates an order whose payment page
// answers; a second run reuses the wallet, the split and the key.
func TestDevMerchantAgainstServe(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), ".data")
	vars := map[string]string{"DEV_DATA_DIR": dir, "JOURNAL_PATH": filepath.Join(dir, "journal.jsonl")}
	base, _ := startServe(t, vars)
	first := runDevMerchant(t, vars, base)
	if first.state != "created" || first.split == first.wallet {
		t.Fatalf("first run: %+v (with the development chain the split is a deployed contract)", first)
	}
	st, err := os.Stat(filepath.Join(dir, "dev-merchant.key"))
	if err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("merchant key file: %v %v", err, st)
	}

	// The printed curl, as printed.
	req, _ := http.NewRequest(http.MethodPost, first.url, strings.NewReader(first.body))
	name, value, _ := strings.Cut(first.header, ": ")
	req.Header.Set(name, value)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	var order struct {
		Receipt struct {
			ReceiptID      string  `json:"receiptId"`
			TotalUSD       float64 `json:"totalUsd"`
			MerchantWallet string  `json:"merchantWallet"`
		} `json:"receipt"`
	}
	if resp.StatusCode != http.StatusOK || json.Unmarshal(raw, &order) != nil || order.Receipt.ReceiptID == "" {
		t.Fatalf("order: %d %s", resp.StatusCode, raw)
	}
	if order.Receipt.MerchantWallet != first.wallet {
		t.Fatalf("order of %s, not the dev merchant %s", order.Receipt.MerchantWallet, first.wallet)
	}
	page, err := http.Get(base + "/portal/" + order.Receipt.ReceiptID)
	if err != nil {
		t.Fatal(err)
	}
	html, _ := io.ReadAll(page.Body)
	page.Body.Close()
	if page.StatusCode != http.StatusOK || !strings.Contains(string(html), "Dev shop") {
		t.Fatalf("payment page: %d\n%.2000s", page.StatusCode, html)
	}

	second := runDevMerchant(t, vars, base)
	if second.state != "reused" || second.wallet != first.wallet || second.split != first.split || second.key != first.key {
		t.Fatalf("second run did not reuse: %+v vs %+v", second, first)
	}
}

// Without a chain the split's address is the merchant's wallet.
func TestDevMerchantWithoutChain(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), ".data")
	vars := map[string]string{"DEV_DATA_DIR": dir, "JOURNAL_PATH": filepath.Join(dir, "journal.jsonl"), "DEVCHAIN": "off"}
	base, _ := startServe(t, vars)
	got := runDevMerchant(t, vars, base)
	if !strings.EqualFold(got.split, got.wallet) {
		t.Fatalf("split %s, want the wallet %s", got.split, got.wallet)
	}
}

func TestDevMerchantRefusesInProduction(t *testing.T) {
	t.Parallel()
	good := strings.Repeat("ab", 32)
	vars := map[string]string{"APP_ENV": "production", "PUBLIC_BASE_URL": "https://pay.example.com", "JWT_SECRET": good, "CRON_SECRET": good, "SECRETS_KEY": good,
		"PROCESSOR_WEBHOOK_SECRET": good, "METRICS_TOKEN": good, "DEV_DATA_DIR": t.TempDir()}
	var out, errOut bytes.Buffer
	if code := run(context.Background(), []string{"dev", "merchant"}, env(vars), &out, &errOut); code == 0 ||
		!strings.Contains(out.String()+errOut.String(), "development only") {
		t.Fatalf("production: exit %d %s %s", code, out.String(), errOut.String())
	}
	if entries, _ := os.ReadDir(vars["DEV_DATA_DIR"]); len(entries) != 0 {
		t.Fatal("production wrote a development file")
	}
	// Nothing answering: a clear message.
	out.Reset()
	errOut.Reset()
	dev := map[string]string{"DEV_DATA_DIR": t.TempDir()}
	if code := run(context.Background(), []string{"dev", "merchant", "--base-url", fmt.Sprintf("http://127.0.0.1:%d", freePort(t))}, env(dev), &out, &errOut); code == 0 ||
		!strings.Contains(out.String()+errOut.String(), "make run") {
		t.Fatalf("no service: exit %d %s %s", code, out.String(), errOut.String())
	}
}

// TestDevSecretsSessionSurvivesRestart: a session signed in before a restart of `make run` is
// still valid after it (the JWT secret is kept), and the merchant's key still works.
func TestDevSecretsSessionSurvivesRestart(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), ".data")
	vars := map[string]string{"DEV_DATA_DIR": dir, "JOURNAL_PATH": filepath.Join(dir, "journal.jsonl"), "DEVCHAIN": "off",
		"DATABASE_URL": pgtest.URL(t)}
	base, _, stop := startServeStoppable(t, vars)
	ctx := context.Background()
	m := &devMerchant{base: base, dir: dir, log: zerolog.Nop()}
	if err := m.run(ctx, "Restart shop", io.Discard); err != nil {
		stop()
		t.Fatal(err)
	}
	stop()

	base, _, stop = startServeStoppable(t, vars)
	defer stop()
	m.base = base
	// Cookies are per host, not per port: the jar sends the first run's session to the second.
	if status, raw, err := m.call(ctx, http.MethodGet, "/api/status/ping", nil, map[string]string{"Ocp-Apim-Subscription-Key": m.apiKey}); err != nil || status != 200 {
		t.Fatalf("the key after a restart: %d %s %v", status, raw, err)
	}
	if status, raw, err := m.call(ctx, http.MethodGet, "/api/auth/me", nil, nil); err != nil || status != 200 {
		t.Fatalf("the session after a restart: %d %s %v (the JWT secret changed?)", status, raw, err)
	}
}
