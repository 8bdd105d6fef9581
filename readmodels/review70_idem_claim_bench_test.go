package readmodels

import (
	"bytes"
	"context"
	"fmt"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/payledger/payledger/internal/secrets"
	"github.com/payledger/payledger/migrations/pgtest"
)

// claimInTx is the claim as stop 69 ran it, kept here to be measured beside claim: BEGIN, the
// lock, the claim statement and COMMIT, each waiting for its answer (four round trips).
func (s *IdempotentResponses) claimInTx(ctx context.Context, principal, key, hash string, lock time.Duration) (taken, takenOver, room bool, reset *time.Time, err error) {
	err = pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, lockSQL, principal); err != nil {
			return err
		}
		return tx.QueryRow(ctx, claimSQL, principal, key, hash, lock.Seconds(), IdempotencyTTL, s.maxAnswers, s.maxBytes, s.reserve).
			Scan(&taken, &takenOver, &room, &reset)
	})
	return taken, takenOver, room, reset, err
}

// BenchmarkIdempotencyClaim measures a keyed non-order POST's claim and finish of a new key, one
// principal, with the lock in its own transaction (before, "tx") and in one pipelined batch
// with the claim (now, "batch"), with one client and with four at once, in three rounds that
// alternate the two (a loaded machine's noise then falls on both). Commits are not synchronous,
// so that round trips, not the disk, are measured.
func BenchmarkIdempotencyClaim(b *testing.B) {
	u := pgtest.URL(b)
	sep := "?"
	if strings.Contains(u, "?") {
		sep = "&"
	}
	pool := pgtest.PoolFor(b, u+sep+"synchronous_commit=off")
	keys, err := secrets.NewWebhookKeys(pool, bytes.Repeat([]byte{5}, 32))
	if err != nil {
		b.Fatal(err)
	}
	s := NewIdempotentResponses(pool, keys).WithBound(1<<30, 1<<60)
	type claimFunc func(context.Context, string, string, string, time.Duration) (bool, bool, bool, *time.Time, error)
	var seq atomic.Int64
	for round, clients := range []int{1, 4, 1, 4, 1, 4} {
		for _, c := range []struct {
			name  string
			claim claimFunc
		}{{"tx", s.claimInTx}, {"batch", s.claim}} {
			b.Run(fmt.Sprintf("clients=%d/round=%d/%s", clients, round/2+1, c.name), func(b *testing.B) {
				b.SetParallelism(max(1, clients/runtime.GOMAXPROCS(0)))
				op := func() {
					ctx, key := context.Background(), fmt.Sprintf("bench-%d", seq.Add(1))
					taken, _, _, _, err := c.claim(ctx, "wallet:0xbench", key, "h", time.Minute)
					if err == nil && !taken {
						err = fmt.Errorf("key %s not taken", key)
					}
					if err == nil {
						err = s.Finish(ctx, "wallet:0xbench", key, 201, "application/json", []byte(`{"ok":true}`))
					}
					if err != nil {
						b.Error(err)
					}
				}
				if clients == 1 {
					for b.Loop() {
						op()
					}
					return
				}
				b.RunParallel(func(pb *testing.PB) {
					for pb.Next() {
						op()
					}
				})
			})
		}
	}
}
