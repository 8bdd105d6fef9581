package postgres

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/payledger/payledger/eventstore"
	"github.com/payledger/payledger/internal/wait"
	"github.com/payledger/payledger/migrations/pgtest"
)

// backendStatusReads runs readAllSQL from the log's start under EXPLAIN ANALYZE and returns how
// many times it read the backends' status (pg_stat_get_activity's loops).
func backendStatusReads(t *testing.T, s *Store) int {
	t.Helper()
	var plan []byte
	if err := s.pool.QueryRow(context.Background(), `EXPLAIN (ANALYZE, FORMAT JSON) `+readAllSQL, int64(0), int64(0), 10).Scan(&plan); err != nil {
		t.Fatal(err)
	}
	var nodes []map[string]any
	if err := json.Unmarshal(plan, &nodes); err != nil {
		t.Fatal(err)
	}
	loops := 0
	var walk func(n map[string]any)
	walk = func(n map[string]any) {
		if n["Function Name"] == "pg_stat_get_activity" {
			loops += int(n["Actual Loops"].(float64))
		}
		for _, c := range asNodes(n["Plans"]) {
			walk(c)
		}
	}
	walk(nodes[0]["Plan"].(map[string]any))
	return loops
}

func asNodes(v any) []map[string]any {
	list, _ := v.([]any)
	out := make([]map[string]any, 0, len(list))
	for _, x := range list {
		if m, ok := x.(map[string]any); ok {
			out = append(out, m)
		}
	}
	return out
}

// TestTheHorizonPlacesTransactionsOnlyWhenItCanMatter (stop 75): a read of the log places the
// transactions in progress (reads every backend's status, about 0.9 ms of PostgreSQL per
// statement) only when a committed event lies at or past the oldest of them, the one case where
// placing one can let the read see more; most projector reads under load paid it for nothing.
// With an event committed after an older transaction still open, it still places them, and the
// open transaction of this database still holds the event back (TestReadAllIsNotHeldBackByAnotherDatabase).
func TestTheHorizonPlacesTransactionsOnlyWhenItCanMatter(t *testing.T) {
	ctx := context.Background()
	pool := pgtest.Pool(t)
	s := New(pool)
	ev := func() eventstore.EventData {
		return eventstore.EventData{ID: uuid.New(), Type: "Tested", Data: []byte(`{}`)}
	}
	if _, err := s.Append(ctx, "h-1", eventstore.NoStream(), ev()); err != nil {
		t.Fatal(err)
	}
	pgtest.OpenTransaction(t, pool) // in progress, newer than the event: nothing committed past it
	// Another database's transaction older than the event (the tests beside this one) makes the
	// placing matter for as long as it runs: wait until none is.
	n := 0
	if !wait.Poll(60*time.Second, func() bool { n = backendStatusReads(t, s); return n == 0 }) {
		t.Fatalf("with no event committed past the oldest transaction in progress, the read placed transactions %d times; want 0", n)
	}
	if _, err := s.Append(ctx, "h-2", eventstore.NoStream(), ev()); err != nil {
		t.Fatal(err)
	}
	if n := backendStatusReads(t, s); n == 0 {
		t.Fatal("with an event committed past a transaction in progress, the read did not place the transactions")
	}
	if got, err := s.ReadAll(ctx, eventstore.Position{}, 10); err != nil || len(got) != 1 {
		t.Fatalf("ReadAll with this database's older transaction open: %d events, %v; want only the first", len(got), err)
	}
}
