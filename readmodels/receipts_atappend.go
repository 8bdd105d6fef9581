package readmodels

import (
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/payledger/payledger/domain/receipt"
)

// ReceiptsTable is the live receipts read model (a blue/green rebuild fills a shadow copy).
const ReceiptsTable = "receipts"

// ReceiptsAtAppendSQL applies receipt generations in their append's transaction when the receipts
// projector is caught up (projections/atappend.go says when and why): the conditional move of the
// projector's checkpoint and the insert of the rows. Its arguments are ReceiptsAtAppendArgs.
const ReceiptsAtAppendSQL = `WITH mine AS (SELECT pg_current_xact_id()::text::bigint AS tx),
older AS ( -- transaction ids below this one that the statement's snapshot does not see ended
	SELECT x.id FROM pg_snapshot_xip(pg_current_snapshot()) AS x(id) WHERE x.id < pg_current_xact_id()
	UNION ALL
	SELECT g.id::text::xid8 FROM generate_series(pg_snapshot_xmax(pg_current_snapshot())::text::bigint,
		pg_current_xact_id()::text::bigint - 1) AS g(id)
),
free AS (SELECT name FROM projection_checkpoints WHERE name = '` + ReceiptsTable + `' FOR UPDATE SKIP LOCKED),
caught_up AS (
	UPDATE projection_checkpoints c SET commit_pos = m.tx, prepare_pos = (SELECT max(e.seq) FROM events e WHERE e.tx_id = m.tx),
		updated_at = now()
	FROM mine m, free f
	WHERE c.name = f.name
	  AND NOT EXISTS (SELECT 1 FROM older o WHERE NOT EXISTS (SELECT 1 FROM pg_stat_get_activity(NULL) a
	       WHERE a.backend_xid = xid(o.id) AND a.datid IS DISTINCT FROM (SELECT oid FROM pg_database WHERE datname = current_database())))
	  AND NOT EXISTS (SELECT 1 FROM events e WHERE (e.tx_id, e.seq) > (c.commit_pos, c.prepare_pos) AND e.tx_id <> m.tx)
	  AND (SELECT count(*) FROM events e WHERE e.tx_id = m.tx) = cardinality($1::text[])
	  AND (SELECT count(*) FROM unnest($1::text[]) AS g(id)
	       JOIN events e ON e.stream_id = '` + receipt.StreamPrefix + `' || g.id AND e.version = 1 AND e.tx_id = m.tx) = cardinality($1::text[])
	RETURNING m.tx
)
INSERT INTO ` + ReceiptsTable + ` ` + StateColumns + `
SELECT u.id, u.merchant, u.status, u.prev, u.currency, u.total, u.webhook, u.state::jsonb, u.created, u.updated, u.version,
	e.tx_id, e.seq, u.kind, u.attempt, ` + DepositValues + `
FROM caught_up cu CROSS JOIN ` + StateElemsUnnest + `
JOIN events e ON e.stream_id = '` + receipt.StreamPrefix + `' || u.id AND e.version = 1 AND e.tx_id = cu.tx`

// ReceiptsAtAppendArgs are ReceiptsAtAppendSQL's arguments for rows (new receipts, New): one
// array per column of StateElemsUnnest.
func ReceiptsAtAppendArgs(rows []StateRow) ([]any, error) {
	cols, err := stateColumns(rows)
	if err != nil {
		return nil, err
	}
	return append(cols[:11:11], cols[13:]...), nil // StateElemsUnnest has no position columns
}

// QueueReceiptsAtAppend queues ReceiptsAtAppendSQL for rows into batch; affected is told how many
// rows it wrote (none: the projector applies them).
func QueueReceiptsAtAppend(batch *pgx.Batch, rows []StateRow, affected func(int64)) error {
	args, err := ReceiptsAtAppendArgs(rows)
	if err != nil {
		return err
	}
	batch.Queue(ReceiptsAtAppendSQL, args...).Exec(func(ct pgconn.CommandTag) error { affected(ct.RowsAffected()); return nil })
	return nil
}
