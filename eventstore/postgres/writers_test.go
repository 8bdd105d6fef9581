package postgres_test

import (
	"context"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/payledger/payledger/eventstore"
	"github.com/payledger/payledger/eventstore/postgres"
	"github.com/payledger/payledger/migrations/pgtest"
)

// TestOnlyAnnouncedWritersWriteEvents: events come only from a transaction that called
// events_writer() before its first write (migration 035), which the receipts applied at append
// rely on; the store's appends, single, grouped and by COPY, are such transactions.
func TestOnlyAnnouncedWritersWriteEvents(t *testing.T) {
	t.Parallel()
	pool := pgtest.Pool(t)
	ctx := context.Background()
	insert := `INSERT INTO events (event_id, stream_id, version, type, data, metadata, recorded_at, hash)
		VALUES ($1, 'raw-1', 1, 'Happened', '{}', '{}', now(), '\x00')`

	if _, err := pool.Exec(ctx, insert, uuid.New()); err == nil || !strings.Contains(err.Error(), "events_writer()") {
		t.Fatalf("an insert outside an announced writer: %v; want it refused", err)
	}
	tx, err := pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec(ctx, `CREATE TEMP TABLE w (x int); INSERT INTO w VALUES (1)`); err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec(ctx, `SELECT events_writer()`); err == nil || !strings.Contains(err.Error(), "first write") {
		t.Fatalf("events_writer() after a write: %v; want it refused", err)
	}
	_ = tx.Rollback(ctx)

	s := postgres.New(pool)
	if _, err := s.Append(ctx, "single-1", eventstore.NoStream(), eventstore.EventData{ID: uuid.New(), Type: "Happened", Data: []byte(`{}`)}); err != nil {
		t.Fatalf("the store's append: %v", err)
	}
	many := make([]eventstore.StreamAppend, 300) // enough for COPY
	for i := range many {
		many[i] = eventstore.StreamAppend{Stream: "many-" + uuid.NewString(), Expected: eventstore.NoStream(),
			Events: []eventstore.EventData{{ID: uuid.New(), Type: "Happened", Data: []byte(`{}`)}}}
	}
	if _, errs := s.AppendStreams(ctx, many); errs != nil {
		for _, err := range errs {
			if err != nil {
				t.Fatalf("the store's AppendStreams: %v", err)
			}
		}
	}
	var n int
	if err := pool.QueryRow(ctx, `SELECT count(*) FROM events`).Scan(&n); err != nil || n != 301 {
		t.Fatalf("%d events, %v; want 301", n, err)
	}
}
