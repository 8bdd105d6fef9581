package pgstore

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/payledger/payledger/migrations/pgtest"
)

// TestProcessorStateKeepsTheRunOfFailures: nothing recorded reads zero; a failure records its
// time and error; a later failure keeps the run's start and the newer error; an answer clears it.
func TestProcessorStateKeepsTheRunOfFailures(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := NewProcessorState(pgtest.Pool(t))
	if got, err := s.Read(ctx); err != nil || !got.CheckedAt.IsZero() || got.Err != "" {
		t.Fatalf("nothing recorded: %+v %v", got, err)
	}
	first := time.Now().Add(-time.Minute).Truncate(time.Microsecond)
	if err := s.Record(ctx, errors.New("503"), first); err != nil {
		t.Fatal(err)
	}
	later := first.Add(30 * time.Second)
	if err := s.Record(ctx, errors.New("timeout"), later); err != nil {
		t.Fatal(err)
	}
	got, err := s.Read(ctx)
	if err != nil || !got.DownSince.Equal(first) || !got.CheckedAt.Equal(later) || got.Err != "timeout" {
		t.Fatalf("two failures: %+v %v; want down since %v, checked %v, the newer error", got, err, first, later)
	}
	if err := s.Record(ctx, nil, later.Add(time.Second)); err != nil {
		t.Fatal(err)
	}
	if got, err := s.Read(ctx); err != nil || !got.DownSince.IsZero() || got.Err != "" || !got.CheckedAt.Equal(later.Add(time.Second)) {
		t.Fatalf("an answer: %+v %v", got, err)
	}
}
