package main

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// TestHAReplicaReads (issue 37): a serve instance with DATABASE_REPLICA_URL on the cluster
// whose synchronous standby applies WAL 400 ms late (recovery_min_apply_delay). A read of a
// receipt by anyone with its id (the payment page's) from another client comes from the replica,
// so right after the receipt's creation it is not there yet; the merchant's own list right after
// each of its writes always has the new receipt (the read waited for the replica up to 200 ms,
// then read the primary).
func TestHAReplicaReads(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("starts etcd, Patroni, PostgreSQL and serve")
	}
	haPrograms(t)
	bin := buildPayledger(t, t.TempDir())
	c := startHACluster(t, bin)
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("cluster logs:\n%s", c.logs())
		}
	})
	key := haMerchant(t, c.databaseURL(), "orders:create,receipts:read,receipts:write")
	ctx := context.Background()
	conn := haDelayStandby(t, c, "400ms")
	replicaURL := strings.Replace(c.databaseURL(), "target_session_attrs=read-write", "target_session_attrs=prefer-standby", 1)
	c.serveEnv = append(c.serveEnv, "DATABASE_REPLICA_URL="+replicaURL)
	c.startServe(0)
	h := &haClient{base: "http://" + c.addrs[0], key: key, client: &http.Client{Timeout: 30 * time.Second}}

	stale, fresh := 0, 0
	for i := range 20 {
		code, body, err := h.call(http.MethodPost, "/api/receipts", fmt.Sprintf(`{"lineItems":[{"label":"R %d","priceUsd":3}],"totalUsd":3}`, i))
		r, _ := body["receipt"].(map[string]any)
		id, _ := r["receiptId"].(string)
		if err != nil || code != http.StatusCreated || id == "" {
			t.Fatalf("create a receipt: %d %v %v", code, body, err)
		}
		// Another client (the customer, by its address behind a trusted proxy) reads it at once.
		code, _, err = h.call(http.MethodGet, "/api/portal/"+id, "", "X-Forwarded-For", "203.0.113.9")
		switch {
		case err != nil:
			t.Fatal(err)
		case code == 404:
			stale++
		case code == 200:
			fresh++
		default:
			t.Fatalf("portal read: %d", code)
		}
		// The merchant's own list right after its write has it.
		code, list, err := h.call(http.MethodGet, "/api/receipts?limit=5", "")
		if err != nil || code != 200 || !strings.Contains(fmt.Sprint(list), id) {
			var onStandby int
			_ = conn.QueryRow(ctx, `SELECT count(*) FROM receipts WHERE receipt_id = $1`, id).Scan(&onStandby)
			t.Logf("receipt %s on the standby: %d", id, onStandby)
			t.Fatalf("the merchant's list right after creating %s misses it: %d %v %v", id, code, err, list)
		}
	}
	t.Logf("reads by another client right after the creation: %d not there yet (the replica, 400 ms behind), %d there", stale, fresh)
	if stale == 0 {
		t.Fatal("every read by another client saw the receipt at once: the reads did not go to the replica")
	}
	// And a moment later the replica has it for everyone.
	code, _, err := h.call(http.MethodGet, "/api/receipts?limit=1", "", "X-Forwarded-For", "203.0.113.10")
	if err != nil || code != 200 {
		t.Fatalf("list: %d %v", code, err)
	}
}

// haDelayStandby makes the standby (node 2) apply WAL late by delay and returns a connection to
// it.
func haDelayStandby(t *testing.T, c *haCluster, delay string) *pgx.Conn {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, fmt.Sprintf("postgres://postgres@127.0.0.1:%d/payledger?sslmode=disable", c.pgPorts[1]))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = conn.Close(context.Background()) })
	// Through Patroni, which owns the nodes' configuration (it reverts ALTER SYSTEM).
	if out, err := c.patronictl("edit-config", "-p", "recovery_min_apply_delay="+delay, "--force", "payledger"); err != nil {
		t.Fatalf("patronictl edit-config: %v %s", err, out)
	}
	waitUntil(t, "the standby to apply WAL late", 30*time.Second, func() bool {
		var d string
		return conn.QueryRow(ctx, `SHOW recovery_min_apply_delay`).Scan(&d) == nil && d == delay
	})
	return conn
}
