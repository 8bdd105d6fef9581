package cache

import (
	"context"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/payledger/payledger/internal/cache/cachetest"
	"github.com/payledger/payledger/internal/wait"
	"github.com/payledger/payledger/migrations/pgtest"
)

// A reconnection is not held by a lost server's connection: every connection open when the
// server is lost (the listener's and the pool's idle ones) stops answering without closing, while
// new connections reach the database. The listener finds its silence, and its reconnections take
// the dead idle connections first, whose ping (the pool pings one idle for over a second before
// handing it out) nothing answers; each is given up within ConnectWithin and the listener comes
// back on a new connection. Before, its connect had no deadline but serve's context: the first
// dead idle connection held it, and its caches stayed off, for as long as TCP took to give up.
func TestAReconnectionIsNotHeldByALostServersConnection(t *testing.T) {
	t.Parallel()
	direct := pgtest.Pool(t)
	pool, proxy := cachetest.Pool(t, direct)
	_, _, cached := runListener(t, pool, nil)
	wait.Until(t, "the cache to be on", 10*time.Second, cached)
	idleConnections(t, pool, 3) // more than the probe's send uses up (one per silence)
	if n := proxy.SilenceAll(); n < 4 {
		t.Fatalf("silenced %d connections; want the listener's and 3 idle ones", n)
	}
	wait.Until(t, "the lost listener's cache to go off", 10*time.Second, func() bool { return !cached() })
	wait.Until(t, "the listener to come back on a new connection", 60*time.Second, cached)
}

// idleConnections leaves n connections idle in pool.
func idleConnections(t *testing.T, pool *pgxpool.Pool, n int) {
	t.Helper()
	conns := make([]*pgxpool.Conn, n)
	for i := range conns {
		c, err := pool.Acquire(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		conns[i] = c
	}
	for _, c := range conns {
		c.Release()
	}
}
