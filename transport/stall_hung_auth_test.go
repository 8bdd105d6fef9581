package transport

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/payledger/payledger/cmd/payledger/app"
	"github.com/payledger/payledger/eventstore/postgres"
	"github.com/payledger/payledger/internal/netfreeze"
	"github.com/payledger/payledger/internal/wait"
)

// TestOrdersDuringAHungDatastoreAreNotHeldByTheKeyLookup: the datastore hangs (every byte to and
// from it stops, as a frozen server or a lost network). The cache listener's probe is not heard,
// so the key cache goes off (stop 69), and each order's key lookup went to the hung datastore
// with no bound but the client's patience: the stall watch's short bound (stalledIssueWait) then
// saved nothing, as every order first waited out its lookup. A key this instance confirmed within
// KEY_CACHE_TTL is now looked up within keyLookupWait, and the degraded mode vouches for it: after
// the first order has run into the issue's bound, the next is answered (degraded) in about the
// two short bounds.
func TestOrdersDuringAHungDatastoreAreNotHeldByTheKeyLookup(t *testing.T) {
	t.Parallel()
	var proxy *netfreeze.Proxy
	e := newAppEnv(t, func(cfg *app.Config) {
		pc := cfg.Pool.Config().Copy()
		proxy = netfreeze.New(t, net.JoinHostPort(pc.ConnConfig.Host, strconv.Itoa(int(pc.ConnConfig.Port))))
		host, port, err := net.SplitHostPort(proxy.Addr)
		if err != nil {
			t.Fatal(err)
		}
		p, _ := strconv.Atoi(port)
		pc.ConnConfig.Host, pc.ConnConfig.Port = host, uint16(p)
		pool, err := pgxpool.NewWithConfig(context.Background(), pc)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(pool.Close)
		t.Cleanup(proxy.Cut) // before the pool's close: nothing answers a frozen connection's goodbye
		cfg.Pool, cfg.Store = pool, postgres.New(pool)
	}, nil, nil)
	m := e.merchant(true)
	e.item(m, `{"sku":"tea","name":"Tea","priceUsd":4}`)
	const order = `{"items":[{"sku":"tea","qty":1}]}`
	if rec := e.dev(m, http.MethodPost, "/api/orders", order); rec.Code != 200 || decode(t, rec)["degraded"] == true {
		t.Fatalf("order before the hang: %d %s", rec.Code, rec.Body)
	}
	wait.Until(t, "the cache listener to listen", 10*time.Second, func() bool {
		_, listening := e.srv.revocations.Wait()
		return listening
	})

	proxy.Freeze()
	wait.Until(t, "the silent listener to turn the caches off", 10*time.Second, func() bool {
		_, listening := e.srv.revocations.Wait()
		return !listening
	})
	orderWithin := func(name string, bound time.Duration) {
		t.Helper()
		done := make(chan *httptest.ResponseRecorder, 1)
		began := time.Now()
		go func() { done <- e.dev(m, http.MethodPost, "/api/orders", order) }()
		select {
		case rec := <-done:
			if rec.Code != 200 || decode(t, rec)["degraded"] != true {
				t.Fatalf("%s: %d %s, want the degraded body", name, rec.Code, rec.Body)
			}
			t.Logf("%s answered degraded in %v", name, time.Since(began).Round(time.Millisecond))
		case <-time.After(bound):
			t.Fatalf("%s: no answer within %v while the datastore hangs", name, bound)
		}
	}
	// The first runs into the issue's whole bound (issueWait), which tells the stall watch; the
	// ones after it get the short bounds (keyLookupWait, stalledIssueWait).
	orderWithin("the first order of the hang", issueWait+keyLookupWait+3*time.Second)
	orderWithin("the second order of the hang", keyLookupWait+stalledIssueWait+time.Second)
}
