package transport

import (
	"context"
	"encoding/csv"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/payledger/payledger/internal/wait"
)

// revokeMidExport is the real exports with one fault: after the first row it runs revoke and
// waits until the export's context has ended (the server's credential watcher cancels it), so
// the rest of the export meets a cancelled query, as it would with a key revoked mid-download.
type revokeMidExport struct {
	ExportSource
	t      *testing.T
	revoke func()
	once   sync.Once
}

func (r *revokeMidExport) Receipts(ctx context.Context, merchant string, from, to time.Time, status string, row func([]string) error) error {
	return r.ExportSource.Receipts(ctx, merchant, from, to, status, func(rec []string) error {
		r.once.Do(func() {
			r.revoke()
			wait.Until(r.t, "the revoked key's export context to end", 10*time.Second, func() bool { return ctx.Err() != nil })
		})
		return row(rec)
	})
}

// TestExportEndedEarlyIsNotAWholeFile: an export that ends before its last row (here its key is
// revoked mid-download; equally a replica cancelling the query, or EXPORT_TIMEOUT) must not reach
// the client as a complete file. It used to: the rows written so far, each ending in CRLF, then
// a clean end of the body, so a merchant's accounting silently missed receipts. The connection is
// now aborted, and the client's read fails.
func TestExportEndedEarlyIsNotAWholeFile(t *testing.T) {
	t.Parallel()
	var fault *revokeMidExport
	e := newEnv(t, func(d *testDeps) {
		fault = &revokeMidExport{ExportSource: d.Exports, t: t}
		d.Exports = fault
	})
	m := e.merchant(false)
	secret, key, err := e.keys.Create(context.Background(), m.wallet, "export", []string{"receipts:read"})
	if err != nil {
		t.Fatal(err)
	}
	fault.revoke = func() {
		if err := e.keys.Revoke(context.Background(), m.wallet, key.ID); err != nil {
			t.Error(err)
		}
	}
	const n = 5000 // more than the database connection's buffers hold: the query meets the cancel
	insertReceipts(t, e, m.wallet, n)
	srv := httptest.NewServer(e.srv)
	defer srv.Close()
	r, _ := http.NewRequest(http.MethodGet, srv.URL+"/api/exports/receipts.csv", nil)
	r.Header.Set("Ocp-Apim-Subscription-Key", secret)
	resp, err := http.DefaultClient.Do(r)
	if err != nil {
		t.Logf("no answer: %v", err) // aborted before the header went out: the client knows it has no file
		return
	}
	defer resp.Body.Close()
	cr := csv.NewReader(resp.Body)
	rows := -1
	for {
		_, err := cr.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Logf("after %d rows: %v", rows, err) // the transfer broke off: the client knows the file is incomplete
			return
		}
		rows++
	}
	if rows >= n {
		t.Fatalf("the export read all %d rows: its key was not revoked mid-export", rows)
	}
	t.Fatalf("status %d and a clean end of the body after %d of %d rows: an export ended early looks complete", resp.StatusCode, rows, n)
}
