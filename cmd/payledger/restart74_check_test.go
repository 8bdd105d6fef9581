package main

// The checks of the restart test after each start: what one phase's load was answered 2xx is
// there once, replays of its Idempotency-Keys answer as first and create nothing, and a request
// left without an answer is there whole or not at all.

import (
	"bytes"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/payledger/payledger/internal/wait"
	"github.com/payledger/payledger/migrations/pgtest"
)

// receiptCount is how many ReceiptGenerated events the log holds.
func (e *rsEnv) receiptCount() int {
	e.t.Helper()
	pool := pgtest.PoolFor(e.t, e.db)
	defer pool.Close()
	var n int
	if err := pool.QueryRow(e.ctx, `SELECT count(*) FROM events WHERE type = 'ReceiptGenerated'`).Scan(&n); err != nil {
		e.t.Fatal(err)
	}
	return n
}

// check runs every check of the phase's requests; before is receiptCount at the phase's start.
func (e *rsEnv) check(l *rsLoad, before int) {
	e.t.Helper()
	reqs := l.all()
	refused := rsRefused(reqs)
	for _, s := range refused[:min(len(refused), 10)] {
		e.t.Errorf("%s phase: a valid request refused before the stop: %s", l.phase, s)
	}
	e.checkReplays(l.phase, reqs)
	e.checkOrders(l.phase, reqs, before)
	present := e.checkCreations(l.phase, reqs)
	e.checkRefunds(l.phase, reqs)
	e.checkOrphanClaims(l.phase, reqs, present)
}

// checkReplays sends every accepted keyed request again: the same status and body, marked
// replayed. An unanswered keyed order is sent again too (its key is bound with its receipt, so
// the retry answers at once), twice: the two answers name one receipt, recorded on the request
// as its answer. (An unanswered keyed request of another kind: checkOrphanClaims.)
func (e *rsEnv) checkReplays(phase string, reqs []*rsRequest) {
	e.t.Helper()
	var mu sync.Mutex
	var bad []string
	fail := func(format string, args ...any) {
		mu.Lock()
		defer mu.Unlock()
		bad = append(bad, fmt.Sprintf(format, args...))
	}
	parallel(8, reqs, func(r *rsRequest) {
		switch {
		case r.idemKey == "":
		case r.accepted():
			code, h, raw, err := e.client.do(http.MethodPost, r.path, r.body, r.session, r.idemKey)
			if err != nil || code != r.status || !bytes.Equal(raw, r.answer) || h.Get("Idempotent-Replayed") != "true" {
				fail("%s %q replayed: %d %s (replayed %q) %v; first %d %s", r.kind, r.idemKey, code, raw, h.Get("Idempotent-Replayed"), err, r.status, r.answer)
			}
		case r.kind == "order":
			first, second := *r, *r
			e.client.send(&first)
			e.client.send(&second)
			if !first.accepted() || first.createdID() == "" || second.createdID() != first.createdID() {
				fail("order %q sent again after no answer: %d %s, then %d %s", r.idemKey, first.status, first.answer, second.status, second.answer)
				return
			}
			r.answered, r.status, r.header, r.answer, r.err = true, first.status, first.header, first.answer, nil
			r.mark = "retried" // its answer came after the restart
		}
	})
	for _, b := range bad[:min(len(bad), 10)] {
		e.t.Errorf("%s phase: %s", phase, b)
	}
}

// checkOrders: every accepted order's receipt reads through the status read (the projection
// caught up), no receipt is generated twice, and the phase generated at least the receipts
// answered and at most those plus one per order left without an answer.
func (e *rsEnv) checkOrders(phase string, reqs []*rsRequest, before int) {
	e.t.Helper()
	ids, unanswered := map[string]bool{}, 0
	for _, r := range reqs {
		switch {
		case r.kind != "order":
		case r.accepted():
			ids[r.createdID()] = true
		default:
			unanswered++
		}
	}
	var missing []string
	wait.Poll(30*time.Second, func() bool {
		missing = missing[:0]
		for id := range ids {
			if code, m, err := e.client.getJSON("/api/receipts/status?receiptId="+url.QueryEscape(id), false); err != nil || code != 200 || m["receiptId"] != id {
				missing = append(missing, id)
			}
		}
		return len(missing) == 0
	})
	if len(missing) > 0 {
		e.t.Errorf("%s phase: %d of %d accepted receipts do not read after the restart: %v", phase, len(missing), len(ids), missing[:min(len(missing), 20)])
	}
	pool := pgtest.PoolFor(e.t, e.db)
	defer pool.Close()
	var twice []string
	rows, err := pool.Query(e.ctx, `SELECT stream_id FROM events WHERE type = 'ReceiptGenerated' GROUP BY stream_id HAVING count(*) > 1`)
	if err != nil {
		e.t.Fatal(err)
	}
	for rows.Next() {
		var s string
		_ = rows.Scan(&s)
		twice = append(twice, s)
	}
	rows.Close()
	if len(twice) > 0 {
		e.t.Errorf("%s phase: receipts generated twice: %v", phase, twice)
	}
	n := e.receiptCount() - before
	e.t.Logf("%s phase: %d receipts answered (keyed retries included), %d orders unanswered, %d receipts generated", phase, len(ids), unanswered, n)
	if n < len(ids) || n > len(ids)+unanswered {
		e.t.Errorf("%s phase: %d receipts generated, want %d answered plus at most %d unanswered", phase, n, len(ids), unanswered)
	}
	if e.graceful && n != len(ids) {
		e.t.Errorf("%s phase: %d receipts generated, %d answered: a graceful stop answers every request it took", phase, n, len(ids))
	}
}

// checkCreations: each accepted endpoint, API key and plan is listed with the id its answer
// gave, no request's effect is there twice, and an accepted key authenticates. It returns the
// Idempotency-Keys of the requests whose effect is listed.
func (e *rsEnv) checkCreations(phase string, reqs []*rsRequest) map[string]bool {
	e.t.Helper()
	listed := map[string]map[string][]string{ // kind -> mark -> ids listed
		"endpoint": e.listed("/api/webhooks/endpoints", "endpoints", "url", "id"),
		"key":      e.listed("/api/admin/keys", "keys", "name", "id"),
		"plan":     e.listed("/api/subscriptions/plans?wallet="+e.merchant.address, "plans", "name", "planId"),
	}
	present, stored := map[string]int{}, map[string]bool{}
	for _, r := range reqs {
		byMark, ok := listed[r.kind]
		if !ok {
			continue
		}
		ids := byMark[r.mark]
		if len(ids) > 0 {
			present[r.kind]++
			stored[r.idemKey] = true
		}
		if len(ids) > 0 && !r.answered && e.graceful {
			e.t.Errorf("%s phase: %s %q stored without an answer: a graceful stop answers every request it took", phase, r.kind, r.mark)
		}
		switch {
		case len(ids) > 1:
			e.t.Errorf("%s phase: %s %q stored %d times: %v (answered %v)", phase, r.kind, r.mark, len(ids), ids, r.accepted())
		case r.accepted() && (len(ids) != 1 || ids[0] != r.createdID()):
			e.t.Errorf("%s phase: accepted %s %q (id %s) listed as %v after the restart", phase, r.kind, r.mark, r.createdID(), ids)
		}
		if r.kind == "key" && r.accepted() {
			key := findString(jsonMap(r.answer), "key")
			c := *e.client
			c.apiKey = key
			if code, _, err := c.getJSON("/api/status/ping", false); err != nil || code != http.StatusOK {
				e.t.Errorf("%s phase: accepted API key %q does not authenticate after the restart: %d %v", phase, r.mark, code, err)
			}
		}
	}
	e.t.Logf("%s phase: listed after the restart (of all sent, answered or not): %v", phase, present)
	return stored
}

// listed reads a list (as the session) and returns its items' ids by their mark field.
func (e *rsEnv) listed(path, list, markField, idField string) map[string][]string {
	e.t.Helper()
	code, m, err := e.client.getJSON(path, true)
	if err != nil || code != http.StatusOK {
		e.t.Fatalf("GET %s: %d %v %v", path, code, m, err)
	}
	out := map[string][]string{}
	items, _ := m[list].([]any)
	for _, it := range items {
		o, _ := it.(map[string]any)
		mark, _ := o[markField].(string)
		id, _ := o[idField].(string)
		out[mark] = append(out[mark], id)
	}
	return out
}

// checkRefunds: an accepted refund's receipt reads refund_requested with one RefundRequested
// event; one without an answer has at most one.
func (e *rsEnv) checkRefunds(phase string, reqs []*rsRequest) {
	e.t.Helper()
	for _, r := range reqs {
		if r.kind != "refund" {
			continue
		}
		code, m, err := e.client.getJSON("/api/receipts/"+r.mark+"/events", false)
		if err != nil || code != http.StatusOK {
			e.t.Fatalf("history of %s: %d %v", r.mark, code, err)
		}
		n := 0
		events, _ := m["events"].([]any)
		for _, ev := range events {
			if o, _ := ev.(map[string]any); o["type"] == "RefundRequested" {
				n++
			}
		}
		switch {
		case n > 1:
			e.t.Errorf("%s phase: receipt %s has %d RefundRequested events", phase, r.mark, n)
		case r.accepted() && (n != 1 || e.status(r.mark) != "refund_requested"):
			e.t.Errorf("%s phase: accepted refund of %s: %d RefundRequested events, status %q", phase, r.mark, n, e.status(r.mark))
		}
	}
}

// checkOrphanClaims retries the unanswered keyed requests (other than orders) whose key the killed
// instance left claimed and unfinished, once their claim's lock has run out (moved back here, not
// waited for: transport.idemLock is 15 s, renewed while the request runs): such a retry took the claim over and ran the request
// again, so one whose effect was stored was created twice (the finding "Keys left claimed by a
// killed instance" of stop 74). Now it is answered 409 conflict (the outcome is unknown) and
// creates nothing: checkCreations, run again, finds no effect twice.
func (e *rsEnv) checkOrphanClaims(phase string, reqs []*rsRequest, present map[string]bool) {
	e.t.Helper()
	byKey := map[string]*rsRequest{}
	var keys []string
	for _, r := range reqs {
		if r.idemKey != "" && r.kind != "order" && !r.answered {
			keys, byKey[r.idemKey] = append(keys, r.idemKey), r
		}
	}
	if len(keys) == 0 {
		return
	}
	pool := pgtest.PoolFor(e.t, e.db)
	defer pool.Close()
	rows, err := pool.Query(e.ctx, `UPDATE idempotent_responses SET locked_until = now() - interval '1 second'
		WHERE key = ANY($1) AND NOT done RETURNING key`, keys)
	if err != nil {
		e.t.Fatal(err)
	}
	held, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		e.t.Fatal(err)
	}
	slices.Sort(held)
	e.t.Logf("%s phase: unanswered keyed requests %v; their keys left claimed and unfinished: %v", phase, keys, held)
	for _, k := range held {
		r := byKey[k]
		code, _, answer, err := e.client.do(http.MethodPost, r.path, r.body, r.session, r.idemKey)
		if err != nil || code != http.StatusConflict || jsonMap(answer)["error"] != "conflict" {
			e.t.Errorf("%s phase: the retry of %q (effect stored: %v) after its claim's lock: %d %s %v (want 409 conflict, nothing run again)",
				phase, k, present[k], code, answer, err)
		}
	}
	if len(held) > 0 {
		e.checkCreations(phase+" (after the retries)", reqs)
	}
}

func parallel[T any](n int, items []T, f func(T)) {
	ch := make(chan T)
	var wg sync.WaitGroup
	for range n {
		wg.Go(func() {
			for it := range ch {
				f(it)
			}
		})
	}
	for _, it := range items {
		ch <- it
	}
	close(ch)
	wg.Wait()
}

func jsonMap(raw []byte) map[string]any {
	m := map[string]any{}
	_ = jsonInto(raw, &m)
	return m
}
