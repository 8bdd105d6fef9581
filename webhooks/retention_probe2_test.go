package webhooks

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/rs/zerolog"

	"github.com/payledger/payledger/internal/syncbuf"
	"github.com/payledger/payledger/readmodels"
)

// TestRetentionPrunesEndpointsDeletedLongAgo (stop 68): a deleted endpoint kept its row for ever
// (deleted_at only), so a create/delete loop, at the admin rate from any wallet, grew
// webhook_endpoints without end. The retention step deletes an endpoint deleted more than 30 days
// ago once its messages and attempts are gone with their events; one deleted since, one whose
// messages remain (an event recorded since) and a live one stay. It logs what it pruned, and
// works off a backlog in bounded batches.
func TestRetentionPrunesEndpointsDeletedLongAgo(t *testing.T) {
	t.Parallel()
	pool, _, store, srv, _ := endpointFixture(t)
	bg := context.Background()
	exec := func(sql string, args ...any) {
		t.Helper()
		if _, err := pool.Exec(bg, sql, args...); err != nil {
			t.Fatal(err)
		}
	}
	create := func() uuid.UUID {
		t.Helper()
		secret, _ := NewSecret()
		ep, err := store.Create(bg, "0xmerchant", srv.URL, []string{"*"}, secret, time.Now())
		if err != nil {
			t.Fatal(err)
		}
		return ep.ID
	}
	record := func(key string) {
		t.Helper()
		if err := store.Record(bg, readmodels.NewEvent{Key: key, Merchant: "0xmerchant", Type: TypeTest, At: time.Now(),
			Data: map[string]any{"x": key}}); err != nil {
			t.Fatal(err)
		}
	}
	gone, recent, held := create(), create(), create()
	record("old") // fanned out to the three: old-enough messages, attempted once
	exec(`INSERT INTO webhook_endpoint_attempts (id, endpoint_id, event_id, attempted_at, latency_ms, kind)
		SELECT gen_random_uuid(), m.endpoint_id, m.event_id, now(), 1, 'first' FROM webhook_endpoint_messages m`)
	exec(`UPDATE webhook_endpoint_messages SET state = 'delivered'`)
	exec(`UPDATE webhook_events SET recorded_at = now() - interval '40 days'`)
	for _, id := range []uuid.UUID{gone, recent} {
		if err := store.Delete(bg, "0xmerchant", id); err != nil {
			t.Fatal(err)
		}
	}
	record("new") // only held gets it: recorded since the cutoff, it keeps held's row
	if err := store.Delete(bg, "0xmerchant", held); err != nil {
		t.Fatal(err)
	}
	live := create()
	exec(`UPDATE webhook_endpoints SET deleted_at = now() - interval '35 days' WHERE id = ANY($1)`, []uuid.UUID{gone, held})

	logs := &syncbuf.Buffer{}
	r := &Retention{Endpoints: store, Outbox: readmodels.NewOutbox(pool), Log: zerolog.New(logs)}
	if progressed, err := r.Step(bg); !progressed || err != nil {
		t.Fatalf("step: progressed %v, %v", progressed, err)
	}
	var left []uuid.UUID
	if err := pool.QueryRow(bg, `SELECT array_agg(id ORDER BY created_at) FROM webhook_endpoints`).Scan(&left); err != nil {
		t.Fatal(err)
	}
	if want := []uuid.UUID{recent, held, live}; len(left) != len(want) || left[0] != want[0] || left[1] != want[1] || left[2] != want[2] {
		t.Fatalf("endpoints left %v, want %v (deleted since the cutoff, still holding a message, live); pruned %v", left, want, gone)
	}
	if !strings.Contains(logs.String(), `"endpoints":1`) {
		t.Fatalf("the pruned endpoint is not logged: %s", logs.String())
	}

	// A backlog goes in batches of the limit, oldest deletion first.
	for range 5 {
		if err := store.Delete(bg, "0xmerchant", create()); err != nil {
			t.Fatal(err)
		}
	}
	exec(`UPDATE webhook_endpoints SET deleted_at = now() - interval '40 days' WHERE id <> ALL($1)`, []uuid.UUID{recent, held, live})
	for _, want := range []int{2, 2, 1, 0} {
		p, err := store.PruneDeletedEndpoints(bg, time.Now().Add(-EventRetention), 2)
		if err != nil || p.Rows != want {
			t.Fatalf("prune with limit 2: %d rows, %v; want %d", p.Rows, err, want)
		}
	}
}
