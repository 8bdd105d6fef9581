package main

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/payledger/payledger/commands"
	"github.com/payledger/payledger/domain/money"
	"github.com/payledger/payledger/domain/receipt"
	"github.com/payledger/payledger/eventstore"
	"github.com/payledger/payledger/eventstore/postgres"
)

// TestHAReplicaReads (issue 37): a serve instance with DATABASE_REPLICA_URL on the cluster
// whose synchronous standby applies WAL 400 ms late (recovery_min_apply_delay). The payment
// page's read of a receipt by its id, by another client right after the merchant created it, is
// always there (it reads the primary: a replica a moment behind answered "Receipt not found" to
// the customer sent straight from the order); the merchant's own list right after each of its
// writes always has the new receipt (the read waited for the replica up to 200 ms, then read the
// primary); and a merchant that did not write through this instance reads its list from the
// replica, which does not have a receipt the primary committed a moment ago.
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

	for i := range 20 {
		code, body, err := h.call(http.MethodPost, "/api/receipts", fmt.Sprintf(`{"lineItems":[{"label":"R %d","priceUsd":3}],"totalUsd":3}`, i))
		r, _ := body["receipt"].(map[string]any)
		id, _ := r["receiptId"].(string)
		if err != nil || code != http.StatusCreated || id == "" {
			t.Fatalf("create a receipt: %d %v %v", code, body, err)
		}
		// Another client (the customer, by its address behind a trusted proxy) reads it at once.
		if code, _, err = h.call(http.MethodGet, "/api/portal/"+id, "", "X-Forwarded-For", "203.0.113.9"); err != nil || code != 200 {
			t.Fatalf("the customer's payment page right after the order: %d %v", code, err)
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
	// Merchant C writes nothing through serve: its receipts are generated on the primary directly
	// (as another instance would), so its list reads go to the replica, 400 ms behind.
	walletC := "0x" + strings.Repeat("c3", 20)
	keyC := haMerchantFor(t, c.databaseURL(), "receipts:read", walletC)
	db, err := pgxpool.New(ctx, c.databaseURL())
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	hc := &haClient{base: h.base, key: keyC, client: h.client}
	stale := 0
	for i := range 10 {
		id := haGenerateOnPrimary(t, ctx, db, walletC, i)
		// Its list until it shows the receipt: a list without it while the primary already has
		// its row was read from the replica (the projection's own delay is not counted).
		waitUntil(t, "merchant C's list to show "+id, 30*time.Second, func() bool {
			code, list, err := hc.call(http.MethodGet, "/api/receipts?limit=5", "", "X-Forwarded-For", "203.0.113.10")
			if err != nil || code != 200 {
				t.Fatalf("merchant C's list: %d %v", code, err)
			}
			if strings.Contains(fmt.Sprint(list), id) {
				return true
			}
			var onPrimary int
			if db.QueryRow(ctx, `SELECT count(*) FROM receipts WHERE receipt_id = $1`, id).Scan(&onPrimary) == nil && onPrimary == 1 {
				stale++
			}
			return false
		})
	}
	t.Logf("merchant C's lists without its new receipt while the primary had it (read from the replica): %d", stale)
	if stale == 0 {
		t.Fatal("every list of a merchant that wrote nothing through serve had the newest receipt at once: the reads did not go to the replica")
	}
}

// haGenerateOnPrimary generates a receipt of merchant on the primary (db), as another instance
// would; it returns its id.
func haGenerateOnPrimary(t *testing.T, ctx context.Context, db *pgxpool.Pool, merchant string, n int) string {
	t.Helper()
	now := time.Now()
	total := money.Cents(300)
	g := receipt.Generated{ReceiptID: commands.NewReceiptID(now), Merchant: merchant, Source: "direct", Currency: "USD", TaxRate: "0",
		TaxComponents: []string{}, LineItems: []receipt.LineItem{{Kind: receipt.KindCustom, Label: fmt.Sprintf("C %d", n), Amount: total}},
		Subtotal: total, Total: total}
	if _, _, err := commands.GenerateReceipt(ctx, postgres.New(db), now, eventstore.Metadata{}, g); err != nil {
		t.Fatal(err)
	}
	return g.ReceiptID
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
