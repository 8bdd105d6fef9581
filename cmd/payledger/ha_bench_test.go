package main

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/payledger/payledger/migrations/pgtest"
)

// TestHAThroughput measures, in one run and alternating, orders per second through HAProxy on
// the cluster (two serve instances, Patroni, a synchronous standby) against one serve on one
// PostgreSQL (the local server, no replication), with the same clients, and the cluster with
// synchronous_commit = remote_write and with orders spread over both instances. A benchmark, not
// a check: it runs with PAYLEDGER_HA_BENCH=1 (5 rounds), or =all (3 rounds, and the cluster's
// parts: one instance with and without the proxy, two without it); figures in
// docs/benchmarks.md.
func TestHAThroughput(t *testing.T) {
	if os.Getenv("PAYLEDGER_HA_BENCH") == "" {
		t.Skip("a benchmark of the cluster: set PAYLEDGER_HA_BENCH=1 (figures in docs/benchmarks.md)")
	}
	haPrograms(t)
	bin := buildPayledger(t, t.TempDir())
	c := startHACluster(t, bin)
	scopes := "orders:create,receipts:read,receipts:write"
	clusterKey := haMerchant(t, c.databaseURL(), scopes)
	c.startServe(0)
	c.startServe(1)
	c.startProxy()

	single := pgtest.URL(t)
	singleKey := haMerchant(t, single, scopes)
	addr := fmt.Sprintf("127.0.0.1:%d", freePort(t))
	env := append(slices.Clip(c.serveEnv), "DATABASE_URL="+single, "HTTP_ADDR="+addr, "JOURNAL_PATH="+c.dir+"/journal-single.jsonl", "DEV_DATA_DIR="+c.dir+"/single")
	c.start(t, "serve-single", env, nil, bin, "serve")
	if err := awaitHealthz(http.DefaultClient, "http://"+addr, 90*time.Second); err != nil {
		t.Fatal(err)
	}

	replicaURL := strings.Replace(c.databaseURL(), "target_session_attrs=read-write", "target_session_attrs=prefer-standby", 1)
	withReplica := haExtraServe(t, c, "serve-replica", "DATABASE_REPLICA_URL="+replicaURL)
	type target struct {
		name, base, key string
		during          func() (undo func()) // nil: nothing changes around the round
	}
	targets := []target{
		{"one serve, one PostgreSQL", "http://" + addr, singleKey, nil},
		{"HAProxy, two serve, Patroni primary + synchronous standby (make ha: orders to one instance at a time)", "http://" + c.proxy, clusterKey, nil},
		{"the same, synchronous_commit = remote_write", "http://" + c.proxy, clusterKey, haSyncCommit(t, c, "remote_write")},
		{"the same, orders spread over both instances (balance leastconn)", haSpreadProxy(t, c), clusterKey, nil},
	}
	rounds := 5
	if os.Getenv("PAYLEDGER_HA_BENCH") == "all" { // where the difference comes from, in parts
		rounds = 3
		targets = append(targets,
			target{"one serve on the cluster, no proxy", "http://" + c.addrs[0], clusterKey, nil},
			target{"HAProxy, one serve on the cluster", haOneServeProxy(t, c), clusterKey, nil},
			target{"two serve on the cluster, no proxy (8 clients each)", "http://" + c.addrs[0] + " http://" + c.addrs[1], clusterKey, nil})
	}
	const clients, each = 16, 8 * time.Second
	rates := make([][]float64, len(targets))
	for r := range rounds {
		for i, tg := range targets {
			h := &haClient{base: tg.base, key: tg.key, client: &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: 64}}}
			undo := func() {}
			if tg.during != nil {
				undo = tg.during()
			}
			rates[i] = append(rates[i], haMeasure(h, clients, each, http.MethodPost, "/api/orders", `{"items":[{"sku":"latte","qty":1}]}`))
			undo()
			t.Logf("round %d, %s: %.0f orders/s", r+1, tg.name, rates[i][r])
		}
	}
	var b strings.Builder
	b.WriteString("| target | orders/s per round | median | of the single node |\n|---|---|---|---|\n")
	for i, tg := range targets {
		fmt.Fprintf(&b, "| %s | %s | %.0f | %.0f%% |\n", tg.name, fmtRates(rates[i]), median(rates[i]), 100*median(rates[i])/median(rates[0]))
	}
	t.Logf("%d clients, %v per round, %d rounds alternating:\n%s", clients, each, rounds, b.String())
	haStatusReads(t, c, clusterKey, withReplica)
}

// haSyncCommit returns what sets the cluster's synchronous_commit to level for a round and puts
// it back after: ALTER SYSTEM on the primary and a reload, which every session of the pools picks
// up (they do not set it themselves). Patroni's own setting (deploy/ha/patroni.yml) is the
// default it returns to.
func haSyncCommit(t *testing.T, c *haCluster, level string) func() func() {
	set := func(v string) {
		db, err := pgx.Connect(context.Background(), c.databaseURL())
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close(context.Background())
		q := "ALTER SYSTEM RESET synchronous_commit"
		if v != "" {
			q = "ALTER SYSTEM SET synchronous_commit = " + v
		}
		if _, err := db.Exec(context.Background(), q); err != nil {
			t.Fatal(err)
		}
		if _, err := db.Exec(context.Background(), "SELECT pg_reload_conf()"); err != nil {
			t.Fatal(err)
		}
		waitUntil(t, "synchronous_commit "+v, 10*time.Second, func() bool {
			var got string
			return db.QueryRow(context.Background(), "SHOW synchronous_commit").Scan(&got) == nil && (got == v || v == "" && got != level)
		})
	}
	return func() func() { set(level); return func() { set("") } }
}

// haStatusReads measures reads of receipts by other clients (GET /api/portal/{id}, as the
// payment page polls) per second on one instance without a replica and one with
// DATABASE_REPLICA_URL, alternating, same run.
func haStatusReads(t *testing.T, c *haCluster, key, withReplica string) {
	h := &haClient{base: "http://" + c.addrs[0], key: key, client: &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: 64}}}
	var ids []string
	for i := range 50 {
		code, body, err := h.call(http.MethodPost, "/api/receipts", fmt.Sprintf(`{"lineItems":[{"label":"S %d","priceUsd":2}],"totalUsd":2}`, i))
		r, _ := body["receipt"].(map[string]any)
		id, _ := r["receiptId"].(string)
		if err != nil || code != http.StatusCreated {
			t.Fatalf("create: %d %v", code, err)
		}
		ids = append(ids, id)
	}
	// The replica has them: the instance that reads from it serves the last one written.
	replica := &haClient{base: withReplica, key: key, client: h.client}
	waitUntil(t, "the replica has the receipts", 30*time.Second, func() bool {
		code, _, err := replica.call(http.MethodGet, "/api/portal/"+ids[len(ids)-1], "")
		return err == nil && code == 200
	})
	bases := []string{"http://" + c.addrs[0], withReplica}
	names := []string{"primary only", "DATABASE_REPLICA_URL (the standby)"}
	rates := make([][]float64, 2)
	for range 3 {
		for i, base := range bases {
			var n atomic.Int64
			rates[i] = append(rates[i], haReads(&haClient{base: base, key: key, client: h.client}, ids, &n, 16, 5*time.Second))
		}
	}
	var b strings.Builder
	b.WriteString("| reads from | reads/s per round | median |\n|---|---|---|\n")
	for i, name := range names {
		fmt.Fprintf(&b, "| %s | %s | %.0f |\n", name, fmtRates(rates[i]), median(rates[i]))
	}
	t.Logf("GET /api/portal/{id} by other clients, 16 readers, 5 s per round, alternating:\n%s", b.String())
}

// haReads runs readers of the receipts for d and returns the 200s per second.
func haReads(h *haClient, ids []string, n *atomic.Int64, readers int, d time.Duration) float64 {
	deadline := time.Now().Add(d)
	var wg sync.WaitGroup
	for r := range readers {
		wg.Go(func() {
			for i := r; time.Now().Before(deadline); i++ {
				ip := fmt.Sprintf("198.51.100.%d", 1+i%200) // customers, not the merchant that wrote
				if code, _, err := h.call(http.MethodGet, "/api/portal/"+ids[i%len(ids)], "", "X-Forwarded-For", ip); err == nil && code == 200 {
					n.Add(1)
				}
			}
		})
	}
	wg.Wait()
	return float64(n.Load()) / d.Seconds()
}

// haExtraServe starts one more serve instance on the cluster with extra settings and returns its
// base URL.
func haExtraServe(t *testing.T, c *haCluster, name string, extra ...string) string {
	addr := fmt.Sprintf("127.0.0.1:%d", freePort(t))
	env := append(append(slices.Clip(c.serveEnv), "HTTP_ADDR="+addr, "JOURNAL_PATH="+c.dir+"/journal-"+name+".jsonl", "DEV_DATA_DIR="+c.dir+"/"+name), extra...)
	c.start(t, name, env, nil, c.bin, "serve")
	if err := awaitHealthz(http.DefaultClient, "http://"+addr, 90*time.Second); err != nil {
		t.Fatal(err)
	}
	return "http://" + addr
}

// haOneServeProxy starts another HAProxy whose two servers are both the first instance, and
// returns its base URL: the proxy's cost alone.
func haOneServeProxy(t *testing.T, c *haCluster) string {
	addr := fmt.Sprintf("127.0.0.1:%d", freePort(t))
	env := append(os.Environ(), "HA_HTTP_BIND="+addr, fmt.Sprintf("HA_STATS_BIND=127.0.0.1:%d", freePort(t)),
		"SERVE1_ADDR="+c.addrs[0], "SERVE2_ADDR="+c.addrs[0])
	c.start(t, "haproxy-one", env, nil, "haproxy", "-db", "-f", c.haproxy)
	waitUntil(t, "HAProxy", 30*time.Second, func() bool { return httpOK("http://" + addr + "/healthz") })
	return "http://" + addr
}

// haSpreadProxy starts another HAProxy with deploy/ha's configuration, except that orders are
// spread over both instances like every other request, and returns its base URL.
func haSpreadProxy(t *testing.T, c *haCluster) string {
	b, err := os.ReadFile(c.haproxy)
	if err != nil {
		t.Fatal(err)
	}
	cfg := strings.Replace(string(b), "    balance first\n", "    balance leastconn\n", 1)
	if cfg == string(b) {
		t.Fatal("deploy/ha/haproxy.cfg has no orders backend with balance first")
	}
	path := c.haproxy + ".spread"
	if err := os.WriteFile(path, []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	addr := fmt.Sprintf("127.0.0.1:%d", freePort(t))
	env := append(os.Environ(), "HA_HTTP_BIND="+addr, fmt.Sprintf("HA_STATS_BIND=127.0.0.1:%d", freePort(t)),
		"SERVE1_ADDR="+c.addrs[0], "SERVE2_ADDR="+c.addrs[1])
	c.start(t, "haproxy-spread", env, nil, "haproxy", "-db", "-f", path)
	waitUntil(t, "HAProxy", 30*time.Second, func() bool { return httpOK("http://" + addr + "/healthz") })
	return "http://" + addr
}

// haMeasure runs clients sending the request for d and returns the 2xx answers per second. A
// base of several URLs (space-separated) spreads the clients over them in turn.
func haMeasure(h *haClient, clients int, d time.Duration, method, path, body string) float64 {
	var ok atomic.Int64
	deadline := time.Now().Add(d)
	var wg sync.WaitGroup
	bases := strings.Fields(h.base)
	for i := range clients {
		h := &haClient{base: bases[i%len(bases)], key: h.key, client: h.client}
		wg.Go(func() {
			for time.Now().Before(deadline) {
				if code, _, err := h.call(method, path, body); err == nil && code/100 == 2 {
					ok.Add(1)
				}
			}
		})
	}
	wg.Wait()
	return float64(ok.Load()) / d.Seconds()
}

func fmtRates(r []float64) string {
	s := make([]string, len(r))
	for i, v := range r {
		s[i] = fmt.Sprintf("%.0f", v)
	}
	return strings.Join(s, ", ")
}

func median(r []float64) float64 {
	s := slices.Clone(r)
	slices.Sort(s)
	if len(s) == 0 {
		return 0
	}
	return s[len(s)/2]
}
