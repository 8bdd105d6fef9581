package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/rs/zerolog"

	"github.com/payledger/payledger/internal/wait"
	"github.com/payledger/payledger/migrations/pgtest"
	"github.com/payledger/payledger/transport"
)

// Issue 36 findings 6 and 8, through `payledger serve` (docs/security.md).

// openStream opens a text/event-stream GET with headers on client and returns a channel closed
// when the stream ends (the body's EOF or error), once the answer's first bytes arrived.
func openStream(t *testing.T, client *http.Client, url string, headers map[string]string) <-chan struct{} {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, url, nil)
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	resp, err := client.Do(req)
	if err != nil {
		t.Fatalf("open %s: %v", url, err)
	}
	if resp.StatusCode != 200 || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		resp.Body.Close()
		t.Fatalf("open %s: %d %v", url, resp.StatusCode, resp.Header)
	}
	ended := make(chan struct{})
	go func() {
		defer close(ended)
		defer resp.Body.Close()
		_, _ = io.Copy(io.Discard, resp.Body)
	}()
	return ended
}

// endsWithin waits for ended and fails unless it came within limit of since (the wait itself is
// bounded by 30 s, so that a stream that never ends fails instead of hanging).
func endsWithin(t *testing.T, name string, ended <-chan struct{}, since time.Time, limit time.Duration) {
	t.Helper()
	select {
	case <-ended:
		if d := time.Since(since); d > limit {
			t.Errorf("%s ended %v after, want within %v", name, d.Round(time.Millisecond), limit)
		} else {
			t.Logf("%s ended %v after", name, d.Round(time.Millisecond))
		}
	case <-time.After(30 * time.Second):
		t.Errorf("%s still streaming 30 s after", name)
	}
}

// Finding 8: a stream opened with key K ends within 5 s after `DELETE /api/admin/keys/{K}` (it
// kept delivering events for up to 10 minutes), and the dashboard's live list of a session ends
// within 5 s after that session logs out.
func TestStreamsEndWhenTheirKeyIsRevokedOrSessionEnds(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), ".data")
	vars := map[string]string{"DEV_DATA_DIR": dir, "JOURNAL_PATH": filepath.Join(dir, "journal.jsonl"), "DEVCHAIN": "off",
		"RATE_LIMIT_PER_MINUTE": "100000", "RATE_LIMIT_PUBLIC_PER_MINUTE": "100000"}
	base, _ := startServe(t, vars)
	ctx := context.Background()
	m := &devMerchant{base: base, dir: dir, log: zerolog.Nop()}
	if err := m.run(ctx, "Stream shop", io.Discard); err != nil {
		t.Fatal(err)
	}
	var created struct {
		Key    string `json:"key"`
		APIKey struct {
			ID string `json:"id"`
		} `json:"apiKey"`
	}
	if err := m.expect(ctx, http.MethodPost, "/api/admin/keys", map[string]any{"name": "streamer", "scopes": transport.Scopes}, http.StatusCreated, &created); err != nil {
		t.Fatal(err)
	}
	plain := &http.Client{}
	byKey := openStream(t, plain, base+"/api/webhooks/stream", map[string]string{"Ocp-Apim-Subscription-Key": created.Key})
	other := openStream(t, plain, base+"/api/webhooks/stream", map[string]string{"Ocp-Apim-Subscription-Key": m.apiKey})
	bySession := openStream(t, &http.Client{Jar: m.client.Jar}, base+"/dashboard/events?ids=rcpt_live1,rcpt_live2", nil)

	if err := m.expect(ctx, http.MethodDelete, "/api/admin/keys/"+created.APIKey.ID, nil, http.StatusOK, nil); err != nil {
		t.Fatal(err)
	}
	endsWithin(t, "the revoked key's stream", byKey, time.Now(), 5*time.Second)
	select {
	case <-other:
		t.Error("the stream of another, live key ended with the revocation")
	default:
	}

	if status, raw, err := m.call(ctx, http.MethodPost, "/api/auth/logout", nil, nil); err != nil || status != 200 {
		t.Fatalf("logout: %d %s %v", status, raw, err)
	}
	endsWithin(t, "the logged-out session's dashboard stream", bySession, time.Now(), 5*time.Second)
}

// slowExport is an export read by a client that reads 1 KiB every 100 ms over a connection of
// its own.
type slowExport struct {
	status  int
	resetAt int64 // a 429's (Unix ms)
	ended   chan struct{}
	conn    net.Conn
}

// openSlowExport requests path with key and reads the answer slowly until it ends.
func openSlowExport(t *testing.T, addr, path, key string) *slowExport {
	t.Helper()
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	if tc, ok := conn.(*net.TCPConn); ok {
		_ = tc.SetReadBuffer(4096)
	}
	fmt.Fprintf(conn, "GET %s HTTP/1.1\r\nHost: %s\r\nOcp-Apim-Subscription-Key: %s\r\n\r\n", path, addr, key)
	r := bufio.NewReaderSize(conn, 1024)
	resp, err := http.ReadResponse(r, nil)
	if err != nil {
		conn.Close()
		t.Fatalf("export answer: %v", err)
	}
	e := &slowExport{status: resp.StatusCode, ended: make(chan struct{}), conn: conn}
	if e.status == http.StatusTooManyRequests {
		var body struct {
			ResetAt int64 `json:"resetAt"`
		}
		_ = json.NewDecoder(resp.Body).Decode(&body)
		e.resetAt = body.ResetAt
	}
	go func() {
		defer close(e.ended)
		defer conn.Close()
		buf := make([]byte, 1024)
		for {
			if _, err := resp.Body.Read(buf); err != nil {
				return
			}
			time.Sleep(100 * time.Millisecond) // the slow reader itself, not a synchronisation
		}
	}()
	return e
}

// exportMerchants creates four merchants' keys (receipts:read) and 40,000 receipts each (about
// 10 MB of CSV), straight into the read model the export reads.
func exportMerchants(t *testing.T, vars map[string]string, pool *pgxpool.Pool) []string {
	t.Helper()
	ctx := context.Background()
	keys := make([]string, 4)
	for i := range keys {
		wallet := fmt.Sprintf("0x%040x", 0xe0+i)
		keys[i] = createKey(t, ctx, vars, wallet, "receipts:read", "export")
		if _, err := pool.Exec(ctx, `INSERT INTO receipts (receipt_id, merchant_wallet, status, currency, total_cents,
				created_at, updated_at, version, pos_commit, pos_prepare, state)
			SELECT 'slow-' || $1 || '-' || i, $1, 'paid', 'USD', 4200, now() - interval '1 hour', now(), 2, 2000000 + i, 2000000 + i,
				jsonb_build_object('exists', true, 'status', 'paid', 'receipt', jsonb_build_object('transactionId', repeat('x', 120)),
					'payment', jsonb_build_object('token', 'USDC', 'transactionHash', '0x' || md5(i::text) || md5(i::text)))
			FROM generate_series(1, 40000) AS i`, wallet); err != nil {
			t.Fatal(err)
		}
	}
	return keys
}

// instanceAnswers checks that /healthz (ok, not degraded), a portal read and a key's read all
// answer within 5 s.
func instanceAnswers(t *testing.T, base, key string) {
	t.Helper()
	quick := &http.Client{Timeout: 5 * time.Second}
	for name, get := range map[string]func() (*http.Response, error){
		"/healthz":      func() (*http.Response, error) { return quick.Get(base + "/healthz") },
		"a portal read": func() (*http.Response, error) { return quick.Get(base + "/api/portal/rcpt_unknown") },
		"a key's read": func() (*http.Response, error) {
			req, _ := http.NewRequest(http.MethodGet, base+"/api/receipts?limit=1", nil)
			req.Header.Set("Ocp-Apim-Subscription-Key", key)
			return quick.Do(req)
		},
	} {
		// A pool the exports starve answers degraded every time; one datastore ping slower than
		// its second on a loaded machine does not, so /healthz has three tries.
		for try := 1; ; try++ {
			resp, err := get()
			if err != nil {
				t.Errorf("%s while four slow exports run: %v", name, err)
				break
			}
			var body map[string]any
			_ = json.NewDecoder(resp.Body).Decode(&body)
			resp.Body.Close()
			degraded := name == "/healthz" && body["status"] != "ok"
			if degraded && resp.StatusCode < 500 && try < 3 {
				continue
			}
			if resp.StatusCode >= 500 || degraded {
				t.Errorf("%s while four slow exports run: %d %v", name, resp.StatusCode, body)
			}
			break
		}
	}
}

// Finding 6: slow readers of the CSV export (2 per merchant, 4 merchants, DB_MAX_CONNS=8) held
// every connection: /healthz degraded, the portal hung, key lookups failed. Exports now run on
// their own pool within EXPORT_MAX_CONCURRENT (4 on the instance, 2 per merchant, else 429) and
// end after EXPORT_TIMEOUT: while four slow readers hold exports, /healthz, a portal read and a
// key's read answer at once; the readers are cut off at the timeout and the budget is free again.
func TestSlowExportReadersCannotTakeTheInstanceDown(t *testing.T) {
	t.Parallel()
	dbURL := pgtest.URL(t)
	vars := map[string]string{"DATABASE_URL": dbURL, "DEVCHAIN": "off", "DB_MAX_CONNS": "8", "EXPORT_TIMEOUT": "20s",
		"RATE_LIMIT_PER_MINUTE": "100000", "RATE_LIMIT_PUBLIC_PER_MINUTE": "100000"}
	base, _ := startServe(t, vars)
	addr, ctx := strings.TrimPrefix(base, "http://"), context.Background()
	pool := pgtest.PoolFor(t, dbURL)
	keys := exportMerchants(t, vars, pool)
	start := time.Now()
	var held []*slowExport
	codes := make([]int, 0, 9)
	for _, k := range []string{keys[0], keys[0], keys[1], keys[1], keys[2], keys[2], keys[3], keys[3], keys[0]} {
		e := openSlowExport(t, addr, "/api/exports/receipts.csv", k)
		codes = append(codes, e.status)
		if e.status == 200 {
			held = append(held, e)
		}
		if e.status == http.StatusTooManyRequests && e.resetAt < start.UnixMilli() {
			t.Errorf("a refused export's resetAt %d, want a moment to come", e.resetAt)
		}
	}
	if want := "[200 200 200 200 429 429 429 429 429]"; fmt.Sprint(codes) != want {
		t.Fatalf("exports answered %v, want %s (4 on the instance, 2 per merchant)", codes, want)
	}

	instanceAnswers(t, base, keys[3])
	var exportConns int
	if err := pool.QueryRow(ctx, `SELECT count(*) FROM pg_stat_activity WHERE application_name = 'payledger-exports' AND datname = current_database()`).Scan(&exportConns); err != nil || exportConns > 4 {
		t.Errorf("export connections: %d %v, want at most the exports' own 4", exportConns, err)
	}

	// EXPORT_TIMEOUT cuts the slow readers off: their handlers end and give their slots back, and
	// the merchant's next export is accepted. An export holds a database connection only while
	// it reads a page (stop 64), so the end is seen at the slots; each reader still has the bytes
	// its socket buffers took to read, so it is not seen at the client.
	status := 0
	if !wait.Poll(45*time.Second, func() bool {
		again := openSlowExport(t, addr, "/api/exports/receipts.csv", keys[0])
		again.conn.Close()
		status = again.status
		return status == 200
	}) {
		t.Fatalf("an export %v after the slow ones started (EXPORT_TIMEOUT 20s): %d", time.Since(start).Round(time.Second), status)
	}
	if d := time.Since(start); d < 19*time.Second {
		t.Errorf("the slow exports ended after %v, before EXPORT_TIMEOUT", d)
	}
	for _, e := range held {
		e.conn.Close()
	}
}
