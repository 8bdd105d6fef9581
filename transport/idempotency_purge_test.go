package transport

import (
	"context"
	"fmt"
	"net/http"
	"testing"
)

// Idempotency-Keys older than their 24 h are deleted: nothing deleted them, so the middleware's
// table (with each kept answer, up to 1 MiB) and the receipt issuer's bindings grew with every
// key ever used. A new claim purges expired keys of both; live ones stay.
func TestExpiredIdempotencyKeysArePurged(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	m := e.merchant(false)
	ctx := context.Background()
	for i, age := range []string{"25 hours", "30 days", "1 hour"} {
		key := fmt.Sprintf("old-%d", i)
		if _, err := e.pool.Exec(ctx, `INSERT INTO idempotent_responses (principal, key, request_hash, done, status, content_type, created_at, locked_until)
			VALUES ($1, $2, 'h', true, 200, 'application/json', now() - $3::interval, now() - $3::interval)`, "wallet:"+m.wallet, key, age); err != nil {
			t.Fatal(err)
		}
		if _, err := e.pool.Exec(ctx, `INSERT INTO idempotency_keys (wallet, key, request_hash, receipt_id, created_at)
			VALUES ($1, $2, 'h', 'rcpt_x', now() - $3::interval)`, m.wallet, key, age); err != nil {
			t.Fatal(err)
		}
	}
	if rec := e.dev(m, http.MethodPost, "/api/inventory", `{"sku":"tea","name":"Tea","priceUsd":4}`, "Idempotency-Key", "new"); rec.Code/100 != 2 {
		t.Fatalf("inventory: %d %s", rec.Code, rec.Body)
	}
	for _, table := range []string{"idempotent_responses", "idempotency_keys"} {
		var keys []string
		rows, err := e.pool.Query(ctx, `SELECT key FROM `+table+` ORDER BY key`)
		if err != nil {
			t.Fatal(err)
		}
		for rows.Next() {
			var k string
			if err := rows.Scan(&k); err != nil {
				t.Fatal(err)
			}
			keys = append(keys, k)
		}
		want := "[new old-2]"
		if table == "idempotency_keys" {
			want = "[old-2]"
		}
		if fmt.Sprint(keys) != want {
			t.Fatalf("%s holds %v, want %s", table, keys, want)
		}
	}
	// An expired key is free again, as before: a new request under it runs.
	if rec := e.dev(m, http.MethodPost, "/api/inventory", `{"sku":"mug","name":"Mug","priceUsd":4}`, "Idempotency-Key", "old-0"); rec.Code/100 != 2 || rec.Header().Get(idemReplayed) != "" {
		t.Fatalf("an expired key again: %d %s", rec.Code, rec.Body)
	}
}
