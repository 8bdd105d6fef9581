package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/payledger/payledger/commands"
	"github.com/payledger/payledger/domain/split"
	"github.com/payledger/payledger/eventstore"
	"github.com/payledger/payledger/eventstore/postgres"
	"github.com/payledger/payledger/migrations/pgtest"
	"github.com/payledger/payledger/readmodels"
)

// faultLoad is what the order clients and the status sampler saw, shared between them.
type faultLoad struct {
	mu       sync.Mutex
	acked    []string        // every acknowledged receipt id, in answer order
	degraded map[string]bool // acknowledged id -> answered with the degraded body
	orders   map[string]int  // order answers by kind ("200", "200 degraded", "503 datastore_unavailable", ...)
	samples  map[string]int  // status reads during the load by code
	bad      []string        // answers the service must never give
	notFound []string        // status reads of acknowledged receipts answered 404

	// Per order client, when its last degraded answer came; quick counts degraded answers that came
	// sooner than quickDegraded after the same client's previous one, and quickSeen closes at the
	// first (see TestAcknowledgedOrdersSurviveAHungPostgres).
	lastDegraded map[int]time.Time
	quick        int
	quickSeen    chan struct{}
}

// quickDegraded: a client's degraded answer this soon after its previous one can only come from
// the stalled bound (transport.stalledIssueWait, 1 s): without it, every order waits the whole
// transport.issueWait (5 s) from its start, which is after the previous answer.
const quickDegraded = 4 * time.Second

func (l *faultLoad) degradedAt(client int, at time.Time) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if prev, ok := l.lastDegraded[client]; ok && at.Sub(prev) < quickDegraded {
		if l.quick == 0 {
			close(l.quickSeen)
		}
		l.quick++
	}
	l.lastDegraded[client] = at
}

func (l *faultLoad) ack(id string, degraded bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if _, dup := l.degraded[id]; dup {
		l.bad = append(l.bad, "receipt id "+id+" acknowledged twice")
		return
	}
	l.acked = append(l.acked, id)
	l.degraded[id] = degraded
}

func (l *faultLoad) count(m map[string]int, kind string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	m[kind]++
}

func (l *faultLoad) fail(format string, args ...any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.bad) < 20 {
		l.bad = append(l.bad, fmt.Sprintf(format, args...))
	}
}

// pick returns an acknowledged id, a degraded one half of the time when there is any (they are
// the ones a replay must bring in).
func (l *faultLoad) pick() (string, bool, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.acked) == 0 {
		return "", false, false
	}
	if rand.IntN(2) == 0 {
		for range 20 {
			if id := l.acked[rand.IntN(len(l.acked))]; l.degraded[id] {
				return id, true, true
			}
		}
	}
	id := l.acked[rand.IntN(len(l.acked))]
	return id, l.degraded[id], true
}

// TestAcknowledgedOrdersSurvivePostgresRestarts is the fault test of issue 14: the real service
// runs against a private PostgreSQL cluster that is crashed and restarted (pg_ctl restart -m
// immediate) three times, 2 s apart, under order load from 8 clients. Every acknowledged order,
// plain or degraded, must end up readable through GET /api/receipts/status and in the ledger
// once; an order is answered 200 {ok} or 503 datastore_unavailable, nothing else (no other 5xx,
// no 4xx, no hang); and a status read of an acknowledged receipt during the restarts may be 200
// or 503, never 404.
func TestAcknowledgedOrdersSurvivePostgresRestarts(t *testing.T) {
	t.Parallel()
	faultTest(t, 8, 0, func(ctx context.Context, cluster *privateCluster, began time.Time, _ *faultLoad) ([]string, error) {
		var restarts []string
		for range 3 {
			time.Sleep(2 * time.Second) // load on the healthy cluster between the faults
			t0 := time.Now()
			if err := cluster.restartImmediate(ctx); err != nil {
				return restarts, fmt.Errorf("restart the private cluster: %w", err)
			}
			restarts = append(restarts, fmt.Sprintf("restart at %v took %v", t0.Sub(began).Round(time.Millisecond), time.Since(t0).Round(time.Millisecond)))
		}
		return restarts, nil
	})
}

// TestAcknowledgedOrdersSurviveAPostgresStop is issue 27's case: pg_ctl stop -m immediate, about
// 4 s without a server (connections refused), then start, under 16 order clients as the issue
// found it. Orders of a merchant that ordered before must get the degraded body while it is down
// (not only 503s), and none be lost.
func TestAcknowledgedOrdersSurviveAPostgresStop(t *testing.T) {
	t.Parallel()
	faultTest(t, 16, 1, func(ctx context.Context, cluster *privateCluster, began time.Time, _ *faultLoad) ([]string, error) {
		time.Sleep(2 * time.Second)
		t0 := time.Now()
		if err := cluster.stop(ctx); err != nil {
			return nil, err
		}
		time.Sleep(3800 * time.Millisecond) // the outage itself
		if err := cluster.start(ctx); err != nil {
			return nil, err
		}
		return []string{fmt.Sprintf("stop at %v, started again after %v", t0.Sub(began).Round(time.Millisecond), time.Since(t0).Round(time.Millisecond))}, nil
	})
}

// TestAcknowledgedOrdersSurviveAHungPostgres: every process of the cluster stopped (SIGSTOP) for
// about 9 s: connections are accepted by the kernel and never answered, open ones never answer
// either. Orders must still be answered (degraded), reads answered (503 at worst), none lost.
// Each client's order in flight when the server hangs waits the whole bound (transport.issueWait,
// 5 s) before it is journaled; the orders after it must not each wait as long (the stalled
// bound): some client must get a second degraded answer sooner than quickDegraded after its
// first (without the stalled bound, a client's degraded answers are at least 5 s apart). The hang
// lasts 9 s, or until that is seen (at most 25 s, within transport.stalledFor), so a loaded
// machine is given the time rather than a count to reach.
func TestAcknowledgedOrdersSurviveAHungPostgres(t *testing.T) {
	t.Parallel()
	const clients = 16
	faultTest(t, clients, 1, func(ctx context.Context, cluster *privateCluster, began time.Time, load *faultLoad) ([]string, error) {
		time.Sleep(2 * time.Second)
		t0 := time.Now()
		resume, n, err := cluster.freeze()
		if err != nil {
			return nil, err
		}
		// The server must not answer while frozen (or the test tests nothing).
		pctx, cancel := context.WithTimeout(ctx, time.Second)
		_, perr := pgx.Connect(pctx, cluster.URL("payledger"))
		cancel()
		time.Sleep(8 * time.Second) // the rest of the hang: longer than an order's bound (transport.issueWait) and then some stalled bounds
		select {
		case <-load.quickSeen:
		case <-time.After(25*time.Second - time.Since(t0)):
		case <-ctx.Done():
		}
		if err := resume(); err != nil {
			return nil, err
		}
		if perr == nil {
			return nil, fmt.Errorf("the frozen cluster (%d processes) accepted a connection", n)
		}
		return []string{fmt.Sprintf("%d processes frozen at %v for %v", n, t0.Sub(began).Round(time.Millisecond), time.Since(t0).Round(time.Millisecond))}, nil
	}, func(load *faultLoad) error {
		if load.quick == 0 {
			return fmt.Errorf("no order client got a degraded answer sooner than %v after its previous one while the datastore hung (orders by answer %v): each order waited the whole bound", quickDegraded, load.orders)
		}
		return nil
	})
}

// faultTest runs the service against a private cluster under order load from the given number of
// clients and a status sampler, lets faults damage the cluster (returning what it did, for the
// log), keeps the load 2 s more, and checks every acknowledged order is stored once and no answer
// was wrong.
// minDegraded: how many orders at least must have got the degraded body.
// checks are further checks of the load once it has stopped.
func faultTest(t *testing.T, clients, minDegraded int, faults func(ctx context.Context, c *privateCluster, began time.Time, load *faultLoad) ([]string, error), checks ...func(*faultLoad) error) {
	if testing.Short() {
		t.Skip("starts a private PostgreSQL cluster and the service binary, and crashes the cluster under load")
	}
	began := time.Now()
	cluster := startPrivateCluster(t)
	dir := t.TempDir()
	bin := buildPayledger(t, dir)
	dbURL := cluster.URL("payledger")
	ctx := context.Background()

	// The merchant: a key made by `payledger keys create` (after `payledger migrate` creates and
	// migrates the database), the split (orders need one), an item.
	wallet := "0x" + strings.Repeat("cd", 20)
	vars := map[string]string{"DATABASE_URL": dbURL, "EMBEDDED_POSTGRES": "off"}
	key := createKey(t, ctx, vars, wallet, "orders:create,receipts:read", "fault")
	setup := pgtest.PoolFor(t, dbURL)
	if _, err := commands.ConfigureSplit(ctx, postgres.New(setup), time.Now(), eventstore.Metadata{}, split.Configure{
		Merchant: wallet, Address: "0x" + strings.Repeat("c", 40), Platform: "0x" + strings.Repeat("b", 40)}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := readmodels.NewInventory(setup).Upsert(ctx, readmodels.Item{Wallet: wallet, SKU: "latte", Name: "Latte", PriceCents: 450, Currency: "USD", StockQty: -1}); err != nil {
		t.Fatal(err)
	}
	setup.Close()

	// The service, as its own process.
	addr := fmt.Sprintf("127.0.0.1:%d", freePort(t))
	logPath := filepath.Join(dir, "service.log")
	logFile, err := os.Create(logPath)
	if err != nil {
		t.Fatal(err)
	}
	svc := exec.Command(bin, "serve")
	svc.Env = append(os.Environ(), "DATABASE_URL="+dbURL, "HTTP_ADDR="+addr, "EMBEDDED_POSTGRES=off",
		"PLATFORM_RECIPIENT=0x"+strings.Repeat("b", 40), "JOURNAL_PATH="+filepath.Join(dir, "journal.jsonl"),
		"RATE_LIMIT_PER_MINUTE=10000000", "SECRETS_KEY="+strings.Repeat("cd", 32))
	svc.Stdout, svc.Stderr = logFile, logFile
	if err := svc.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = svc.Process.Kill(); _ = svc.Wait(); _ = logFile.Close() })
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("service log, last errors and journal lines:\n%s", lastProblems(logPath, 25))
		}
	})

	client := &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: 32}}
	defer client.CloseIdleConnections()
	call := func(method, path, body string) (int, map[string]any, error) {
		req, _ := http.NewRequest(method, "http://"+addr+path, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Ocp-Apim-Subscription-Key", key)
		resp, err := client.Do(req)
		if err != nil {
			return 0, nil, err
		}
		defer resp.Body.Close()
		var m map[string]any
		_ = json.NewDecoder(resp.Body).Decode(&m)
		return resp.StatusCode, m, nil
	}
	status := func(id string) (int, map[string]any, error) {
		return call(http.MethodGet, "/api/receipts/status?receiptId="+url.QueryEscape(id), "")
	}
	if err := awaitHealthz(client, "http://"+addr, time.Minute); err != nil {
		t.Fatalf("the service did not start: %v", err)
	}
	const order = `{"items":[{"sku":"latte","qty":2}]}`
	if code, body, err := call(http.MethodPost, "/api/orders", order); err != nil || code != 200 || body["ok"] != true {
		t.Fatalf("first order: %d %v %v", code, body, err) // also what degraded mode prices from
	}

	loadStarted := time.Since(began).Round(time.Millisecond)

	// The load: the order clients and one status sampler until stop closes.
	load := &faultLoad{degraded: map[string]bool{}, orders: map[string]int{}, samples: map[string]int{},
		lastDegraded: map[int]time.Time{}, quickSeen: make(chan struct{})}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	stopLoad := sync.OnceFunc(func() { close(stop); wg.Wait() })
	defer stopLoad()
	stopped := func() bool {
		select {
		case <-stop:
			return true
		default:
			return false
		}
	}
	for c := range clients {
		wg.Go(func() {
			for !stopped() {
				code, body, err := call(http.MethodPost, "/api/orders", order)
				switch {
				case err != nil:
					load.count(load.orders, "no answer")
					load.fail("POST /api/orders: no answer: %v", err)
				case code == 200 && body["ok"] == true:
					r, _ := body["receipt"].(map[string]any)
					id, _ := r["receiptId"].(string)
					if id == "" {
						load.fail("POST /api/orders: 200 without a receipt id: %v", body)
						continue
					}
					degraded := body["degraded"] == true
					if degraded {
						load.degradedAt(c, time.Now())
						load.count(load.orders, "200 degraded")
					} else {
						load.count(load.orders, "200")
					}
					load.ack(id, degraded)
				case code == 503 && body["error"] == "datastore_unavailable":
					load.count(load.orders, "503 datastore_unavailable")
				default:
					load.count(load.orders, fmt.Sprintf("%d %v", code, body["error"]))
					load.fail("POST /api/orders: %d %v", code, body)
				}
			}
		})
	}
	wg.Go(func() {
		for !stopped() {
			time.Sleep(20 * time.Millisecond)
			id, degraded, ok := load.pick()
			if !ok {
				continue
			}
			at := time.Since(began).Round(time.Millisecond)
			code, body, err := status(id)
			switch {
			case err != nil:
				load.count(load.samples, "no answer")
				load.fail("GET /api/receipts/status (during the restarts): no answer: %v", err)
			case code == 200:
				load.count(load.samples, "200")
			case code == 503 && body["error"] == "datastore_unavailable":
				load.count(load.samples, "503")
			case code == 404:
				load.count(load.samples, "404")
				load.mu.Lock()
				load.notFound = append(load.notFound, fmt.Sprintf("%s (degraded=%v, read at %v)", id, degraded, at))
				load.mu.Unlock()
			default:
				load.count(load.samples, fmt.Sprint(code))
				load.fail("GET /api/receipts/status (during the restarts): %d %v", code, body)
			}
		}
	})

	fctx, cancelFaults := context.WithTimeout(ctx, 2*time.Minute)
	restarts, err := faults(fctx, cluster, began, load)
	cancelFaults()
	if err != nil {
		stopLoad()
		t.Fatal(err)
	}
	time.Sleep(2 * time.Second)
	stopLoad()
	loadEnded := time.Now()

	wctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	err = cluster.waitAnswers(wctx, "payledger")
	cancel()
	if err != nil {
		t.Fatal(err)
	}

	// Every acknowledged receipt must become readable; poll the missing ones for up to 30 s.
	missing := slices.Clone(load.acked)
	deadline := time.Now().Add(30 * time.Second)
	lastAnswer := map[string]string{}
	for len(missing) > 0 && time.Now().Before(deadline) {
		var mu sync.Mutex
		var still []string
		ids := make(chan string)
		var readers sync.WaitGroup
		for range 8 {
			readers.Go(func() {
				for id := range ids {
					code, body, err := status(id)
					if err == nil && code == 200 && body["receiptId"] == id {
						continue
					}
					mu.Lock()
					still = append(still, id)
					if err != nil {
						lastAnswer[id] = err.Error()
					} else {
						lastAnswer[id] = fmt.Sprintf("%d %v", code, body["error"])
					}
					mu.Unlock()
				}
			})
		}
		for _, id := range missing {
			ids <- id
		}
		close(ids)
		readers.Wait()
		missing = still
		if len(missing) > 0 {
			time.Sleep(500 * time.Millisecond)
		}
	}
	settled := time.Since(loadEnded).Round(time.Millisecond)

	// Each acknowledged receipt is in the ledger once (a replay must not store an order twice).
	check := pgtest.PoolFor(t, dbURL)
	var twice []string
	rows, err := check.Query(ctx, `SELECT stream_id FROM events WHERE type = 'ReceiptGenerated' AND stream_id = ANY($1) GROUP BY stream_id HAVING count(*) > 1`,
		streamsOf(load.acked))
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			t.Fatal(err)
		}
		twice = append(twice, s)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}

	degradedN := 0
	for _, d := range load.degraded {
		if d {
			degradedN++
		}
	}
	acked := len(load.acked)
	t.Logf("acknowledged %d, degraded %d (%d sooner than %v after the same client's previous one), stored %d, lost %d", acked, degradedN, load.quick, quickDegraded, acked-len(missing), len(missing))
	t.Logf("orders by answer %v; status reads during the faults %v; load from %v, faults %v; settled %v after the load; test ran %v",
		load.orders, load.samples, loadStarted, restarts, settled, time.Since(began).Round(time.Millisecond))
	if degradedN < minDegraded {
		t.Errorf("%d orders got the degraded body while the datastore was away, want at least %d (orders by answer %v)", degradedN, minDegraded, load.orders)
	}

	for _, check := range checks {
		if err := check(load); err != nil {
			t.Error(err)
		}
	}
	for _, b := range load.bad {
		t.Errorf("unexpected answer: %s", b)
	}
	if n := len(load.notFound); n > 0 {
		plain := 0
		for _, s := range load.notFound {
			if strings.Contains(s, "degraded=false") {
				plain++
			}
		}
		t.Errorf("%d status reads of acknowledged receipts answered 404 during the restarts (%d of plain 200s, %d of degraded ones; want 200 or 503), e.g. %s",
			n, plain, n-plain, strings.Join(load.notFound[:min(n, 10)], ", "))
	}
	if len(missing) > 0 {
		sort.Strings(missing)
		var list []string
		for _, id := range missing[:min(len(missing), 200)] {
			list = append(list, fmt.Sprintf("%s (degraded=%v, last answer %s)", id, load.degraded[id], lastAnswer[id]))
		}
		if len(missing) > 200 {
			list = append(list, fmt.Sprintf("and %d more", len(missing)-200))
		}
		t.Errorf("%d of %d acknowledged receipts are not readable %v after the load stopped: %s",
			len(missing), acked, settled, strings.Join(list, ", "))
	}
	if len(twice) > 0 {
		t.Errorf("%d acknowledged receipts have more than one ReceiptGenerated event: %s", len(twice), strings.Join(twice, ", "))
	}
}

var logTime = regexp.MustCompile(`"time":"[^"]*"`)

func streamsOf(ids []string) []string {
	out := make([]string, len(ids))
	for i, id := range ids {
		out[i] = commands.ReceiptStream(id)
	}
	return out
}

// lastProblems returns the last n lines of a service log that are errors or about the journal
// (but not the journaling of each degraded order).
func lastProblems(path string, n int) string {
	f, err := os.Open(path)
	if err != nil {
		return err.Error()
	}
	defer f.Close()
	type line struct {
		text, same string // same: the text without its time
		repeats    int
	}
	var keep []line
	sc := bufio.NewScanner(io.LimitReader(f, 1<<30))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		l := sc.Text()
		// Errors, the journal's replays, and who leads the projectors and credits deposits: what a
		// failure's message needs to tell where the work stopped.
		if !strings.Contains(l, `"level":"error"`) && !strings.Contains(l, "projector leading") && !strings.Contains(l, "deposits: ") &&
			(!strings.Contains(l, "journal") || strings.Contains(l, "receipt journaled")) {
			continue
		}
		same := logTime.ReplaceAllString(l, "")
		if len(keep) > 0 && keep[len(keep)-1].same == same {
			keep[len(keep)-1].repeats++
			continue
		}
		keep = append(keep, line{text: l, same: same})
		if len(keep) > n {
			keep = keep[1:]
		}
	}
	var b strings.Builder
	for _, l := range keep {
		b.WriteString(l.text)
		if l.repeats > 0 {
			fmt.Fprintf(&b, " (and %d more times)", l.repeats)
		}
		b.WriteByte('\n')
	}
	return b.String()
}
