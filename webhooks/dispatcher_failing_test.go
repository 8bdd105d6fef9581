package webhooks

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/payledger/payledger/eventstore/postgres"
	"github.com/payledger/payledger/internal/syncbuf"
	"github.com/payledger/payledger/internal/wait"
	"github.com/payledger/payledger/readmodels"
)

// The app's health (cmd/payledger/app, Watch) reads the run of failures of a worker that has this
// method: the dispatcher must keep its signature.
var _ interface {
	Failing() (since, last time.Time, err error)
} = (*Dispatcher)(nil)

// TestDispatcherReportsClaimsThatFailEveryTime (stop 68): a claim that failed the same way every
// time (here a trigger refusing every update of the endpoint messages, as a statement timeout on a
// backlog or a privilege taken from the service's role would) stopped every endpoint webhook while
// the dispatcher logged a warning at every claim (five a second) and /healthz said ok, its Run
// never returning. The dispatcher now reports the run of failures (Failing, which the app's health
// turns into a stuck "webhook dispatch" after a minute, naming the error), logs its first failure
// only, and the run ends with the first claim that goes through.
func TestDispatcherReportsClaimsThatFailEveryTime(t *testing.T) {
	t.Parallel()
	pool, keys, store, srv, hits := endpointFixture(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	secret, _ := NewSecret()
	if _, err := store.Create(ctx, "0xmerchant", srv.URL, []string{"*"}, secret, time.Now()); err != nil {
		t.Fatal(err)
	}
	exec := func(sql string) {
		t.Helper()
		if _, err := pool.Exec(ctx, sql); err != nil {
			t.Fatal(err)
		}
	}
	exec(`CREATE FUNCTION refuse_claims() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'claims refused by the test'; END $$`)
	exec(`CREATE TRIGGER refuse_claims BEFORE UPDATE ON webhook_endpoint_messages FOR EACH ROW EXECUTE FUNCTION refuse_claims()`)
	if err := store.Record(ctx, readmodels.NewEvent{Key: "k1", Merchant: "0xmerchant", Type: TypeTest, At: time.Now(), Data: map[string]any{"x": 1}}); err != nil {
		t.Fatal(err)
	}
	logs := &syncbuf.Buffer{}
	d := (&Dispatcher{Outbox: readmodels.NewOutbox(pool), Keys: keys, Events: postgres.New(pool), Log: zerolog.New(logs),
		Endpoints: store, Workers: -1}).Init()
	done := make(chan error, 1)
	go func() { done <- d.Run(ctx) }()
	defer func() { cancel(); <-done }()

	wait.Until(t, "a run of failed claims lasting a second", 10*time.Second, func() bool {
		since, last, _ := d.Failing()
		return !since.IsZero() && last.Sub(since) >= time.Second
	})
	if _, _, err := d.Failing(); err == nil || !strings.Contains(err.Error(), "endpoint webhooks") || !strings.Contains(err.Error(), "claims refused by the test") {
		t.Fatalf("Failing's error %v: want the sender and the claim's error", err)
	}
	if n := strings.Count(logs.String(), `"message":"endpoint webhooks"`); n != 1 || hits.Load() != 0 {
		t.Fatalf("%d warnings for a run of failed claims (want 1), %d requests (want 0):\n%s", n, hits.Load(), logs.String())
	}

	exec(`DROP TRIGGER refuse_claims ON webhook_endpoint_messages`)
	wait.Until(t, "the claims going through again and the event delivered", 10*time.Second, func() bool {
		since, _, err := d.Failing()
		return since.IsZero() && err == nil && hits.Load() == 1
	})
}

// TestDispatcherReportsSubscriptionClaimsThatFailEveryTime: the subscription charge webhooks'
// sender (run by subscription charging, through the dispatcher) had the same blind spot; its run
// of failed claims is the dispatcher's to report, and ends with a claim that goes through.
func TestDispatcherReportsSubscriptionClaimsThatFailEveryTime(t *testing.T) {
	t.Parallel()
	w, outbox, sender, setConfig := subscriptionWorld(t, time.Second)
	r := newScript(t)
	setConfig(r.srv.URL, "")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	exec := func(sql string) {
		t.Helper()
		if _, err := w.pool.Exec(ctx, sql); err != nil {
			t.Fatal(err)
		}
	}
	exec(`CREATE FUNCTION refuse_claims() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'claims refused by the test'; END $$`)
	exec(`CREATE TRIGGER refuse_claims BEFORE UPDATE ON subscription_webhooks FOR EACH ROW EXECUTE FUNCTION refuse_claims()`)
	if err := outbox.Queue(ctx, "subscription.charged", "sub_f:0:charged", "sub_f", "0x"+strings.Repeat("7", 40), map[string]any{"periodIndex": 0}); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- sender.Run(ctx, 100*time.Millisecond) }()
	defer func() { cancel(); <-done }()
	wait.Until(t, "a run of failed subscription claims lasting a second", 10*time.Second, func() bool {
		since, last, err := w.disp.Failing()
		return !since.IsZero() && last.Sub(since) >= time.Second && err != nil && strings.Contains(err.Error(), "subscription webhooks")
	})
	exec(`DROP TRIGGER refuse_claims ON subscription_webhooks`)
	wait.Until(t, "the claims going through again and the webhook sent", 10*time.Second, func() bool {
		since, _, _ := w.disp.Failing()
		return since.IsZero() && len(r.got()) == 1
	})
}
