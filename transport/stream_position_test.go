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

// TestAStreamAnnouncesWhereItStarts (stop 67): a stream opened without Last-Event-ID sent no id
// until its first event, so one that ended before it (its lifetime, a dropped connection) was
// resumed without an id, and the events recorded while the client reconnected were lost. The
// stream's first block is now its starting position as an id without data: the merchant's newest
// event, or the log's pruned start when that is later (an id before it would be refused).
func TestAStreamAnnouncesWhereItStarts(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	srv := httptest.NewServer(e.srv)
	t.Cleanup(srv.Close)
	ctx := context.Background()
	const wallet, other = "0x00000000000000000000000000000000000000d4", "0x00000000000000000000000000000000000000d5"
	record := func(merchant, key string) int64 { t.Helper(); return recordTestEvent(t, e, merchant, key) }
	key := e.key(wallet, "receipts:read")
	firstBlock := func() string {
		t.Helper()
		rctx, cancel := context.WithCancel(ctx)
		defer cancel()
		r, _ := http.NewRequestWithContext(rctx, http.MethodGet, srv.URL+"/api/webhooks/stream", nil)
		r.Header.Set("Ocp-Apim-Subscription-Key", key)
		resp, err := http.DefaultClient.Do(r)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("stream: %d", resp.StatusCode)
		}
		var block []string
		for sc := bufio.NewScanner(resp.Body); sc.Scan() && sc.Text() != ""; {
			block = append(block, sc.Text())
		}
		return strings.Join(block, "\n")
	}

	newest := record(wallet, "d4-1")
	if got, want := firstBlock(), fmt.Sprintf("retry: 1000\nid: %d", newest); got != want {
		t.Fatalf("a new stream's first block: %q, want %q (its starting position)", got, want)
	}

	// The merchant's newest event pruned with a later one of another merchant: the stream starts
	// at the pruned start, an id it can be resumed from.
	later := record(other, "d5-1")
	if _, err := e.pool.Exec(ctx, `UPDATE webhook_events SET recorded_at = now() - interval '40 days'`); err != nil {
		t.Fatal(err)
	}
	if p, err := readmodels.NewEndpoints(e.pool, nil).PruneEvents(ctx, time.Now().Add(-30*24*time.Hour), 100); err != nil || p.Through != later {
		t.Fatalf("pruned %+v, %v; want through %d", p, err, later)
	}
	if got, want := firstBlock(), fmt.Sprintf("retry: 1000\nid: %d", later); got != want {
		t.Fatalf("after the merchant's events were pruned: %q, want %q (the pruned start)", got, want)
	}
}

// recordTestEvent records a webhook.test event for merchant in the merchants' event log under
// key and returns the log's newest position.
func recordTestEvent(t *testing.T, e *env, merchant, key string) int64 {
	t.Helper()
	ctx := context.Background()
	if err := readmodels.RecordEvents(ctx, e.pool, readmodels.NewEvent{Key: key, Merchant: merchant,
		Type: readmodels.EventWebhookTest, At: time.Now(), Data: map[string]any{}}); err != nil {
		t.Fatal(err)
	}
	var seq int64
	if err := e.pool.QueryRow(ctx, `SELECT max(seq) FROM webhook_events`).Scan(&seq); err != nil {
		t.Fatal(err)
	}
	return seq
}
