package transport

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/jackc/pgx/v5"
)

// TestExportWithoutItsDatabaseAnswers503: an export whose query cannot run at all (here the
// database takes no new connection, and the exports' pool has none open) answers the error
// envelope, 503, as every read does while the datastore is unavailable. It answered 200 with the
// header row alone, an export of no receipts, before any row was read.
func TestExportWithoutItsDatabaseAnswers503(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	m := e.merchant(false)
	if rec := e.dev(m, http.MethodGet, "/api/receipts", ""); rec.Code != 200 { // the key is known; the API's pool is open
		t.Fatalf("list: %d %s", rec.Code, rec.Body)
	}
	insertReceipts(t, e, m.wallet, 3)
	ctx := context.Background()
	var db string
	if err := e.pool.QueryRow(ctx, `SELECT current_database()`).Scan(&db); err != nil {
		t.Fatal(err)
	}
	cfg := e.pool.Config().ConnConfig.Copy()
	cfg.Database = "postgres" // a database may not refuse connections from inside itself
	admin, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = admin.Close(ctx) })
	alter := func(allow bool) {
		if _, err := admin.Exec(ctx, `ALTER DATABASE `+pgx.Identifier{db}.Sanitize()+` ALLOW_CONNECTIONS `+map[bool]string{true: "true", false: "false"}[allow]); err != nil {
			t.Fatal(err)
		}
	}
	alter(false)
	t.Cleanup(func() { alter(true) })

	srv := httptest.NewServer(e.srv)
	defer srv.Close()
	r, _ := http.NewRequest(http.MethodGet, srv.URL+"/api/exports/receipts.csv", nil)
	r.Header.Set("Ocp-Apim-Subscription-Key", m.key)
	resp, err := http.DefaultClient.Do(r)
	if err != nil {
		t.Fatalf("no answer: %v", err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	var env map[string]any
	if resp.StatusCode != http.StatusServiceUnavailable || json.Unmarshal(body, &env) != nil || env["error"] == nil || env["message"] == nil {
		t.Fatalf("export without its database: %d %q, want 503 and the error envelope", resp.StatusCode, body)
	}
}
