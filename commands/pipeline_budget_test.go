package commands_test

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/payledger/payledger/commands"
	"github.com/payledger/payledger/eventstore"
	"github.com/payledger/payledger/eventstore/memory"
)

// budgetRun runs commands.ExecuteClocked on a fresh stream where, before each try's append,
// another writer appends first while contend(try) says so, and the budget's clock moves on by
// slow (one try's time on a loaded machine). It returns the tries made and the result's error.
func budgetRun(t *testing.T, slow time.Duration, contend func(try int) bool) (int, eventstore.AppendResult, error) {
	t.Helper()
	ctx := context.Background()
	var clock atomic.Int64 // nanoseconds past start
	start := time.Unix(1_800_000_000, 0)
	now := func() time.Time { return start.Add(time.Duration(clock.Load())) }
	store := memory.New(now)
	event := func() eventstore.EventData {
		return eventstore.EventData{ID: uuid.New(), Type: "t", Data: []byte(`{}`)}
	}
	const stream = "pipeline-budget"
	if _, err := store.Append(ctx, stream, eventstore.NoStream(), event()); err != nil {
		t.Fatal(err)
	}
	count := commands.Aggregate[int]{Apply: func(n int, _ eventstore.RecordedEvent) (int, error) { return n + 1, nil }}
	tries := 0
	_, res, err := commands.ExecuteClocked(ctx, store, stream, count, 0, func(commands.Loaded[int]) (commands.Decision, error) {
		if contend(tries) {
			if _, err := store.Append(ctx, stream, eventstore.Any(), event()); err != nil {
				return nil, err
			}
		}
		tries++
		clock.Add(int64(slow))
		return commands.Decision{event()}, nil
	}, now)
	return tries, res, err
}

// TestASlowTryDoesNotSpendTheConflictBudget (stop 75): on a loaded machine one try took longer
// than the whole conflict budget, and losing it to the other writer of a pair gave up at once
// with ErrContended (409 to a processor's event, CI run 2 of stop 74) although the second try,
// with the other writer done, goes through.
func TestASlowTryDoesNotSpendTheConflictBudget(t *testing.T) {
	t.Parallel()
	tries, res, err := budgetRun(t, 11*time.Second, func(try int) bool { return try == 0 })
	if err != nil || tries != 2 || res.Version != 3 {
		t.Fatalf("after one slow lost try: %d tries, version %d, %v; want the second try appended at version 3", tries, res.Version, err)
	}
}

// TestAStreamContendedPastTheBudgetGivesUp: a stream another writer keeps changing still gives
// up, with ErrContended, once the budget has passed and after the floor of tries, not before.
func TestAStreamContendedPastTheBudgetGivesUp(t *testing.T) {
	t.Parallel()
	tries, _, err := budgetRun(t, time.Second, func(int) bool { return true })
	if !errors.Is(err, commands.ErrContended) || tries != commands.LeastTries {
		t.Fatalf("always contended, a second a try: %d tries, %v; want ErrContended after %d tries", tries, err, commands.LeastTries)
	}
	tries, _, err = budgetRun(t, 2*time.Second, func(try int) bool { return try < commands.LeastTries+2 })
	if !errors.Is(err, commands.ErrContended) || tries != commands.LeastTries {
		t.Fatalf("contended for %d tries of 2 s: %d tries, %v; want ErrContended after %d", commands.LeastTries+2, tries, err, commands.LeastTries)
	}
}
