package main

// The load of the restart test (restart74_test.go): mutating requests of several kinds sent to
// the real binary by concurrent workers until serve stops answering (killed, or stopped by a
// signal), each request recorded with its answer or the lack of one, so that what was accepted
// can be looked for after the restart.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"time"
)

// rsRequest is one mutating request of the load and what came of it.
type rsRequest struct {
	kind    string // "order", "endpoint", "key", "plan", "refund"
	idemKey string // its Idempotency-Key ("" none)
	path    string
	body    []byte
	session bool   // sent with the merchant's session (else its API key)
	mark    string // what names its effect apart from every other request's: endpoint URL, key or plan name, refunded receipt

	answered bool // an HTTP answer came (of any status)
	status   int
	header   http.Header
	answer   []byte
	err      error // why no answer came
}

// accepted: the service answered 2xx, so what the request did must be there after any restart.
func (r *rsRequest) accepted() bool { return r.answered && r.status/100 == 2 }

// createdID is the id the answer names: the receipt of an order, the endpoint, the API key, the plan.
func (r *rsRequest) createdID() string {
	var m map[string]any
	_ = json.Unmarshal(r.answer, &m)
	switch r.kind {
	case "order":
		return findString(m["receipt"], "receiptId")
	case "endpoint":
		return findString(m["endpoint"], "id")
	case "key":
		return findString(m["apiKey"], "id")
	case "plan":
		return findString(m["plan"], "planId")
	}
	return ""
}

// rsClient speaks to serve as the merchant: its API key, or its dashboard session (cookies and
// the CSRF token). A request's end is bounded, so that a request that hangs is seen.
type rsClient struct {
	base    string
	apiKey  string
	cookies []*http.Cookie
	csrf    string
	http    *http.Client
}

func newRSClient(base, apiKey string, session *e2eClient) *rsClient {
	return &rsClient{base: base, apiKey: apiKey, cookies: session.cookies, csrf: session.csrf,
		http: &http.Client{Timeout: 60 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: 16}}}
}

// do sends method path with body (nil: none), as the session or with the key, under idemKey
// (unless ""), and returns the answer.
func (c *rsClient) do(method, path string, body []byte, session bool, idemKey string) (int, http.Header, []byte, error) {
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequest(method, c.base+path, rd)
	if err != nil {
		return 0, nil, nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	if idemKey != "" {
		req.Header.Set("Idempotency-Key", idemKey)
	}
	if session {
		for _, ck := range c.cookies {
			req.AddCookie(ck)
		}
		req.Header.Set("x-csrf-token", c.csrf)
	} else {
		req.Header.Set("Authorization", "Bearer "+c.apiKey)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return 0, nil, nil, err
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil { // cut mid-body: not an answer the client can act on
		return 0, nil, nil, err
	}
	return resp.StatusCode, resp.Header, raw, nil
}

// getJSON reads path (as the session or with the key) and decodes its JSON object.
func (c *rsClient) getJSON(path string, session bool) (int, map[string]any, error) {
	code, _, raw, err := c.do(http.MethodGet, path, nil, session, "")
	if err != nil {
		return 0, nil, err
	}
	var m map[string]any
	_ = json.Unmarshal(raw, &m)
	return code, m, nil
}

// send sends r and records its answer.
func (c *rsClient) send(r *rsRequest) {
	r.status, r.header, r.answer, r.err = c.do(http.MethodPost, r.path, r.body, r.session, r.idemKey)
	r.answered = r.err == nil
}

// rsLoad is one phase's load: every request sent, and how many of each kind were accepted.
type rsLoad struct {
	phase    string
	mu       sync.Mutex
	requests []*rsRequest
	acceptN  map[string]int
	sends    map[string]int // kind -> how many the load sends at most (orders: unbounded, not listed)
	started  time.Time
	ended    time.Time
	aimed    map[string]chan struct{} // kind -> closed when the next request of that kind is sent (aim)
	stop     chan struct{}
	wg       sync.WaitGroup
}

func newRSLoad(phase string) *rsLoad {
	return &rsLoad{phase: phase, acceptN: map[string]int{}, sends: map[string]int{}, stop: make(chan struct{})}
}

func (l *rsLoad) record(r *rsRequest) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.requests = append(l.requests, r)
	if r.accepted() {
		l.acceptN[r.kind]++
	}
}

// accepts is how many requests of kind were accepted so far.
func (l *rsLoad) accepts(kind string) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.acceptN[kind]
}

// busy: at least orders orders accepted, and 3 requests of every other kind the load sends
// (while it sends them: a worker that made all its creations has none in flight).
func (l *rsLoad) busy(orders int) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.acceptN["order"] < orders {
		return false
	}
	for kind, most := range l.sends {
		if l.acceptN[kind] < min(3, most) {
			return false
		}
	}
	return true
}

// aim returns a channel closed as soon as a request of kind is being sent (from now on): the
// stop can then come while one is in flight.
func (l *rsLoad) aim(kind string) <-chan struct{} {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.aimed == nil {
		l.aimed = map[string]chan struct{}{}
	}
	ch := make(chan struct{})
	l.aimed[kind] = ch
	return ch
}

// unfinished are the kinds of creations whose worker has more to send (of those in kinds).
func (l *rsLoad) unfinished(kinds ...string) []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	sent := map[string]int{}
	for _, r := range l.requests {
		sent[r.kind]++
	}
	var out []string
	for _, k := range kinds {
		if sent[k] < l.sends[k]-1 { // the last one may be on its way
			out = append(out, k)
		}
	}
	return out
}

// sending closes the channel aimed at kind, if any.
func (l *rsLoad) sending(kind string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if ch, ok := l.aimed[kind]; ok {
		close(ch)
		delete(l.aimed, kind)
	}
}

// all is every request recorded (once the workers are done).
func (l *rsLoad) all() []*rsRequest {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]*rsRequest(nil), l.requests...)
}

func (l *rsLoad) stopped() bool {
	select {
	case <-l.stop:
		return true
	default:
		return false
	}
}

// worker sends next's requests one after the other, pace apart, until next returns nil, the
// load is stopped, or a request gets no answer (serve is gone: the worker's part ends there,
// that request recorded unanswered).
func (l *rsLoad) worker(c *rsClient, pace time.Duration, next func(n int) *rsRequest) {
	l.wg.Go(func() {
		var tick <-chan time.Time // the load's pace: one request per tick at most
		if pace > 0 {
			t := time.NewTicker(pace)
			defer t.Stop()
			tick = t.C
		}
		for n := 0; !l.stopped(); n++ {
			r := next(n)
			if r == nil {
				return
			}
			l.sending(r.kind)
			c.send(r)
			l.record(r)
			if !r.answered {
				return
			}
			if tick != nil {
				<-tick
			}
		}
	})
}

// rsLoadPlan is what one phase's load sends.
type rsLoadPlan struct {
	wallet    string
	sink      string   // the URL the endpoints the load registers point at
	refunds   []string // paid receipts the load refunds, one refund each
	endpoints int      // at most this many endpoint creations (the merchant has at most 20 live)
	keys      int      // at most this many API key creations (at most 50 live)
	plans     int
}

// start runs the phase's workers: orders without a key (3 workers) and with one (2), and one
// worker each for webhook endpoints, API keys and plans (all three under Idempotency-Keys), and
// refunds of p.refunds.
func (l *rsLoad) start(c *rsClient, p rsLoadPlan) {
	const order = `{"items":[{"sku":"latte","qty":2}]}`
	l.started = time.Now()
	l.sends = map[string]int{"endpoint": p.endpoints, "key": p.keys, "plan": p.plans, "refund": len(p.refunds)}
	for w := range 5 {
		keyed := w >= 3
		l.worker(c, 0, func(n int) *rsRequest {
			r := &rsRequest{kind: "order", path: "/api/orders", body: []byte(order)}
			if keyed {
				r.idemKey = fmt.Sprintf("rs-%s-order-%d-%d", l.phase, w, n)
			}
			return r
		})
	}
	creations := func(kind string, most int, request func(n int, mark string) *rsRequest) {
		l.worker(c, 150*time.Millisecond, func(n int) *rsRequest {
			if n >= most {
				return nil
			}
			r := request(n, fmt.Sprintf("rs-%s-%s-%d", l.phase, kind, n))
			r.kind, r.session, r.idemKey = kind, true, fmt.Sprintf("rs-%s-%s-key-%d", l.phase, kind, n)
			return r
		})
	}
	creations("endpoint", p.endpoints, func(n int, mark string) *rsRequest {
		u := p.sink + "/" + mark
		return &rsRequest{path: "/api/webhooks/endpoints", mark: u, body: mustJSON(map[string]any{"url": u, "events": []string{"receipt.status_updated"}})}
	})
	creations("key", p.keys, func(n int, mark string) *rsRequest {
		return &rsRequest{path: "/api/admin/keys", mark: mark, body: mustJSON(map[string]any{"name": mark, "scopes": []string{"receipts:read"}})}
	})
	creations("plan", p.plans, func(n int, mark string) *rsRequest {
		return &rsRequest{path: "/api/subscriptions/plans", mark: mark, body: mustJSON(map[string]any{
			"wallet": p.wallet, "name": mark, "description": "restart load", "priceUsd": 5, "period": "MONTHLY"})}
	})
	creations("refund", len(p.refunds), func(n int, mark string) *rsRequest {
		id := p.refunds[n]
		return &rsRequest{path: "/api/receipts/refund", mark: id, body: mustJSON(map[string]any{"receiptId": id, "amountUsd": 1, "reason": mark})}
	})
}

// end stops the workers and waits for them.
func (l *rsLoad) end() {
	select {
	case <-l.stop:
	default:
		close(l.stop)
	}
	l.wg.Wait()
	l.ended = time.Now()
}

// summary counts the phase's requests by kind and outcome, for the log.
func (l *rsLoad) summary() string {
	counts := map[string]int{}
	for _, r := range l.all() {
		switch {
		case r.accepted():
			counts[r.kind+" accepted"]++
		case r.answered:
			counts[fmt.Sprintf("%s %d", r.kind, r.status)]++
		default:
			counts[r.kind+" unanswered"]++
		}
	}
	return fmt.Sprintf("%v in %v", counts, l.ended.Sub(l.started).Round(time.Millisecond))
}

func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}

// rsRefused lists the answers of the phase that were neither accepted nor missing: the load's
// requests are all valid, so a 4xx or 5xx before the stop is a fault of its own.
func rsRefused(reqs []*rsRequest) []string {
	var out []string
	for _, r := range reqs {
		if r.answered && !r.accepted() {
			out = append(out, fmt.Sprintf("%s %s (key %q): %d %s", r.kind, r.path, r.idemKey, r.status, strings.TrimSpace(string(r.answer))))
		}
	}
	return out
}
