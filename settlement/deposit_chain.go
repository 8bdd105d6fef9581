package settlement

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/rs/zerolog"

	"github.com/payledger/payledger/commands"
	"github.com/payledger/payledger/domain/receipt"
)

// Which chain the service follows (issue 40). A cursor, the deposit factory and the sweeps in
// flight all belong to the chain they were made on, named by its genesis block's hash: a block
// number of another chain means nothing here. At start, serve compares the node's genesis with
// the one the deposit detector's cursor was saved on:
//   - the same, or none saved yet (a first start, a cursor from before migration 034): go on;
//   - another, on the development chain (started afresh in memory by each `make run`): start
//     afresh there, with the cursor at the new chain's genesis, the contracts the service
//     deployed forgotten (deployed again), the operator transactions signed on the old chain
//     and the sweeps in them settled as never mined, and the old receipts left out of sweeping
//     and detection, their history saying that their deposit is on a chain that is gone
//     (DepositChainGone);
//   - another, anywhere else (a reset testnet, another chain with the same CHAIN_ID): refuse to
//     start, naming both chains (ErrOtherChain); an operator decides.

// ErrOtherChain is a node serving another chain than the one the database followed.
var ErrOtherChain = errors.New("the node serves another chain than the one this database followed")

// ChainAfresh is what starting afresh on a new development chain changes in the database.
type ChainAfresh interface {
	// StartAfresh sets the cursor name at block 0 of the chain genesis, forgets the contracts
	// the service deployed on chainID, settles the operator transactions still signed as
	// reverted (they never happened here) and takes every receipt known so far off the
	// sweeper's list. It returns the receipts whose deposit was on the old chain and that are
	// not done (reconciled or refunded): their history is to say so.
	StartAfresh(ctx context.Context, chainID int64, name, genesis string) ([]string, error)
}

// CheckDepositChain compares the chain's genesis with the one the detector's cursor (name, ""
// is "deposits") was saved on, and on the development chain (development) starts afresh when it
// is another. Errors: ErrOtherChain (not the development chain), the chain's and the store's.
func CheckDepositChain(ctx context.Context, c DepositChain, store DepositStore, afresh ChainAfresh, events commands.Store, chainID int64, name string,
	development bool, now func() time.Time, log zerolog.Logger) error {
	if name == "" {
		name = "deposits"
	}
	genesis, err := c.Genesis(ctx)
	if err != nil {
		return err
	}
	cur, ok, err := store.Cursor(ctx, name)
	if err != nil || !ok || cur.Genesis == "" || cur.Genesis == genesis {
		return err
	}
	if !development {
		return fmt.Errorf("%w: the database followed chain %d with genesis %s (up to block %d), ETH_RPC_URL serves chain %d with genesis %s; "+
			"point ETH_RPC_URL at the chain followed, or use a new database for the new chain", ErrOtherChain, chainID, cur.Genesis, cur.Number, chainID, genesis)
	}
	gone, err := afresh.StartAfresh(ctx, chainID, name, genesis)
	if err != nil {
		return fmt.Errorf("starting afresh on the new development chain: %w", err)
	}
	at := now().UnixMilli()
	for _, id := range gone {
		_, _, err := commands.ChangeReceipt(ctx, events, id, depositMeta, func(st receipt.State) ([]receipt.Event, error) {
			return receipt.ChainGone(st, cur.Genesis, genesis, at)
		})
		if err != nil && !errors.Is(err, receipt.ErrNotFound) {
			return fmt.Errorf("receipt %s on the old chain: %w", id, err)
		}
	}
	log.Warn().Str("previous_genesis", cur.Genesis).Str("genesis", genesis).Uint64("previous_block", cur.Number).Int("receipts_on_the_old_chain", len(gone)).
		Msg("a new development chain: deposit detection, sweeps and contracts start afresh; receipts of the old chain keep their history, their deposits are gone with it")
	return nil
}

// Block hashes the detector remembers between steps (DepositDetector.recent). A block's hash
// commits to its parent's, so when a step's first new block is the child of the cursor's block
// (no reorg), the cursor's block and every block before it that an earlier step read are still
// the chain's: a transfer seen in one of them that reaches its depth now is judged on the hash
// remembered, with no batch of headers. A reorg (the rescan), a restart (nothing remembered) or
// a block older than the memory are read as before.

// recentBlocks is how many blocks below the cursor the detector remembers the hashes of.
const recentBlocks = AuditBlocks

// withRecent is hashes (read this step) with the hashes remembered from earlier steps, when the
// step's blocks continue the cursor's block (not reorged, the cursor's hash known); hashes
// alone otherwise.
func (d *DepositDetector) withRecent(cur DepositCursor, hashes map[uint64]string, reorged bool) map[uint64]string {
	if reorged || cur.Hash == "" || len(d.recent) == 0 || !strings.EqualFold(d.recent[cur.Number], cur.Hash) {
		return hashes
	}
	out := make(map[uint64]string, len(d.recent)+len(hashes))
	for n, h := range d.recent {
		if n <= cur.Number {
			out[n] = h
		}
	}
	for n, h := range hashes {
		out[n] = h
	}
	return out
}

// recentOf is the hashes of the blocks up to to that the next step may judge transfers in: the
// last recentBlocks plus the confirmation depth.
func recentOf(hashes map[uint64]string, to uint64, confirmations int) map[uint64]string {
	keep := uint64(recentBlocks + max(confirmations, 1))
	out := make(map[uint64]string, min(len(hashes), int(keep)))
	for n, h := range hashes {
		if n <= to && to-n < keep {
			out[n] = h
		}
	}
	return out
}
