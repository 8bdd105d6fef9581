package transport

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/payledger/payledger/eventstore"
	"github.com/payledger/payledger/internal/wait"
	"github.com/payledger/payledger/projections"
)

// dumpEveryReadModel renders every row, every column, of the read models that the receipts and
// users projectors write (and of what must not be written twice by a replay: the webhook outbox,
// the merchants' event log, the deposit credits and sweeps), in a fixed order.
func (e *env) dumpEveryReadModel() string {
	e.t.Helper()
	var b strings.Builder
	for _, q := range []string{
		`SELECT r::text FROM receipts r ORDER BY receipt_id`,
		`SELECT wallet || ' ' || xp FROM users WHERE xp <> 0 ORDER BY wallet`,
		`SELECT x::text FROM user_xp x ORDER BY receipt_id`,
		`SELECT c::text FROM deposit_credits c ORDER BY 1`,
		`SELECT s::text FROM deposit_sweeps s ORDER BY 1`,
		`SELECT queued_key || ' ' || state FROM webhook_notifications n ORDER BY queued_key`,
		`SELECT event_key FROM webhook_events ORDER BY event_key`,
	} {
		rows, err := e.pool.Query(context.Background(), q)
		if err != nil {
			e.t.Fatalf("%s: %v", q, err)
		}
		for rows.Next() {
			var line string
			if err := rows.Scan(&line); err != nil {
				e.t.Fatal(err)
			}
			b.WriteString(line + "\n")
		}
		if err := rows.Err(); err != nil {
			e.t.Fatal(err)
		}
		b.WriteString("--\n")
	}
	return b.String()
}

// diffDumps names the first line where two dumps differ.
func diffDumps(before, after string) string {
	b, a := strings.Split(before, "\n"), strings.Split(after, "\n")
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return fmt.Sprintf("line %d:\nbefore %s\nafter  %s", i, b[i], a[i])
		}
	}
	return fmt.Sprintf("%d lines before, %d after", len(b), len(a))
}

// TestRebuildsOfARichHistoryGiveTheLiveReadModels: a history with orders and direct receipts,
// deposits paid exactly, in two parts, over, late, seen and not confirmed, processor payments and
// failures, partial and full refunds, telemetry and XP; then the receipts read model rebuilt
// blue/green and the users projector rebuilt: every row and column is what the live projectors
// wrote, and nothing owed once (webhooks, event-log entries, credits) is recorded again.
func TestRebuildsOfARichHistoryGiveTheLiveReadModels(t *testing.T) {
	t.Parallel()
	e := portalEnv(t)
	ctx := context.Background()
	users, err := projections.NewRunner(e.pool, e.svc.Events, projections.NewUsers(e.svc.Events), zerolog.Nop())
	if err != nil {
		t.Fatal(err)
	}
	runCtx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() { defer close(done); _ = users.Run(runCtx) }()
	t.Cleanup(func() { cancel(); <-done })

	m := e.merchant(true)
	r := newReceiver(t)
	e.item(m, `{"sku":"a","name":"A","priceUsd":3,"taxable":true}`)
	tx := func(n int) string { return fmt.Sprintf("0x%064x", n) }
	exact, parts, over, seen := e.receiptFor(m, "12.34"), e.receiptFor(m, "12.34"), e.receiptFor(m, "12.34"), e.receiptFor(m, "12.34")
	e.depositCredit(exact, tx(1), "USDC", "12340000", true)
	e.depositCredit(parts, tx(2), "USDC", "5000000", true)
	e.depositCredit(parts, tx(3), "USDC", "7340000", true)
	e.depositCredit(over, tx(4), "USDC", "20000000", true)
	e.depositCredit(seen, tx(5), "USDC", "12340000", false)
	late := e.receiptFor(m, "1.00")
	e.do(req{method: http.MethodPost, path: "/api/portal/" + late + "/telemetry", body: `{"event":"link_opened"}`})
	e.clk.Advance(2 * time.Hour) // past the payment window
	e.depositCredit(late, tx(6), "USDC", "1000000", true)
	for i := range 8 {
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
			if i == 7 { // the rest: a full refund takes the XP back
				e.adminCall(m.cookies, m.csrf, http.MethodPost, "/api/receipts/refund", `{"receiptId":"`+id+`","reason":"r","amountUsd":5.4}`)
			}
		}
	}
	settled := func() eventstore.Position {
		head, err := e.svc.Events.Head(ctx)
		if err != nil {
			t.Fatal(err)
		}
		wctx, stop := context.WithTimeout(ctx, 30*time.Second)
		defer stop()
		for _, run := range []*projections.Runner{e.svc.Projections.Receipts, users} {
			if err := run.WaitFor(wctx, head); err != nil {
				t.Fatal(err)
			}
		}
		return head
	}
	settled()
	// The receipt webhooks still open are delivered by the running dispatcher (the receiver
	// answers 200): wait for them, or one delivered during the rebuilds reads as a difference.
	if !wait.Poll(30*time.Second, func() bool {
		var open int
		err := e.pool.QueryRow(ctx, `SELECT count(*) FROM webhook_notifications WHERE state IN ('pending', 'retrying', 'marked')`).Scan(&open)
		return err == nil && open == 0
	}) {
		t.Fatal("receipt webhooks still open after 30 s")
	}
	before := e.dumpEveryReadModel()
	if !strings.Contains(before, "paid") || strings.Count(strings.Split(before, "--\n")[1], "\n") == 0 {
		t.Fatalf("the history made no paid receipt or no XP:\n%s", before)
	}

	if err := projections.RebuildReceiptsBlueGreen(ctx, e.pool, e.svc.Events.(projections.LogReader), nil); err != nil {
		t.Fatal(err)
	}
	if err := projections.Rebuild(ctx, e.pool, projections.NewUsers(e.svc.Events)); err != nil {
		t.Fatal(err)
	}
	if !wait.Poll(30*time.Second, func() bool { settled(); return e.dumpEveryReadModel() == before }) {
		t.Fatalf("read models differ after the rebuilds at %s", diffDumps(before, e.dumpEveryReadModel()))
	}
}
