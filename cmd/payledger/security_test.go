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
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/payledger/payledger/migrations/pgtest"
	"github.com/payledger/payledger/transport"
)

// Finding 1 of issue 30: a key used once, revoked, then the database cut: degraded mode must not
// take it back (it answered 200 to ping and a degraded receipt to an order), while a live key
// still gets its degraded order.
func TestRevokedKeyStaysRevokedWhileTheDatastoreIsDown(t *testing.T) {
	t.Parallel()
	direct := pgtest.URL(t)
	u, _ := url.Parse(direct)
	proxy := newProxy(t, u.Host)
	viaProxy := *u
	viaProxy.Host = proxy.addr
	dir := filepath.Join(t.TempDir(), ".data")
	vars := map[string]string{"DATABASE_URL": viaProxy.String(), "DEV_DATA_DIR": dir, "JOURNAL_PATH": filepath.Join(dir, "journal.jsonl"),
		"DEVCHAIN": "off", "RATE_LIMIT_PER_MINUTE": "100000", "RATE_LIMIT_PUBLIC_PER_MINUTE": "100000"}
	base, _ := startServe(t, vars)
	ctx := context.Background()
	m := &devMerchant{base: base, dir: dir, log: zerolog.Nop()}
	if err := m.run(ctx, "Revocation shop", io.Discard); err != nil {
		t.Fatal(err)
	}
	var created struct {
		Key    string `json:"key"`
		APIKey struct {
			ID string `json:"id"`
		} `json:"apiKey"`
	}
	if err := m.expect(ctx, http.MethodPost, "/api/admin/keys", map[string]any{"name": "k", "scopes": transport.Scopes}, http.StatusCreated, &created); err != nil {
		t.Fatal(err)
	}
	revoked := map[string]string{"Ocp-Apim-Subscription-Key": created.Key}
	live := map[string]string{"Ocp-Apim-Subscription-Key": m.apiKey}
	order := map[string]any{"items": []map[string]any{{"sku": "DEV-COFFEE", "qty": 1}}}
	for name, h := range map[string]map[string]string{"revoked": revoked, "live": live} {
		if status, raw, err := m.call(ctx, http.MethodPost, "/api/orders", order, h); err != nil || status != 200 {
			t.Fatalf("%s key's order while all is well: %d %s %v", name, status, raw, err)
		}
	}
	if err := m.expect(ctx, http.MethodDelete, "/api/admin/keys/"+created.APIKey.ID, nil, http.StatusOK, nil); err != nil {
		t.Fatal(err)
	}

	proxy.cut()

	if status, raw, _ := m.call(ctx, http.MethodGet, "/api/status/ping", nil, revoked); status == 200 {
		t.Errorf("ping with the revoked key while the datastore is down: %d %s", status, raw)
	}
	status, raw, _ := m.call(ctx, http.MethodPost, "/api/orders", order, revoked)
	if status == 200 {
		t.Errorf("order with the revoked key while the datastore is down: %d %s", status, raw)
	}
	status, raw, _ = m.call(ctx, http.MethodPost, "/api/orders", order, live)
	var got map[string]any
	_ = json.Unmarshal(raw, &got)
	if status != 200 || got["degraded"] != true {
		t.Errorf("order with the live key while the datastore is down: %d %s", status, raw)
	}
}

// Finding 10 of issue 30: a client trickling its request body one byte every 2 s is cut off
// (ReadTimeout), instead of holding the connection indefinitely. A real client against serve.
func TestTricklingClientIsCutOff(t *testing.T) {
	t.Parallel()
	base, _ := startServe(t, map[string]string{"DEVCHAIN": "off"})
	conn, err := net.Dial("tcp", strings.TrimPrefix(base, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := fmt.Fprintf(conn, "POST /api/auth/nonce HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"); err != nil {
		t.Fatal(err)
	}
	// Waits for the condition (the server answers or closes); the deadline only bounds a failure.
	deadline := time.Now().Add(3 * time.Minute)
	buf := make([]byte, 512)
	for time.Now().Before(deadline) {
		if _, err := conn.Write([]byte(" ")); err != nil {
			return // the server closed the connection
		}
		_ = conn.SetReadDeadline(time.Now().Add(2 * time.Second))
		n, err := conn.Read(buf)
		if n > 0 || (err != nil && !errors.Is(err, os.ErrDeadlineExceeded)) {
			return // answered (the body read timed out) or closed
		}
	}
	t.Fatal("a client trickling its body stayed connected for 3 minutes")
}
