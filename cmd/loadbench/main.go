// Command loadbench (one file of ~570 lines on purpose: one program read top to bottom, phases in
// the order they run) measures the HTTP service under load, next to a raw-SQL ceiling measured in
// the same run on the same machine, and reports the service's peak resident memory.
//
// It builds and starts `payledger serve` on a fresh database, signs up a merchant (EIP-712 login,
// split, three inventory items), then runs 16 concurrent clients against POST /api/orders and
// GET /api/receipts/status; before those (users.go), GET /api/users/search over 100,000 users and a GraphQL
// leaderboard, each next to the same statements as plain SQL. `make bench` runs it.
package main

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/signer/core/apitypes"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

func main() {
	base := flag.String("db", "postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable", "PostgreSQL server (a fresh database is created on it)")
	duration := flag.Duration("duration", 30*time.Second, "length of each load phase")
	clients := flag.Int("clients", 16, "concurrent clients")
	prebuilt := flag.String("bin", "", "a payledger binary to measure instead of building ./cmd/payledger (A/B comparisons)")
	usersDuration := flag.Duration("users-duration", 10*time.Second, "length of each users phase (users.go; 0 skips them)")
	onlyUsers := flag.Bool("only-users", false, "run only the users phases")
	flag.Parse()
	if err := run(*base, *duration, *clients, *prebuilt, *usersDuration, *onlyUsers); err != nil {
		fmt.Fprintln(os.Stderr, "loadbench:", err)
		os.Exit(1)
	}
}

type result struct {
	name      string
	requests  int64
	errors    int64
	perSecond float64
	p50, p99  time.Duration
	cpu       cpuTotals // CPU used during the phase
}

// measured is load with the CPU used meanwhile and, with LOADBENCH_PPROF_ADDR, the service's
// CPU profile of the phase (loadbench-<profileName>.pprof).
func measured(servePid int, profileName, name string, clients int, d time.Duration, fn func(client int) error) result {
	before := cpuNow(servePid)
	profiled := profile(profileName, d)
	r := load(name, clients, d, fn)
	r.cpu = cpuNow(servePid).since(before)
	<-profiled
	return r
}

func run(base string, duration time.Duration, clients int, prebuilt string, usersDuration time.Duration, onlyUsers bool) error {
	ctx := context.Background()
	dbURL, drop, err := freshDatabase(ctx, base)
	if err != nil {
		return err
	}
	if os.Getenv("LOADBENCH_KEEP_DB") == "" {
		defer drop()
	} else {
		fmt.Fprintln(os.Stderr, "loadbench: keeping", dbURL)
	}
	dir, err := os.MkdirTemp("", "loadbench")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	bin := prebuilt
	if bin == "" {
		bin = filepath.Join(dir, "payledger")
		if out, err := exec.Command("go", "build", "-o", bin, "./cmd/payledger").CombinedOutput(); err != nil {
			return fmt.Errorf("build: %v: %s", err, out)
		}
	}
	admin, _ := crypto.GenerateKey()
	addr := freeAddr()
	cmd := exec.Command(bin, "serve")
	cmd.Env = append(os.Environ(), "DATABASE_URL="+dbURL, "HTTP_ADDR="+addr, "EMBEDDED_POSTGRES=off", "DEVCHAIN=off", // the order path, no chain
		"PLATFORM_RECIPIENT=0x"+strings.Repeat("b", 40), "RATE_LIMIT_PER_MINUTE=100000000", "RATE_LIMIT_PUBLIC_PER_MINUTE=100000000",
		"ADMIN_WALLETS="+crypto.PubkeyToAddress(admin.PublicKey).Hex(), "PPROF_ADDR="+os.Getenv("LOADBENCH_PPROF_ADDR"))
	// The service's logs go to /dev/null itself: io.Discard would put a pipe and a copying
	// goroutine in this process, on the cores the service is being measured on.
	devNull, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	defer devNull.Close()
	cmd.Stdout, cmd.Stderr = devNull, devNull
	if err := cmd.Start(); err != nil {
		return err
	}
	defer func() { _ = cmd.Process.Signal(os.Interrupt); _ = cmd.Wait() }()
	baseURL := "http://" + addr
	if err := waitUp(baseURL); err != nil {
		return err
	}
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: clients * 2}, Timeout: 10 * time.Second}
	key, err := signUp(client, baseURL, bin, dbURL, admin)
	if err != nil {
		return err
	}
	var users []result
	if usersDuration > 0 {
		wallet := strings.ToLower(crypto.PubkeyToAddress(admin.PublicKey).Hex())
		if users, err = usersPhases(ctx, dbURL, addr, bin, wallet, clients, usersDuration, cmd.Process.Pid); err != nil {
			return err
		}
	}
	if onlyUsers {
		printUsers(users)
		fmt.Printf("\nserve peak resident memory (VmHWM) = %.1f MiB\n", float64(peakRSS(cmd.Process.Pid))/1024)
		return nil
	}

	ceiling, err := rawCeiling(ctx, dbURL, clients, 10*time.Second)
	if err != nil {
		return err
	}
	order := request(http.MethodPost, addr, "/api/orders", key,
		`{"items":[{"sku":"latte","qty":2},{"sku":"beans","qty":1},{"sku":"mug","qty":1}],"jurisdictionCode":"US-CA"}`)
	wires := make([]*wireClient, clients)
	for i := range wires {
		wires[i] = &wireClient{addr: addr}
	}
	var idsMu sync.Mutex
	var ids []string
	orders := measured(cmd.Process.Pid, "orders", "POST /api/orders (3 lines)", clients, duration, func(w int) error {
		body, err := wires[w].call(order)
		if err != nil {
			return err
		}
		idsMu.Lock()
		enough := len(ids) >= 5000
		idsMu.Unlock()
		if enough {
			// The status phase has its receipts: the client, which shares the two cores with the
			// service, stops decoding the answers (their status code is still checked).
			return nil
		}
		var resp struct {
			Receipt struct {
				ReceiptID string `json:"receiptId"`
			} `json:"receipt"`
		}
		if err := json.Unmarshal(body, &resp); err != nil {
			return err
		}
		idsMu.Lock()
		ids = append(ids, resp.Receipt.ReceiptID)
		idsMu.Unlock()
		return nil
	})
	if len(ids) == 0 {
		return fmt.Errorf("no order succeeded")
	}
	reads := make([][]byte, len(ids))
	for i, id := range ids {
		reads[i] = request(http.MethodGet, addr, "/api/receipts/status?receiptId="+url.QueryEscape(id), key, "")
	}
	var n atomic.Int64
	status := measured(cmd.Process.Pid, "status", "GET /api/receipts/status", clients, duration, func(w int) error {
		_, err := wires[w].call(reads[int(n.Add(1))%len(reads)])
		return err
	})
	floor, err := orderRowsFloor(ctx, dbURL, clients, 10*time.Second)
	if err != nil {
		return err
	}
	rss := peakRSS(cmd.Process.Pid)

	fmt.Printf("\n| measure | requests/s | p50 | p99 | errors |\n|---|---|---|---|---|\n")
	for _, r := range []result{orders, status} {
		fmt.Printf("| %s | %.0f | %s | %s | %d of %d |\n", r.name, r.perSecond, r.p50.Round(10*time.Microsecond), r.p99.Round(10*time.Microsecond), r.errors, r.requests)
	}
	fmt.Printf("| raw-SQL ceiling: 1-row INSERT transactions, %d writers | %.0f | | | |\n", clients, ceiling)
	fmt.Printf("| reference: an order's rows (event, webhook key, receipt row) as one SQL transaction each, %d writers, no HTTP, no projector | %.0f | | | |\n", clients, floor)
	fmt.Printf("\norder creation = %.0f%% of the raw-SQL ceiling (the order's rows alone, written as plain SQL: %.0f%%); serve peak resident memory (VmHWM) = %.1f MiB\n",
		100*orders.perSecond/ceiling, 100*floor/ceiling, float64(rss)/1024)
	fmt.Printf("\nCPU per request (µs; all PostgreSQL processes, the service, this load generator, whole machine):\n| phase | PostgreSQL | serve | client | machine busy |\n|---|---|---|---|---|\n")
	for _, r := range []result{orders, status} {
		per := func(d time.Duration) string {
			return fmt.Sprintf("%.0f", float64(d.Microseconds())/float64(r.requests))
		}
		fmt.Printf("| %s | %s | %s | %s | %s |\n", r.name, per(r.cpu.postgres), per(r.cpu.serve), per(r.cpu.client), per(r.cpu.busy))
	}
	printUsers(users)
	return nil
}

// profile fetches a CPU profile of the service over most of a phase into loadbench-<name>.pprof
// when LOADBENCH_PPROF_ADDR is set (the service then serves pprof there); the channel closes when
// it is written.
func profile(name string, phase time.Duration) <-chan struct{} {
	done := make(chan struct{})
	addr := os.Getenv("LOADBENCH_PPROF_ADDR")
	if addr == "" {
		close(done)
		return done
	}
	go func() {
		defer close(done)
		secs := int((phase - 2*time.Second).Seconds())
		resp, err := http.Get(fmt.Sprintf("http://%s/debug/pprof/profile?seconds=%d", addr, max(secs, 1)))
		if err != nil {
			fmt.Fprintln(os.Stderr, "profile:", err)
			return
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		_ = os.WriteFile("loadbench-"+name+".pprof", b, 0o644)
	}()
	return done
}

// cpuUse is CPU time consumed, split by who consumed it. postgres holds each PostgreSQL
// process's time separately, because backends come and go between two readings.
type cpuUse struct {
	postgres            map[string]time.Duration
	serve, client, busy time.Duration
}

// since is the CPU used between b and c. A PostgreSQL process that exited in between (a closed
// connection's backend) is not counted; one that started is counted whole.
func (c cpuUse) since(b cpuUse) cpuTotals {
	var pg time.Duration
	for pid, t := range c.postgres {
		pg += t - b.postgres[pid]
	}
	return cpuTotals{postgres: pg, serve: c.serve - b.serve, client: c.client - b.client, busy: c.busy - b.busy}
}

type cpuTotals struct{ postgres, serve, client, busy time.Duration }

// cpuNow reads user+system CPU time from /proc: every process named postgres, the service,
// this process, and the whole machine's non-idle time. Linux only; zero elsewhere.
func cpuNow(servePid int) cpuUse {
	const tick = 10 * time.Millisecond // USER_HZ is 100 on Linux
	procTicks := func(path string) (string, time.Duration) {
		b, err := os.ReadFile(path)
		if err != nil {
			return "", 0
		}
		s := string(b)
		open, end := strings.IndexByte(s, '('), strings.LastIndexByte(s, ')')
		if open < 0 || end < open {
			return "", 0
		}
		f := strings.Fields(s[end+1:])
		if len(f) < 13 {
			return "", 0
		}
		var u, k int64
		fmt.Sscan(f[11], &u)
		fmt.Sscan(f[12], &k)
		return s[open+1 : end], time.Duration(u+k) * tick
	}
	c := cpuUse{postgres: map[string]time.Duration{}}
	_, c.serve = procTicks(fmt.Sprintf("/proc/%d/stat", servePid))
	_, c.client = procTicks("/proc/self/stat")
	dirs, _ := filepath.Glob("/proc/[0-9]*/stat")
	for _, d := range dirs {
		if name, t := procTicks(d); name == "postgres" {
			c.postgres[d] = t
		}
	}
	if b, err := os.ReadFile("/proc/stat"); err == nil {
		f := strings.Fields(strings.SplitN(string(b), "\n", 2)[0])
		for i, v := range f[1:] {
			var n int64
			fmt.Sscan(v, &n)
			if i != 3 && i != 4 { // idle, iowait
				c.busy += time.Duration(n) * tick
			}
		}
	}
	return c
}

func freshDatabase(ctx context.Context, base string) (string, func(), error) {
	var b [6]byte
	_, _ = rand.Read(b[:])
	name := "payledger_bench_" + hex.EncodeToString(b[:])
	admin, err := pgx.Connect(ctx, base)
	if err != nil {
		return "", nil, err
	}
	defer admin.Close(ctx)
	if _, err := admin.Exec(ctx, "CREATE DATABASE "+name); err != nil {
		return "", nil, err
	}
	u, _ := url.Parse(base)
	u.Path = "/" + name
	drop := func() {
		c, err := pgx.Connect(context.Background(), base)
		if err == nil {
			_, _ = c.Exec(context.Background(), "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)")
			c.Close(context.Background())
		}
	}
	return u.String(), drop, nil
}

func freeAddr() string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		panic(err)
	}
	defer l.Close()
	return l.Addr().String()
}

func waitUp(base string) error {
	for i := 0; i < 300; i++ {
		if resp, err := http.Get(base + "/healthz"); err == nil {
			resp.Body.Close()
			return nil
		}
		time.Sleep(100 * time.Millisecond)
	}
	return fmt.Errorf("service did not start")
}

func call(c *http.Client, method, url, key, body string) ([]byte, error) {
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, _ := http.NewRequest(method, url, rd)
	req.Header.Set("Content-Type", "application/json")
	if key != "" {
		req.Header.Set("Ocp-Apim-Subscription-Key", key)
	}
	resp, err := c.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode >= 300 {
		return b, fmt.Errorf("%s %s: %d %s", method, url, resp.StatusCode, b)
	}
	return b, nil
}

// signUp logs in as a merchant, configures its split, adds three items and returns a key.
func signUp(c *http.Client, base, bin, dbURL string, key *ecdsa.PrivateKey) (string, error) {
	wallet := strings.ToLower(crypto.PubkeyToAddress(key.PublicKey).Hex())
	body, err := call(c, http.MethodPost, base+"/api/auth/nonce", "", `{"wallet":"`+wallet+`"}`)
	if err != nil {
		return "", err
	}
	var nonce struct {
		TypedData apitypes.TypedData `json:"typedData"`
	}
	if err := json.Unmarshal(body, &nonce); err != nil {
		return "", err
	}
	hash, _, err := apitypes.TypedDataAndHash(nonce.TypedData)
	if err != nil {
		return "", err
	}
	sig, err := crypto.Sign(hash, key)
	if err != nil {
		return "", err
	}
	req, _ := http.NewRequest(http.MethodPost, base+"/api/auth/login", strings.NewReader(`{"wallet":"`+wallet+`","signature":"`+hexutil.Encode(sig)+`"}`))
	req.Header.Set("Content-Type", "application/json")
	resp, err := c.Do(req)
	if err != nil {
		return "", err
	}
	resp.Body.Close()
	var csrf string
	cookies := resp.Cookies()
	for _, ck := range cookies {
		if ck.Name == "cb_csrf" {
			csrf = ck.Value
		}
	}
	split, _ := http.NewRequest(http.MethodPost, base+"/api/split/deploy", strings.NewReader(`{"splitAddress":"0x`+strings.Repeat("c", 40)+`"}`))
	split.Header.Set("Content-Type", "application/json")
	split.Header.Set("x-csrf-token", csrf)
	for _, ck := range cookies {
		split.AddCookie(ck)
	}
	if resp, err := c.Do(split); err != nil || resp.StatusCode != 200 {
		return "", fmt.Errorf("split: %v %v", err, resp)
	}
	keys := exec.Command(bin, "keys", "create", "--wallet", wallet, "--scopes", "orders:create,receipts:read,inventory:write")
	keys.Env = append(os.Environ(), "DATABASE_URL="+dbURL, "EMBEDDED_POSTGRES=off")
	out, err := keys.Output()
	if err != nil {
		return "", fmt.Errorf("keys create: %w", err)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	apiKey := lines[len(lines)-1]
	for _, it := range []string{
		`{"sku":"latte","name":"Latte","priceUsd":4.5,"taxable":true}`,
		`{"sku":"beans","name":"Beans","priceUsd":18}`,
		`{"sku":"mug","name":"Mug","priceUsd":12,"taxable":true}`,
	} {
		if _, err := call(c, http.MethodPost, base+"/api/inventory", apiKey, it); err != nil {
			return "", err
		}
	}
	return apiKey, nil
}

// load runs fn from clients goroutines (each passing its index) for d and reports throughput and
// latency.
func load(name string, clients int, d time.Duration, fn func(client int) error) result {
	var mu sync.Mutex
	var lat []time.Duration
	var errs, total atomic.Int64
	deadline := time.Now().Add(d)
	start := time.Now()
	var wg sync.WaitGroup
	for w := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			local := make([]time.Duration, 0, 4096)
			for time.Now().Before(deadline) {
				t := time.Now()
				err := fn(w)
				local = append(local, time.Since(t))
				total.Add(1)
				if err != nil {
					if errs.Add(1) <= 3 {
						fmt.Fprintln(os.Stderr, name, err)
					}
				}
			}
			mu.Lock()
			lat = append(lat, local...)
			mu.Unlock()
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	pct := func(p float64) time.Duration {
		if len(lat) == 0 {
			return 0
		}
		return lat[int(float64(len(lat)-1)*p)]
	}
	return result{name: name, requests: total.Load(), errors: errs.Load(), perSecond: float64(total.Load()-errs.Load()) / elapsed.Seconds(), p50: pct(0.5), p99: pct(0.99)}
}

// rawCeiling writes single-row INSERT transactions into a copy of the events table from
// `writers` goroutines, as the foundation benchmark's ceiling does.
func rawCeiling(ctx context.Context, dbURL string, writers int, d time.Duration) (float64, error) {
	var version atomic.Int64
	data := bytes.Repeat([]byte("x"), 100)
	return sqlWriters(ctx, dbURL, writers, d, []string{`CREATE TABLE raw_ceiling (LIKE events INCLUDING ALL)`},
		func(pool *pgxpool.Pool, w int) error {
			id := randomUUID()
			_, err := pool.Exec(ctx, `INSERT INTO raw_ceiling (event_id, stream_id, version, type, data, metadata, recorded_at, hash)
				VALUES ($1, $2, $3, 'Raw', $4, '{}', now(), $5)`, hex.EncodeToString(id[:]), fmt.Sprintf("raw-%d", w), version.Add(1),
				`{"d":"`+string(data)+`"}`, id[:])
			return err
		})
}

// orderRowsFloor writes what an order stores, taken from a real order of this run (its
// ReceiptGenerated event, its encrypted webhook key, its receipts row), into copies of the three
// tables with all their indexes, one transaction per order from `writers` goroutines: what plain
// SQL alone pays for an order's rows on this machine, before any HTTP, validation, pricing,
// projector or read-your-writes wait.
func orderRowsFloor(ctx context.Context, dbURL string, writers int, d time.Duration) (float64, error) {
	var data, meta, state string
	var nonce, sealed []byte
	if err := withPool(ctx, dbURL, 1, func(pool *pgxpool.Pool) error {
		return pool.QueryRow(ctx, `SELECT e.data::text, e.metadata::text, r.state::text, k.nonce, k.ciphertext
			FROM events e JOIN receipts r ON e.stream_id = 'receipt-' || r.receipt_id JOIN receipt_webhook_keys k USING (receipt_id)
			WHERE e.type = 'ReceiptGenerated' LIMIT 1`).Scan(&data, &meta, &state, &nonce, &sealed)
	}); err != nil {
		return 0, fmt.Errorf("a real order to copy: %w", err)
	}
	var setup []string
	for _, t := range []string{"events", "receipts", "receipt_webhook_keys"} {
		setup = append(setup, `CREATE TABLE floor_`+t+` (LIKE `+t+` INCLUDING ALL)`)
	}
	var seq atomic.Int64
	return sqlWriters(ctx, dbURL, writers, d, setup, func(pool *pgxpool.Pool, _ int) error {
		i := seq.Add(1)
		id, eid := fmt.Sprintf("floor_%d", i), randomUUID()
		b := &pgx.Batch{}
		b.Queue(`INSERT INTO floor_receipt_webhook_keys (receipt_id, nonce, ciphertext) VALUES ($1, $2, $3)`, id, nonce, sealed)
		b.Queue(`INSERT INTO floor_events (event_id, stream_id, version, type, data, metadata, recorded_at, hash)
			VALUES ($1, $2, 1, 'ReceiptGenerated', $3, $4, now(), $5)`, hex.EncodeToString(eid[:]), "receipt-"+id, data, meta, eid[:])
		b.Queue(`INSERT INTO floor_receipts (receipt_id, merchant_wallet, status, currency, total_cents, state, created_at, updated_at, version, pos_commit, pos_prepare)
			VALUES ($1, $2, 'generated', 'USD', 4072, $3::jsonb, now(), now(), 1, $4, 0)`, id, "0xd52266c5e4280bcc10fb98e39dfd65a009f3068e", state, i)
		return pool.SendBatch(ctx, b).Close()
	})
}

// sqlWriters runs setup, then write from `writers` goroutines (each given its index) for d, and
// returns the successful writes per second.
func sqlWriters(ctx context.Context, dbURL string, writers int, d time.Duration, setup []string, write func(*pgxpool.Pool, int) error) (float64, error) {
	var rate float64
	err := withPool(ctx, dbURL, writers, func(pool *pgxpool.Pool) error {
		for _, stmt := range setup {
			if _, err := pool.Exec(ctx, stmt); err != nil {
				return err
			}
		}
		var n atomic.Int64
		deadline := time.Now().Add(d)
		start := time.Now()
		var wg sync.WaitGroup
		for w := range writers {
			wg.Go(func() {
				for time.Now().Before(deadline) {
					if write(pool, w) == nil {
						n.Add(1)
					}
				}
			})
		}
		wg.Wait()
		rate = float64(n.Load()) / time.Since(start).Seconds()
		return nil
	})
	return rate, err
}

func withPool(ctx context.Context, dbURL string, conns int, f func(*pgxpool.Pool) error) error {
	cfg, err := pgxpool.ParseConfig(dbURL)
	if err != nil {
		return err
	}
	cfg.MaxConns = int32(conns)
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return err
	}
	defer pool.Close()
	return f(pool)
}

func randomUUID() [16]byte {
	var id [16]byte
	_, _ = rand.Read(id[:])
	id[6], id[8] = (id[6]&0x0f)|0x40, (id[8]&0x3f)|0x80
	return id
}

// peakRSS reads the process's peak resident set (VmHWM) in KiB.
func peakRSS(pid int) int64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(line, "VmHWM:") {
			var kb int64
			fmt.Sscanf(strings.TrimSpace(strings.TrimPrefix(line, "VmHWM:")), "%d", &kb)
			return kb
		}
	}
	return 0
}
