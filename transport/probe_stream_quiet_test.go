package transport

import (
	"bufio"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/payledger/payledger/readmodels"
)

// TestAQuietMerchantsStreamKeepsAResumablePosition (stop 68, probe): a stream sent an id only with
// the merchant's events (and its start), so the client of a merchant to whom nothing happened kept
// one id for as long; once the log was pruned past it (30 days), reconnecting with it was refused
// (400) though nothing had been missed, and a browser's EventSource does not reconnect after a
// 400. The heartbeat now moves the stream's position on to the log's end, as an id without data,
// when none of the merchant's events lie before it; the client resumes from there after pruning.
func TestAQuietMerchantsStreamKeepsAResumablePosition(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	srv := httptest.NewServer(e.srv)
	t.Cleanup(srv.Close)
	ctx := context.Background()
	const quiet, busy = "0x00000000000000000000000000000000000000e4", "0x00000000000000000000000000000000000000e5"
	record := func(merchant, key string) int64 { t.Helper(); return recordTestEvent(t, e, merchant, key) }
	key := e.key(quiet, "receipts:read")
	open := func(rctx context.Context, last string) *http.Response {
		t.Helper()
		r, _ := http.NewRequestWithContext(rctx, http.MethodGet, srv.URL+"/api/webhooks/stream", nil)
		r.Header.Set("Ocp-Apim-Subscription-Key", key)
		if last != "" {
			r.Header.Set("Last-Event-ID", last)
		}
		resp, err := http.DefaultClient.Do(r)
		if err != nil {
			t.Fatal(err)
		}
		return resp
	}

	start := record(quiet, "e4-1")
	later := record(busy, "e5-1") // the log moves on; nothing happens to the quiet merchant
	// One heartbeat (15 s) is waited for on the stream itself: the last id a client keeps.
	rctx, cancel := context.WithTimeout(ctx, eventsHeartbeat+10*time.Second)
	defer cancel()
	resp := open(rctx, fmt.Sprint(start))
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("stream: %d", resp.StatusCode)
	}
	lastID := ""
	for sc := bufio.NewScanner(resp.Body); sc.Scan() && lastID != fmt.Sprint(later); {
		if id, ok := strings.CutPrefix(sc.Text(), "id: "); ok {
			lastID = id
		}
	}
	resp.Body.Close()
	cancel()
	if lastID != fmt.Sprint(later) {
		t.Fatalf("the quiet merchant's stream left its client at id %s, want %d (the log's end, past nothing of its own)", lastID, later)
	}

	// The log pruned past the quiet merchant's last event: resumed from its last id, the stream goes on.
	if _, err := e.pool.Exec(ctx, `UPDATE webhook_events SET recorded_at = now() - interval '40 days'`); err != nil {
		t.Fatal(err)
	}
	if p, err := readmodels.NewEndpoints(e.pool, nil).PruneEvents(ctx, time.Now().Add(-30*24*time.Hour), 100); err != nil || p.Through != later {
		t.Fatalf("pruned %+v, %v; want through %d", p, err, later)
	}
	rctx2, cancel2 := context.WithCancel(ctx)
	defer cancel2()
	if resp := open(rctx2, lastID); resp.StatusCode != http.StatusOK {
		t.Fatalf("resumed from %s after the log was pruned through it: %d, want 200", lastID, resp.StatusCode)
	} else {
		resp.Body.Close()
	}
}
