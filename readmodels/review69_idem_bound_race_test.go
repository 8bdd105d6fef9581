package readmodels

import (
	"bytes"
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/payledger/payledger/internal/secrets"
	"github.com/payledger/payledger/migrations/pgtest"
)

// The bound on a principal's kept answers holds for claims that race: forty new keys of one
// principal claimed at once on a store bounded at five answers run five requests, not as many as
// ran at once (each claim's statement read the count before the others' were committed).
func TestReview69IdempotencyBoundHoldsForRacingClaims(t *testing.T) {
	t.Parallel()
	pool := pgtest.PoolFor(t, pgtest.URL(t))
	keys, err := secrets.NewWebhookKeys(pool, bytes.Repeat([]byte{5}, 32))
	if err != nil {
		t.Fatal(err)
	}
	const bound, racers = 5, 40
	mw := NewIdempotentResponses(pool, keys).WithBound(bound, 1<<30)
	ctx := context.Background()
	var wg sync.WaitGroup
	start := make(chan struct{})
	results := make(chan Kept, racers)
	errs := make(chan error, racers)
	for i := range racers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			k, err := mw.Claim(ctx, "wallet:0xrace", fmt.Sprintf("key-%d", i), "h", time.Minute)
			if err != nil {
				errs <- err
				return
			}
			results <- k
		}()
	}
	close(start)
	wg.Wait()
	close(results)
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	ran, full := 0, 0
	for k := range results {
		switch {
		case k.Run:
			ran++
		case k.Full:
			full++
		}
	}
	if ran != bound || full != racers-bound {
		t.Fatalf("%d racing new keys at a bound of %d: %d ran, %d refused (want %d and %d)", racers, bound, ran, full, bound, racers-bound)
	}
}
