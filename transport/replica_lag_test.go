package transport

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/payledger/payledger/cmd/payledger/app"
	"github.com/payledger/payledger/internal/wait"
	"github.com/payledger/payledger/migrations/pgtest"
)

// laggingReplica is a replica simulated on a database of its own (migrated, so every read finds
// its tables, but none of the primary's rows: what a replica has not replayed yet), whose
// search_path puts schema standby before pg_catalog: it says it is in recovery, and that it has
// replayed everything the server has written until the test freezes it (healthyThenFrozen), and
// from then on only what the server had written at the freeze.
func laggingReplica(t *testing.T) *pgxpool.Pool {
	t.Helper()
	url := pgtest.URL(t)
	setup := pgtest.PoolFor(t, url)
	_, err := setup.Exec(context.Background(), `
		CREATE SCHEMA standby;
		CREATE TABLE standby.frozen (lsn pg_lsn);
		INSERT INTO standby.frozen VALUES (NULL);
		CREATE FUNCTION standby.pg_is_in_recovery() RETURNS boolean LANGUAGE sql AS 'SELECT true';
		CREATE FUNCTION standby.pg_last_wal_replay_lsn() RETURNS pg_lsn LANGUAGE sql VOLATILE AS
			'SELECT coalesce((SELECT lsn FROM standby.frozen), pg_catalog.pg_current_wal_insert_lsn())';`)
	if err != nil {
		t.Fatal(err)
	}
	return pgtest.PoolFor(t, url+"&search_path=standby,pg_catalog,public")
}

// healthyThenFrozen probes the service's replica until it is found healthy (it sends reads to
// it), then freezes the replica's replay where the server is now: a replica a moment behind that
// the last probe found current. No probe runs after that, so the replica stays healthy for the test, and
// whatever is written from then on is on the primary only. (A replica simulated with a lag of
// 300 ms against the router's 200 ms wait made the test a race with time: on a loaded machine
// the wait saw the replica "catch up" and a read went to the empty database.)
func (e *env) healthyThenFrozen(replica *pgxpool.Pool) {
	e.t.Helper()
	r := e.svc.Replica
	ctx := context.Background()
	wait.Until(e.t, "the replica probed healthy", 10*time.Second, func() bool {
		healthy, _ := r.Probe(ctx) // the first probe only measures where the primary is
		return healthy
	})
	if _, err := replica.Exec(ctx, `UPDATE standby.frozen SET lsn = pg_catalog.pg_current_wal_insert_lsn()`); err != nil {
		e.t.Fatal(err)
	}
}

// newLaggingReplicaEnv is the service with a laggingReplica, found healthy and then frozen
// (healthyThenFrozen): what each test here starts from.
func newLaggingReplicaEnv(t *testing.T) *env {
	t.Helper()
	replica := laggingReplica(t)
	e := newAppEnv(t, func(c *app.Config) { c.ReplicaPool = replica }, nil, nil)
	e.healthyThenFrozen(replica)
	return e
}

// The order flow: the merchant's server creates an order and sends its customer to the payment
// page at once. The customer's browser is another client, which never wrote, so its reads of the
// receipt may go to a replica that is a moment behind; there the receipt does not exist yet, and
// the page must not say "not found" for a receipt the service has just answered for (stop 61:
// /portal/{id}, /pay/{id} and /api/portal/{id} answered 404 until the replica replayed it).
func TestAFreshReceiptIsFoundByItsCustomerWhileTheReplicaLags(t *testing.T) {
	t.Parallel()
	e := newLaggingReplicaEnv(t)
	m := e.merchant(true)
	e.item(m, `{"sku":"tea","name":"Tea","priceUsd":4}`)
	rec := e.dev(m, http.MethodPost, "/api/orders", `{"items":[{"sku":"tea","qty":1}]}`)
	if rec.Code != 200 {
		t.Fatalf("order: %d %s", rec.Code, rec.Body)
	}
	id := decode(t, rec)["receipt"].(map[string]any)["receiptId"].(string)
	for _, path := range []string{"/api/portal/" + id, "/portal/" + id, "/pay/" + id} {
		got := e.do(req{method: http.MethodGet, path: path, remote: "203.0.113.9:4711"})
		if got.Code != http.StatusOK {
			t.Errorf("the customer's %s right after the order: %d %.200s", path, got.Code, got.Body)
		}
	}
}

// A merchant's write through its dashboard session (a receipt shown on the shop's terminal, a
// refund) counts for its wallet, as a write with its API key does: the merchant's server, at
// another address, lists its receipts right after and must find it (stop 61: a session's writes
// were remembered by the client's address only, so the key's list went to a replica that did not
// have the receipt yet).
func TestASessionWriteIsReadByTheSameMerchantsKey(t *testing.T) {
	t.Parallel()
	e := newLaggingReplicaEnv(t)
	m := e.merchant(true)
	e.clk.Advance(11 * time.Second) // the merchant's set-up is no longer a recent write
	rec := e.do(req{method: http.MethodPost, path: "/api/receipts/terminal", body: `{"action":"display","amountUsd":7.25,"label":"Coffee"}`,
		cookies: m.cookies, header: map[string]string{CSRFHeader: m.csrf}, remote: "198.51.100.7:4711"})
	if rec.Code != 200 {
		t.Fatalf("terminal: %d %s", rec.Code, rec.Body)
	}
	id := decode(t, rec)["receipt"].(map[string]any)["receiptId"].(string)
	list := e.do(req{method: http.MethodGet, path: "/api/receipts", header: map[string]string{"Ocp-Apim-Subscription-Key": m.key}, remote: "203.0.113.20:4711"})
	if list.Code != 200 || !strings.Contains(list.Body.String(), id) {
		t.Fatalf("the merchant's list by its key right after its terminal receipt misses it: %d %.300s", list.Code, list.Body)
	}
}

// And the reverse: a receipt the merchant's server has just made with its key is on the
// merchant's dashboard, opened at another address right after (stop 61: the dashboard page,
// which checks its session itself, was routed by the client's address only).
func TestAKeyWriteIsOnTheSameMerchantsDashboard(t *testing.T) {
	t.Parallel()
	e := newLaggingReplicaEnv(t)
	m := e.merchant(true)
	e.clk.Advance(11 * time.Second) // the merchant's set-up is no longer a recent write
	rec := e.do(req{method: http.MethodPost, path: "/api/receipts", body: `{"lineItems":[{"label":"R","priceUsd":3}],"totalUsd":3}`,
		header: map[string]string{"Ocp-Apim-Subscription-Key": m.key}, remote: "203.0.113.20:4711"})
	if rec.Code != http.StatusCreated {
		t.Fatalf("receipt: %d %s", rec.Code, rec.Body)
	}
	id := decode(t, rec)["receipt"].(map[string]any)["receiptId"].(string)
	page := e.do(req{method: http.MethodGet, path: "/dashboard", cookies: m.cookies, remote: "198.51.100.7:4711"})
	if page.Code != 200 || !strings.Contains(page.Body.String(), id) {
		t.Fatalf("the merchant's dashboard right after its server's receipt misses it: %d", page.Code)
	}
}
