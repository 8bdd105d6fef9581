package main

// The walk of the real binary (issue 35): `payledger` built into a temporary folder and started
// as `make run` starts it (development, the development chain with deposits), then every route of
// the README's route table called with valid input as the roles that may. No answer may be a
// 503 "not configured" of an always-on capability, a 404 for a documented route, or a 5xx.

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/csv"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/crypto"

	"github.com/payledger/payledger/migrations/pgtest"
)

// walker calls the running binary as each role and records which README routes it called.
type walker struct {
	t       *testing.T
	base    string
	key     string       // the dev merchant's API key (every scope)
	session *http.Client // the dev merchant's session
	csrf    string
	called  map[string]bool // "METHOD /path/{id}" as the README writes it
}

const (
	walkCron      = "walk-cron-secret"
	walkProcessor = "whsec_walk"
)

// walkAnswer is one answer: its status, headers and body.
type walkAnswer struct {
	status int
	header http.Header
	body   []byte
}

func (a walkAnswer) json(t *testing.T) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(a.body, &m); err != nil {
		t.Fatalf("not a JSON object: %s", a.body)
	}
	return m
}

// call sends one request as role ("open", "key", "session", "cron") for the README route route,
// and fails on a 5xx, a 503, a 404 (unless allow404), a 401 or 403 (the role may call it), or an
// answer other than want when want is set.
func (w *walker) call(route, role, method, path string, body any, want int, extra map[string]string) walkAnswer {
	w.t.Helper()
	w.called[route] = true
	var rd io.Reader
	if body != nil {
		if s, ok := body.(string); ok {
			rd = strings.NewReader(s)
		} else {
			b, _ := json.Marshal(body)
			rd = bytes.NewReader(b)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, method, w.base+path, rd)
	if err != nil {
		w.t.Fatal(err)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	client := &http.Client{Timeout: 30 * time.Second, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	switch role {
	case "key":
		req.Header.Set("Ocp-Apim-Subscription-Key", w.key)
	case "session":
		client = &http.Client{Jar: w.session.Jar, Timeout: 30 * time.Second, CheckRedirect: client.CheckRedirect}
		req.Header.Set("X-CSRF-Token", w.csrf)
		req.Header.Set("Origin", w.base)
	case "cron":
		req.Header.Set("x-cron-secret", walkCron)
	}
	for k, v := range extra {
		req.Header.Set(k, v)
	}
	resp, err := client.Do(req)
	if err != nil {
		w.t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	a := walkAnswer{status: resp.StatusCode, header: resp.Header}
	if ct := resp.Header.Get("Content-Type"); strings.HasPrefix(ct, "text/event-stream") {
		a.body = []byte("(stream)") // a stream is open: its status and type are the answer
	} else if a.body, err = io.ReadAll(io.LimitReader(resp.Body, 4<<20)); err != nil {
		w.t.Fatalf("%s %s: read: %v", method, path, err)
	}
	// want names the one answer expected; without it, any answer but a refusal of the role, a
	// missing route or thing, or a server error. A 404 or 503 is expected only where a step names
	// it (an unknown id; the onramp, off in `make run`).
	bad := a.status >= 500 || a.status == 401 || a.status == 403 || a.status == 404
	if want != 0 {
		bad = a.status != want
	}
	if bad {
		w.t.Fatalf("%s %s as %s: %d %s", method, path, role, a.status, a.body)
	}
	return a
}

// TestBinaryWalkEveryReadmeRoute starts the real binary as `make run` does and walks the README.
func TestBinaryWalkEveryReadmeRoute(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds and runs the binary")
	}
	dir := t.TempDir()
	bin := buildPayledger(t, dir)
	merchantKey, _ := crypto.GenerateKey()
	wallet := strings.ToLower(crypto.PubkeyToAddress(merchantKey.PublicKey).Hex())
	if err := os.WriteFile(filepath.Join(dir, devMerchantKeyFile), []byte(hex.EncodeToString(crypto.FromECDSA(merchantKey))+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	addr := fmt.Sprintf("127.0.0.1:%d", freePort(t))
	base := "http://" + addr
	vars := []string{"DATABASE_URL=" + pgtest.URL(t), "HTTP_ADDR=" + addr, "PUBLIC_BASE_URL=" + base, "EMBEDDED_POSTGRES=off",
		"JOURNAL_PATH=" + filepath.Join(dir, "journal.jsonl"), "DEV_DATA_DIR=" + dir, "CRON_SECRET=" + walkCron,
		"DEVCHAIN_ENV_FILE=" + filepath.Join(dir, "devchain.env"), // not the shared default in $TMPDIR: tests run side by side
		"PROCESSOR_WEBHOOK_SECRET=" + walkProcessor, "ADMIN_WALLETS=" + wallet, "APP_ENV=development",
		"RATE_LIMIT_PER_MINUTE=1000000", "RATE_LIMIT_PUBLIC_PER_MINUTE=1000000"}
	out := startBinary(t, bin, dir, vars, base)
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("serve log (tail):\n%s", tail(out.String(), 8000))
		}
	})
	if !strings.Contains(out.String(), `"message":"capabilities"`) || !strings.Contains(out.String(), `"deposits":"on:`) {
		t.Fatalf("no capabilities line with deposits on:\n%s", tail(out.String(), 4000))
	}
	runBinary(t, bin, dir, vars, "dev", "merchant", "--base-url", base)
	kept, err := readDevSecrets(filepath.Join(dir, devMerchantEnvFile))
	if err != nil || kept["PAYLEDGER_API_KEY"] == "" {
		t.Fatalf("dev merchant kept no key: %v %v", kept, err)
	}
	w := &walker{t: t, base: base, key: kept["PAYLEDGER_API_KEY"], called: map[string]bool{}}
	w.session, w.csrf = dashSession(t, base, merchantKey)

	receiptID := w.walkOrders()
	runBinary(t, bin, dir, vars, "devchain", "pay", receiptID, "--api", base)
	w.awaitStatus(receiptID, "paid")
	w.walkAuthAndConfig(wallet)
	w.walkReceipts(receiptID)
	w.walkPortal()
	w.walkDashboard(receiptID)
	w.walkWebhooks()
	w.walkExports(receiptID)
	w.walkUsersAndSubscriptions(wallet)
	w.walkSessionsEnd(merchantKey)
	for _, r := range readmeRouteList(t) {
		if !w.called[r] {
			t.Errorf("the walk did not call %s", r)
		}
	}
}

// startBinary starts `payledger serve` as its own process in dir with vars, until the test ends,
// and waits for /healthz.
func startBinary(t *testing.T, bin, dir string, vars []string, base string) *syncBuffer {
	t.Helper()
	out := &syncBuffer{}
	cmd := exec.Command(bin, "serve")
	cmd.Dir, cmd.Env, cmd.Stdout, cmd.Stderr = dir, append(os.Environ(), vars...), out, out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exited) }()
	t.Cleanup(func() {
		_ = cmd.Process.Signal(os.Interrupt)
		select {
		case <-exited:
		case <-time.After(30 * time.Second):
			_ = cmd.Process.Kill()
			t.Error("serve did not stop on SIGINT")
		}
	})
	if err := awaitHealthz(http.DefaultClient, base, 120*time.Second); err != nil {
		t.Fatalf("serve never answered: %v\n%s", err, out.String())
	}
	return out
}

// runBinary runs a payledger command to its end and fails the test on a non-zero exit.
func runBinary(t *testing.T, bin, dir string, vars []string, args ...string) string {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Dir, cmd.Env = dir, append(os.Environ(), vars...)
	b, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("payledger %s: %v\n%s", strings.Join(args, " "), err, b)
	}
	return string(b)
}

// awaitStatus waits until the receipt's status is want (the deposit detector credits it).
func (w *walker) awaitStatus(id, want string) {
	w.t.Helper()
	deadline := time.Now().Add(90 * time.Second)
	for {
		a := w.call("GET /api/receipts/status", "key", http.MethodGet, "/api/receipts/status?receiptId="+id, nil, 200, nil)
		if got := a.json(w.t)["status"]; got == want {
			return
		} else if time.Now().After(deadline) {
			w.t.Fatalf("receipt %s is %v, want %s", id, got, want)
		}
		time.Sleep(250 * time.Millisecond)
	}
}

// idempotentAdminPost: the same key and body replays the first answer; another body is 409.
func (w *walker) idempotentAdminPost() string {
	w.t.Helper()
	body := map[string]any{"name": "walk", "scopes": []string{"receipts:read"}}
	hdr := map[string]string{"Idempotency-Key": "walk-key-1"}
	first := w.call("POST /api/admin/keys", "session", http.MethodPost, "/api/admin/keys", body, 201, hdr)
	again := w.call("POST /api/admin/keys", "session", http.MethodPost, "/api/admin/keys", body, 201, hdr)
	if !bytes.Equal(first.body, again.body) || again.header.Get("Idempotent-Replayed") != "true" {
		w.t.Fatalf("replay: %s (replayed %q), first %s", again.body, again.header.Get("Idempotent-Replayed"), first.body)
	}
	other := w.call("POST /api/admin/keys", "session", http.MethodPost, "/api/admin/keys", map[string]any{"name": "other", "scopes": []string{"receipts:read"}}, 409, hdr)
	if other.json(w.t)["error"] != "conflict" {
		w.t.Fatalf("other body: %s", other.body)
	}
	key, _ := first.json(w.t)["apiKey"].(map[string]any)
	id, _ := key["id"].(string)
	if id == "" {
		w.t.Fatalf("no key id in %s", first.body)
	}
	return id
}

// csvRows downloads a CSV export with the key and parses it (encoding/csv), header first.
func (w *walker) csvRows(route, path string) [][]string {
	w.t.Helper()
	return w.csvRowsAs(route, "key", path)
}

// csvRowsAs downloads a CSV export as role and parses it.
func (w *walker) csvRowsAs(route, role, path string) [][]string {
	w.t.Helper()
	a := w.call(route, role, http.MethodGet, path, nil, 200, nil)
	if ct := a.header.Get("Content-Type"); !strings.HasPrefix(ct, "text/csv") {
		w.t.Fatalf("%s: Content-Type %q", path, ct)
	}
	rows, err := csv.NewReader(bytes.NewReader(a.body)).ReadAll()
	if err != nil || len(rows) == 0 {
		w.t.Fatalf("%s: %v %q", path, err, a.body)
	}
	return rows
}

// walkExports downloads both exports and finds the paid receipt in the receipts export.
func (w *walker) walkExports(receiptID string) {
	rows := w.csvRows("GET /api/exports/receipts.csv", "/api/exports/receipts.csv")
	found := false
	for _, r := range rows[1:] {
		found = found || (len(r) > 0 && r[0] == receiptID)
	}
	if !found {
		w.t.Fatalf("receipts.csv has no row for %s: %v", receiptID, rows)
	}
	w.csvRows("GET /api/exports/split-transactions.csv", "/api/exports/split-transactions.csv")
}

// signProcessor is the processor's signature of body at ts.
func signProcessor(ts int64, body string) string {
	mac := hmac.New(sha256.New, []byte(walkProcessor))
	fmt.Fprintf(mac, "%d.%s", ts, body)
	return fmt.Sprintf("t=%d,v1=%s", ts, hex.EncodeToString(mac.Sum(nil)))
}

var staticRE = regexp.MustCompile(`"(/(?:_next|dashboard)/static/[^"]+)"`)

// staticAsset is the first content-hashed asset a page links.
func staticAsset(t *testing.T, page []byte, prefix string) string {
	t.Helper()
	for _, m := range staticRE.FindAllSubmatch(page, -1) {
		if strings.HasPrefix(string(m[1]), prefix) {
			return string(m[1])
		}
	}
	t.Fatalf("no %s asset in the page", prefix)
	return ""
}

// walkSessionsEnd ends sessions last: logout of a second session, then logout-all.
func (w *walker) walkSessionsEnd(key *ecdsa.PrivateKey) {
	other, csrf := dashSession(w.t, w.base, key)
	main, mainCSRF := w.session, w.csrf
	w.session, w.csrf = other, csrf
	w.call("POST /api/auth/logout", "session", http.MethodPost, "/api/auth/logout", nil, 0, nil)
	w.session, w.csrf = main, mainCSRF
	w.call("POST /api/auth/logout-all", "session", http.MethodPost, "/api/auth/logout-all", nil, 0, nil)
}

// jsonInto decodes raw into out.
func jsonInto(raw []byte, out any) error { return json.Unmarshal(raw, out) }

// q escapes a query value.
func q(s string) string { return url.QueryEscape(s) }
