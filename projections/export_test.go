package projections

import (
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
	e, err := decided(ev, g)
	if err != nil {
		return nil, err
	}
	return GenerationRow(e)
}
