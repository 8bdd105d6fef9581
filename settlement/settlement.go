// Package settlement holds the chain-driven processes: deposit detection and its audit, sweeps,
// the split distributor, subscription charging and the operator account that sends their transactions
// (nonces, sending, recovery after a crash). A process is driven by the chain and the clock, not
// by a request; it records the facts it learns through the same pipeline as the request use cases
// of commands (load, decide, append with the expected version, retry on conflict).
//
// Where things go: a new chain-driven process (the block follower, deposit detection, sweeps) is
// a file or a sub-package here, its chain port declared beside it; cmd/payledger wires it.
package settlement

import (
	"context"
	"time"

	"github.com/payledger/payledger/eventstore"
)

// sleep waits d or until ctx ends (its error).
func sleep(ctx context.Context, d time.Duration) error {
	if !eventstore.Sleep(ctx, d) {
		return ctx.Err()
	}
	return nil
}
