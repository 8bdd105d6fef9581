package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/payledger/payledger/commands"
	"github.com/payledger/payledger/domain/split"
	"github.com/payledger/payledger/eventstore"
	"github.com/payledger/payledger/eventstore/postgres"
	"github.com/payledger/payledger/readmodels"
)

// haPhase is what the order load saw during one fault of the cluster test.
type haPhase struct {
	name      string
	load      *faultLoad
	allow502  bool         // a killed instance's requests in flight get the proxy's 502
	fault     time.Time    // when the fault began
	promotion time.Time    // when Patroni promoted a new primary (zero: none)
	gate      sync.RWMutex // held shared by each order in flight; closing takes it whole
	closed    bool         // no order is recorded in the phase any more
	twice     int          // acknowledged orders stored more than once
	paid      string       // the receipt paid on chain after the fault
	mu        sync.Mutex
	plain     []haAnswer // plain 200s
	bad       []haAnswer // degraded, 503, 502
}

type haAnswer struct{ sent, done time.Time }

// close waits for the orders in flight in the phase and refuses new ones, so that what it
// acknowledged is final before it is checked.
func (p *haPhase) close() {
	p.gate.Lock()
	p.closed = true
	p.gate.Unlock()
}

func newHAPhase(name string) *haPhase {
	return &haPhase{name: name, load: &faultLoad{degraded: map[string]bool{}, orders: map[string]int{}, samples: map[string]int{}}}
}

func (p *haPhase) record(plain bool, a haAnswer) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if plain {
		p.plain = append(p.plain, a)
	} else {
		p.bad = append(p.bad, a)
	}
}

// haLoadBeforeAndAfter is how many orders a fault's phase has answered before the fault and
// after it (sent after it began) before the next step: the load is measured by what it did, not by
// how long it ran.
const haLoadBeforeAndAfter = 20

// answeredAfter counts the orders of the phase sent at or after t that have their answer (plain,
// degraded, 503 or 502).
func (p *haPhase) answeredAfter(t time.Time) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	n := 0
	for _, list := range [][]haAnswer{p.plain, p.bad} {
		for _, a := range list {
			if !a.sent.Before(t) {
				n++
			}
		}
	}
	return n
}

// firstPlainAfter is how long after t the first plain 200 of an order sent at or after t came.
func (p *haPhase) firstPlainAfter(t time.Time) time.Duration {
	p.mu.Lock()
	defer p.mu.Unlock()
	best := time.Duration(-1)
	for _, a := range p.plain {
		if !a.sent.Before(t) && (best < 0 || a.done.Sub(t) < best) {
			best = a.done.Sub(t)
		}
	}
	return best
}

// window is how long orders got other answers than plain 200 (degraded, 503, 502): from the
// first such order sent to the last such answer.
func (p *haPhase) window() time.Duration {
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.bad) == 0 {
		return 0
	}
	first, last := p.bad[0].sent, p.bad[0].done
	for _, a := range p.bad {
		if a.sent.Before(first) {
			first = a.sent
		}
		if a.done.After(last) {
			last = a.done
		}
	}
	return last.Sub(first)
}

// haClient calls the service through HAProxy with the merchant's key.
type haClient struct {
	base   string
	key    string
	client *http.Client
}

func (h *haClient) call(method, path, body string, headers ...string) (int, map[string]any, error) {
	req, _ := http.NewRequest(method, h.base+path, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Ocp-Apim-Subscription-Key", h.key)
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	resp, err := h.client.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	var m map[string]any
	_ = json.NewDecoder(resp.Body).Decode(&m)
	return resp.StatusCode, m, nil
}

// TestHAClusterSurvivesFaults is issue 37's test: order load from 8 clients through HAProxy onto
// two serve instances on a Patroni cluster (deploy/ha, synchronous_mode), and one after the
// other: the primary's Patroni and PostgreSQL SIGKILLed; the node restarted until it is the
// synchronous standby again; `patronictl switchover`; one serve instance SIGKILLed. After each:
// every acknowledged order readable and stored once, `payledger verify` exit 0, and a receipt
// paid after the fault on the development chain (shared by both instances) reaches reconciled,
// with its paid and reconciled webhook events delivered once to an endpoint. A planned
// switchover answers no order 503 and gives a plain 200 within 5 s of the promotion; after the
// loss of the primary, within ttl (10 s) + 5 s.
func TestHAClusterSurvivesFaults(t *testing.T) {
	if testing.Short() {
		t.Skip("starts etcd, Patroni, PostgreSQL, HAProxy and two serve instances")
	}
	haPrograms(t)
	bin := buildPayledger(t, t.TempDir())
	began := time.Now()
	c := startHACluster(t, bin, haChainVars(t)...)
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("cluster logs:\n%s", c.logs())
		}
	})
	hooks := newHAHooks()
	h, db := haStartService(t, c, hooks)
	t.Logf("cluster up in %v", time.Since(began).Round(time.Millisecond))

	var cur atomic.Pointer[haPhase]
	cur.Store(newHAPhase("warm-up"))
	stopLoad := haOrderLoad(h, &cur, 8, haOrder1)
	defer stopLoad()
	var done []*haPhase
	for _, f := range haFaults(c) {
		cur.Store(f.phase)
		waitUntil(t, f.phase.name+": orders on the healthy cluster first", 60*time.Second,
			func() bool { return f.phase.answeredAfter(time.Time{}) >= haLoadBeforeAndAfter })
		f.phase.fault = time.Now()
		if err := f.fault(f.phase); err != nil {
			t.Fatalf("%s: %v", f.phase.name, err)
		}
		waitUntil(t, f.phase.name+": orders sent and answered after the fault", 120*time.Second,
			func() bool { return f.phase.answeredAfter(f.phase.fault) >= haLoadBeforeAndAfter })
		cur.Store(newHAPhase("between"))
		f.phase.close()
		haCheckPhase(t, c, h, db, hooks, f.phase)
		done = append(done, f.phase)
	}
	c.startServe(0) // as a supervisor would: its journal (if any) is replayed at start
	stopLoad()

	t.Logf("faults through HAProxy (8 order clients), test ran %v:\n%s", time.Since(began).Round(time.Second), haTable(done))
	// Once more at the end, now that any late redelivery has had time to come: every receipt paid
	// after a fault had each status change delivered once, and no event was delivered twice.
	for _, p := range done {
		if err := hooks.once(p.paid, "paid", "reconciled"); p.paid != "" && err != nil {
			t.Errorf("%s: %v", p.name, err)
		}
	}
	if d := hooks.duplicates(); len(d) > 0 {
		t.Errorf("webhook events delivered more than once: %v", d)
	}
	for _, p := range done {
		if p.name == "patronictl switchover" && p.load.orders["503 datastore_unavailable"] > 0 {
			t.Errorf("%s: %d orders answered 503, want none", p.name, p.load.orders["503 datastore_unavailable"])
		}
		if d := p.firstPlainAfter(p.promotion); p.name == "patronictl switchover" && (d < 0 || d > 5*time.Second) {
			t.Errorf("%s: first plain 200 %v after the promotion, want within 5 s", p.name, d)
		}
		if d := p.firstPlainAfter(p.fault); strings.Contains(p.name, "SIGKILLed") && (d < 0 || d > 15*time.Second) {
			t.Errorf("%s: first plain 200 %v after the fault, want within ttl + 5 s (15 s)", p.name, d)
		}
	}
}

// haOrder1 is the load's order: two of the merchant's item.
const haOrder1 = `{"items":[{"sku":"latte","qty":2}]}`

// haStartService makes the merchant, starts both instances (reading from the standby, as make ha
// runs them) and the proxy, has the service deploy the merchant's split on the development chain
// and registers hooks as its webhook endpoint, and sends a few orders so that each instance knows
// the key and the item (degraded mode prices from them). It returns the client through the proxy
// and a pool on the primary.
func haStartService(t *testing.T, c *haCluster, hooks *haHooks) (*haClient, *pgxpool.Pool) {
	t.Helper()
	c.serveEnv = append(c.serveEnv, "DATABASE_REPLICA_URL="+strings.Replace(c.databaseURL(), "target_session_attrs=read-write", "target_session_attrs=prefer-standby", 1))
	mk := newHAMerchantKey(t)
	key := haMerchantFor(t, c.databaseURL(), "orders:create,receipts:read,receipts:write", mk.address)
	db, err := pgxpool.New(context.Background(), c.databaseURL())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(db.Close)
	c.startServe(0)
	c.startServe(1)
	c.startProxy()
	haOnChain(t, "http://"+c.proxy, mk, hooks)
	h := &haClient{base: "http://" + c.proxy, key: key, client: &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: 32}}}
	for range 4 {
		if code, body, err := h.call(http.MethodPost, "/api/orders", haOrder1); err != nil || code != 200 || body["ok"] != true {
			t.Fatalf("first orders: %d %v %v", code, body, err)
		}
	}
	return h, db
}

// haFault is one fault of the cluster test: what it does to the cluster, until the service
// answers plain again.
type haFault struct {
	phase *haPhase
	fault func(p *haPhase) error
}

// haFaults are the cluster test's faults, in order: the primary's machine lost, the node back as
// the synchronous standby, a switchover back to it, an instance killed.
func haFaults(c *haCluster) []haFault {
	ctx := context.Background()
	killed := newHAPhase("one serve instance SIGKILLed")
	killed.allow502 = true
	return []haFault{
		{newHAPhase("primary's Patroni and PostgreSQL SIGKILLed"), func(p *haPhase) error {
			old := c.primary()
			if err := c.killNode(old); err != nil {
				return err
			}
			p.fault = time.Now() // the machine is gone from here on
			p.promotion = haAwaitPrimary(c, 1-old, 60*time.Second)
			return haAwaitPlain(p, p.fault, 30*time.Second)
		}},
		{newHAPhase("the node restarted until it is the synchronous standby"), func(p *haPhase) error {
			back := 1 - c.primary()
			c.startNode(back)
			return waitCond(ctx, 120*time.Second, func() bool { return c.role(back) == "sync" })
		}},
		{newHAPhase("patronictl switchover"), func(p *haPhase) error {
			leader := c.primary()
			if out, err := c.patronictl("switchover", "--leader", fmt.Sprintf("pg%d", leader+1), "--candidate", fmt.Sprintf("pg%d", 2-leader), "--force", "payledger"); err != nil {
				return fmt.Errorf("patronictl switchover: %v: %s", err, out)
			}
			p.promotion = haAwaitPrimary(c, 1-leader, 60*time.Second)
			if err := haAwaitPlain(p, p.promotion, 30*time.Second); err != nil {
				return err
			}
			return waitCond(ctx, 120*time.Second, func() bool { return c.role(leader) == "sync" })
		}},
		{killed, func(p *haPhase) error {
			c.killServe(0)
			p.fault = time.Now()
			return haAwaitPlain(p, p.fault, 30*time.Second)
		}},
	}
}

// haMerchant makes the test merchant on the database at dbURL (created and migrated if needed):
// a key with scopes, a split (configured, not deployed: no chain), an item "latte"; it returns
// the key.
func haMerchant(t *testing.T, dbURL, scopes string) string {
	t.Helper()
	wallet := "0x" + strings.Repeat("de", 20)
	key := haMerchantFor(t, dbURL, scopes, wallet)
	db, err := pgxpool.New(context.Background(), dbURL)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := commands.ConfigureSplit(context.Background(), postgres.New(db), time.Now(), eventstore.Metadata{}, split.Configure{
		Merchant: wallet, Address: "0x" + strings.Repeat("c", 40), Platform: "0x" + strings.Repeat("b", 40)}); err != nil {
		t.Fatal(err)
	}
	return key
}

// haMerchantFor makes the merchant of wallet on the database at dbURL (created and migrated if
// needed), without a split: a key with scopes and an item "latte"; it returns the key.
func haMerchantFor(t *testing.T, dbURL, scopes, wallet string) string {
	t.Helper()
	ctx := context.Background()
	key := createKey(t, ctx, map[string]string{"DATABASE_URL": dbURL, "EMBEDDED_POSTGRES": "off"}, wallet, scopes, "ha")
	db, err := pgxpool.New(ctx, dbURL)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, _, err := readmodels.NewInventory(db).Upsert(ctx, readmodels.Item{Wallet: wallet, SKU: "latte", Name: "Latte", PriceCents: 450, Currency: "USD", StockQty: -1}); err != nil {
		t.Fatal(err)
	}
	return key
}

// haOrderLoad runs order clients through the proxy until the returned stop is called, recording
// each answer in the current phase.
func haOrderLoad(h *haClient, cur *atomic.Pointer[haPhase], clients int, order string) (stop func()) {
	quit := make(chan struct{})
	var wg sync.WaitGroup
	for range clients {
		wg.Go(func() {
			for {
				select {
				case <-quit:
					return
				default:
				}
				p := cur.Load()
				p.gate.RLock()
				if p.closed { // the phase ended meanwhile: the next one is current
					p.gate.RUnlock()
					continue
				}
				haOrder(h, p, order)
				p.gate.RUnlock()
			}
		})
	}
	return sync.OnceFunc(func() { close(quit); wg.Wait() })
}

// haOrder sends one order and records its answer in phase p.
func haOrder(h *haClient, p *haPhase, order string) {
	sent := time.Now()
	code, body, err := h.call(http.MethodPost, "/api/orders", order)
	a := haAnswer{sent: sent, done: time.Now()}
	switch {
	case err == nil && code == 200 && body["ok"] == true:
		r, _ := body["receipt"].(map[string]any)
		id, _ := r["receiptId"].(string)
		degraded := body["degraded"] == true
		p.record(!degraded, a)
		if degraded {
			p.load.count(p.load.orders, "200 degraded")
		} else {
			p.load.count(p.load.orders, "200")
		}
		p.load.ack(id, degraded)
	case err == nil && code == 503 && body["error"] == "datastore_unavailable":
		p.record(false, a)
		p.load.count(p.load.orders, "503 datastore_unavailable")
	case p.allow502 && (err != nil || code == 502 || code == 503 && body["error"] == nil):
		// The proxy's answer for a request the killed instance had taken (or queued).
		p.record(false, a)
		p.load.count(p.load.orders, "502 from the proxy")
	default:
		p.record(false, a)
		p.load.count(p.load.orders, fmt.Sprintf("%d %v %v", code, body["error"], err))
		p.load.fail("POST /api/orders: %d %v %v", code, body, err)
	}
}

// haAwaitPrimary polls node i's Patroni until it is the primary and returns when it was seen so.
func haAwaitPrimary(c *haCluster, i int, timeout time.Duration) time.Time {
	_ = waitCond(context.Background(), timeout, func() bool { return c.role(i) == "primary" })
	return time.Now()
}

// haAwaitPlain waits until an order sent after t is answered plain 200.
func haAwaitPlain(p *haPhase, t time.Time, timeout time.Duration) error {
	if err := waitCond(context.Background(), timeout, func() bool { return p.firstPlainAfter(t) >= 0 }); err != nil {
		return fmt.Errorf("no plain 200 after the fault: %w", err)
	}
	return nil
}

// haCheckPhase checks what a phase acknowledged: every order readable, stored once; the ledger's
// chains hold; a receipt paid now reaches paid and its webhook event is sent once.
func haCheckPhase(t *testing.T, c *haCluster, h *haClient, db *pgxpool.Pool, hooks *haHooks, p *haPhase) {
	t.Helper()
	ctx := context.Background()
	missing := slices.Clone(p.load.acked)
	_ = waitCond(ctx, 30*time.Second, func() bool {
		var still []string
		for _, id := range missing {
			if code, body, err := h.call(http.MethodGet, "/api/receipts/status?receiptId="+url.QueryEscape(id), ""); err != nil || code != 200 || body["receiptId"] != id {
				still = append(still, id)
			}
		}
		missing = still
		return len(missing) == 0
	})
	var twice int
	if err := db.QueryRow(ctx, `SELECT count(*) FROM (SELECT stream_id FROM events WHERE type = 'ReceiptGenerated' AND stream_id = ANY($1)
		GROUP BY stream_id HAVING count(*) > 1) d`, streamsOf(p.load.acked)).Scan(&twice); err != nil {
		t.Fatalf("%s: count duplicates: %v", p.name, err)
	}
	p.load.notFound, p.twice = missing, twice // reported in the table
	if len(missing) > 0 || twice > 0 {
		t.Errorf("%s: %d acknowledged orders lost (e.g. %v), %d stored twice", p.name, len(missing), missing[:min(len(missing), 5)], twice)
	}
	for _, b := range p.load.bad {
		t.Errorf("%s: unexpected answer: %s", p.name, b)
	}
	verify := exec.Command(c.bin, "verify")
	verify.Env = c.serveEnv
	if out, err := verify.CombinedOutput(); err != nil {
		t.Errorf("%s: payledger verify: %v\n%s", p.name, err, tail(string(out), 2000))
	}
	id, err := haPayAndWatch(ctx, h, db, hooks)
	if err != nil {
		t.Errorf("%s: the workers after the fault: %v\n%s", p.name, err, haWhereItStopped(ctx, db, id))
	}
	p.paid = id
}

// haWhereItStopped describes, for a failure's message, how far a receipt got on the primary: its
// events, its row, the projectors' checkpoints beside the log's head, and the chain cursors.
func haWhereItStopped(ctx context.Context, db *pgxpool.Pool, id string) string {
	var b strings.Builder
	dump := func(title, query string, args ...any) {
		fmt.Fprintf(&b, "%s:", title)
		rows, err := db.Query(ctx, query, args...)
		if err != nil {
			fmt.Fprintf(&b, " %v\n", err)
			return
		}
		defer rows.Close()
		for rows.Next() {
			vals, _ := rows.Values()
			fmt.Fprintf(&b, " %v;", vals)
		}
		fmt.Fprintf(&b, " %v\n", rows.Err())
	}
	dump("events", `SELECT type, version, tx_id, seq, recorded_at FROM events WHERE stream_id = 'receipt-' || $1 ORDER BY version`, id)
	dump("row", `SELECT status, version, pos_commit, pos_prepare, updated_at FROM receipts WHERE receipt_id = $1`, id)
	dump("checkpoints", `SELECT name, commit_pos, prepare_pos, updated_at FROM projection_checkpoints ORDER BY name`)
	dump("head", `SELECT tx_id, seq, recorded_at FROM events ORDER BY tx_id DESC, seq DESC LIMIT 1`)
	dump("chain cursors", `SELECT name, block_number FROM chain_cursors`)
	return b.String()
}

// haPayAndWatch creates a receipt, follows the merchant's event stream through the proxy, pays
// the receipt on the development chain as a phone wallet does (a plain transfer to its deposit
// address) and waits until the status read says reconciled (the split distributed), the stream
// has carried it, and the webhook endpoint has had its paid and reconciled events, each once. It
// returns the receipt's id.
func haPayAndWatch(ctx context.Context, h *haClient, db *pgxpool.Pool, hooks *haHooks) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, 120*time.Second)
	defer cancel()
	ref := strconv.FormatInt(time.Now().UnixNano(), 36)
	code, body, err := h.call(http.MethodPost, "/api/receipts", `{"lineItems":[{"label":"HA `+ref+`","priceUsd":10}],"totalUsd":10}`, "Idempotency-Key", "ha-"+ref)
	r, _ := body["receipt"].(map[string]any)
	id, _ := r["receiptId"].(string)
	if err != nil || code != http.StatusCreated || id == "" {
		return id, fmt.Errorf("create a receipt: %d %v %v", code, body, err)
	}
	seen := make(chan struct{})
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, h.base+"/api/webhooks/stream", nil)
	req.Header.Set("Ocp-Apim-Subscription-Key", h.key)
	resp, err := http.DefaultClient.Do(req)
	if err != nil || resp.StatusCode != 200 {
		return id, fmt.Errorf("open the event stream: %v %v", err, resp)
	}
	defer resp.Body.Close()
	go func() {
		sc := bufio.NewScanner(resp.Body)
		for sc.Scan() {
			if l := sc.Text(); strings.Contains(l, id) && strings.Contains(l, `reconciled`) {
				close(seen)
				return
			}
		}
	}()
	if err := haPayOnChain(ctx, h.base, id); err != nil {
		return id, err
	}
	var last any
	if err := waitCond(ctx, 90*time.Second, func() bool {
		_, st, _ := h.call(http.MethodGet, "/api/receipts/status?receiptId="+id, "")
		last = st["status"]
		return last == "reconciled"
	}); err != nil {
		return id, fmt.Errorf("receipt %s never read reconciled (last %v): %w", id, last, err)
	}
	select {
	case <-seen:
	case <-ctx.Done():
		return id, fmt.Errorf("receipt %s: no reconciled event on the stream", id)
	}
	if err := waitCond(ctx, 60*time.Second, func() bool { return len(hooks.of(id, "reconciled")) > 0 && len(hooks.of(id, "paid")) > 0 }); err != nil {
		return id, fmt.Errorf("receipt %s: webhooks paid %v, reconciled %v: %w", id, hooks.of(id, "paid"), hooks.of(id, "reconciled"), err)
	}
	if err := hooks.once(id, "paid", "reconciled"); err != nil {
		return id, err
	}
	// A list (read from the replica when it is healthy, so it may lag a moment on the other
	// instance) shows it reconciled too.
	if err := waitCond(ctx, 10*time.Second, func() bool {
		_, list, _ := h.call(http.MethodGet, "/api/receipts?status=reconciled&limit=5", "")
		return strings.Contains(fmt.Sprint(list), id)
	}); err != nil {
		return id, fmt.Errorf("receipt %s is not in the list of reconciled receipts: %w", id, err)
	}
	var events int
	if err := db.QueryRow(ctx, `SELECT count(*) FROM webhook_events WHERE data::text LIKE '%' || $1 || '%' AND data::text ~ '"status": ?"reconciled"'`, id).Scan(&events); err != nil || events != 1 {
		return id, fmt.Errorf("receipt %s: %d reconciled events recorded (%v), want 1", id, events, err)
	}
	return id, nil
}

// haTable is the fault table of docs/benchmarks.md.
func haTable(phases []*haPhase) string {
	var b strings.Builder
	b.WriteString("| fault | orders acked | lost | stored twice | 200 degraded | 503 | 502 (proxy) | not plain 200 for | first plain 200 after the fault | after the promotion |\n|---|---|---|---|---|---|---|---|---|---|\n")
	for _, p := range phases {
		after := "-"
		if !p.promotion.IsZero() {
			after = p.firstPlainAfter(p.promotion).Round(100 * time.Millisecond).String()
		}
		fmt.Fprintf(&b, "| %s | %d | %d | %d | %d | %d | %d | %v | %v | %s |\n", p.name, len(p.load.acked), len(p.load.notFound), p.twice,
			p.load.orders["200 degraded"], p.load.orders["503 datastore_unavailable"], p.load.orders["502 from the proxy"],
			p.window().Round(100*time.Millisecond), p.firstPlainAfter(p.fault).Round(100*time.Millisecond), after)
	}
	return b.String()
}
