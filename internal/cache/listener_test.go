package cache

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/rs/zerolog"

	"github.com/payledger/payledger/internal/cache/cachetest"
	"github.com/payledger/payledger/internal/syncbuf"
	"github.com/payledger/payledger/internal/wait"
	"github.com/payledger/payledger/migrations/pgtest"
)

// A listener whose connection stays open but hears nothing (a failover behind pgbouncer or
// HAProxy left it on the old server) no longer keeps its caches on: its probe does not come back,
// the caches go off as without a listener, the failure is logged as an error and reported
// (Failing), and the listener connects again and turns the caches back on. Before, the cache kept
// serving an entry that a committed change had invalidated, for as long as the connection lasted.
func TestASilentListenerTurnsItsCachesOffAndReconnects(t *testing.T) {
	t.Parallel()
	direct := pgtest.Pool(t)
	pool, proxy := cachetest.Pool(t, direct)
	logs := &syncbuf.Buffer{}
	inv, c, cached := runListener(t, pool, func(inv *Invalidations) { inv.Log = zerolog.New(logs) })
	wait.Until(t, "the cache to be on", 10*time.Second, cached)
	port := listenerPort(t, proxy, direct)
	if !proxy.Silence(port) {
		t.Fatal("the listener's connection is not the proxy's")
	}
	// A change committed now is never heard by the silent listener.
	if _, err := direct.Exec(context.Background(), "SELECT pg_notify('payledger_test_changed', 'k')"); err != nil {
		t.Fatal(err)
	}
	wait.Until(t, "the silent listener's cache to stop serving the changed entry", 10*time.Second, func() bool {
		_, _, ok := c.Get("k")
		return !ok
	})
	if since, _, err := inv.Failing(); since.IsZero() || !errors.Is(err, ErrSilent) {
		t.Fatalf("Failing() = %v, %v; want a run of failures since the silence, ErrSilent", since, err)
	}
	wait.Until(t, "the silence to be logged as an error", 10*time.Second, func() bool {
		return strings.Contains(logs.String(), `"level":"error"`) && strings.Contains(logs.String(), "hears nothing")
	})

	wait.Until(t, "the listener to reconnect on another connection", 10*time.Second, func() bool {
		p, err := proxy.ListenerPort(context.Background(), direct)
		return err == nil && p != 0 && p != port
	})
	wait.Until(t, "the cache to be on again", 10*time.Second, cached)
	if since, _, err := inv.Failing(); !since.IsZero() || err != nil {
		t.Fatalf("Failing() = %v, %v after the listener heard again; want none", since, err)
	}
	// And it hears: a change empties the cache again.
	if _, err := direct.Exec(context.Background(), "SELECT pg_notify('payledger_test_changed', 'k')"); err != nil {
		t.Fatal(err)
	}
	wait.Until(t, "the reconnected listener to hear a change", 10*time.Second, func() bool {
		_, _, ok := c.Get("k")
		return !ok
	})
}

// listenerPort waits for the one listener connected through proxy and returns its port.
func listenerPort(t *testing.T, proxy *cachetest.Proxy, direct *pgxpool.Pool) int {
	t.Helper()
	var port int
	wait.Until(t, "the listener's connection", 10*time.Second, func() bool {
		p, err := proxy.ListenerPort(context.Background(), direct)
		if err != nil {
			t.Fatal(err)
		}
		port = p
		return p != 0
	})
	return port
}

// A listener that never hears (every connection deaf to notifications, as behind PgBouncer in
// transaction mode: LISTEN and NOTIFY succeed, nothing arrives) never turns its caches on, and
// its run of failures goes on across its reconnections (Failing keeps its start) until
// notifications come through again. Before, the caches came on as soon as LISTEN returned.
func TestADeafListenerNeverTurnsItsCachesOn(t *testing.T) {
	t.Parallel()
	direct := pgtest.Pool(t)
	pool, proxy := cachetest.Pool(t, direct)
	proxy.DropNotifications(true)
	inv, _, cached := runListener(t, pool, nil)
	var first time.Time
	wait.Until(t, "the deaf listener's first failure", 10*time.Second, func() bool {
		first, _, _ = inv.Failing()
		return !first.IsZero()
	})
	wait.Until(t, "a later failure of the same run", 20*time.Second, func() bool {
		since, last, err := inv.Failing()
		if !since.Equal(first) || !errors.Is(err, ErrSilent) {
			t.Fatalf("Failing() = %v, %v, %v; want the run that began at %v, ErrSilent", since, last, err, first)
		}
		if cached() {
			t.Fatal("a deaf listener's cache kept an entry")
		}
		return last.After(first)
	})
	proxy.DropNotifications(false)
	wait.Until(t, "the cache to come on once notifications come through", 20*time.Second, cached)
	if since, _, err := inv.Failing(); !since.IsZero() || err != nil {
		t.Fatalf("Failing() = %v, %v once the listener hears; want none", since, err)
	}
}

// runListener runs a listener on pool (configured by setup before it runs) with one cache
// registered on payledger_test_changed, until the test ends. cached puts key "k" if it is
// missing and says whether the cache serves it: true only while the cache is on.
func runListener(t *testing.T, pool *pgxpool.Pool, setup func(*Invalidations)) (*Invalidations, *Cache[int], func() bool) {
	t.Helper()
	inv := NewInvalidations(pool)
	if setup != nil {
		setup(inv)
	}
	c := NewCache[int](10, false)
	inv.Register("payledger_test_changed", c)
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Go(func() { _ = inv.Run(ctx) })
	t.Cleanup(func() { cancel(); wg.Wait() })
	cached := func() bool {
		_, gen, ok := c.Get("k")
		if !ok {
			c.Put("k", 1, gen)
			_, _, ok = c.Get("k")
		}
		return ok
	}
	return inv, c, cached
}
