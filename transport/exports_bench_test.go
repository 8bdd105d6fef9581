package transport

import (
	"context"
	"encoding/csv"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"runtime"
	"testing"
	"time"
)

// BenchmarkExportReceipts100k: GET /api/exports/receipts.csv of 100,000 receipts through a real
// HTTP connection to the server in this process (rows/s, and the process's peak RSS growth
// during the export: the server's, the client only counts rows), next to the same run's
// ceiling: COPY of the same rows' columns TO STDOUT, discarded (no HTTP, no CSV rendering in
// Go). Part of make bench.
func BenchmarkExportReceipts100k(b *testing.B) {
	e := newEnv(b, nil)
	m := e.merchant(false)
	const n = 100_000
	insertReceipts(b, e, m.wallet, n)
	srv := httptest.NewServer(e.srv)
	defer srv.Close()
	var rate, growth, ceiling float64
	for b.Loop() {
		runtime.GC()
		if err := os.WriteFile("/proc/self/clear_refs", []byte("5"), 0); err != nil {
			b.Skip("cannot reset the peak RSS: ", err)
		}
		base := rssKiB(b, "VmRSS")
		start := time.Now()
		r, _ := http.NewRequest(http.MethodGet, srv.URL+"/api/exports/receipts.csv", nil)
		r.Header.Set("Ocp-Apim-Subscription-Key", m.key)
		resp, err := http.DefaultClient.Do(r)
		if err != nil {
			b.Fatal(err)
		}
		cr := csv.NewReader(resp.Body)
		cr.ReuseRecord = true
		rows := -1
		for {
			if _, err := cr.Read(); err == io.EOF {
				break
			} else if err != nil {
				b.Fatal(err)
			}
			rows++
		}
		resp.Body.Close()
		rate = float64(rows) / time.Since(start).Seconds()
		growth = float64(rssKiB(b, "VmHWM")-base) / 1024
		if rows != n {
			b.Fatalf("%d rows", rows)
		}
		ceiling = copyCeiling(b, e, m.wallet)
	}
	b.ReportMetric(rate, "rows/s")
	b.ReportMetric(growth, "peakRSSgrowth-MiB")
	b.ReportMetric(ceiling, "ceiling-rows/s")
}

// copyCeiling is COPY ... TO STDOUT of the export's columns of the same rows, in rows/s.
func copyCeiling(b *testing.B, e *env, merchant string) float64 {
	conn, err := e.pool.Acquire(context.Background())
	if err != nil {
		b.Fatal(err)
	}
	defer conn.Release()
	start := time.Now()
	tag, err := conn.Conn().PgConn().CopyTo(context.Background(), io.Discard, `COPY (SELECT receipt_id, created_at, status, currency,
			state->'receipt'->>'subtotalCents', state->'receipt'->>'taxCents', state->'receipt'->>'feeCents', total_cents,
			state->'payment'->>'token', state->>'amountReceived', state->'payment'->>'transactionHash', state->'payment'->>'buyerWallet',
			state->'receipt'->>'transactionId', state->'payment'->>'at', state->>'refundedCents'
		FROM receipts WHERE merchant_wallet = '`+merchant+`' ORDER BY pos_commit, pos_prepare) TO STDOUT WITH (FORMAT csv)`)
	if err != nil {
		b.Fatal(err)
	}
	return float64(tag.RowsAffected()) / time.Since(start).Seconds()
}
