package settlement_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/rpc"

	"github.com/payledger/payledger/chain"
	"github.com/payledger/payledger/eventstore"
	"github.com/payledger/payledger/settlement"
)

// rpcCounter counts the HTTP round trips to the node and the JSON-RPC requests in them (a batch
// counts each of its items), whatever goes through the connection (bound contracts included).
type rpcCounter struct {
	trips, requests atomic.Int64
	next            http.RoundTripper
}

func (c *rpcCounter) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.Body != nil {
		b, _ := io.ReadAll(r.Body)
		_ = r.Body.Close()
		r.Body = io.NopCloser(bytes.NewReader(b))
		n := int64(1)
		var batch []json.RawMessage
		if len(b) > 0 && b[0] == '[' && json.Unmarshal(b, &batch) == nil {
			n = int64(len(batch))
		}
		c.trips.Add(1)
		c.requests.Add(n)
	}
	return c.next.RoundTrip(r)
}

// BenchmarkCronCharge1000: the cron charging 1,000 due subscriptions on the development chain
// (the real manager, a deployed 9,950/50 split), nonces pipelined across subscriptions: a wave
// of 250 charges goes in three phases (approvals, spends, transfers), each gas-estimated in one
// batch, signed at consecutive nonces, recorded, broadcast in one batch, its receipts awaited in
// batches; then the split is released once per payee. Run with -benchtime=1x (one run is 1,000 charges). Reports the run's
// wall time, charges per second and the node round trips and JSON-RPC requests per charge.
func BenchmarkCronCharge1000(b *testing.B) {
	const n = 1000
	for range b.N {
		b.StopTimer()
		e := newChargeEnv(b, 4)
		counter := &rpcCounter{next: http.DefaultTransport}
		rc, err := rpc.DialOptions(e.ctx, e.dev.URL, rpc.WithHTTPClient(&http.Client{Transport: counter}))
		if err != nil {
			b.Fatal(err)
		}
		counted := chain.NewRPC(rc, chain.DevChainID)
		op, err := e.dev.ChargeOperator(counted)
		if err != nil {
			b.Fatal(err)
		}
		ids := make([]string, n)
		var wg sync.WaitGroup
		for w := range 4 {
			wg.Go(func() {
				for i := w; i < n; i += 4 {
					ids[i] = e.subscribe(e.dev.Accounts[i%4], "plan_monthly")
				}
			})
		}
		wg.Wait()
		e.listed(ids...)
		h := e.handler(op)
		h.Await = 5 * time.Minute
		trips, requests := counter.trips.Load(), counter.requests.Load()
		b.StartTimer()
		start := time.Now()
		run, err := h.ChargeDue(context.Background(), eventstore.Metadata{})
		elapsed := time.Since(start)
		b.StopTimer()
		if err != nil {
			b.Fatal(err)
		}
		if run.Succeeded != n {
			b.Fatalf("succeeded %d of %d (failed %d): %+v", run.Succeeded, n, run.Failed, run.Results[:min(3, len(run.Results))])
		}
		charged := e.count(`SELECT count(*) FROM subscription_charges WHERE status = 'charged' AND distributed_at IS NOT NULL`)
		if charged != n {
			b.Fatalf("%d charges recorded and released, want %d", charged, n)
		}
		b.ReportMetric(elapsed.Seconds(), "s/run")
		b.ReportMetric(float64(n)/elapsed.Seconds(), "charges/s")
		b.ReportMetric(float64(counter.trips.Load()-trips)/n, "roundtrips/charge")
		b.ReportMetric(float64(counter.requests.Load()-requests)/n, "rpcrequests/charge")
		b.Logf("%d charges in %s (%.0f/s); %d round trips, %d JSON-RPC requests; %s", n, elapsed.Round(time.Millisecond),
			float64(n)/elapsed.Seconds(), counter.trips.Load()-trips, counter.requests.Load()-requests, settlement.ResultCharged)
		rc.Close()
	}
}
