package postgres

import (
	"context"
	"errors"
	"fmt"

	"github.com/payledger/payledger/eventstore"
)

// ErrHeadPastTransactions: the log's head names a transaction this database server has not
// started. Positions are transaction ids, so a log restored into another cluster (pg_dump and
// restore: its transaction ids start lower) or rows written with a forged tx_id sit past every
// new append: reads stop before them, and the new events sort before the old ones, where a
// projector's checkpoint has passed already. Serving on such a log would lose events.
var ErrHeadPastTransactions = errors.New("the event log's head is past every transaction this database has started")

// NextTransaction is the next transaction id the server will assign (the current snapshot's
// xmax, with its epoch, as tx_id is written).
func (s *Store) NextTransaction(ctx context.Context) (uint64, error) {
	var next int64
	if err := s.pool.QueryRow(ctx, `SELECT pg_snapshot_xmax(pg_current_snapshot())::text::bigint`).Scan(&next); err != nil {
		return 0, fmt.Errorf("read the next transaction id: %w", err)
	}
	return uint64(next), nil
}

// CheckHeadStarted returns ErrHeadPastTransactions, naming both ids, when the log's head is not
// a transaction the server has started (see ErrHeadPastTransactions).
func (s *Store) CheckHeadStarted(ctx context.Context) error {
	head, err := s.Head(ctx)
	if err != nil || head == eventstore.Start {
		return err
	}
	next, err := s.NextTransaction(ctx)
	if err != nil {
		return err
	}
	if head.Commit >= next {
		return fmt.Errorf("%w: the head names transaction %d, the server's next is %d (a log restored from another cluster needs its next transaction id set past %d first, docs/runbook.md)",
			ErrHeadPastTransactions, head.Commit, next, head.Commit)
	}
	return nil
}
