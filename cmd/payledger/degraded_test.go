package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/payledger/payledger/commands"
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
	if testing.Short() {
		t.Skip("builds and runs the binary")
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "payledger")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("build: %v %s", err, out)
	}
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
		cmd.Stdout, cmd.Stderr = io.Discard, io.Discard
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		for i := 0; ; i++ {
			if resp, err := http.Get("http://" + addr + "/healthz"); err == nil {
				resp.Body.Close()
				return cmd
			}
			if i > 300 {
				t.Fatal("service did not start")
			}
			time.Sleep(50 * time.Millisecond)
		}
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
