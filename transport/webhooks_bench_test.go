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

	"github.com/payledger/payledger/commands"
	"github.com/payledger/payledger/domain/receipt"
	"github.com/payledger/payledger/eventstore"
)

// BenchmarkWebhookDelivery measures deliveries per second to a local receiver and the latency
// from the commit of the status-changing event to the notification's arrival.
func BenchmarkWebhookDelivery(b *testing.B) {
	b.Run("burst-16-writers", func(b *testing.B) { benchWebhooks(b, 2000, 0) })
	b.Run("paced-300-per-s", func(b *testing.B) { benchWebhooks(b, 1500, 300) })
}

// benchWebhooks changes the status of n receipts from 16 writers, as fast as they can
// (perSecond 0) or paced to perSecond in total, and measures their notifications' arrival.
func benchWebhooks(b *testing.B, n, perSecond int) {
	e := newEnvWith(b, nil, func(d *Dispatcher) { d.Workers = 8 })
	ctx := context.Background()
	var mu sync.Mutex
	arrived := make(map[string]time.Time, n)
	recv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		var p struct {
			ReceiptID string `json:"receiptId"`
		}
		_ = json.Unmarshal(body, &p)
		mu.Lock()
		if _, ok := arrived[p.ReceiptID]; !ok {
			arrived[p.ReceiptID] = time.Now()
		}
		mu.Unlock()
		w.WriteHeader(http.StatusNoContent)
	}))
	defer recv.Close()
	merchant := "0x" + fmt.Sprintf("%040x", 7)
	ids := make([]string, n)
	var last eventstore.AppendResult
	for i := range ids {
		ids[i] = fmt.Sprintf("wh-%d", i)
		if err := e.webhookKeys.Save(ctx, ids[i], "plk_bench"); err != nil {
			b.Fatal(err)
		}
		g := receipt.Generated{ReceiptID: ids[i], Merchant: merchant, Currency: "USD", WebhookURL: recv.URL,
			LineItems: []receipt.LineItem{{Kind: receipt.KindCustom, Label: "x", Amount: 100}}, Total: 100}
		_, res, err := commands.GenerateReceipt(ctx, e.srv.events, time.Now(), eventstore.Metadata{}, g)
		if err != nil {
			b.Fatal(err)
		}
		last = res
	}
	if err := e.srv.waitReadable(ctx, "", last); err != nil {
		b.Fatal(err)
	}
	committed := make(map[string]time.Time, n)
	var cmu sync.Mutex
	b.ResetTimer()
	start := time.Now()
	var wg sync.WaitGroup
	for w := range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < n; i += 16 {
				if perSecond > 0 {
					time.Sleep(time.Until(start.Add(time.Duration(i) * time.Second / time.Duration(perSecond))))
				}
				_, _, err := commands.ChangeReceipt(ctx, e.srv.events, ids[i], eventstore.Metadata{}, func(st receipt.State) ([]receipt.Event, error) {
					return receipt.Confirm(st, receipt.PaymentConfirmed{AttemptID: "a", VerifiedBy: "chain", TransactionHash: fmt.Sprintf("0x%064x", i), At: time.Now().UnixMilli()})
				})
				if err != nil {
					b.Error(err)
					return
				}
				cmu.Lock()
				committed[ids[i]] = time.Now()
				cmu.Unlock()
			}
		}()
	}
	wg.Wait()
	appended := time.Since(start)
	deadline := time.Now().Add(2 * time.Minute)
	for {
		mu.Lock()
		got := len(arrived)
		mu.Unlock()
		if got == n {
			break
		}
		if time.Now().After(deadline) {
			b.Fatalf("%d of %d notifications arrived", got, n)
		}
		time.Sleep(10 * time.Millisecond)
	}
	elapsed := time.Since(start)
	b.StopTimer()
	lat := make([]time.Duration, 0, n)
	for id, at := range arrived {
		lat = append(lat, at.Sub(committed[id]))
	}
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	b.ReportMetric(float64(n)/elapsed.Seconds(), "deliveries/s")
	b.ReportMetric(float64(n)/appended.Seconds(), "status-changes/s")
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds())/1000, "p99-ms")
}
