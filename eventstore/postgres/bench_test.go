package postgres_test

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/payledger/payledger/eventstore"
	"github.com/payledger/payledger/eventstore/postgres"
	"github.com/payledger/payledger/migrations/pgtest"
)

// writers is the number of concurrent appenders in the throughput benchmarks.
const writers = 16

func benchPool(b *testing.B) *pgxpool.Pool {
	cfg, err := pgxpool.ParseConfig(pgtest.URL(b))
	if err != nil {
		b.Fatal(err)
	}
	cfg.MaxConns = writers
	pool, err := pgxpool.NewWithConfig(context.Background(), cfg)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(pool.Close)
	return pool
}

func payload(i int) eventstore.EventData {
	return eventstore.EventData{
		ID: uuid.New(), Type: "PaymentConfirmed",
		Data:     []byte(fmt.Sprintf(`{"receiptId":"r-%d","amountCents":12345,"token":"USDC","transactionHash":"0x%064x"}`, i, i)),
		Metadata: eventstore.Metadata{CorrelationID: "bench", Actor: "bench"},
	}
}

// runWriters runs b.N appends of perAppend events from `writers` goroutines, each on its own
// streams, and reports events per second.
func runWriters(b *testing.B, perAppend int, appendFn func(ctx context.Context, stream string, evs []eventstore.EventData) error) {
	var next atomic.Int64
	b.SetParallelism((writers + 1) / 2) // GOMAXPROCS is 2 on our machines: 16 goroutines
	b.ResetTimer()
	start := time.Now()
	b.RunParallel(func(pb *testing.PB) {
		w := next.Add(1)
		i := 0
		for pb.Next() {
			evs := make([]eventstore.EventData, perAppend)
			for j := range evs {
				evs[j] = payload(i*perAppend + j)
			}
			if err := appendFn(context.Background(), fmt.Sprintf("bench-%d-%d", w, i%100), evs); err != nil {
				b.Error(err)
				return
			}
			i++
		}
	})
	b.ReportMetric(float64(b.N*perAppend)/time.Since(start).Seconds(), "events/s")
}

// BenchmarkAppend measures the adapter; BenchmarkRawInsertCeiling writes the same rows with
// plain multi-row INSERTs, one transaction each, into an identical table: the ceiling.
func BenchmarkAppend(b *testing.B) {
	modes := []struct {
		name string
		mode postgres.NotifyMode
	}{{"notify-after-commit", postgres.NotifyAfterCommit}, {"notify-in-tx", postgres.NotifyInTx}, {"no-notify", postgres.NotifyOff}}
	for _, perAppend := range []int{1, 4} {
		for _, m := range modes {
			b.Run(fmt.Sprintf("%d-event/%s", perAppend, m.name), func(b *testing.B) {
				s := postgres.New(benchPool(b), postgres.WithNotifyMode(m.mode))
				runWriters(b, perAppend, func(ctx context.Context, stream string, evs []eventstore.EventData) error {
					_, err := s.Append(ctx, stream, eventstore.Any(), evs...)
					return err
				})
			})
		}
	}
}

func BenchmarkRawInsertCeiling(b *testing.B) {
	for _, perAppend := range []int{1, 4} {
		b.Run(fmt.Sprintf("%d-event", perAppend), func(b *testing.B) {
			pool := benchPool(b)
			if _, err := pool.Exec(context.Background(), `CREATE TABLE raw_events (LIKE events INCLUDING ALL)`); err != nil {
				b.Fatal(err)
			}
			var version atomic.Int64
			runWriters(b, perAppend, func(ctx context.Context, stream string, evs []eventstore.EventData) error {
				recs, err := eventstore.Prepare(stream, 0, nil, time.Now(), evs)
				if err != nil {
					return err
				}
				sql := `INSERT INTO raw_events (event_id, stream_id, version, type, data, metadata, recorded_at, prev_hash, hash) VALUES `
				args := make([]any, 0, 9*len(recs))
				for i, r := range recs {
					if i > 0 {
						sql += ","
					}
					n := len(args)
					sql += fmt.Sprintf("($%d,$%d,$%d,$%d,$%d,$%d,$%d,$%d,$%d)", n+1, n+2, n+3, n+4, n+5, n+6, n+7, n+8, n+9)
					args = append(args, r.ID.String(), r.StreamID, version.Add(1), r.Type, string(r.Data), string(r.Metadata), r.RecordedAt, r.PrevHash, r.Hash)
				}
				_, err = pool.Exec(ctx, sql, args...)
				return err
			})
		})
	}
}

// BenchmarkCatchUp reads 1,000,000 stored events through Subscribe, as a projector catching up.
func BenchmarkCatchUp(b *testing.B) {
	const total = 1_000_000
	pool := benchPool(b)
	load(b, pool, total)
	s := postgres.New(pool)
	b.ResetTimer()
	start := time.Now()
	for range b.N {
		ctx, cancel := context.WithCancel(context.Background())
		seen := 0
		err := s.Subscribe(ctx, eventstore.Start, func(_ context.Context, batch []eventstore.RecordedEvent) error {
			seen += len(batch)
			if seen >= total {
				cancel()
			}
			return nil
		})
		cancel()
		if seen != total {
			b.Fatalf("caught up %d of %d events: %v", seen, total, err)
		}
	}
	b.ReportMetric(float64(b.N*total)/time.Since(start).Seconds(), "events/s")
}

// load writes total events (100 per stream, hash-chained) with COPY.
func load(b *testing.B, pool *pgxpool.Pool, total int) {
	b.Helper()
	const perStream = 100
	rows := make([][]any, 0, total)
	now := time.Now()
	for s := 0; s < total/perStream; s++ {
		evs := make([]eventstore.EventData, perStream)
		for i := range evs {
			evs[i] = payload(s*perStream + i)
		}
		recs, err := eventstore.Prepare(fmt.Sprintf("load-%d", s), 0, nil, now, evs)
		if err != nil {
			b.Fatal(err)
		}
		for _, r := range recs {
			rows = append(rows, []any{r.ID.String(), r.StreamID, int64(r.Version), r.Type, string(r.Data), string(r.Metadata), r.RecordedAt, r.PrevHash, r.Hash})
		}
	}
	_, err := pool.CopyFrom(context.Background(), pgx.Identifier{"events"},
		[]string{"event_id", "stream_id", "version", "type", "data", "metadata", "recorded_at", "prev_hash", "hash"}, pgx.CopyFromRows(rows))
	if err != nil {
		b.Fatal(err)
	}
	if _, err := pool.Exec(context.Background(), `VACUUM ANALYZE events`); err != nil {
		b.Fatal(err)
	}
}
