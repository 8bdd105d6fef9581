package transport

import (
	"context"
	"net/http"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/payledger/payledger/migrations/pgtest"
)

// A server that refuses new connections with an error of its own (FATAL 53300 "sorry, too many
// clients already" while every instance reconnects after a failover, 55000 "not currently
// accepting connections", 3D000, 28P01) is as unavailable as one that cannot be reached: nothing
// ran. Orders take the degraded path and reads answer 503 datastore_unavailable (stop 61: the
// server's SQLSTATE was judged instead of the failed connection, so every request answered 500
// "Internal server error" and orders were lost). The test refuses connections with
// ALLOW_CONNECTIONS false: its superuser is exempt from connection limits.
func TestAServerRefusingConnectionsIsTheDegradedPath(t *testing.T) {
	t.Parallel()
	e, m, order := orderingMerchant(t, "the server accepts connections")
	ctx := context.Background()
	base := pgtest.Server()
	admin, err := pgx.Connect(ctx, base) // the server's own database: a database cannot refuse its own session
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = admin.Close(ctx) })
	allow := func(on bool) {
		t.Helper()
		stmt := "ALTER DATABASE " + pgx.Identifier{e.pool.Config().ConnConfig.Database}.Sanitize() + " ALLOW_CONNECTIONS "
		if _, err := admin.Exec(ctx, stmt+map[bool]string{true: "true", false: "false"}[on]); err != nil {
			t.Fatal(err)
		}
	}
	allow(false)
	t.Cleanup(func() { allow(true) }) // pgtest drops the database afterwards
	e.pool.Reset()                    // every request needs a new connection now

	rec := e.dev(m, http.MethodPost, "/api/orders", order)
	body := decode(t, rec)
	if rec.Code != 200 || body["degraded"] != true {
		t.Fatalf("order while the server refuses connections: %d %s; want 200 with degraded: true", rec.Code, rec.Body)
	}
	id := body["receipt"].(map[string]any)["receiptId"].(string)
	rec = e.dev(m, http.MethodGet, "/api/receipts", "")
	if got := decode(t, rec); rec.Code != http.StatusServiceUnavailable || got["error"] != "datastore_unavailable" {
		t.Fatalf("a list while the server refuses connections: %d %s; want 503 datastore_unavailable", rec.Code, rec.Body)
	}

	allow(true)
	if n, err := e.svc.Replayer.DrainOnce(ctx); err != nil || n != 1 {
		t.Fatalf("replay once the server accepts connections: %d entries, %v; want 1", n, err)
	}
	var stored int
	if err := e.pool.QueryRow(ctx, `SELECT count(*) FROM events WHERE stream_id = $1`, "receipt-"+id).Scan(&stored); err != nil || stored != 1 {
		t.Fatalf("the journaled order's stream holds %d events (%v); want 1", stored, err)
	}
}
