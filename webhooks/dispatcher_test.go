package webhooks

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/rs/zerolog"

	"github.com/payledger/payledger/commands"
	"github.com/payledger/payledger/domain/receipt"
	"github.com/payledger/payledger/eventstore"
	"github.com/payledger/payledger/eventstore/postgres"
	"github.com/payledger/payledger/internal/secrets"
	"github.com/payledger/payledger/internal/wait"
	"github.com/payledger/payledger/migrations/pgtest"
	"github.com/payledger/payledger/projections"
	"github.com/payledger/payledger/readmodels"
)

func TestBackoff(t *testing.T) {
	t.Parallel()
	cases := []struct {
		attempt int
		want    time.Duration
	}{
		{0, time.Minute}, {1, 2 * time.Minute}, {5, 32 * time.Minute}, {8, 256 * time.Minute},
		{9, 6 * time.Hour}, {12, 6 * time.Hour}, {13, 6 * time.Hour}, {60, 6 * time.Hour},
	}
	for _, c := range cases {
		if got := backoff(c.attempt); got != c.want {
			t.Errorf("backoff(%d) = %v, want %v", c.attempt, got, c.want)
		}
	}
}

func TestCheckURL(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, url  string
		production bool
		refused    string // part of the error; "" when allowed
	}{
		{"development http", "http://localhost:9999/hook", false, ""},
		{"development private https", "https://10.0.0.1/hook", false, ""},
		{"not http", "ftp://hooks.example/x", false, "not http(s)"},
		{"production http", "http://hooks.example/x", true, "https"},
		{"production public https", "https://hooks.example/x", true, ""},
		{"production private literal", "https://10.0.0.1/hook", true, "not allowed"},
		{"production localhost", "https://localhost:1/x", true, "not allowed"},
		{"production CGNAT", "https://100.64.0.1/x", true, "not allowed"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := (&Dispatcher{Production: c.production}).checkURL(c.url)
			if c.refused == "" && err != nil || c.refused != "" && (err == nil || !strings.Contains(err.Error(), c.refused)) {
				t.Fatalf("checkURL(%q) = %v, want %q", c.url, err, c.refused)
			}
		})
	}
}

// TestDialerRefusesInternalAddressesInProduction: the connect-time check sees what a name
// resolves to, whatever the URL said.
func TestDialerRefusesInternalAddressesInProduction(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	_, port, _ := net.SplitHostPort(ln.Addr().String())
	ctx := context.Background()
	for _, host := range []string{"localhost", "127.0.0.1"} {
		if _, err := (&Dispatcher{Production: true}).dial(ctx, "tcp", net.JoinHostPort(host, port)); !errors.Is(err, errBlockedAddress) {
			t.Errorf("production dial to %s: %v, want errBlockedAddress", host, err)
		}
	}
	conn, err := (&Dispatcher{}).dial(ctx, "tcp", net.JoinHostPort("127.0.0.1", port))
	if err != nil {
		t.Fatalf("development dial to loopback: %v", err)
	}
	conn.Close()
}

func TestInitRefusesMissingDependencies(t *testing.T) {
	t.Parallel()
	defer func() {
		if recover() == nil {
			t.Fatal("Init accepted a dispatcher without its dependencies")
		}
	}()
	(&Dispatcher{}).Init()
}

// world is a dispatcher on a fresh database with the receipts projector queueing its
// notifications, as serve wires them; the test starts the dispatcher itself.
type world struct {
	pool   *pgxpool.Pool
	store  *postgres.Store
	keys   *secrets.WebhookKeys
	runner *projections.Runner
	disp   *Dispatcher
}

func newWorld(t *testing.T, adjust func(*Dispatcher)) *world {
	t.Helper()
	pool := pgtest.Pool(t)
	w := &world{pool: pool, store: postgres.New(pool)}
	var err error
	if w.keys, err = secrets.NewWebhookKeys(pool, bytes.Repeat([]byte{7}, 32)); err != nil {
		t.Fatal(err)
	}
	w.disp = &Dispatcher{Outbox: readmodels.NewOutbox(pool), Keys: w.keys, Events: w.store, Log: zerolog.Nop(),
		RetryDelay: 200 * time.Millisecond, Timeout: time.Second}
	if adjust != nil {
		adjust(w.disp)
	}
	w.disp.Init()
	proj := projections.NewReceipts(w.disp.Wake)
	if w.runner, err = projections.NewRunner(pool, w.store, proj, zerolog.Nop()); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); _ = w.runner.Run(ctx) }()
	t.Cleanup(func() { cancel(); <-done })
	return w
}

// run starts the dispatcher until the test ends.
func (w *world) run(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); _ = w.disp.Run(ctx) }()
	t.Cleanup(func() { cancel(); <-done })
}

// paidReceipt generates a receipt hooked to url with signing key key, pays it and waits until
// the projector has queued its notification.
func (w *world) paidReceipt(t *testing.T, id, url, key string) {
	t.Helper()
	ctx := context.Background()
	if err := w.keys.Save(ctx, id, key); err != nil {
		t.Fatal(err)
	}
	g := receipt.Generated{ReceiptID: id, Merchant: "0x" + strings.Repeat("7", 40), Currency: "USD", WebhookURL: url,
		LineItems: []receipt.LineItem{{Kind: receipt.KindCustom, Label: "x", Amount: 100}}, Total: 100}
	if _, _, err := commands.GenerateReceipt(ctx, w.store, time.Now(), eventstore.Metadata{}, g); err != nil {
		t.Fatal(err)
	}
	_, res, err := commands.ChangeReceipt(ctx, w.store, id, eventstore.Metadata{}, func(st receipt.State) ([]receipt.Event, error) {
		return receipt.Confirm(st, receipt.PaymentConfirmed{AttemptID: "a", VerifiedBy: "chain",
			TransactionHash: "0x" + strings.Repeat("a", 64), At: time.Now().UnixMilli()})
	})
	if err != nil {
		t.Fatal(err)
	}
	wctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if err := w.runner.WaitFor(wctx, res.Position); err != nil {
		t.Fatal(err)
	}
}

func (w *world) state(t *testing.T, id string) string {
	t.Helper()
	var st string
	if err := w.pool.QueryRow(context.Background(), `SELECT state FROM webhook_notifications WHERE receipt_id = $1`, id).Scan(&st); err != nil {
		t.Fatal(err)
	}
	return st
}

type hit struct {
	header http.Header
	body   []byte
}

// script is a local receiver answering the given statuses in order, then 200.
type script struct {
	mu      sync.Mutex
	answers []int
	hits    []hit
	srv     *httptest.Server
}

func newScript(t *testing.T, answers ...int) *script {
	s := &script{answers: answers}
	s.srv = httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		s.mu.Lock()
		s.hits = append(s.hits, hit{r.Header.Clone(), body})
		code := 200
		if len(s.answers) > 0 {
			code, s.answers = s.answers[0], s.answers[1:]
		}
		s.mu.Unlock()
		rw.WriteHeader(code)
	}))
	t.Cleanup(s.srv.Close)
	return s
}

func (s *script) got() []hit { s.mu.Lock(); defer s.mu.Unlock(); return append([]hit(nil), s.hits...) }

func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	wait.Until(t, what, 10*time.Second, cond)
}

// TestDispatcherSignsAndRetriesWithTheSameDeliveryID: the first attempt fails, the automatic
// retry comes after RetryDelay with the same delivery id, both signed with the receipt's key over
// the exact body, which carries the rendered receipt fields and the envelope.
func TestDispatcherSignsAndRetriesWithTheSameDeliveryID(t *testing.T) {
	t.Parallel()
	w := newWorld(t, nil)
	w.run(t)
	r := newScript(t, 500)
	w.paidReceipt(t, "wh-1", r.srv.URL+"/hook", "plk_secret")
	eventually(t, "delivered", func() bool { return len(r.got()) == 2 && w.state(t, "wh-1") == readmodels.NoteDelivered })
	got := r.got()
	if got[0].header.Get("X-Service-Delivery") != got[1].header.Get("X-Service-Delivery") {
		t.Fatal("the automatic retry changed the delivery id")
	}
	// The payload is the receipt's (readmodels.ReceiptWebhook): its fields, event, idempotencyKey
	// and timestamp, nothing else.
	var fields map[string]any
	if b, err := json.Marshal(readmodels.ReceiptWebhook{}); err != nil || json.Unmarshal(b, &fields) != nil {
		t.Fatal(err)
	}
	for i, h := range got {
		if h.header.Get("X-Service-Signature") != SignBody("plk_secret", h.body) {
			t.Errorf("attempt %d: signature does not verify with the receipt's key", i)
		}
		var p map[string]any
		if err := json.Unmarshal(h.body, &p); err != nil {
			t.Fatal(err)
		}
		key := "receipt-status:wh-1:paid:0x" + strings.Repeat("a", 64)
		if p["receiptId"] != "wh-1" || p["status"] != "paid" || p["event"] != Event || p["idempotencyKey"] != key ||
			h.header.Get("X-Service-Idempotency-Key") != key || p["timestamp"] == nil || len(p) != len(fields) {
			t.Errorf("attempt %d: payload %v", i, p)
		}
	}
}

// TestDispatcherMarksThenReconciles: after two failed attempts the notification carries the
// pending-delivery marker and the workers leave it until its backoff (1 min) is due;
// reconciliation delivers it with a new delivery id.
func TestDispatcherMarksThenReconciles(t *testing.T) {
	t.Parallel()
	w := newWorld(t, nil)
	w.run(t)
	r := newScript(t, 503, 503)
	w.paidReceipt(t, "wh-2", r.srv.URL, "plk_secret")
	eventually(t, "the marker", func() bool { return w.state(t, "wh-2") == readmodels.NoteMarked })
	// A later notification delivered: the workers have claimed what was due since the marker.
	later := newScript(t)
	w.paidReceipt(t, "wh-2-later", later.srv.URL, "plk_secret")
	eventually(t, "the later notification", func() bool { return w.state(t, "wh-2-later") == readmodels.NoteDelivered })
	if n := len(r.got()); n != 2 {
		t.Fatalf("%d attempts before reconciliation, want 2", n)
	}
	tried, delivered, err := w.disp.ReconcileMarked(context.Background(), true)
	if err != nil || tried != 1 || delivered != 1 {
		t.Fatalf("reconcile: tried %d, delivered %d, %v", tried, delivered, err)
	}
	got := r.got()
	if len(got) != 3 || got[2].header.Get("X-Service-Delivery") == got[1].header.Get("X-Service-Delivery") {
		t.Fatalf("reconciliation: %d requests, delivery ids %s / %s", len(got), got[1].header.Get("X-Service-Delivery"), got[2].header.Get("X-Service-Delivery"))
	}
	if st := w.state(t, "wh-2"); st != readmodels.NoteDelivered {
		t.Fatalf("after reconciliation: %s", st)
	}
}

// TestProductionDispatcherNeverConnectsInside: a production dispatcher records a refused attempt
// for a receiver on loopback, named by literal or as localhost, and schedules the retry; nothing
// reaches the receiver. (Both are refused by the send-time PrivateHost check; the dialer's own
// refusal of what a name resolves to is TestDialerRefusesInternalAddressesInProduction.)
func TestProductionDispatcherNeverConnectsInside(t *testing.T) {
	t.Parallel()
	w := newWorld(t, func(d *Dispatcher) { d.Production = true; d.Workers = -1 })
	r := newScript(t)
	_, port, _ := net.SplitHostPort(strings.TrimPrefix(r.srv.URL, "http://"))
	for i, url := range []string{"https://127.0.0.1:" + port + "/x", "https://localhost:" + port + "/x"} {
		id := fmt.Sprintf("wh-p%d", i)
		w.paidReceipt(t, id, url, "plk_secret")
	}
	claimed, err := w.disp.Outbox.Claim(context.Background(), []string{readmodels.NotePending}, true, claimBatch, leaseFor)
	if err != nil || len(claimed) != 2 {
		t.Fatalf("claim: %d, %v", len(claimed), err)
	}
	for _, c := range claimed {
		if out := w.disp.Deliver(context.Background(), c); out.State != readmodels.NoteRetrying {
			t.Errorf("%s: %s after a refused attempt", c.URL, out.State)
		}
	}
	var refused int
	if err := w.pool.QueryRow(context.Background(), `SELECT count(*) FROM webhook_deliveries WHERE error = $1 AND http_status IS NULL`, ErrorDNS).Scan(&refused); err != nil {
		t.Fatal(err)
	}
	if refused != 2 || len(r.got()) != 0 {
		t.Fatalf("%d refused attempts recorded, %d requests reached the receiver", refused, len(r.got()))
	}
}
