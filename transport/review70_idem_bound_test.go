package transport

import (
	"net/http"
	"strings"
	"testing"

	"github.com/payledger/payledger/readmodels"
)

// The 429 past the kept-answers bound names the bound the store has (IDEMPOTENCY_MAX_KEPT, set
// through IdempotentResponses.WithBound), not the default: before, it always said 10000.
func TestReview70IdempotencyFullNamesTheStoresBound(t *testing.T) {
	t.Parallel()
	e := newEnv(t, func(d *testDeps) {
		d.Idempotent = d.Idempotent.(*readmodels.IdempotentResponses).WithBound(1, readmodels.MaxKeptBytes)
	})
	m := e.merchant(false)
	if rec := e.dev(m, http.MethodPost, "/api/inventory", `{"sku":"latte","name":"Latte","priceUsd":4.5}`, "Idempotency-Key", "a"); rec.Code != 201 {
		t.Fatalf("the one key within a bound of 1: %d %s", rec.Code, rec.Body)
	}
	rec := e.dev(m, http.MethodPost, "/api/inventory", `{"sku":"tea","name":"Tea","priceUsd":3}`, "Idempotency-Key", "b")
	msg, _ := decode(t, rec)["message"].(string)
	if rec.Code != http.StatusTooManyRequests || !strings.Contains(msg, "(1 answers or 128 MiB)") {
		t.Fatalf("a second key at a bound of 1: %d %q (want 429 naming 1 answers)", rec.Code, msg)
	}
	if n := e.count("inventory_items WHERE sku = 'tea'"); n != 0 {
		t.Fatal("the refused request ran")
	}
}
