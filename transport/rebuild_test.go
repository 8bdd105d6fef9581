package transport

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/payledger/payledger/internal/wait"
	"github.com/payledger/payledger/migrations/pgtest"
	"github.com/payledger/payledger/projections"
)

// dumpReadModels renders every read-model row the receipts projector writes, in a fixed order.
func (e *env) dumpReadModels() string {
	e.t.Helper()
	var b strings.Builder
	rows, err := e.pool.Query(context.Background(), `SELECT receipt_id, merchant_wallet, status, coalesce(previous_status, ''), currency, total_cents,
		coalesce(webhook_url, ''), state::text, created_at, updated_at, version, pos_commit, pos_prepare, coalesce(attempt_kind, ''),
		coalesce(attempt_started_at::text, '') FROM receipts ORDER BY receipt_id`)
	if err != nil {
		e.t.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		vals, err := rows.Values()
		if err != nil {
			e.t.Fatal(err)
		}
		fmt.Fprintln(&b, vals...)
	}
	var q string
	_ = e.pool.QueryRow(context.Background(), `SELECT string_agg(queued_key, ',' ORDER BY queued_key) FROM webhook_notifications`).Scan(&q)
	b.WriteString(q)
	return b.String()
}

func TestRebuildGivesIdenticalReadModels(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	m := e.merchant(true)
	r := newReceiver(t)
	e.item(m, `{"sku":"a","name":"A","priceUsd":3,"taxable":true}`)
	for i := range 12 {
		id := decode(t, e.dev(m, http.MethodPost, "/api/orders", `{"items":[{"sku":"a","qty":2}],"jurisdictionCode":"US-NY","webhook_url":"`+r.srv.URL+`"}`))["receipt"].(map[string]any)["receiptId"].(string)
		switch i % 4 {
		case 1:
			e.pay(id, fmt.Sprintf("evt_%d", i))
		case 2:
			e.processorEvent(fmt.Sprintf("evt_p%d", i), id, "att_1", "cos_1", "fulfillment_processing", "")
			e.processorEvent(fmt.Sprintf("evt_f%d", i), id, "att_1", "cos_1", "rejected", `,"errorCode":"card_declined"`)
		case 3:
			e.pay(id, fmt.Sprintf("evt_%d", i))
			e.adminCall(m.cookies, m.csrf, http.MethodPost, "/api/receipts/refund", `{"receiptId":"`+id+`","reason":"r","amountUsd":1}`)
		}
	}
	before := e.dumpReadModels()
	if err := projections.Rebuild(context.Background(), e.pool, projections.Receipts{}); err != nil {
		t.Fatal(err)
	}
	if !wait.Poll(30*time.Second, func() bool { return e.dumpReadModels() == before }) {
		b, a := strings.Split(before, "\n"), strings.Split(e.dumpReadModels(), "\n")
		for i := range min(len(a), len(b)) {
			if a[i] != b[i] {
				t.Fatalf("read models differ after the rebuild at row %d:\nbefore %s\nafter  %s", i, b[i], a[i])
			}
		}
		t.Fatalf("read models differ after the rebuild: %d rows before, %d after", len(b), len(a))
	}
	if n := e.count("webhook_notifications"); n != strings.Count(before, "receipt-status:") {
		t.Fatalf("rebuild queued notifications again: %d", n)
	}
}

func TestBlueGreenRebuildUnderLoad(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	m := e.merchant(true)
	e.item(m, `{"sku":"a","name":"A","priceUsd":3}`)
	for range 40 {
		e.dev(m, http.MethodPost, "/api/orders", `{"items":[{"sku":"a","qty":1}]}`)
	}
	stop := make(chan struct{})
	created := make(chan string, 10_000)
	failures := make(chan string, 100)
	// A full failures channel must not block the orders (the test would then hang, not fail).
	fail := func(f string) {
		select {
		case failures <- f:
		default:
		}
	}
	var n atomic.Int64
	go func() {
		defer close(created)
		for {
			select {
			case <-stop:
				return
			default:
			}
			rec := e.dev(m, http.MethodPost, "/api/orders", `{"items":[{"sku":"a","qty":2}]}`)
			if rec.Code != 200 {
				fail(rec.Body.String())
				continue
			}
			id := decode(t, rec)["receipt"].(map[string]any)["receiptId"].(string)
			// Reads keep answering during the rebuild.
			if st := e.dev(m, http.MethodGet, "/api/receipts/status?receiptId="+id, ""); st.Code != 200 {
				fail("status read: " + st.Body.String())
			}
			created <- id
			n.Add(1)
		}
	}()
	// Orders are being created when the rebuild starts (a condition, not a time: a slow machine
	// may take long for the first).
	wait.Until(t, "a first order", 30*time.Second, func() bool { return n.Load() > 0 })
	var reported uint64
	if err := projections.RebuildReceiptsBlueGreen(context.Background(), e.pool, e.svc.Events.(projections.LogReader), func(n uint64) { reported = n }); err != nil {
		t.Fatal(err)
	}
	// Orders go on after the rebuild (a condition: a few more created), then stop.
	after := n.Load()
	wait.Until(t, "three more orders", 30*time.Second, func() bool { return n.Load() >= after+3 })
	close(stop)
	var ids []string
	for id := range created {
		ids = append(ids, id)
	}
	close(failures)
	for f := range failures {
		t.Errorf("during the rebuild: %s", f)
	}
	if reported == 0 || len(ids) == 0 {
		t.Fatalf("rebuild replayed %d events while %d orders were created", reported, len(ids))
	}
	for _, id := range ids {
		if rec := e.dev(m, http.MethodGet, "/api/receipts/"+id, ""); rec.Code != 200 {
			t.Fatalf("order %s lost by the rebuild: %d", id, rec.Code)
		}
	}
	if n := e.count("receipts"); n != 40+len(ids) {
		t.Fatalf("%d receipts after the rebuild, want %d", n, 40+len(ids))
	}
	// A second rebuild of the settled log gives the same read model.
	before := e.dumpReadModels()
	if err := projections.RebuildReceiptsBlueGreen(context.Background(), e.pool, e.svc.Events.(projections.LogReader), nil); err != nil {
		t.Fatal(err)
	}
	if after := e.dumpReadModels(); after != before {
		t.Fatal("blue/green rebuild changed the read model")
	}
}

// TestBlueGreenRebuildWhileAnotherDatabaseHoldsXmin: a transaction left open in another database
// of the cluster holds the cluster-wide xmin below orders that the receipts projector applied at
// append time. The swap must still replay them into the new table (it read the log below that
// xmin and swapped without them: orders lost, as on a busy machine running other tests).
func TestBlueGreenRebuildWhileAnotherDatabaseHoldsXmin(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	m := e.merchant(true)
	e.item(m, `{"sku":"a","name":"A","priceUsd":3}`)
	pgtest.OpenTransaction(t, pgtest.Pool(t)) // in another database
	var ids []string
	for range 5 {
		rec := e.dev(m, http.MethodPost, "/api/orders", `{"items":[{"sku":"a","qty":1}]}`)
		if rec.Code != 200 {
			t.Fatalf("order: %d %s", rec.Code, rec.Body)
		}
		ids = append(ids, decode(t, rec)["receipt"].(map[string]any)["receiptId"].(string))
	}
	if err := projections.RebuildReceiptsBlueGreen(context.Background(), e.pool, e.svc.Events.(projections.LogReader), nil); err != nil {
		t.Fatal(err)
	}
	for _, id := range ids {
		if rec := e.dev(m, http.MethodGet, "/api/receipts/"+id, ""); rec.Code != 200 {
			t.Fatalf("order %s lost by the rebuild: %d", id, rec.Code)
		}
	}
}
