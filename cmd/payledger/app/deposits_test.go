package app

import (
	"errors"
	"testing"

	"github.com/payledger/payledger/settlement"
)

// TestDetectionProgress: what a deposit detector's step tells its health. A refused look-back
// (the blocks read, deposits watched late still due) is no progress, with its error: refused for
// the stall window, detection is stuck (TestHealthJudgesWorkers, TestStuckDepositDetectorShowsInHealthzAndLog).
func TestDetectionProgress(t *testing.T) {
	refused, down := errors.New("query returned more than 10000 results"), errors.New("connection refused")
	unreadable := errors.New("receipt r-1: unknown event type")
	cases := []struct {
		name     string
		res      settlement.StepResult
		err      error
		progress bool
		wantErr  error
	}{
		{"blocks read", settlement.StepResult{From: 5, To: 6}, nil, true, nil},
		{"no new block", settlement.StepResult{}, nil, false, nil},
		{"the step failed", settlement.StepResult{}, down, false, down},
		{"blocks read, the look-back refused", settlement.StepResult{From: 5, To: 6, LookBack: refused}, nil, false, refused},
		{"blocks read, a receipt's transfers held unreadable", settlement.StepResult{From: 5, To: 6, Unreadable: unreadable}, nil, false, unreadable},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			progress, err := detectionProgress(c.res, c.err)
			if progress != c.progress || !errors.Is(err, c.wantErr) || (c.wantErr == nil && err != nil) {
				t.Fatalf("progress %v, error %v; want %v, %v", progress, err, c.progress, c.wantErr)
			}
		})
	}
}
