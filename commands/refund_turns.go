package commands

import (
	"context"
	"sync"
)

// refundTurns gives the refunds of one receipt their turns in this process: one decides and
// appends while the others of that receipt wait, so they do not all load the same version,
// decide, and all but one fail their append and load again. The pipeline's optimistic check
// stays: other processes and other commands (the refund verifier, a payment) still meet a
// version conflict, retried as before.
//
// Without turns, 20 refunds of one receipt at once cost about n²/2 loads and failed appends (190
// for 20), and each failed append of a group commit is found by halving its flush (the store's
// flushCalls), one transaction per half: on a loaded CI machine the last ones ran out of the
// pipeline's 10 s conflict budget (409, stop 71).
type refundTurns struct {
	mu    sync.Mutex
	turns map[string]*refundTurn
}

// refundTurn is one receipt's turn: a channel of one slot (held while full) and how many requests
// hold or wait for it, so the map keeps no receipt nobody refunds.
type refundTurn struct {
	slot  chan struct{}
	users int
}

// take waits for receiptID's turn and returns its release. Errors: ctx's, when it ends first.
func (t *refundTurns) take(ctx context.Context, receiptID string) (release func(), err error) {
	t.mu.Lock()
	if t.turns == nil {
		t.turns = map[string]*refundTurn{}
	}
	turn := t.turns[receiptID]
	if turn == nil {
		turn = &refundTurn{slot: make(chan struct{}, 1)}
		t.turns[receiptID] = turn
	}
	turn.users++
	t.mu.Unlock()
	select {
	case turn.slot <- struct{}{}:
		return func() { <-turn.slot; t.leave(receiptID, turn) }, nil
	case <-ctx.Done():
		t.leave(receiptID, turn)
		return nil, ctx.Err()
	}
}

// leave forgets one user of turn, and the turn once it has none.
func (t *refundTurns) leave(receiptID string, turn *refundTurn) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if turn.users--; turn.users == 0 {
		delete(t.turns, receiptID)
	}
}
