package transport

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/payledger/payledger/cmd/payledger/app"
	"github.com/payledger/payledger/eventstore/postgres"
	"github.com/payledger/payledger/transport/ratelimit"
)

// otherProcess is e's service built again on e's database, as a second `serve` would be: its
// own command handlers (and so its own refund turns, commands/refund_turns.go), its own caches,
// the same database and secrets. It runs no workers: e's projections serve both.
func (e *env) otherProcess() *env {
	e.t.Helper()
	cfg := app.Config{Store: postgres.New(e.pool), Pool: e.pool, Now: e.clk.Now, Log: zerolog.Nop(),
		SecretsKey: bytes.Repeat([]byte{7}, 32), JournalPath: filepath.Join(e.t.TempDir(), "journal.jsonl"), PlatformRecipient: testPlatform}
	httpCfg := Config{JWTSecret: testJWTSecret, CronSecret: testCronSecret, EdgeSecret: testEdgeSecret,
		AdminWallets: []string{walletOf(e.admin)}, KeyLimitPerMinute: 10_000, PublicLimitPerMinute: 10_000,
		ProcessorWebhookSecret: testProcessorSecret, PublicBaseURL: "https://pay.example"}
	_, deps, err := BuildService(context.Background(), cfg, httpCfg, ratelimit.NewMemory(e.clk.Now), 8453, zerolog.Nop())
	if err != nil {
		e.t.Fatal(err)
	}
	d := &testDeps{Deps: deps}
	d.DB = pinger{}
	other := *e
	if other.srv, err = New(d.Deps); err != nil {
		e.t.Fatal(err)
	}
	return &other
}

// TestRefundsOfOneReceiptAcrossTwoProcesses (stop 72): two processes (two services on one
// database) each take 10 refunds of 10.05 of one 100.50 receipt at once. Each process gives the
// refunds their turns, so its turn's holder contends only with the other process's, and a
// conflict's retry reads only what the other appended (commands/pipeline.go loadOn): every refund
// is decided within the pipeline's conflict budget (200 or the rule's 400, never 409 or 500, and
// no retry by the client), exactly the ten that fit are taken, and the receipt's processed refunds
// add up to its total, never more.
func TestRefundsOfOneReceiptAcrossTwoProcesses(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	procs := []*env{e, e.otherProcess()}
	m := e.merchant(true)
	id := e.receiptFor(m, "100.50")
	e.processorEvent("evt_x1", id, "att_1", "cos_1", "fulfillment_complete", `,"transactionHash":"0x`+strings.Repeat("1", 64)+`"`)
	var wg sync.WaitGroup
	var mu sync.Mutex
	codes, taken := map[int]int{}, map[string]bool{}
	start := make(chan struct{})
	began := time.Now()
	for i := range 20 {
		wg.Go(func() {
			<-start
			hash := fmt.Sprintf("0x%064x", i+100)
			body := fmt.Sprintf(`{"receiptId":%q,"reason":"split refund","amountUsd":10.05,"transactionHash":%q}`, id, hash)
			rec := procs[i%2].adminCall(m.cookies, m.csrf, http.MethodPost, "/api/receipts/refund", body)
			mu.Lock()
			defer mu.Unlock()
			codes[rec.Code]++
			if rec.Code == 200 {
				taken[hash] = true
			} else if rec.Code != 400 || !strings.Contains(rec.Body.String(), `"invalid_input"`) {
				t.Errorf("refund %d (process %d): %d %s", i, i%2, rec.Code, rec.Body)
			}
		})
	}
	close(start)
	wg.Wait()
	t.Logf("20 refunds through two processes in %s", time.Since(began))
	if codes[200] != 10 || codes[400] != 10 {
		t.Fatalf("answers %v, want 10 x 200 and 10 x 400", codes)
	}
	st := e.status(m, id)
	refunds, _ := st["refunds"].([]any)
	if st["status"] != "refunded" || st["refundedUsd"] != 100.5 || len(refunds) != 10 {
		t.Fatalf("after the refunds: status %v refundedUsd %v, %d refunds; want refunded, 100.5, 10", st["status"], st["refundedUsd"], len(refunds))
	}
	for _, r := range refunds {
		r := r.(map[string]any)
		if h, _ := r["transactionHash"].(string); !taken[h] || r["amountUsd"] != 10.05 || r["state"] != "processed" {
			t.Fatalf("refund %v is none of the ten answered 200, or not 10.05 processed", r)
		}
		delete(taken, r["transactionHash"].(string)) // a hash listed twice fails here
	}
}
