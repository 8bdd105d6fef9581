package projections_test

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/rs/zerolog"

	"github.com/payledger/payledger/domain/money"
	"github.com/payledger/payledger/domain/receipt"
	"github.com/payledger/payledger/eventstore"
	"github.com/payledger/payledger/eventstore/postgres"
	"github.com/payledger/payledger/internal/syncbuf"
	"github.com/payledger/payledger/migrations/pgtest"
	"github.com/payledger/payledger/projections"
	"github.com/payledger/payledger/readmodels"
)

func generation(t *testing.T, id string) eventstore.EventData {
	t.Helper()
	g := receipt.Generated{ReceiptID: id, Merchant: "0xm", Source: "direct", Currency: "USD", Total: money.Cents(100),
		LineItems: []receipt.LineItem{{Kind: receipt.KindItem, Label: "x", Amount: 100, Unit: 100, Qty: 1}}, CreatedAt: 1}
	data, err := json.Marshal(g)
	if err != nil {
		t.Fatal(err)
	}
	return eventstore.EventData{ID: uuid.New(), Type: receipt.EventGenerated, Data: data}
}

// atAppendSetup is a store, the receipts projector and its runner (not running) on a fresh
// database whose receipts checkpoint exists at the start of the log.
func atAppendSetup(t *testing.T) (*pgxpool.Pool, *postgres.Store, projections.Receipts, *projections.Runner) {
	t.Helper()
	pool, s := setup(t)
	if _, err := pool.Exec(context.Background(), `INSERT INTO projection_checkpoints (name) VALUES ('receipts')`); err != nil {
		t.Fatal(err)
	}
	proj := projections.NewReceipts(nil)
	r, err := projections.NewRunner(pool, s, proj, zerolog.Nop())
	if err != nil {
		t.Fatal(err)
	}
	return pool, s, proj, r
}

func generate(t *testing.T, s eventstore.Store, id string) eventstore.Position {
	t.Helper()
	res, err := s.Append(context.Background(), projections.ReceiptStreamPrefix+id, eventstore.NoStream(), generation(t, id))
	if err != nil {
		t.Fatal(err)
	}
	return res.Position
}

func checkpoint(t *testing.T, pool *pgxpool.Pool) eventstore.Position {
	t.Helper()
	var c, p int64
	if err := pool.QueryRow(context.Background(), `SELECT commit_pos, prepare_pos FROM projection_checkpoints WHERE name = 'receipts'`).Scan(&c, &p); err != nil {
		t.Fatal(err)
	}
	return eventstore.Position{Commit: uint64(c), Prepare: uint64(p)}
}

func rowAt(t *testing.T, pool *pgxpool.Pool, id string) (eventstore.Position, bool) {
	t.Helper()
	var c, p int64
	err := pool.QueryRow(context.Background(), `SELECT pos_commit, pos_prepare FROM receipts WHERE receipt_id = $1`, id).Scan(&c, &p)
	if err != nil {
		return eventstore.Position{}, false
	}
	return eventstore.Position{Commit: uint64(c), Prepare: uint64(p)}, true
}

// TestGenerationAppliedInItsAppendTransaction: with the projector caught up, a new receipt's row
// and the checkpoint commit with its event, and the runner knows at once; a transaction still
// running in another database does not prevent it. When an older transaction of this database is
// still open, or an earlier event is not applied yet, nothing is written at append time and the
// projector applies those events itself, once.
//
// Other test packages share the cluster, and a transaction of theirs that ends at the wrong moment
// makes an append leave its receipt to the projector (the safe side): the positive checks append
// until the statement reports that it applied one.
func TestGenerationAppliedInItsAppendTransaction(t *testing.T) {
	t.Parallel()
	pool, store, proj, r := atAppendSetup(t)
	ctx := context.Background()
	s := proj.AtAppend(store, r)
	var applied atomic.Int64 // rows the last append's statement wrote
	projections.ObserveApplied(s, applied.Store)

	// An older transaction of this database could still commit events before b's.
	older := pgtest.OpenTransaction(t, pool)
	generate(t, s, "b")
	_ = older.Rollback(ctx)
	if _, ok := rowAt(t, pool, "b"); ok || applied.Load() != 0 || checkpoint(t, pool) != (eventstore.Position{}) {
		t.Fatal("b applied at append while an older transaction was open")
	}
	// b is visible and not applied: c must wait for the projector too.
	c := generate(t, s, "c")
	if _, ok := rowAt(t, pool, "c"); ok || applied.Load() != 0 {
		t.Fatal("c applied at append before b")
	}
	// So must a receipt after any other event the projector has not applied.
	if _, err := s.Append(ctx, "other-1", eventstore.NoStream(), eventstore.EventData{ID: uuid.New(), Type: "Happened", Data: []byte(`{}`)}); err != nil {
		t.Fatal(err)
	}
	generate(t, s, "c2")
	if applied.Load() != 0 {
		t.Fatal("c2 applied at append after an event the projector has not applied")
	}

	start(t, pool, store, proj)
	waitFor(t, r, c)
	for _, id := range []string{"b", "c"} {
		if _, ok := rowAt(t, pool, id); !ok {
			t.Fatalf("projector did not apply %s", id)
		}
	}
	// Caught up: an append applies its receipt; the row, the checkpoint and the runner are at its
	// position the moment it returns.
	// during, when set, runs around each try: it returns what ends it.
	appliedOne := func(prefix string, during func() (end func())) {
		t.Helper()
		for i, deadline := 0, time.Now().Add(20*time.Second); ; i++ {
			id := fmt.Sprintf("%s%d", prefix, i)
			end := func() {}
			if during != nil {
				end = during()
			}
			p := generate(t, s, id)
			end() // before waiting: event readers do not read past an open transaction of the cluster
			if applied.Load() > 0 {
				if pos, ok := rowAt(t, pool, id); !ok || pos != p || checkpoint(t, pool).Less(p) || r.Position().Less(p) {
					t.Fatalf("%s applied at append, but row %v at %s, checkpoint %s, runner %s; want all at %s",
						id, ok, pos, checkpoint(t, pool), r.Position(), p)
				}
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s: no append applied its receipt in %d tries", prefix, i+1)
			}
			waitFor(t, r, p)
		}
	}
	appliedOne("d", nil)

	// Transaction ids are the cluster's: one running in another database writes no events here.
	elsewhereCfg := pool.Config().ConnConfig.Copy()
	elsewhereCfg.Database = "postgres"
	elsewhere, err := pgx.ConnectConfig(ctx, elsewhereCfg)
	if err != nil {
		t.Fatal(err)
	}
	defer elsewhere.Close(ctx)
	// With a check of the whole cluster, every try would leave its receipt to the projector.
	appliedOne("e", func() func() {
		if _, err := elsewhere.Exec(ctx, `BEGIN; SELECT pg_current_xact_id()`); err != nil {
			t.Fatal(err)
		}
		return func() {
			if _, err := elsewhere.Exec(ctx, `ROLLBACK`); err != nil {
				t.Fatal(err)
			}
		}
	})
}

// TestAtAppendOnlyForATransactionOfGenerations: the statement writes nothing (and leaves the
// checkpoint) when its transaction holds an event that is not one of its rows' generations.
func TestAtAppendOnlyForATransactionOfGenerations(t *testing.T) {
	t.Parallel()
	pool, _ := setup(t)
	ctx := context.Background()
	if _, err := pool.Exec(ctx, `INSERT INTO projection_checkpoints (name) VALUES ('receipts')`); err != nil {
		t.Fatal(err)
	}
	st := receipt.State{Exists: true, Status: receipt.StatusGenerated, Receipt: receipt.Generated{ReceiptID: "m", Merchant: "0xm", Currency: "USD"}}
	cols, err := readmodels.ReceiptsAtAppendArgs([]readmodels.StateRow{{State: st, Version: 1, New: true}}) // one row
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name    string
		streams []string
		want    int64
	}{
		{"its generation alone", []string{"receipt-m"}, 1},
		{"with another stream's event", []string{"receipt-m", "other-1"}, 0},
		{"without its generation", []string{"receipt-z"}, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// A transaction of another database that ends while the statement looks at it cannot be
			// told from one of this database, so the statement may leave a generation to the projector
			// while the cluster is busy (other packages' tests): an apply is tried again, a refusal is not.
			for deadline := time.Now().Add(20 * time.Second); ; {
				rows, moved := atAppendOnce(t, pool, tc.streams, cols)
				if (rows > 0) != moved || rows > tc.want {
					t.Fatalf("rows %d, checkpoint moved %v; want %d rows", rows, moved, tc.want)
				}
				if rows == tc.want {
					return
				}
				if time.Now().After(deadline) {
					t.Fatalf("rows %d, checkpoint moved %v; want %d rows", rows, moved, tc.want)
				}
			}
		})
	}
}

// atAppendOnce runs the at-append statement in a transaction that first appends an event to each
// stream, and rolls it back: it returns the rows written and whether the checkpoint moved.
func atAppendOnce(t *testing.T, pool *pgxpool.Pool, streams []string, cols []any) (int64, bool) {
	t.Helper()
	ctx := context.Background()
	tx, err := pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = tx.Rollback(ctx) }()
	for _, stream := range streams {
		if _, err := tx.Exec(ctx, `INSERT INTO events (event_id, stream_id, version, type, data, metadata, recorded_at, hash)
			VALUES ($1, $2, 1, 'ReceiptGenerated', '{}', '{}', now(), '\x00')`, uuid.New(), stream); err != nil {
			t.Fatal(err)
		}
	}
	tag, err := tx.Exec(ctx, projections.AtAppendSQL, cols...)
	if err != nil {
		t.Fatal(err)
	}
	var moved bool
	if err := tx.QueryRow(ctx, `SELECT commit_pos <> 0 FROM projection_checkpoints WHERE name = 'receipts'`).Scan(&moved); err != nil {
		t.Fatal(err)
	}
	return tag.RowsAffected(), moved
}

// TestRunnerFollowsCheckpointMovedByAppends: another process applies generations at append time
// and this runner does not hear of it; its batches then hit the rows already there and the moved
// checkpoint. It skips what was applied, applies the rest once, never stops, and the read model is
// the one a rebuild makes.
func TestRunnerFollowsCheckpointMovedByAppends(t *testing.T) {
	t.Parallel()
	pool, s := setup(t)
	ctx := context.Background()
	var logs syncBuffer
	r, err := projections.NewRunner(pool, s, projections.NewReceipts(nil), zerolog.New(&logs))
	if err != nil {
		t.Fatal(err)
	}
	runCtx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() { defer close(done); _ = r.Run(runCtx) }()
	t.Cleanup(func() { cancel(); <-done })

	// "Another process": its own store applies generations at append and tells only its own runner.
	otherStore := postgres.New(pool)
	otherRunner, err := projections.NewRunner(pool, otherStore, projections.NewReceipts(nil), zerolog.Nop())
	if err != nil {
		t.Fatal(err)
	}
	other := projections.NewReceipts(nil).AtAppend(otherStore, otherRunner)
	waitFor(t, r, eventstore.Position{}) // leading
	deadline := time.Now().Add(10 * time.Second)
	for !r.Leader() && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}

	var wg sync.WaitGroup
	var mu sync.Mutex
	var last eventstore.Position
	for w := range 4 {
		wg.Go(func() {
			for i := range 60 {
				store := eventstore.Store(s)
				if (w+i)%2 == 0 {
					store = other
				}
				p := generate(t, store, fmt.Sprintf("r%d-%d", w, i))
				mu.Lock()
				if last.Less(p) {
					last = p
				}
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	waitFor(t, r, last)
	var n int
	if err := pool.QueryRow(ctx, `SELECT count(*) FROM receipts`).Scan(&n); err != nil || n != 240 {
		t.Fatalf("%d receipts, %v; want 240", n, err)
	}
	if cp := checkpoint(t, pool); cp != last {
		t.Fatalf("checkpoint %s, want %s", cp, last)
	}
	if strings.Contains(logs.String(), "projection stopped") {
		t.Fatalf("the runner stopped on a checkpoint moved forward:\n%s", logs.String())
	}
	live := snapshot(t, pool)
	if err := projections.Rebuild(ctx, pool, projections.NewReceipts(nil)); err != nil {
		t.Fatal(err)
	}
	deadline = time.Now().Add(30 * time.Second)
	for checkpoint(t, pool) != last {
		if time.Now().After(deadline) {
			t.Fatal("rebuild did not finish")
		}
		time.Sleep(20 * time.Millisecond)
	}
	if rebuilt := snapshot(t, pool); rebuilt != live {
		t.Fatalf("rebuilt read model differs from the live one:\nlive    %.300s\nrebuilt %.300s", live, rebuilt)
	}
}

func snapshot(t *testing.T, pool *pgxpool.Pool) string {
	t.Helper()
	var s string
	if err := pool.QueryRow(context.Background(), `SELECT coalesce(string_agg(concat_ws('|', receipt_id, merchant_wallet, status, previous_status,
		currency, total_cents, webhook_url, state::text, created_at, updated_at, version, pos_commit, pos_prepare, attempt_kind,
		attempt_started_at), E'\n' ORDER BY receipt_id), '') FROM receipts`).Scan(&s); err != nil {
		t.Fatal(err)
	}
	return s
}

// syncBuffer collects logs written while they are read (syncbuf.Buffer).
type syncBuffer = syncbuf.Buffer

// TestDecidedGenerationFoldsLikeItsData: the receipts row made at append time from the event the
// command decided (handed over to ReceiptsAtAppend.AppendGeneration) is the row made from the event's
// stored data, as the projector and a rebuild make it, also when its text is not valid UTF-8
// (which its JSON data cannot keep).
func TestDecidedGenerationFoldsLikeItsData(t *testing.T) {
	t.Parallel()
	full := receipt.Generated{ReceiptID: "rcpt_1", Merchant: "0xm", Source: "order", Currency: "EUR",
		LineItems: []receipt.LineItem{
			{Kind: receipt.KindItem, Label: `Café <b>"crème"</b> & 🍰`, Amount: 900, Unit: 450, Qty: 2, Thumb: "data:image/svg+xml;base64,AAAA", ItemID: "i1", SKU: "latte"},
			{Kind: "tax", Label: "Tax", Amount: 65},
			{Kind: "fee", Label: "Processing Fee", Amount: 5},
		},
		Subtotal: 900, Tax: 65, Fee: 5, PlatformFee: 4, MerchantFee: 1, Total: 970,
		JurisdictionCode: "US-CA", TaxRate: "0.0725", TaxComponents: []string{"state", "county"}, FeeRate: "0.005",
		BrandName: "Bränd", BrandKey: "k", TransactionID: "tx-1", Metadata: map[string]string{"a": "1", "ü": "\u2028"},
		Buyer: receipt.Buyer{Email: "a@b.c", FirstName: "Zoë", LastName: "O'Neil", BillingEmail: "x@y.z", Phone: "+1", AddressLine1: "1 St",
			AddressLine2: "Apt 2", City: "Paris", State: "IDF", PostalCode: "75001", Country: "FR"},
		RedirectURL: "https://r", SuccessURL: "https://s?a=1&b=2", PostPaymentAction: "redirect", WebhookURL: "https://w",
		RequestHash: "abc", CreatedAt: 1795378231682}
	badLabel := full
	badLabel.ReceiptID, badLabel.LineItems = "rcpt_4", []receipt.LineItem{{Kind: receipt.KindItem, Label: "bad \xff", Amount: 1}}
	badMeta := full
	badMeta.ReceiptID, badMeta.Metadata = "rcpt_5", map[string]string{"k\xfe": "v"}
	empty := receipt.Generated{ReceiptID: "rcpt_2", Metadata: map[string]string{}, TaxComponents: []string{}, LineItems: []receipt.LineItem{}}
	for _, g := range []receipt.Generated{full, empty, {ReceiptID: "rcpt_3"}, badLabel, badMeta} {
		data, err := json.Marshal(g)
		if err != nil {
			t.Fatal(err)
		}
		e := eventstore.EventData{ID: uuid.New(), Type: receipt.EventGenerated, Data: data}
		stored, err := receipt.Decode(e.Type, e.Data) // as the projector reads it
		if err != nil {
			t.Fatal(err)
		}
		fromData, err := projections.GenerationRow(stored)
		if err != nil {
			t.Fatal(err)
		}
		decided, err := projections.DecidedRow(e, g)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(decided, fromData) { // pointers by what they point to
			t.Fatalf("%s:\ndecided   %v\nfrom data %v", g.ReceiptID, decided, fromData)
		}
	}
}

// TestAtAppendNeverWaitsForTheProjector: while a projector's transaction holds the checkpoint, an
// append does not wait for it; its receipt is left to the projector.
func TestAtAppendNeverWaitsForTheProjector(t *testing.T) {
	t.Parallel()
	pool, store, proj, r := atAppendSetup(t)
	ctx := context.Background()
	s := proj.AtAppend(store, r)
	holder, err := pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := holder.Exec(ctx, `SELECT 1 FROM projection_checkpoints WHERE name = 'receipts' FOR UPDATE`); err != nil {
		t.Fatal(err)
	}
	appended := make(chan eventstore.AppendResult, 1)
	ev := generation(t, "held")
	go func() {
		res, err := s.Append(ctx, projections.ReceiptStreamPrefix+"held", eventstore.NoStream(), ev)
		if err != nil {
			t.Error(err)
		}
		appended <- res
	}()
	var at eventstore.Position
	select {
	case res := <-appended:
		at = res.Position
	case <-time.After(10 * time.Second):
		_ = holder.Rollback(ctx) // let the append finish before failing
		<-appended
		t.Fatal("the append waited for the checkpoint's lock")
	}
	_ = holder.Rollback(ctx)
	if _, ok := rowAt(t, pool, "held"); ok {
		t.Fatal("applied at append although the checkpoint was locked")
	}
	start(t, pool, store, proj)
	waitFor(t, r, at)
	if _, ok := rowAt(t, pool, "held"); !ok {
		t.Fatal("the projector did not apply it")
	}
}
