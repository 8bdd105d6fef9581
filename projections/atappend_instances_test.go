package projections_test

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/payledger/payledger/eventstore"
	"github.com/payledger/payledger/eventstore/postgres"
	"github.com/payledger/payledger/projections"
)

// TestAtAppendWithTwoInstances: two serve instances on one database (issue 37's cluster) each
// have their own store and group commit. Their group commits must not overlap, or the later one
// finds an older transaction still running and leaves its receipts to the projector, and every
// receipt after it until the projector has applied them. With the stores' append lock, nearly
// every generation appended concurrently through both is applied at its append (measured: 1 of
// 400 without the lock). Not all: the projector (running, as in serve) holds the checkpoint
// while it applies what another transaction left it, an autoanalyze of the events table is an
// older transaction too.
func TestAtAppendWithTwoInstances(t *testing.T) {
	pool, first, proj, r := atAppendSetup(t)
	start(t, pool, first, proj)
	var applied atomic.Int64
	var wg sync.WaitGroup
	const writers, each = 8, 25
	for i, store := range []*postgres.Store{first, postgres.New(pool)} {
		s := proj.AtAppend(store, r)
		projections.ObserveApplied(s, func(n int64) { // told once per receipt: its statement's rows
			if n > 0 {
				applied.Add(1)
			}
		})
		for w := range writers {
			wg.Go(func() {
				for k := range each {
					id := fmt.Sprintf("i%d-w%d-%d", i, w, k)
					if _, err := s.Append(context.Background(), projections.ReceiptStreamPrefix+id, eventstore.NoStream(), generation(t, id)); err != nil {
						t.Error(err)
						return
					}
				}
			})
		}
	}
	wg.Wait()
	t.Logf("%d of %d generations applied at append", applied.Load(), 2*writers*each)
	if got, want := applied.Load(), int64(2*writers*each); got < want*3/4 {
		t.Fatalf("%d of %d generations applied at append; the others wait for the projector", got, want)
	}
}
