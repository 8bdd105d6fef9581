package projections_test

import (
	"context"
	"fmt"
	"net"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/rs/zerolog"

	"github.com/payledger/payledger/internal/netfreeze"
	"github.com/payledger/payledger/internal/wait"
	"github.com/payledger/payledger/projections"
)

// The leader's instance is lost in the middle of a batch: its writes are made, not committed,
// and nothing more comes from it (its connections stay open, as a lost machine's do). The other
// instance takes the lead and applies the same events, each once. Before, the lost batch's
// transaction held the rows it wrote until TCP keepalive ended its session (two hours by
// default), and the new leader's batch waited on them that long: no projector moved.
func TestLeaderLostMidBatchIsTakenOver(t *testing.T) {
	t.Parallel()
	pool, s := setup(t)
	cfg := pool.Config().Copy()
	link := netfreeze.New(t, fmt.Sprintf("%s:%d", cfg.ConnConfig.Host, cfg.ConnConfig.Port))
	cfg.ConnConfig.Host, cfg.ConnConfig.Port = "127.0.0.1", uint16(mustPort(t, link.Addr))
	lostPool, err := pgxpool.NewWithConfig(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	// Cleanups run last first: the link is cut before the lost runner is stopped and its pool closed.
	t.Cleanup(lostPool.Close)

	midBatch := make(chan struct{})
	var once sync.Once
	lost := counting{sabotage: func() {
		once.Do(func() {
			link.Freeze() // the batch's writes are made; its checkpoint and commit never arrive
			close(midBatch)
		})
	}}
	a, err := projections.NewRunner(lostPool, s, lost, zerolog.Nop())
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); _ = a.Run(ctx) }()
	t.Cleanup(func() { cancel(); <-done })
	t.Cleanup(link.Cut)
	wait.Until(t, "the first runner to take the lead", 10*time.Second, a.Leader)
	b, _ := start(t, pool, s, counting{})
	last := appendN(t, s, 50)
	<-midBatch
	wctx, wcancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer wcancel()
	if err := b.WaitFor(wctx, last); err != nil {
		t.Fatalf("the other runner did not apply the events after the leader was lost: %v", err)
	}
	assertAppliedOnce(t, pool, 50)
}

// mustPort is the port of addr (host:port).
func mustPort(t *testing.T, addr string) int {
	t.Helper()
	_, p, err := net.SplitHostPort(addr)
	if err != nil {
		t.Fatal(err)
	}
	port, err := strconv.Atoi(p)
	if err != nil {
		t.Fatal(err)
	}
	return port
}
