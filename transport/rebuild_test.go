package transport

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/payledger/payledger/projections"
)

// dumpReadModels renders every read-model row the receipts projector writes, in a fixed order.
func (e *env) dumpReadModels() string {
	e.t.Helper()
	var b strings.Builder
	rows, err := e.pool.Query(context.Background(), `SELECT receipt_id, merchant_wallet, status, coalesce(previous_status, ''), currency, total_cents,
		coalesce(webhook_url, ''), receipt::text, state::text, created_at, updated_at, version, pos_commit, pos_prepare, coalesce(attempt_kind, ''),
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
	deadline := time.Now().Add(30 * time.Second)
	for after := e.dumpReadModels(); after != before; after = e.dumpReadModels() {
		if time.Now().After(deadline) {
			b, a := strings.Split(before, "\n"), strings.Split(after, "\n")
			for i := range min(len(a), len(b)) {
				if a[i] != b[i] {
					t.Fatalf("read models differ after the rebuild at row %d:\nbefore %s\nafter  %s", i, b[i], a[i])
				}
			}
			t.Fatalf("read models differ after the rebuild: %d rows before, %d after", len(b), len(a))
		}
		time.Sleep(20 * time.Millisecond)
	}
	if n := e.count("webhook_notifications"); n != strings.Count(before, "receipt-status:") {
		t.Fatalf("rebuild queued notifications again: %d", n)
	}
}
