package migrations_test

import (
	"context"
	"strings"
	"testing"

	"github.com/payledger/payledger/migrations"
	"github.com/payledger/payledger/migrations/pgtest"
)

// Migration 048: the retention worker's look for endpoints deleted long ago (readmodels
// PruneDeletedEndpoints, stop 68) reads the oldest deleted rows through a partial index instead
// of scanning every endpoint once a minute; the endpoints' own foreign keys are indexed already,
// so the whole prune reads no table from end to end.
func TestMigration048IndexesDeletedEndpoints(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dbURL, _, _ := migratedTo(t, 47)
	if err := migrations.Apply(ctx, dbURL); err != nil {
		t.Fatal(err)
	}
	pool := pgtest.PoolFor(t, dbURL)
	conn, err := pool.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Release()
	if _, err := conn.Exec(ctx, `SET enable_seqscan = off`); err != nil {
		t.Fatal(err)
	}
	rows, err := conn.Query(ctx, `EXPLAIN SELECT e.id FROM webhook_endpoints e
		WHERE e.deleted_at < now()
			AND NOT EXISTS (SELECT 1 FROM webhook_endpoint_messages m WHERE m.endpoint_id = e.id)
			AND NOT EXISTS (SELECT 1 FROM webhook_endpoint_attempts a WHERE a.endpoint_id = e.id)
		ORDER BY e.deleted_at LIMIT 500`)
	if err != nil {
		t.Fatal(err)
	}
	var plan []string
	for rows.Next() {
		var line string
		if err := rows.Scan(&line); err != nil {
			t.Fatal(err)
		}
		plan = append(plan, line)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	all := strings.Join(plan, "\n")
	if !strings.Contains(all, "webhook_endpoints_deleted") || strings.Contains(all, "Seq Scan") {
		t.Fatalf("the prune's read of deleted endpoints does not use the partial index, or scans a table:\n%s", all)
	}
}
