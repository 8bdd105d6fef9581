package transport

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/payledger/payledger/readmodels"
	"github.com/payledger/payledger/webhooks"
)

// The outbox races of issue 14: a notification re-aimed at a newer status while it is sent.

// TestWebhookFailedThenPaidRace drives the dispatcher by hand through the race of issue 14: a
// processor's rejected and then fulfillment_complete for the same attempt, close together. The
// projector's transaction that applies fulfillment_complete starts before a dispatcher's claim
// and commits (re-aiming the open notification from failed to paid) while the claim runs. The
// test stretches that interleaving: it holds the receipt's read-model row so that the projector's
// transaction waits inside, starts the claim (leased filler notifications, which every claim
// scans past, keep it running), and lets the projector commit once PostgreSQL shows the claim
// running. The receipt must never read webhookDelivery "delivered" unless its last status
// (paid) was delivered.
func TestWebhookFailedThenPaidRace(t *testing.T) {
	t.Parallel()
	e := newEnvWith(t, nil, func(d *webhooks.Dispatcher) { d.Workers = -1 }) // the test is the dispatcher
	m := e.merchant(true)
	r := newReceiver(t)
	ctx := context.Background()
	if _, err := e.pool.Exec(ctx, `INSERT INTO webhook_notifications (id, receipt_id, merchant_wallet, url, queued_key, state,
			next_attempt_at, lease_until, lease_token, created_at, updated_at)
		SELECT gen_random_uuid(), 'filler-' || g, 'x', 'x', 'filler-' || g, 'pending', now() - interval '1 day',
			now() + interval '1 day', gen_random_uuid(), now(), now()
		FROM generate_series(1, 200000) AS g; ANALYZE webhook_notifications`); err != nil {
		t.Fatal(err)
	}
	claim := func() []readmodels.Claimed {
		c, err := e.outbox.Claim(ctx, []string{readmodels.NotePending, readmodels.NoteRetrying}, false, claimBatch, leaseFor)
		if err != nil {
			t.Error(err)
		}
		return c
	}
	drain := func() {
		for range 10 {
			claimed := claim()
			if len(claimed) == 0 {
				return
			}
			for _, c := range claimed {
				e.dispatcher.Deliver(ctx, c)
			}
		}
		t.Fatal("the outbox does not drain")
	}
	backends := func(cond string) func() bool {
		return func() bool {
			var n int
			if err := e.pool.QueryRow(ctx, `SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND `+cond).Scan(&n); err != nil {
				t.Fatal(err)
			}
			return n > 0
		}
	}
	statuses := func(id string) []string {
		var out []string
		for _, g := range r.all() {
			var p map[string]any
			_ = json.Unmarshal(g.body, &p)
			if p["receiptId"] == id {
				out = append(out, p["status"].(string))
			}
		}
		return out
	}
	// Its own connections: the test's pool may have as few as four.
	holder, err := pgx.Connect(ctx, e.pool.Config().ConnString())
	if err != nil {
		t.Fatal(err)
	}
	defer holder.Close(ctx)
	const tries = 5
	hits := 0
	for try := range tries {
		id := e.hookedReceipt(m, r.srv.URL)
		if rec := e.processorEvent(fmt.Sprintf("evt_%d_1", try), id, "att_1", "cos_1", "fulfillment_processing", ""); rec.Code != 200 {
			t.Fatal(rec.Body)
		}
		waitUntil(t, "pending", 5*time.Second, func() bool { return e.status(m, id)["status"] == "pending" })
		drain()
		e.processorEvent(fmt.Sprintf("evt_%d_2", try), id, "att_1", "cos_1", "rejected", `,"errorCode":"card_declined"`)
		waitUntil(t, "failed", 5*time.Second, func() bool { return e.status(m, id)["status"] == "failed" })
		// The failure's notification is due. The projector starts applying the payment ...
		hold, err := holder.Begin(ctx)
		if err != nil {
			t.Fatal(err)
		}
		// A table lock takes no transaction id, so the projector still reads the new event.
		if _, err := hold.Exec(ctx, `LOCK TABLE receipts IN SHARE MODE`); err != nil {
			t.Fatal(err)
		}
		paid := make(chan struct{})
		go func() {
			defer close(paid)
			rec := e.processorEvent(fmt.Sprintf("evt_%d_3", try), id, "att_1", "cos_1", "fulfillment_complete",
				`,"transactionHash":"0x`+strings.Repeat("A", 64)+`","walletAddress":"0x`+strings.Repeat("b", 40)+`"`)
			if rec.Code != 200 {
				t.Errorf("fulfillment_complete: %d %s", rec.Code, rec.Body)
			}
		}()
		waitUntil(t, "the projector to wait for the receipt's row", 5*time.Second, backends(`wait_event_type = 'Lock'`))
		// ... a claim starts, and the projector commits while it runs.
		claimed := make(chan []readmodels.Claimed, 1)
		go func() { claimed <- claim() }()
		waitUntil(t, "the claim to run", 5*time.Second, backends(`state = 'active' AND query LIKE '%UPDATE webhook_notifications n SET lease_until%'`))
		if err := hold.Rollback(ctx); err != nil {
			t.Fatal(err)
		}
		first := <-claimed
		<-paid
		waitUntil(t, "paid", 5*time.Second, func() bool { return e.status(m, id)["status"] == "paid" })
		for _, c := range first {
			if c.ReceiptID != id {
				continue
			}
			// The claim raced the projector if its lease, not the projector's re-aim, is the row's
			// last version: the re-aim committed before the claim locked the row.
			var raced bool
			if err := e.pool.QueryRow(ctx, `SELECT n.xmin::text <> r.xmin::text AND n.queued_key LIKE '%:paid:%'
				FROM webhook_notifications n JOIN receipts r USING (receipt_id) WHERE n.id = $1`, c.ID).Scan(&raced); err != nil {
				t.Fatal(err)
			}
			if raced {
				hits++
			}
		}
		for _, c := range first {
			e.dispatcher.Deliver(ctx, c)
		}
		drain()
		got, st := statuses(id), e.status(m, id)
		if st["webhookDelivery"] != "delivered" || len(got) == 0 || got[len(got)-1] != "paid" {
			t.Fatalf("try %d: the receiver got %v, the status read says %v and webhookDelivery %v", try, got, st["status"], st["webhookDelivery"])
		}
	}
	if hits == 0 {
		t.Fatal("no claim took the notification re-aimed while it ran: the race was never exercised")
	}
	t.Logf("%d of %d claims took the notification re-aimed while they ran", hits, tries)
}

// markHook runs before each MarkDelivered: the moment between a manual redelivery's send and its
// closing of the notification.
type markHook struct {
	webhooks.Outbox
	before func()
}

func (h markHook) MarkDelivered(ctx context.Context, id uuid.UUID, queuedKey, sentKey string) error {
	h.before()
	return h.Outbox.MarkDelivered(ctx, id, queuedKey, sentKey)
}

// TestRedeliverRacingAPaymentKeepsItPending: a manual redelivery sends the failed status, and the
// payment is projected (re-aiming the open notification at paid) before the redelivery closes the
// notification. It must stay pending, and paid must be sent.
func TestRedeliverRacingAPaymentKeepsItPending(t *testing.T) {
	t.Parallel()
	e := newEnvWith(t, nil, func(d *webhooks.Dispatcher) { d.Workers = -1 }) // the test is the dispatcher
	m := e.merchant(true)
	r := newReceiver(t)
	ctx := context.Background()
	drain := func() {
		for range 10 {
			claimed, err := e.outbox.Claim(ctx, []string{readmodels.NotePending, readmodels.NoteRetrying}, true, claimBatch, leaseFor)
			if err != nil {
				t.Fatal(err)
			}
			if len(claimed) == 0 {
				return
			}
			for _, c := range claimed {
				e.dispatcher.Deliver(ctx, c)
			}
		}
		t.Fatal("the outbox does not drain")
	}
	id := e.hookedReceipt(m, r.srv.URL)
	e.processorEvent("evt_1", id, "att_1", "cos_1", "fulfillment_processing", "")
	waitUntil(t, "pending", 5*time.Second, func() bool { return e.status(m, id)["status"] == "pending" })
	drain()
	e.processorEvent("evt_2", id, "att_1", "cos_1", "rejected", `,"errorCode":"card_declined"`)
	waitUntil(t, "failed", 5*time.Second, func() bool { return e.status(m, id)["status"] == "failed" })
	r.mu.Lock()
	r.answers = []int{500} // the failure's first attempt fails: its notification stays open
	r.mu.Unlock()
	claimed, err := e.outbox.Claim(ctx, []string{readmodels.NotePending}, true, claimBatch, leaseFor)
	if err != nil || len(claimed) != 1 {
		t.Fatalf("claim: %v %v", claimed, err)
	}
	e.dispatcher.Deliver(ctx, claimed[0])
	log := decode(t, e.dev(m, http.MethodGet, "/api/webhooks/deliveries?receiptId="+id, ""))["deliveries"].([]any)
	n, err := e.outbox.NotificationOfDelivery(ctx, uuid.MustParse(log[0].(map[string]any)["id"].(string)))
	if err != nil {
		t.Fatal(err)
	}
	// A second dispatcher configured as the env's, on the hooked outbox (a copy of the env's would
	// copy its state: go vet refuses it).
	src := e.dispatcher
	d := (&webhooks.Dispatcher{Keys: src.Keys, Events: src.Events, Log: src.Log, Production: src.Production,
		Timeout: src.Timeout, RetryDelay: src.RetryDelay, Workers: src.Workers, Metrics: src.Metrics, Now: src.Now,
		Endpoints: src.Endpoints, Tracer: src.Tracer, Telling: src.Telling,
		Outbox: markHook{Outbox: e.outbox, before: func() {
			e.pay(id, "evt_3")
			waitUntil(t, "paid", 5*time.Second, func() bool { return e.status(m, id)["status"] == "paid" })
		}}}).Init()
	if a, err := d.Redeliver(ctx, n); err != nil || a.StatusSent != "failed" {
		t.Fatalf("redelivery sent %q: %v", a.StatusSent, err)
	}
	if st := e.status(m, id); st["webhookDelivery"] != "pending" {
		t.Fatalf("after redelivering failed while the receipt became paid: webhookDelivery %v", st["webhookDelivery"])
	}
	drain()
	var last map[string]any
	got := r.all()
	_ = json.Unmarshal(got[len(got)-1].body, &last)
	if st := e.status(m, id); last["status"] != "paid" || st["webhookDelivery"] != "delivered" {
		t.Fatalf("the receiver last got %v; webhookDelivery %v", last["status"], st["webhookDelivery"])
	}
}

// TestWebhookFinalStatusUnderRace is issue 36's racing test: for each of 300 receipts a
// processor's fulfillment_complete and a rejected one second newer arrive together, while the
// receipt's pending notification is still being delivered (the receiver is slow). Every
// receiver's last notification must carry its receipt's final status, and the status read must
// say delivered. A further 30 receipts are paid with a receiver that answers 500 to paid: each
// must still get paid's first attempt and its automatic retry.
func TestWebhookFinalStatusUnderRace(t *testing.T) {
	t.Parallel()
	const receipts, refusing = 300, 30
	e := newEnv(t, nil)
	m := e.merchant(true)
	r := newReceiver(t)
	r.hang = 40 * time.Millisecond // deliveries are in flight while the next status is projected
	refuser := newStatusReceiver(t, "paid", http.StatusInternalServerError)
	ids, refused := make([]string, receipts), make([]string, refusing)
	for i := range ids {
		ids[i] = e.hookedReceipt(m, r.srv.URL)
	}
	for i := range refused {
		refused[i] = e.hookedReceipt(m, refuser.srv.URL)
	}
	created := e.clk.Now().Unix()
	event := func(n int, id, status string, at int64, extra string) {
		body := fmt.Sprintf(`{"id":"evt_%s_%d","type":"crypto.onramp_session.updated","created":%d,"data":{"sessionId":"cos_1","receiptId":%q,"attemptId":"att_1","status":%q%s}}`,
			id, n, at, id, status, extra)
		rec := e.do(req{method: http.MethodPost, path: "/api/processor/webhook", body: body,
			header: map[string]string{"Processor-Signature": sign(testProcessorSecret, e.clk.Now().Unix(), body)}})
		if rec.Code != http.StatusOK {
			t.Errorf("%s for %s: %d %s", status, id, rec.Code, rec.Body)
		}
	}
	paid := `,"transactionHash":"0x` + strings.Repeat("a", 64) + `","walletAddress":"0x` + strings.Repeat("b", 40) + `","sourceAmountUsd":42`
	var wg sync.WaitGroup
	work := make(chan string)
	for range 16 {
		wg.Go(func() {
			for id := range work {
				event(1, id, "fulfillment_processing", created, "")
				var pair sync.WaitGroup
				pair.Go(func() { event(2, id, "fulfillment_complete", created, paid) })
				if !slices.Contains(refused, id) {
					pair.Go(func() { event(3, id, "rejected", created+1, `,"errorCode":"card_declined"`) })
				}
				pair.Wait()
			}
		})
	}
	for _, id := range append(append([]string{}, ids...), refused...) {
		work <- id
	}
	close(work)
	wg.Wait()
	waitUntil(t, "every notification to settle", 90*time.Second, func() bool {
		var open int
		if err := e.pool.QueryRow(context.Background(), `SELECT count(*) FROM webhook_notifications
			WHERE state IN ('pending', 'retrying') OR lease_until IS NOT NULL`).Scan(&open); err != nil {
			t.Fatal(err)
		}
		return open == 0
	})
	last := lastStatuses(r.all())
	unnotified := 0
	for _, id := range ids {
		st := e.status(m, id)
		if last[id] != st["status"] || st["webhookDelivery"] != "delivered" {
			unnotified++
			t.Errorf("receipt %s is %v (webhookDelivery %v) but its receiver last got %q", id, st["status"], st["webhookDelivery"], last[id])
		}
	}
	t.Logf("%d of %d receipts' final statuses unnotified", unnotified, receipts)
	paidAttempts := map[string]int{}
	for _, g := range refuser.all() {
		var p map[string]any
		_ = json.Unmarshal(g.body, &p)
		if p["status"] == "paid" {
			paidAttempts[p["receiptId"].(string)]++
		}
	}
	for _, id := range refused {
		if paidAttempts[id] < 2 {
			t.Errorf("receipt %s, whose receiver refuses paid, got %d paid attempts, want the first and the retry", id, paidAttempts[id])
		}
	}
}

// lastStatuses is the status of the last notification each receipt's receiver got.
func lastStatuses(got []received) map[string]string {
	last := map[string]string{}
	for _, g := range got {
		var p map[string]any
		_ = json.Unmarshal(g.body, &p)
		if id, ok := p["receiptId"].(string); ok {
			last[id], _ = p["status"].(string)
		}
	}
	return last
}

// newStatusReceiver is a receiver that answers code to every notification of status, 200 to others.
func newStatusReceiver(t *testing.T, status string, code int) *receiver {
	r := &receiver{}
	r.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		body, _ := io.ReadAll(req.Body)
		r.mu.Lock()
		r.got = append(r.got, received{header: req.Header.Clone(), body: body, at: time.Now()})
		r.mu.Unlock()
		var p map[string]any
		if json.Unmarshal(body, &p) == nil && p["status"] == status {
			w.WriteHeader(code)
			return
		}
		w.WriteHeader(http.StatusOK)
	}))
	t.Cleanup(r.srv.Close)
	return r
}
