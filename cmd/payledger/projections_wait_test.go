package main

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/payledger/payledger/eventstore"
)

// slowReplay is a replay that moves one event per wait, each wait ending at its deadline: a
// replay that takes longer than any one bound on waiting but keeps moving (or, with stuck, none).
type slowReplay struct {
	mu    sync.Mutex
	pos   uint64
	stuck bool
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
	const stall = 20 * time.Millisecond
	if err := waitCaughtUp(context.Background(), &slowReplay{}, head, stall); err != nil {
		t.Fatalf("a replay slower than one bound but moving: %v", err)
	}
	err := waitCaughtUp(context.Background(), &slowReplay{stuck: true}, head, stall)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("a replay that does not move: %v, want its stall reported", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := waitCaughtUp(ctx, &slowReplay{}, head, time.Hour); !errors.Is(err, context.Canceled) {
		t.Fatalf("a command interrupted: %v", err)
	}
}
