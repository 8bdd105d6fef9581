package main

// Stop 74: accepted requests survive a restart of serve itself. The real binary runs against a
// fresh database and the development chain (its own process here, so that it outlives serve),
// under concurrent mutating requests of every kind (restart74_load_test.go); it is SIGKILLed in
// the middle of the load and started again on the same database and journal, then stopped by
// SIGINT in the middle of another load and started again. After each start, everything answered
// 2xx is there, once; an Idempotency-Key replayed answers as first and creates nothing; a request
// without an answer is there whole or not at all; a receipt paid across the kill reaches
// reconciled with one webhook-id per event; and `payledger verify` exits 0.

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/payledger/payledger/internal/wait"
	"github.com/payledger/payledger/migrations/pgtest"
)

// rsOrdersBeforeStop is how many orders a phase's load has had accepted (with at least 3 of
// each other kind it sends) before serve is stopped: the stop comes under load, not at its start.
const rsOrdersBeforeStop = 150

// rsShutdownBound is how long serve may take to exit after SIGINT: the drain's bound
// (drainTimeout, 20 s) and then the workers' stop.
const rsShutdownBound = 30 * time.Second

// TestAcceptedRequestsSurviveServeKillAndStop is stop 74's restart test (see the file comment).
func TestAcceptedRequestsSurviveServeKillAndStop(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the binary, kills it under load")
	}
	e := newRSEnv(t)
	e.lap("pay the receipts to refund")
	refundable := e.paidReceipts(3)
	straddling := e.order() // paid in the middle of the first load: its processing spans the kill

	// The kill: SIGKILL once every kind of request was accepted and the payment is mined.
	e.lap("the load, then the kill")
	kill := newRSLoad("kill")
	before := e.receiptCount()
	kill.start(e.client, rsLoadPlan{wallet: e.merchant.address, sink: e.sink, refunds: refundable, endpoints: 8, keys: 20, plans: 20})
	paid := make(chan error, 1)
	go func() { paid <- haPayOnChain(e.ctx, e.base, straddling) }()
	var payErr error
	payMined := false
	wait.Until(t, "every kind of request accepted and the payment mined", 2*time.Minute, func() bool {
		select {
		case payErr = <-paid:
			payMined = true
		default:
		}
		return payMined && kill.busy(rsOrdersBeforeStop)
	})
	if payErr != nil {
		t.Fatal(payErr)
	}
	t.Logf("the receipt paid across the kill is %q at the kill", e.status(straddling))
	aimKill(t, kill, e.kill)
	kill.end()
	t.Logf("kill phase: %s", kill.summary())
	e.start()
	e.lap("check the kill phase")
	e.check(kill, before)
	e.lap("await the paid receipt's reconciliation and webhooks")
	e.awaitReconciled(straddling)

	// The graceful stop: SIGINT in the middle of the load; serve drains and exits within its bound.
	e.lap("the load, then SIGINT")
	stop := newRSLoad("stop")
	before = e.receiptCount()
	stop.start(e.client, rsLoadPlan{wallet: e.merchant.address, sink: e.sink, endpoints: 8, keys: 20, plans: 20})
	wait.Until(t, "every kind of request accepted", time.Minute, func() bool { return stop.busy(rsOrdersBeforeStop) })
	e.interrupt()
	stop.end()
	e.graceful = true
	t.Logf("stop phase: %s", stop.summary())
	e.start()
	e.lap("check the stop phase")
	e.check(stop, before)
	e.lap("payledger verify")
	e.verify()
	e.lap("done")
}

// aimKill kills serve (stop) while a keyed creation is in flight: the next one sent of a kind
// chosen at random, a random 0 to 15 ms after its send began (a creation takes a few ms: the kill
// lands before its claim, in its handler, or between its commit and the keeping of its answer).
func aimKill(t *testing.T, l *rsLoad, stop func()) {
	t.Helper()
	kind := "order"
	if kinds := l.unfinished("endpoint", "key", "plan"); len(kinds) > 0 {
		kind = kinds[rand.IntN(len(kinds))]
	}
	select {
	case <-l.aim(kind): // the kill lands as that request leaves: before its claim, in its handler or after
	case <-time.After(3 * time.Second): // that worker has just made its last creation: kill under the orders alone
		kind = "order"
	}
	stop()
	t.Logf("killed during a %s request", kind)
}

// rsEnv is the test's world: the development chain, the database, the binary and its
// environment, the merchant (wallet, API key, session, split, webhook endpoint) and serve.
type rsEnv struct {
	t         *testing.T
	ctx       context.Context
	bin, db   string
	env       []string
	base      string
	merchant  *haMerchantKey
	apiKey    string
	hooks     *haHooks // the endpoint registered before the loads
	sink      string   // where the load's endpoints point (answers 200, records nothing)
	client    *rsClient
	out       *syncBuffer // every start's output, one after the other
	cmd       *exec.Cmd
	exited    chan struct{}
	graceful  bool      // the last stop was SIGINT's: every request taken was answered
	startedAt time.Time // the database's clock as serve last started: its claims are stamped later
	began     time.Time // for the log's laps
}

func newRSEnv(t *testing.T) *rsEnv {
	chainVars := haChainVars(t)
	dir := t.TempDir()
	addr := fmt.Sprintf("127.0.0.1:%d", freePort(t))
	e := &rsEnv{t: t, ctx: context.Background(), bin: buildPayledger(t, dir), db: pgtest.URL(t), base: "http://" + addr,
		merchant: newHAMerchantKey(t), hooks: newHAHooks(), out: &syncBuffer{}, began: time.Now()}
	// The secrets are fixed, as in production: a development start generates missing ones, and
	// a restart that made new ones would end the sessions and open no kept answer.
	e.env = append(os.Environ(), chainVars...)
	e.env = append(e.env, "DATABASE_URL="+e.db, "HTTP_ADDR="+addr, "PUBLIC_BASE_URL="+e.base, "EMBEDDED_POSTGRES=off",
		"DEVCHAIN=off", "APP_ENV=development", "JOURNAL_PATH="+filepath.Join(dir, "journal.jsonl"), "DEV_DATA_DIR="+dir,
		"JWT_SECRET="+strings.Repeat("j", 40), "CRON_SECRET="+strings.Repeat("c", 40), "SECRETS_KEY="+strings.Repeat("ef", 32),
		"PLATFORM_RECIPIENT=0x"+strings.Repeat("b", 40), "RATE_LIMIT_PER_MINUTE=10000000", "RATE_LIMIT_PUBLIC_PER_MINUTE=10000000")
	e.apiKey = createKey(t, e.ctx, map[string]string{"DATABASE_URL": e.db, "EMBEDDED_POSTGRES": "off"}, e.merchant.address,
		"orders:create,receipts:read,receipts:write,inventory:write", "restart74")
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("serve output but its request lines (tail):\n%s", tail(notRequests(e.out.String()), 12000))
		}
	})
	e.start()
	t.Cleanup(e.kill)
	haOnChain(t, e.base, e.merchant, e.hooks)
	sink := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusOK) }))
	t.Cleanup(sink.Close)
	e.sink = sink.URL
	session := &e2eClient{t: t, base: e.base}
	session.login(e.merchant.wallet)
	e.client = newRSClient(e.base, e.apiKey, session)
	item := mustJSON(map[string]any{"sku": "latte", "name": "Latte", "priceUsd": 4.5, "stockQty": -1})
	if code, _, raw, err := e.client.do(http.MethodPost, "/api/inventory", item, false, ""); err != nil || code/100 != 2 {
		t.Fatalf("inventory: %d %s %v", code, raw, err)
	}
	return e
}

// start runs serve (again) on the same database, port and journal, and waits until it answers.
func (e *rsEnv) start() {
	e.t.Helper()
	e.lap("start serve")
	fmt.Fprintf(e.out, "\n--- start at %s ---\n", time.Now().Format(time.RFC3339Nano))
	if err := connectTo(e.t, e.db).QueryRow(e.ctx, `SELECT now()`).Scan(&e.startedAt); err != nil {
		e.t.Fatal(err)
	}
	cmd := exec.Command(e.bin, "serve")
	cmd.Env, cmd.Stdout, cmd.Stderr = e.env, e.out, e.out
	if err := cmd.Start(); err != nil {
		e.t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exited) }()
	e.cmd, e.exited = cmd, exited
	if err := awaitHealthz(http.DefaultClient, e.base, 90*time.Second); err != nil {
		e.t.Fatalf("serve never answered: %v", err)
	}
}

// kill SIGKILLs serve (if it runs) and waits for its end.
func (e *rsEnv) kill() {
	if e.cmd == nil {
		return
	}
	_ = e.cmd.Process.Signal(syscall.SIGKILL)
	<-e.exited
	e.cmd = nil
}

// interrupt sends SIGINT and checks that serve exits 0 within rsShutdownBound.
func (e *rsEnv) interrupt() {
	e.t.Helper()
	sent := time.Now()
	if err := e.cmd.Process.Signal(syscall.SIGINT); err != nil {
		e.t.Fatal(err)
	}
	select {
	case <-e.exited:
	case <-time.After(rsShutdownBound):
		e.kill()
		e.t.Fatalf("serve did not exit within %v of SIGINT", rsShutdownBound)
	}
	took := time.Since(sent)
	if code := e.cmd.ProcessState.ExitCode(); code != 0 {
		e.t.Errorf("serve exited %d after SIGINT (%v), want 0", code, took)
	}
	e.t.Logf("serve exited %v after SIGINT", took.Round(time.Millisecond))
	e.cmd = nil
	e.noSweepClaims()
}

// noSweepClaims fails when a deposit sweep claim of the instance just stopped outlived its
// graceful stop: the sweeper gives its claims up as it stops, so the next instance sweeps those
// deposits at once (stop 78). A claim stamped before that instance started is the SIGKILLed one's,
// left until its lease ends (sweepLease, 10 s; the kill came a few seconds before): it is logged,
// not failed (a CI run failed on three such claims, left by a kill that landed
// within a sweep pass).
func (e *rsEnv) noSweepClaims() {
	e.t.Helper()
	type claim struct {
		ID   string
		Ours bool
	}
	rows, err := connectTo(e.t, e.db).Query(e.ctx, `SELECT receipt_id, claimed_at >= $1 FROM deposit_sweeps
		WHERE claim_token IS NOT NULL ORDER BY receipt_id`, e.startedAt)
	var claims []claim
	if err == nil {
		claims, err = pgx.CollectRows(rows, pgx.RowToStructByPos[claim])
	}
	if err != nil {
		e.t.Fatal(err)
	}
	var left, killed []string
	for _, c := range claims {
		if c.Ours {
			left = append(left, c.ID)
		} else {
			killed = append(killed, c.ID)
		}
	}
	if len(killed) > 0 {
		e.t.Logf("deposit sweep claims of the killed instance, within their lease: %v", killed)
	}
	if len(left) > 0 {
		e.t.Errorf("deposit sweep claims left after a graceful stop: %v", left)
	}
}

// order creates one order (a 9.00 USD receipt) and returns its receipt id.
func (e *rsEnv) order() string {
	e.t.Helper()
	r := &rsRequest{kind: "order", path: "/api/orders", body: []byte(`{"items":[{"sku":"latte","qty":2}]}`)}
	e.client.send(r)
	if !r.accepted() || r.createdID() == "" {
		e.t.Fatalf("order: %d %s %v", r.status, r.answer, r.err)
	}
	return r.createdID()
}

// paidReceipts orders n receipts and pays each on the chain, one after the other (one funded
// account), and waits until each reads paid or reconciled.
func (e *rsEnv) paidReceipts(n int) []string {
	e.t.Helper()
	var ids []string
	for range n {
		id := e.order()
		if err := haPayOnChain(e.ctx, e.base, id); err != nil {
			e.t.Fatal(err)
		}
		ids = append(ids, id)
	}
	for _, id := range ids {
		wait.Until(e.t, "receipt "+id+" paid", 90*time.Second, func() bool {
			s := e.status(id)
			return s == "paid" || s == "reconciled"
		})
	}
	return ids
}

// status is the receipt's status as the status read gives it ("" when it does not answer 200).
func (e *rsEnv) status(id string) string {
	code, m, err := e.client.getJSON("/api/receipts/status?receiptId="+id, false)
	if err != nil || code != http.StatusOK {
		return ""
	}
	s, _ := m["status"].(string)
	return s
}

// awaitReconciled waits until the receipt paid across the kill reads reconciled and its paid
// and reconciled events reached the endpoint registered before: each with one webhook-id (a
// redelivery keeps it), and no event of any receipt under two ids.
func (e *rsEnv) awaitReconciled(id string) {
	e.t.Helper()
	// A kill within a sweep pass leaves the deposit claimed for the sweeper's lease (30 s), then
	// the sweep is CHAIN_CONFIRMATIONS deep and the releases are mined; three minutes leave room
	// for full CI's load.
	if !wait.Poll(3*time.Minute, func() bool { return e.status(id) == "reconciled" }) {
		e.t.Fatalf("receipt %s is %q, not reconciled after 3m; its events, sweep and the operator's transactions:\n%s", id, e.status(id), multiState(e.t, e.db, id))
	}
	wait.Until(e.t, "the reconciled webhook of "+id, time.Minute, func() bool { return len(e.hooks.of(id, "reconciled")) > 0 })
	for _, s := range []string{"paid", "reconciled"} {
		if ids := distinct(e.hooks.of(id, s)); len(ids) != 1 {
			e.t.Errorf("receipt %s: its %s event was delivered under %d webhook-ids %v, want 1", id, s, len(ids), ids)
		}
	}
	e.hooks.mu.Lock()
	defer e.hooks.mu.Unlock()
	for event, ids := range e.hooks.events {
		if d := distinct(ids); len(d) > 1 {
			e.t.Errorf("event %q delivered under %d webhook-ids %v, want 1", event, len(d), d)
		}
	}
}

// verify runs `payledger verify` on the database: exit 0.
func (e *rsEnv) verify() {
	e.t.Helper()
	cmd := exec.Command(e.bin, "verify")
	cmd.Env = e.env
	if out, err := cmd.CombinedOutput(); err != nil {
		e.t.Errorf("payledger verify: %v\n%s", err, tail(string(out), 3000))
	}
}

// lap logs what the test does next and how long it has run.
func (e *rsEnv) lap(what string) {
	e.t.Logf("%v: %s", time.Since(e.began).Round(time.Millisecond), what)
}

func distinct(ids []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, id := range ids {
		if !seen[id] {
			seen[id] = true
			out = append(out, id)
		}
	}
	return out
}
