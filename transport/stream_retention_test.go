package transport

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/payledger/payledger/readmodels"
)

// TestAStreamRefusesAnIdOlderThanTheEventsKept (stop 67): the event log is pruned after 30 days
// (webhooks.Retention); a client resuming from an id before the pruned start was resumed after
// it, and sent what was left as if nothing were missing. Such an id is refused (400
// invalid_input); the newest pruned id still resumes (nothing after it is gone), and so does the
// log's end once everything was pruned (it is not "past the newest event").
func TestAStreamRefusesAnIdOlderThanTheEventsKept(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	const wallet = "0x00000000000000000000000000000000000000c3"
	ctx := context.Background()
	var seqs []int64
	for i := range 3 {
		if err := readmodels.RecordEvents(ctx, e.pool, readmodels.NewEvent{Key: fmt.Sprintf("kept-%d", i), Merchant: wallet,
			Type: readmodels.EventWebhookTest, At: time.Now(), Data: map[string]any{}}); err != nil {
			t.Fatal(err)
		}
		var seq int64
		if err := e.pool.QueryRow(ctx, `SELECT max(seq) FROM webhook_events`).Scan(&seq); err != nil {
			t.Fatal(err)
		}
		seqs = append(seqs, seq)
	}
	store := readmodels.NewEndpoints(e.pool, nil)
	// The first two were recorded 40 days ago: pruned.
	if _, err := e.pool.Exec(ctx, `UPDATE webhook_events SET recorded_at = now() - interval '40 days' WHERE seq <= $1`, seqs[1]); err != nil {
		t.Fatal(err)
	}
	if p, err := store.PruneEvents(ctx, time.Now().Add(-30*24*time.Hour), 100); err != nil || p.Rows != 2 || p.Through != seqs[1] {
		t.Fatalf("pruned %+v, %v; want the two old events, through %d", p, err, seqs[1])
	}
	start := func(id int64) error {
		hr := httptest.NewRequest(http.MethodGet, "/api/webhooks/stream", nil)
		hr.Header.Set("Last-Event-ID", fmt.Sprint(id))
		_, err := e.srv.streamStart(e.srv.Echo.NewContext(hr, httptest.NewRecorder()), wallet)
		return err
	}
	if err := start(seqs[1]); err != nil {
		t.Fatalf("Last-Event-ID %d, the newest pruned, refused: %v", seqs[1], err)
	}
	if err := start(seqs[0]); err == nil { // checked first: a stream resumed here would run for its lifetime
		t.Fatalf("Last-Event-ID %d, before the events kept (pruned through %d), was resumed after", seqs[0], seqs[1])
	}
	key := e.key(wallet, "receipts:read")
	rec := e.do(req{method: http.MethodGet, path: "/api/webhooks/stream",
		header: map[string]string{"Ocp-Apim-Subscription-Key": key, "Last-Event-ID": fmt.Sprint(seqs[0])}})
	if body := decode(t, rec); rec.Code != http.StatusBadRequest || body["error"] != "invalid_input" {
		t.Fatalf("a stream resuming before the events kept: %d %v, want 400 invalid_input", rec.Code, body)
	}
	// Everything pruned: the log's end still resumes.
	if _, err := e.pool.Exec(ctx, `UPDATE webhook_events SET recorded_at = now() - interval '40 days'`); err != nil {
		t.Fatal(err)
	}
	if _, err := store.PruneEvents(ctx, time.Now().Add(-30*24*time.Hour), 100); err != nil {
		t.Fatal(err)
	}
	if err := start(seqs[2]); err != nil {
		t.Fatalf("Last-Event-ID %d, the log's end, refused once every event was pruned: %v", seqs[2], err)
	}
}
