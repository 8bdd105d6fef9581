package readmodels

import (
	"bytes"
	"context"
	"errors"
	"net/url"
	"sync"
	"testing"
	"time"

	"github.com/payledger/payledger/internal/secrets"
	"github.com/payledger/payledger/migrations/pgtest"
)

// TestConcurrentEndpointCreatesKeepTheBound: creates racing for one merchant's last places
// never leave it more than MaxEndpoints live endpoints (each counted the others' uncommitted
// rows as absent, and 60 at once left 23); the others get ErrTooManyEndpoints.
func TestConcurrentEndpointCreatesKeepTheBound(t *testing.T) {
	t.Parallel()
	u, err := url.Parse(pgtest.URL(t))
	if err != nil {
		t.Fatal(err)
	}
	q := u.Query()
	q.Set("pool_max_conns", "30") // the creates really run at once
	u.RawQuery = q.Encode()
	pool := pgtest.PoolFor(t, u.String())
	keys, err := secrets.NewWebhookKeys(pool, bytes.Repeat([]byte{5}, 32))
	if err != nil {
		t.Fatal(err)
	}
	store, ctx := NewEndpoints(pool, keys), context.Background()
	const tries = 3 * MaxEndpoints
	var (
		start   sync.WaitGroup
		created sync.WaitGroup
		mu      sync.Mutex
		ok      int
	)
	start.Add(1)
	for range tries {
		created.Go(func() {
			start.Wait()
			_, err := store.Create(ctx, "0xmerchant", "https://hooks.example/x", []string{"*"}, "whsec_x", time.Now())
			if err != nil && !errors.Is(err, ErrTooManyEndpoints) {
				t.Error(err)
			}
			mu.Lock()
			defer mu.Unlock()
			if err == nil {
				ok++
			}
		})
	}
	start.Done()
	created.Wait()
	list, err := store.List(ctx, "0xmerchant")
	if err != nil || len(list) != MaxEndpoints || ok != MaxEndpoints {
		t.Fatalf("%d creates succeeded, %d live endpoints (%v); want %d", ok, len(list), err, MaxEndpoints)
	}
	// Another merchant is not held to this one's count.
	if _, err := store.Create(ctx, "0xother", "https://hooks.example/y", []string{"*"}, "whsec_y", time.Now()); err != nil {
		t.Fatal(err)
	}
}
