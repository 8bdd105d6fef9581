package projections

import (
	"github.com/google/uuid"

	"github.com/payledger/payledger/domain/receipt"
	"github.com/payledger/payledger/eventstore"
	"github.com/payledger/payledger/readmodels"
)

// AtAppendSQL is the statement that applies generations in their append's transaction.
var AtAppendSQL = readmodels.ReceiptsAtAppendSQL

// ObserveApplied has f told how many rows each of a's applying statements wrote, once it
// committed.
func ObserveApplied(a *ReceiptsAtAppend, f func(rows int64)) { a.applied = f }

// GenerationRow is the arguments of the statement ReceiptsAtAppend commits with the append of
// generation e.
func GenerationRow(e receipt.Event) ([]any, error) {
	return readmodels.ReceiptsAtAppendArgs([]readmodels.StateRow{generationRow(e)})
}

// DecidedRow is the arguments of the statement ReceiptsAtAppend.AppendGeneration commits with ev,
// the append of the decided generation g.
func DecidedRow(ev eventstore.EventData, g receipt.Generated) ([]any, error) {
	e, asIs, err := decided(ev, g)
	if err != nil {
		return nil, err
	}
	row := generationRow(e)
	if asIs {
		row.ReceiptJSON = ev.Data
	}
	return readmodels.ReceiptsAtAppendArgs([]readmodels.StateRow{row})
}

// ReceiptCreatedState is the state p's entry for generation e is made of.
func ReceiptCreatedState(p ReceiptCreated, e eventstore.RecordedEvent) (receipt.State, error) {
	return p.created(e)
}

// Held is how many states g holds.
func Held(g *Generations) int { return g.len() }

// PutGeneration hands st over as generation id's state.
func PutGeneration(g *Generations, id uuid.UUID, st receipt.State) { g.put(id, st) }

// TakeGeneration says whether g held generation id's state, and forgets it.
func TakeGeneration(g *Generations, id uuid.UUID) bool {
	_, ok := g.take(id)
	return ok
}

// SwapLockTimeout is how long a blue/green swap waits for a lock at a time.
const SwapLockTimeout = swapLockTimeout
