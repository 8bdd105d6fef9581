package transport

import (
	"bufio"
	"context"
	"encoding/csv"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/payledger/payledger/readmodels"
)

func readCSV(t *testing.T, body string) [][]string {
	t.Helper()
	r := csv.NewReader(strings.NewReader(body))
	recs, err := r.ReadAll()
	if err != nil {
		t.Fatalf("not RFC 4180 CSV: %v\n%s", err, body)
	}
	return recs
}

// TestReceiptsExportRoundTrip: the export parses with encoding/csv into the documented header
// and one row per receipt, with decimal amounts, ISO 8601 UTC times and quoted fields intact, for
// a key and for the dashboard's session alike.
func TestReceiptsExportRoundTrip(t *testing.T) {
	t.Parallel()
	e := newEnv(t, func(d *testDeps) { d.Config.Production = false })
	// The clock stands on a millisecond's start, as it does once in a thousand runs: receipts
	// created now are in an export made now (CI once saw "0 rows, want 2").
	e.clk.Advance(-time.Duration(e.clk.Now().Nanosecond() % int(time.Millisecond)))
	m := e.merchant(true)
	tricky := "ord \"7\", with; semicolon"
	body := `{"lineItems":[{"label":"Order","priceUsd":12.3}],"totalUsd":12.3,"transactionId":"` + strings.ReplaceAll(tricky, `"`, `\"`) + `"}`
	rec := e.dev(m, http.MethodPost, "/api/receipts", body, "Idempotency-Key", "tricky")
	if rec.Code == http.StatusServiceUnavailable { // a fresh environment's projector may still be starting on a loaded machine
		rec = e.dev(m, http.MethodPost, "/api/receipts", body, "Idempotency-Key", "tricky")
	}
	if rec.Code != 201 {
		t.Fatalf("receipt: %d %s", rec.Code, rec.Body)
	}
	plain := decode(t, rec)["receipt"].(map[string]any)["receiptId"].(string)
	paid := e.hookedReceipt(m, "http://localhost:1/h")
	e.pay(paid, "evt_x")
	waitUntil(t, "paid", 10*time.Second, func() bool { return e.status(m, paid)["status"] == "paid" })

	out := e.dev(m, http.MethodGet, "/api/exports/receipts.csv", "")
	if out.Code != 200 || !strings.HasPrefix(out.Header().Get("Content-Type"), "text/csv") || !strings.Contains(out.Body.String(), "\r\n") {
		t.Fatalf("export: %d %v %q", out.Code, out.Header(), out.Body)
	}
	recs := readCSV(t, out.Body.String())
	if strings.Join(recs[0], ",") != "receiptId,createdAt,status,currency,subtotal,tax,fee,total,token,amountReceived,transactionHash,buyerWallet,transactionId,paidAt,refunded,refundedExcess" {
		t.Fatalf("header %v", recs[0])
	}
	if len(recs) != 3 {
		t.Fatalf("%d rows, want 2", len(recs)-1)
	}
	rows := map[string][]string{}
	for _, r := range recs[1:] {
		rows[r[0]] = r
	}
	p, q := rows[plain], rows[paid]
	if p == nil || q == nil {
		t.Fatalf("rows %v", recs)
	}
	if p[12] != tricky || p[2] != "generated" || p[13] != "" || p[14] != "0.00" {
		t.Fatalf("plain row %q", p)
	}
	if _, err := time.Parse("2006-01-02T15:04:05.000Z", p[1]); err != nil {
		t.Fatalf("createdAt %q: %v", p[1], err)
	}
	if q[2] != "paid" || q[7] != "42.00" || q[10] != "0x"+strings.Repeat("a", 64) || !strings.HasSuffix(q[13], "Z") || q[11] == "" {
		t.Fatalf("paid row %q", q)
	}
	// The dashboard's link: the session cookie, with the status filter.
	bySession := e.do(req{method: http.MethodGet, path: "/api/exports/receipts.csv?status=paid", cookies: m.cookies})
	if bySession.Code != 200 {
		t.Fatalf("session export: %d %s", bySession.Code, bySession.Body)
	}
	if recs := readCSV(t, bySession.Body.String()); len(recs) != 2 || recs[1][0] != paid {
		t.Fatalf("status filter: %v", recs)
	}
	// Outside the window: header only. Bad input: the envelope.
	if recs := readCSV(t, e.dev(m, http.MethodGet, "/api/exports/receipts.csv?from=0&to=1000", "").Body.String()); len(recs) != 1 {
		t.Fatalf("window: %v", recs)
	}
	for _, q := range []string{"?from=x", "?from=5&to=5", "?status=nope"} {
		if bad := e.dev(m, http.MethodGet, "/api/exports/receipts.csv"+q, ""); bad.Code != 400 || decode(t, bad)["error"] != "invalid_input" {
			t.Fatalf("%s: %d %s", q, bad.Code, bad.Body)
		}
	}
	other := e.merchant(false)
	if recs := readCSV(t, e.dev(other, http.MethodGet, "/api/exports/receipts.csv", "").Body.String()); len(recs) != 1 {
		t.Fatalf("another merchant's export shows %d rows", len(recs)-1)
	}
	if splits := e.dev(m, http.MethodGet, "/api/exports/split-transactions.csv", ""); splits.Code != 200 ||
		strings.Join(readCSV(t, splits.Body.String())[0], ",") != strings.Join(readmodels.SplitColumns, ",") {
		t.Fatalf("split export: %d %s", splits.Code, splits.Body)
	}
}

// insertReceipts writes n paid receipts of merchant straight into the read model (an export
// reads nothing else), in one statement.
func insertReceipts(t testing.TB, e *env, merchant string, n int) {
	t.Helper()
	_, err := e.pool.Exec(context.Background(), `INSERT INTO receipts (receipt_id, merchant_wallet, status, currency, total_cents,
			created_at, updated_at, version, pos_commit, pos_prepare, state)
		SELECT 'bulk-' || i, $1, 'paid', 'USD', 4200 + i % 100, now() - interval '1 hour', now(), 2, 1000000 + i, 1000000 + i,
			jsonb_build_object('exists', true, 'status', 'paid', 'refundedCents', 0,
				'receipt', jsonb_build_object('receiptId', 'bulk-' || i, 'subtotalCents', 4000, 'taxCents', 200, 'feeCents', i % 100,
					'transactionId', 'order "' || i || '", bulk'),
				'payment', jsonb_build_object('token', 'USDC', 'transactionHash', '0x' || md5(i::text) || md5(i::text),
					'buyerWallet', '0x' || substr(md5(i::text), 1, 40), 'at', 1800000000000 + i))
		FROM generate_series(1, $2) AS i`, merchant, n)
	if err != nil {
		t.Fatal(err)
	}
}

// rssKiB reads a /proc/self/status field (VmRSS, VmHWM) in KiB.
func rssKiB(t testing.TB, field string) int64 {
	t.Helper()
	f, err := os.Open("/proc/self/status")
	if err != nil {
		t.Skip("no /proc/self/status: ", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), field+":"); ok {
			n, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			return n
		}
	}
	t.Fatalf("no %s", field)
	return 0
}

// TestReceiptsExportStreams100k: 100,000 receipts stream through a real HTTP connection, parse
// row by row, and the process's peak RSS grows by far less than the export's size (the rows are
// never held together).
func TestReceiptsExportStreams100k(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("100,000 rows")
	}
	e := newEnv(t, nil)
	m := e.merchant(false)
	const n = 100_000
	insertReceipts(t, e, m.wallet, n)
	srv := httptest.NewServer(e.srv)
	defer srv.Close()
	runtime.GC()
	if err := os.WriteFile("/proc/self/clear_refs", []byte("5"), 0); err != nil {
		t.Skip("cannot reset the peak RSS: ", err)
	}
	base := rssKiB(t, "VmRSS")
	r, _ := http.NewRequest(http.MethodGet, srv.URL+"/api/exports/receipts.csv", nil)
	r.Header.Set("Ocp-Apim-Subscription-Key", m.key)
	resp, err := http.DefaultClient.Do(r)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	counted := &countingReader{r: resp.Body}
	cr := csv.NewReader(counted)
	cr.ReuseRecord = true
	rows := -1
	for {
		rec, err := cr.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if rows >= 0 && (!strings.HasPrefix(rec[0], "bulk-") || rec[8] != "USDC" || !strings.HasPrefix(rec[12], `order "`)) {
			t.Fatalf("row %d: %q", rows, rec)
		}
		rows++
	}
	growth := rssKiB(t, "VmHWM") - base
	t.Logf("%d rows, %d MiB of CSV, peak RSS growth %d KiB", rows, counted.n>>20, growth)
	if rows != n {
		t.Fatalf("%d rows, want %d", rows, n)
	}
	if growth > 48<<10 { // holding the rows would take several times the CSV (about 25 MiB)
		t.Fatalf("peak RSS grew %d KiB for %d bytes of CSV: the export is held in memory", growth, counted.n)
	}
}

type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}
