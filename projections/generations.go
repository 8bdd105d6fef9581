package projections

import (
	"sync"

	"github.com/google/uuid"

	"github.com/payledger/payledger/domain/receipt"
)

// Generations hands a new receipt's state, as its command decided it, from its append
// (ReceiptsAtAppend.AppendGeneration, which already folds it for the receipts row) to the
// receipt.created projector of the same process, so that the projector does not decode every
// order's generation event again: that full JSON decode was about 9% of serve's CPU per order
// (issue 38). It is keyed by event id, which names one event's content for good, and holds at most
// a fixed number of states, the oldest going first: an event not found here (appended by another
// instance, before a restart, evicted, or read again by a rebuild) is decoded as before. A nil
// *Generations holds nothing.
type Generations struct {
	mu   sync.Mutex
	byID map[uuid.UUID]receipt.State
	ring []uuid.UUID // insertion order; ring[next] is the oldest once full
	next int
}

// GenerationsKept is how many decided generations a Generations holds: several times the orders
// of one PacedInterval read at the service's peak rate (3,700 orders/s on the benchmark machine:
// 370 per read), so that the projector finds the states of a lagging read too, at a bounded cost
// in memory (a state is about 1 KiB, with the texts it holds about 2: at most about 4 MiB, the
// most that an instance that appends but does not lead the projector keeps).
const GenerationsKept = 2048

// NewGenerations returns a hand-off of at most kept states (GenerationsKept when kept <= 0).
func NewGenerations(kept int) *Generations {
	if kept <= 0 {
		kept = GenerationsKept
	}
	return &Generations{byID: make(map[uuid.UUID]receipt.State, kept), ring: make([]uuid.UUID, 0, kept)}
}

// put records st as the state that generation event id applies, evicting the oldest when full.
func (g *Generations) put(id uuid.UUID, st receipt.State) {
	if g == nil {
		return
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if _, ok := g.byID[id]; ok {
		g.byID[id] = st
		return
	}
	if len(g.ring) < cap(g.ring) {
		g.ring = append(g.ring, id)
	} else {
		delete(g.byID, g.ring[g.next])
		g.ring[g.next] = id
		g.next = (g.next + 1) % len(g.ring)
	}
	g.byID[id] = st
}

// take returns, and forgets, the state generation event id applies, if it is held.
func (g *Generations) take(id uuid.UUID) (receipt.State, bool) {
	if g == nil {
		return receipt.State{}, false
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	st, ok := g.byID[id]
	if ok {
		delete(g.byID, id) // its ring slot is reused when its turn comes
	}
	return st, ok
}

// drop forgets event id (an append that failed, or whose outcome is unknown).
func (g *Generations) drop(id uuid.UUID) {
	if g == nil {
		return
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	delete(g.byID, id)
}

// len is how many states are held (tests).
func (g *Generations) len() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return len(g.byID)
}
