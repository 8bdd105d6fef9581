package transport

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/payledger/payledger/commands"
	"github.com/payledger/payledger/domain/receipt"
	"github.com/payledger/payledger/eventstore"
	"github.com/payledger/payledger/webhooks"
)

// BenchmarkWebhookDelivery measures deliveries per second to a local receiver and the latency
// from the commit of the status-changing event to the notification's arrival.
func BenchmarkWebhookDelivery(b *testing.B) {
	b.Run("burst-16-writers", func(b *testing.B) { benchWebhooks(b, 2000, 0) })
	b.Run("paced-300-per-s", func(b *testing.B) { benchWebhooks(b, 1500, 300) })
	b.Run("paced-1000-per-s", func(b *testing.B) { benchWebhooks(b, 5000, 1000) })
	b.Run("backlog-4000", func(b *testing.B) { benchWebhookBacklog(b, 4000) })
}

// benchWebhookBacklog measures the dispatcher alone: n notifications are queued (status changes
// committed and projected) while no dispatcher runs, then one starts and the time until the last
// arrival gives deliveries per second.
func benchWebhookBacklog(b *testing.B, n int) {
	e := newEnvWith(b, nil, func(d *webhooks.Dispatcher) { d.Workers = -1 })
	ctx := context.Background()
	recv, arrivals := countingReceiver(b)
	ids := webhookReceipts(b, e, n, recv.URL)
	var last eventstore.AppendResult
	var mu sync.Mutex
	confirmAll(b, e, ids, time.Now(), 0, func(_ int, res eventstore.AppendResult) {
		mu.Lock()
		defer mu.Unlock()
		if last.Position.Less(res.Position) {
			last = res
		}
	})
	if err := e.srv.waitReadable(ctx, "", last); err != nil {
		b.Fatal(err)
	}
	if queued := e.count("webhook_notifications"); queued != n {
		b.Fatalf("%d notifications queued, want %d", queued, n)
	}
	disp := (&webhooks.Dispatcher{Outbox: e.outbox, Keys: e.webhookKeys, Events: e.svc.Events, Log: zerolog.Nop()}).Init()
	runCtx, stop := context.WithCancel(ctx)
	defer stop()
	b.ResetTimer()
	start := time.Now()
	go func() { _ = disp.Run(runCtx) }()
	arrivals.waitFor(b, n)
	elapsed := time.Since(start)
	b.StopTimer()
	b.ReportMetric(float64(n)/elapsed.Seconds(), "deliveries/s")
}

// arrivals records when each receipt's first notification arrived.
type arrivals struct {
	mu sync.Mutex
	at map[string]time.Time
}

func (a *arrivals) count() int { a.mu.Lock(); defer a.mu.Unlock(); return len(a.at) }

// waitFor waits until n receipts' notifications have arrived (at most two minutes).
func (a *arrivals) waitFor(b *testing.B, n int) {
	deadline := time.Now().Add(2 * time.Minute)
	for a.count() < n {
		if time.Now().After(deadline) {
			b.Fatalf("%d of %d notifications arrived", a.count(), n)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// countingReceiver is a local receiver answering 204 that records arrivals.
func countingReceiver(b *testing.B) (*httptest.Server, *arrivals) {
	got := &arrivals{at: map[string]time.Time{}}
	recv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		var p struct {
			ReceiptID string `json:"receiptId"`
		}
		_ = json.Unmarshal(body, &p)
		got.mu.Lock()
		if _, ok := got.at[p.ReceiptID]; !ok {
			got.at[p.ReceiptID] = time.Now()
		}
		got.mu.Unlock()
		w.WriteHeader(http.StatusNoContent)
	}))
	b.Cleanup(recv.Close)
	return recv, got
}

// webhookReceipts generates n receipts with a webhook URL and a signing key, readable.
func webhookReceipts(b *testing.B, e *env, n int, url string) []string {
	ctx := context.Background()
	merchant := "0x" + fmt.Sprintf("%040x", 7)
	ids := make([]string, n)
	var last eventstore.AppendResult
	for i := range ids {
		ids[i] = fmt.Sprintf("wh-%d", i)
		if err := e.webhookKeys.Save(ctx, ids[i], "plk_bench"); err != nil {
			b.Fatal(err)
		}
		g := receipt.Generated{ReceiptID: ids[i], Merchant: merchant, Currency: "USD", WebhookURL: url,
			LineItems: []receipt.LineItem{{Kind: receipt.KindCustom, Label: "x", Amount: 100}}, Total: 100}
		_, res, err := commands.GenerateReceipt(ctx, e.svc.Events, time.Now(), eventstore.Metadata{}, g)
		if err != nil {
			b.Fatal(err)
		}
		last = res
	}
	if err := e.srv.waitReadable(ctx, "", last); err != nil {
		b.Fatal(err)
	}
	return ids
}

// confirm is the status change of receipt i: paid.
func confirm(i int) func(receipt.State) ([]receipt.Event, error) {
	return func(st receipt.State) ([]receipt.Event, error) {
		return receipt.Confirm(st, receipt.PaymentConfirmed{AttemptID: "a", VerifiedBy: "chain", TransactionHash: fmt.Sprintf("0x%064x", i), At: time.Now().UnixMilli()})
	}
}

// confirmAll pays every receipt from 16 writers, as fast as they can (perSecond 0) or paced to
// perSecond in total from start, and calls done after each commit.
func confirmAll(b *testing.B, e *env, ids []string, start time.Time, perSecond int, done func(i int, res eventstore.AppendResult)) {
	var wg sync.WaitGroup
	for w := range 16 {
		wg.Go(func() {
			for i := w; i < len(ids); i += 16 {
				if perSecond > 0 {
					time.Sleep(time.Until(start.Add(time.Duration(i) * time.Second / time.Duration(perSecond))))
				}
				_, res, err := commands.ChangeReceipt(context.Background(), e.svc.Events, ids[i], eventstore.Metadata{}, confirm(i))
				if err != nil {
					b.Error(err)
					return
				}
				done(i, res)
			}
		})
	}
	wg.Wait()
}

// benchWebhooks changes the status of n receipts from 16 writers, as fast as they can
// (perSecond 0) or paced to perSecond in total, and measures their notifications' arrival.
func benchWebhooks(b *testing.B, n, perSecond int) {
	e := newEnvWith(b, nil, func(d *webhooks.Dispatcher) { d.Workers = 8 })
	recv, got := countingReceiver(b)
	ids := webhookReceipts(b, e, n, recv.URL)
	committed := make(map[string]time.Time, n)
	var cmu sync.Mutex
	b.ResetTimer()
	start := time.Now()
	confirmAll(b, e, ids, start, perSecond, func(i int, _ eventstore.AppendResult) {
		cmu.Lock()
		committed[ids[i]] = time.Now()
		cmu.Unlock()
	})
	appended := time.Since(start)
	got.waitFor(b, n)
	elapsed := time.Since(start)
	b.StopTimer()
	lat := make([]time.Duration, 0, n)
	for id, at := range got.at {
		lat = append(lat, at.Sub(committed[id]))
	}
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	b.ReportMetric(float64(n)/elapsed.Seconds(), "deliveries/s")
	b.ReportMetric(float64(n)/appended.Seconds(), "status-changes/s")
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds())/1000, "p99-ms")
}
