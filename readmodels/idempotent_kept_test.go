package readmodels

import (
	"bytes"
	"context"
	"testing"
	"time"

	"github.com/payledger/payledger/internal/secrets"
	"github.com/payledger/payledger/migrations/pgtest"
)

// The bound on a principal's kept answers (migration 049), step by step on a store bounded at two
// answers or 100 bytes: a released claim (a 500) gives its count back; the bytes of kept answers
// count; an expired key under the bound is neither taken again nor replayed; the issuer's
// bindings (orders) are not counted.
func TestIdempotentResponsesBoundPerPrincipal(t *testing.T) {
	t.Parallel()
	pool := pgtest.PoolFor(t, pgtest.URL(t))
	keys, err := secrets.NewWebhookKeys(pool, bytes.Repeat([]byte{5}, 32))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	mw := NewIdempotentResponses(pool, keys).WithBound(2, 100)
	claim := func(principal, key string) Kept {
		t.Helper()
		k, err := mw.Claim(ctx, principal, key, "h-"+key, time.Minute)
		if err != nil {
			t.Fatal(err)
		}
		return k
	}
	const p = "wallet:0xabc"
	if _, _, err := NewIdempotency(pool).Claim(ctx, "0xabc", "order", "h-order", "rcpt_1"); err != nil {
		t.Fatal(err)
	}
	if k := claim(p, "a"); !k.Run {
		t.Fatalf("first key: %+v", k)
	}
	if err := mw.Release(ctx, p, "a"); err != nil { // the request failed: nothing kept
		t.Fatal(err)
	}
	for _, key := range []string{"b", "c"} {
		if k := claim(p, key); !k.Run {
			t.Fatalf("key %s after a released one: %+v (the released claim still counts, or the order does)", key, k)
		}
		if err := mw.Finish(ctx, p, key, 200, "application/json", []byte(`{}`)); err != nil {
			t.Fatal(err)
		}
	}
	k := claim(p, "d")
	if !k.Full || k.Run || k.ResetAt.Before(time.Now().Add(23*time.Hour)) {
		t.Fatalf("a third key at a bound of two: %+v (want Full, resetAt in about 25 h)", k)
	}
	if k := claim(p, "b"); !k.Done {
		t.Fatalf("a kept key at the bound: %+v (want its answer)", k)
	}
	if k := claim("wallet:0xdef", "d"); !k.Run {
		t.Fatalf("another principal: %+v", k)
	}
	// Bytes: one large answer fills the other principal's budget.
	if err := mw.Finish(ctx, "wallet:0xdef", "d", 200, "application/json", bytes.Repeat([]byte("x"), 100)); err != nil {
		t.Fatal(err)
	}
	if k := claim("wallet:0xdef", "e"); !k.Full {
		t.Fatalf("a key past the bytes bound: %+v (want Full)", k)
	}
	// An expired key while at the bound: free, so refused like a new one, and never replayed.
	if _, err := pool.Exec(ctx, `UPDATE idempotent_responses SET created_at = now() - interval '25 hours' WHERE principal = $1 AND key = 'b'`, p); err != nil {
		t.Fatal(err)
	}
	if k := claim(p, "b"); !k.Full {
		t.Fatalf("an expired key at the bound: %+v (want Full, not its old answer)", k)
	}
}
