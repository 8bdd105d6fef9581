package postgres_test

import (
	"context"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/payledger/payledger/eventstore"
	"github.com/payledger/payledger/eventstore/postgres"
	"github.com/payledger/payledger/internal/wait"
	"github.com/payledger/payledger/migrations/pgtest"
)

// TestReadAllIsNotHeldBackByAnotherDatabase: a transaction left open in another database of the
// cluster (with a transaction id older than the appends) does not hide this database's committed
// events from ReadAll (projectors, read-your-writes, webhooks waited on it under load); one left
// open in this database still does (a later commit could land before it).
func TestReadAllIsNotHeldBackByAnotherDatabase(t *testing.T) {
	ctx := context.Background()
	pool := pgtest.Pool(t)
	s := postgres.New(pool)
	pgtest.OpenTransaction(t, pgtest.Pool(t)) // in another database
	ev := eventstore.EventData{ID: uuid.New(), Type: "Tested", Data: []byte(`{}`)}
	if _, err := s.Append(ctx, "s-1", eventstore.NoStream(), ev); err != nil {
		t.Fatal(err)
	}
	// The horizon holds for an unknown transaction: one of another database that ended between
	// the snapshot and the look at pg_stat_activity (other tests run beside this one) holds one
	// read. The open one of another database must not hold any: the event shows up while it stays
	// open.
	var got []eventstore.RecordedEvent
	var err error
	if !wait.Poll(10*time.Second, func() bool {
		got, err = s.ReadAll(ctx, eventstore.Position{}, 10)
		return err == nil && len(got) == 1
	}) {
		t.Fatalf("ReadAll with another database's transaction open: %d events, %v; want 1", len(got), err)
	}
	pgtest.OpenTransaction(t, pool) // in this database
	second, err := s.Append(ctx, "s-2", eventstore.NoStream(), eventstore.EventData{ID: uuid.New(), Type: "Tested", Data: []byte(`{}`)})
	if err != nil {
		t.Fatal(err)
	}
	if got, err = s.ReadAll(ctx, eventstore.Position{}, 10); err != nil || len(got) != 1 {
		t.Fatalf("ReadAll with this database's older transaction open: %d events, %v; want only the first", len(got), err)
	}
	// Head is what a one-shot walk of the log reads up to: the committed event held back counts.
	if head, err := s.Head(ctx); err != nil || head != second.Position {
		t.Fatalf("head with an event held back: %v %v, want %v", head, err, second.Position)
	}
}
