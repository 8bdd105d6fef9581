package main

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/payledger/payledger/eventstore"
	"github.com/payledger/payledger/internal/syncbuf"
)

// slowReplay is a replay that moves one event per wait, each wait ending at its deadline: a
// replay that takes longer than any one bound on waiting but keeps moving (or, with stuck, none).
type slowReplay struct {
	mu      sync.Mutex
	pos     uint64
	stuck   bool
	failure error // what its runner reports (Failing), if anything
}

func (s *slowReplay) Failing() (since, last time.Time, err error) {
	if s.failure == nil {
		return time.Time{}, time.Time{}, nil
	}
	return time.Now(), time.Now(), s.failure
}

func (s *slowReplay) Name() string { return "users" }

func (s *slowReplay) Position() eventstore.Position {
	s.mu.Lock()
	defer s.mu.Unlock()
	return eventstore.Position{Commit: s.pos, Prepare: s.pos}
}

func (s *slowReplay) WaitFor(ctx context.Context, head eventstore.Position) error {
	s.mu.Lock()
	if !s.stuck && s.pos < head.Commit {
		s.pos++
	}
	reached := s.pos >= head.Commit
	s.mu.Unlock()
	if reached {
		return nil
	}
	<-ctx.Done()
	return ctx.Err()
}

// TestRebuildWaitsWhileTheReplayMoves: `projections rebuild` waits for its replay as long as it
// makes progress, and gives up only when it stops moving. It gave up after 10 minutes in all, so
// the rebuild of a large log failed (exit 1), and with no serve running could never finish.
func TestRebuildWaitsWhileTheReplayMoves(t *testing.T) {
	t.Parallel()
	head := eventstore.Position{Commit: 5, Prepare: 5}
	w := replayWait{tick: 20 * time.Millisecond, stall: 20 * time.Millisecond}
	if err := waitCaughtUp(context.Background(), &slowReplay{}, head, w, zerolog.Nop()); err != nil {
		t.Fatalf("a replay slower than one bound but moving: %v", err)
	}
	err := waitCaughtUp(context.Background(), &slowReplay{stuck: true}, head, w, zerolog.Nop())
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("a replay that does not move: %v, want its stall reported", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := waitCaughtUp(ctx, &slowReplay{}, head, replayWait{tick: time.Hour, stall: time.Hour}, zerolog.Nop()); !errors.Is(err, context.Canceled) {
		t.Fatalf("a command interrupted: %v", err)
	}
}

// A replay that does not move (events held back by an older open transaction, the usual cause
// while serve and the log are up) was waited for in silence until the command gave up: to the
// operator it hung. It now says so at every tick, as verify does, and its final error says why.
func TestRebuildSaysWhileTheReplayDoesNotMove(t *testing.T) {
	t.Parallel()
	var out syncbuf.Buffer
	head := eventstore.Position{Commit: 5, Prepare: 5}
	err := waitCaughtUp(context.Background(), &slowReplay{stuck: true}, head,
		replayWait{tick: 5 * time.Millisecond, stall: 40 * time.Millisecond}, zerolog.New(&out))
	if err == nil || !strings.Contains(err.Error(), "held back by an older open transaction") {
		t.Fatalf("a replay that does not move: %v, want the reason in the error", err)
	}
	if n := strings.Count(out.String(), "the replay has not moved"); n < 2 {
		t.Fatalf("%d warnings while the replay did not move, want one a tick; log:\n%s", n, out.String())
	}
	var moving syncbuf.Buffer
	if err := waitCaughtUp(context.Background(), &slowReplay{}, head, replayWait{tick: 5 * time.Millisecond, stall: time.Minute}, zerolog.New(&moving)); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(moving.String(), "replaying to the log's head") || strings.Contains(moving.String(), "has not moved") {
		t.Fatalf("a moving replay's log: %s", moving.String())
	}
}

// TestRebuildSaysWhyTheReplayDoesNotMove: a replay whose runner reports a failure (a batch failing
// on every retry) is said to wait on it, in every warning and in the final error; the rebuild
// blamed an older open transaction whatever the cause.
func TestRebuildSaysWhyTheReplayDoesNotMove(t *testing.T) {
	t.Parallel()
	var out syncbuf.Buffer
	head := eventstore.Position{Commit: 5, Prepare: 5}
	failure := errors.New(`apply 1 events up to 3/3: ERROR: duplicate key value violates unique constraint "receipts_pkey" (SQLSTATE 23505)`)
	err := waitCaughtUp(context.Background(), &slowReplay{stuck: true, failure: failure}, head,
		replayWait{tick: 5 * time.Millisecond, stall: 40 * time.Millisecond}, zerolog.New(&out))
	if err == nil || !strings.Contains(err.Error(), "duplicate key value") || strings.Contains(err.Error(), "held back") {
		t.Fatalf("a replay whose batch fails: %v, want its failure in the error", err)
	}
	if n := strings.Count(out.String(), "the replay has not moved; apply 1 events up to 3/3"); n < 2 {
		t.Fatalf("%d warnings naming the failure, want one a tick; log:\n%s", n, out.String())
	}
}
