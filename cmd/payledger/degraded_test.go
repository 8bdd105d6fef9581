package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/payledger/payledger/commands"
	"github.com/payledger/payledger/docs"
	"github.com/payledger/payledger/domain/split"
	"github.com/payledger/payledger/eventstore"
	"github.com/payledger/payledger/eventstore/postgres"
	"github.com/payledger/payledger/migrations/pgtest"
	"github.com/payledger/payledger/readmodels"
)

// tcpProxy forwards a local port to PostgreSQL; cut drops every connection and refuses new ones.
type tcpProxy struct {
	t      *testing.T
	addr   string
	target string
	mu     sync.Mutex
	ln     net.Listener
	conns  []net.Conn
}

func newProxy(t *testing.T, target string) *tcpProxy {
	p := &tcpProxy{t: t, target: target}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p.addr = ln.Addr().String()
	p.serve(ln)
	t.Cleanup(p.cut)
	return p
}

func (p *tcpProxy) serve(ln net.Listener) {
	p.mu.Lock()
	p.ln = ln
	p.mu.Unlock()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			up, err := net.Dial("tcp", p.target)
			if err != nil {
				c.Close()
				continue
			}
			p.mu.Lock()
			if p.ln != ln {
				// cut ran while this connection was being dialled: it must not outlive the cut
				// (it did, and carried an order to PostgreSQL "while cut").
				p.mu.Unlock()
				c.Close()
				up.Close()
				return
			}
			p.conns = append(p.conns, c, up)
			p.mu.Unlock()
			go func() { _, _ = io.Copy(up, c); up.Close() }()
			go func() { _, _ = io.Copy(c, up); c.Close() }()
		}
	}()
}

func (p *tcpProxy) cut() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.ln != nil {
		p.ln.Close()
		p.ln = nil
	}
	for _, c := range p.conns {
		c.Close()
	}
	p.conns = nil
}

func (p *tcpProxy) restore() {
	ln, err := net.Listen("tcp", p.addr)
	if err != nil {
		p.t.Fatal(err)
	}
	p.serve(ln)
}

// TestDegradedOrdersSurviveSIGKILL: with the link to PostgreSQL cut, orders are journaled and
// acknowledged with the degraded body; the service is killed; once the link is back and the
// service restarted, every acknowledged order is in the ledger with its receipt id, once.
func TestDegradedOrdersSurviveSIGKILL(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds and runs the binary")
	}
	dir := t.TempDir()
	bin := buildPayledger(t, dir)
	direct := pgtest.URL(t)
	u, _ := url.Parse(direct)
	proxy := newProxy(t, u.Host)
	viaProxy := *u
	viaProxy.Host = proxy.addr

	// Merchant set-up straight in the database: key, split, inventory.
	ctx := context.Background()
	pool := pgtest.PoolFor(t, direct)
	wallet := "0x" + strings.Repeat("ab", 20)
	key, _, err := readmodels.NewKeys(pool).Create(ctx, wallet, "pos", []string{"orders:create", "receipts:read"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := commands.ConfigureSplit(ctx, postgres.New(pool), time.Now(), eventstore.Metadata{}, split.Configure{
		Merchant: wallet, Address: "0x" + strings.Repeat("c", 40), Platform: "0x" + strings.Repeat("b", 40)}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := readmodels.NewInventory(pool).Upsert(ctx, readmodels.Item{Wallet: wallet, SKU: "latte", Name: "Latte", PriceCents: 450, Currency: "USD", StockQty: -1}); err != nil {
		t.Fatal(err)
	}

	addr := fmt.Sprintf("127.0.0.1:%d", freePort(t))
	start := func() *exec.Cmd {
		cmd := exec.Command(bin, "serve")
		cmd.Env = append(os.Environ(), "DATABASE_URL="+viaProxy.String(), "HTTP_ADDR="+addr, "EMBEDDED_POSTGRES=off",
			"PLATFORM_RECIPIENT=0x"+strings.Repeat("b", 40), "JOURNAL_PATH="+filepath.Join(dir, "journal.jsonl"),
			"RATE_LIMIT_PER_MINUTE=100000", "SECRETS_KEY="+strings.Repeat("ab", 32))
		var logs syncBuffer // kept for the failure's message: a start that does not come up says why
		cmd.Stdout, cmd.Stderr = io.Discard, &logs
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		// A minute: under CI's load (load average 12 on 2 cores) a start took longer than 15 s.
		if err := awaitHealthz(http.DefaultClient, "http://"+addr, time.Minute); err != nil {
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
			t.Fatalf("service did not start: %v; its log's end:\n%s", err, tail(logs.String(), 4000))
		}
		return cmd
	}
	call := func(method, path, body string) (int, map[string]any) {
		req, _ := http.NewRequest(method, "http://"+addr+path, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Ocp-Apim-Subscription-Key", key)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var m map[string]any
		_ = json.NewDecoder(resp.Body).Decode(&m)
		return resp.StatusCode, m
	}
	order := `{"items":[{"sku":"latte","qty":2}]}`

	svc := start()
	if code, _ := call(http.MethodPost, "/api/orders", order); code != 200 { // warms the service's last-known data
		t.Fatalf("warm-up order: %d", code)
	}
	proxy.cut()
	var acked []string
	for range 5 {
		code, body := call(http.MethodPost, "/api/orders", order)
		if code != 200 || body["degraded"] != true || body["reason"] != "datastore_unavailable" {
			t.Fatalf("order while cut: %d %v", code, body)
		}
		acked = append(acked, body["receipt"].(map[string]any)["receiptId"].(string))
	}
	if code, body := call(http.MethodGet, "/api/receipts", ""); code != 503 || body["error"] != "datastore_unavailable" {
		t.Fatalf("a read while cut: %d %v", code, body)
	}
	resp, err := http.Get("http://" + addr + "/healthz")
	if err == nil {
		var h map[string]string
		_ = json.NewDecoder(resp.Body).Decode(&h)
		resp.Body.Close()
		if h["status"] != "degraded" {
			t.Fatalf("/healthz while cut: %v", h)
		}
	}
	_ = svc.Process.Kill() // SIGKILL: nothing gets to flush
	_ = svc.Wait()
	proxy.restore()
	svc = start()
	defer func() { _ = svc.Process.Kill(); _ = svc.Wait() }()
	for _, id := range acked {
		deadline := time.Now().Add(15 * time.Second)
		for {
			code, body := call(http.MethodGet, "/api/receipts/"+id, "")
			if code == 200 && body["receipt"].(map[string]any)["totalUsd"] == 9.05 {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("acknowledged order %s is missing after the restart: %d %v", id, code, body)
			}
			time.Sleep(100 * time.Millisecond)
		}
		var n int
		if err := pool.QueryRow(ctx, `SELECT count(*) FROM events WHERE stream_id = $1`, "receipt-"+id).Scan(&n); err != nil || n != 1 {
			t.Fatalf("receipt %s has %d events (%v), want exactly 1", id, n, err)
		}
	}
	var total int
	_ = pool.QueryRow(ctx, `SELECT count(*) FROM events WHERE type = 'ReceiptGenerated'`).Scan(&total)
	if total != 6 {
		t.Fatalf("%d receipts in the ledger, want 6 (1 warm-up + 5 journaled)", total)
	}
}

// TestDegradedRouteWalk cuts the link to PostgreSQL under a running service and calls every
// route of the OpenAPI document (the router's, by transport's route-walk test) with valid
// credentials: orders answer the spec's degraded body, users search and live theirs, and every
// other route answers without a 500 or a hang; a route that needs the database says 503
// datastore_unavailable. The table it logs is the README's list of 503 routes.
func TestDegradedRouteWalk(t *testing.T) {
	t.Parallel()
	direct := pgtest.URL(t)
	u, _ := url.Parse(direct)
	proxy := newProxy(t, u.Host)
	viaProxy := *u
	viaProxy.Host = proxy.addr
	dir := filepath.Join(t.TempDir(), ".data")
	vars := map[string]string{"DATABASE_URL": viaProxy.String(), "DEV_DATA_DIR": dir, "JOURNAL_PATH": filepath.Join(dir, "journal.jsonl"),
		"DEVCHAIN": "off", "CRON_SECRET": "cron-secret-walk", "RATE_LIMIT_PER_MINUTE": "100000", "RATE_LIMIT_PUBLIC_PER_MINUTE": "100000"}
	base, _ := startServe(t, vars)

	// A merchant made through the API (as `payledger dev merchant` does): session, split, shop,
	// items, a key with every scope; then one order and one users search while all is well.
	ctx := context.Background()
	m := &devMerchant{base: base, dir: dir, log: zerolog.Nop()}
	if err := m.run(ctx, "Walk shop", io.Discard); err != nil {
		t.Fatal(err)
	}
	key := map[string]string{"Ocp-Apim-Subscription-Key": m.apiKey, "x-cron-secret": vars["CRON_SECRET"]}
	order := map[string]any{"items": []map[string]any{{"sku": "DEV-COFFEE", "qty": 1}}}
	status, raw, err := m.call(ctx, http.MethodPost, "/api/orders", order, key)
	if err != nil || status != 200 {
		t.Fatalf("warm-up order: %d %s %v", status, raw, err)
	}
	var warm struct {
		Receipt struct {
			ReceiptID string `json:"receiptId"`
		} `json:"receipt"`
	}
	_ = json.Unmarshal(raw, &warm)
	if status, raw, _ := m.call(ctx, http.MethodGet, "/api/users/search", nil, key); status != 200 {
		t.Fatalf("warm-up search: %d %s", status, raw)
	}

	// Each route is asked once: its own answer while the datastore is down is what the walk
	// checks, not the dev merchant's retries of a GET's 503 (up to 30 s since stop 68).
	m.retryFor = 1
	proxy.cut()

	// The spec's degraded bodies.
	status, raw, _ = m.call(ctx, http.MethodPost, "/api/orders", order, key)
	var got map[string]any
	_ = json.Unmarshal(raw, &got)
	rec, _ := got["receipt"].(map[string]any)
	if status != 200 || got["ok"] != true || got["degraded"] != true || got["reason"] != "datastore_unavailable" || rec == nil || rec["receiptId"] == "" {
		t.Fatalf("order while the datastore is down: %d %s", status, raw)
	}
	for path, list := range map[string]string{"/api/users/search": "users", "/api/users/live": "live"} {
		status, raw, _ := m.call(ctx, http.MethodGet, path, nil, key)
		var body map[string]any
		_ = json.Unmarshal(raw, &body)
		if l, ok := body[list].([]any); status != 200 || body["degraded"] != true || body["reason"] != "datastore_unavailable" || !ok || len(l) != 0 {
			t.Fatalf("%s while down: %d %s", path, status, raw)
		}
	}
	// An order the service cannot price from what it read before (an item it never saw) is 503:
	// a degraded answer must carry the final receipt, and there is none to give.
	unknown := map[string]any{"items": []map[string]any{{"sku": "NEVER-SEEN", "qty": 1}}}
	if status, raw, _ := m.call(ctx, http.MethodPost, "/api/orders", unknown, key); status != 503 || !strings.Contains(string(raw), "datastore_unavailable") {
		t.Fatalf("unknown item while down: %d %s", status, raw)
	}

	// Every other route: no 500, no hang; 503 datastore_unavailable where it needs the database.
	doc, err := docs.OpenAPI()
	if err != nil {
		t.Fatal(err)
	}
	paths := doc.Paths.Map()
	var names []string
	for p := range paths {
		names = append(names, p)
	}
	sort.Strings(names)
	var table []string
	for _, p := range names {
		for method := range paths[p].Operations() {
			if p == "/api/auth/logout" { // would end the walk's session
				continue
			}
			path := strings.NewReplacer("{id}", warm.Receipt.ReceiptID, "{receiptId}", warm.Receipt.ReceiptID).Replace(p)
			if strings.Contains(path, "{") { // any other parameter: a placeholder value
				path = regexp.MustCompile(`\{[^}]+\}`).ReplaceAllString(path, "x")
			}
			if q := map[string]string{"/api/receipts/status": "?receiptId=", "/api/terminal/check-payment": "?receiptId="}[p]; q != "" {
				path += q + warm.Receipt.ReceiptID
			}
			var body any
			if method != http.MethodGet && method != http.MethodHead {
				body = map[string]any{}
			}
			cctx, cancel := context.WithTimeout(ctx, 15*time.Second)
			status, raw, err := m.call(cctx, method, path, body, key)
			cancel()
			if err != nil && !errors.Is(err, context.DeadlineExceeded) {
				t.Errorf("%s %s: %v", method, p, err)
				continue
			}
			if err != nil {
				if strings.HasSuffix(p, "/events") { // a stream answers its headers, then waits
					continue
				}
				t.Errorf("%s %s hangs while the datastore is down", method, p)
				continue
			}
			var e struct {
				Error    string `json:"error"`
				Degraded bool   `json:"degraded"`
			}
			_ = json.Unmarshal(raw, &e)
			switch {
			case status >= 500 && status != 503:
				t.Errorf("%s %s: %d %.300s", method, p, status, raw)
			case status == 503 && e.Error == "": // a configuration 503 (no processor, no subscriptions) names itself
				t.Errorf("%s %s: 503 %.300s", method, p, raw)
			}
			table = append(table, fmt.Sprintf("%-7s %-42s %d %s degraded=%v", method, p, status, e.Error, e.Degraded))
		}
	}
	sort.Strings(table)
	t.Logf("while the datastore is down:\n%s", strings.Join(table, "\n"))
}
