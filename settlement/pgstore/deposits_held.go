package pgstore

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/payledger/payledger/settlement"
)

// The receipts whose transfers the deposit detector keeps (settlement's deposit_held.go) are rows
// of chain_cursors too, one a receipt, named heldPrefix(detector) + receipt id, whose block_number
// is the first block of the receipt's kept transfers: a restarted detector watches those
// receipts, whatever the watch list says of them by then, until their transfers are recorded.

// heldPrefix is the names of detector name's held receipts' rows. The detector's own held cursor
// (name + ".held", the first block of every kept transfer) does not start with it.
func heldPrefix(name string) string { return name + ".held." }

// depositsOfSQL reads given receipts' deposits with their state's facts, as openFactsSQL does
// ($1: monitor before now), whatever their status.
const depositsOfSQL = `SELECT ` + openFlags + `,
		CASE WHEN state ? 'credits' THEN state->'credits' END,
		CASE WHEN status IN ('paid', 'reconciled') THEN state->'payment' END, COALESCE(state->>'chainWithdrawnTx', '')
	FROM receipts WHERE deposit_address IS NOT NULL AND NOT (state ? 'depositChainGone') AND receipt_id = ANY($2)`

// DepositsOf implements settlement.DepositStore.
func (d *Deposits) DepositsOf(ctx context.Context, ids []string, now time.Time, monitor time.Duration, known map[string]uint64) ([]settlement.OpenDeposit, error) {
	return d.openWithFacts(ctx, depositsOfSQL, known, now.Add(-monitor), ids)
}

// Held implements settlement.DepositStore.
func (d *Deposits) Held(ctx context.Context, name, genesis string) (map[string]uint64, error) {
	prefix := heldPrefix(name)
	rows, err := d.pool.Query(ctx, `SELECT substr(name, $2), block_number FROM chain_cursors
		WHERE starts_with(name, $1) AND genesis_hash = $3`, prefix, len(prefix)+1, genesis)
	if err != nil {
		return nil, fmt.Errorf("held deposits of %s: %w", name, err)
	}
	out := map[string]uint64{}
	var id string
	var from int64
	_, err = pgx.ForEachRow(rows, []any{&id, &from}, func() error {
		out[id] = uint64(from)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("held deposits of %s: %w", name, err)
	}
	return out, nil
}

// SaveHeld implements settlement.DepositStore, in one statement.
func (d *Deposits) SaveHeld(ctx context.Context, name, genesis string, set map[string]uint64, drop []string) error {
	prefix := heldPrefix(name)
	names, froms := make([]string, 0, len(set)), make([]int64, 0, len(set))
	for id, from := range set {
		names, froms = append(names, prefix+id), append(froms, int64(from))
	}
	dropped := make([]string, len(drop))
	for i, id := range drop {
		dropped[i] = prefix + id
	}
	_, err := d.pool.Exec(ctx, `WITH gone AS (DELETE FROM chain_cursors WHERE name = ANY($4::text[]))
		INSERT INTO chain_cursors (name, block_number, block_hash, genesis_hash)
		SELECT unnest($1::text[]), unnest($2::bigint[]), '', $3
		ON CONFLICT (name) DO UPDATE SET block_number = EXCLUDED.block_number, genesis_hash = EXCLUDED.genesis_hash`,
		names, froms, genesis, dropped)
	if err != nil {
		return fmt.Errorf("held deposits of %s: %w", name, err)
	}
	return nil
}
