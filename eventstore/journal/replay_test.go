package journal

import (
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/rs/zerolog"

	"github.com/payledger/payledger/eventstore"
	"github.com/payledger/payledger/eventstore/postgres"
	"github.com/payledger/payledger/migrations/pgtest"
)

// flakyKeys fails the first fails saves with "the database system is starting up", as the
// first replay after a restart saw, then stores keys in memory (a conflict keeps the first).
type flakyKeys struct {
	mu    sync.Mutex
	fails int
	keys  map[string][]byte
}

func (k *flakyKeys) SaveSealed(_ context.Context, id string, _, sealed []byte) error {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.fails > 0 {
		k.fails--
		return &pgconn.PgError{Code: "57P03", Message: "the database system is starting up"}
	}
	if _, ok := k.keys[id]; !ok {
		k.keys[id] = sealed
	}
	return nil
}

// entryStore stores entries as the service's (commands.JournalReplay) does, without its pipeline
// (this package's tests cannot import commands): the key, then the events under their ids.
type entryStore struct {
	store eventstore.Store
	keys  *flakyKeys
}

func (s entryStore) StoreEntry(ctx context.Context, e Entry) error {
	if raw, ok := e.Side[SideWebhookKey]; ok {
		var k SealedKey
		if err := json.Unmarshal(raw, &k); err != nil {
			return err
		}
		if err := s.keys.SaveSealed(ctx, k.ReceiptID, k.Nonce, k.Sealed); err != nil {
			return err
		}
	}
	_, err := s.store.Append(ctx, e.Stream, eventstore.NoStream(), e.Events...)
	return err
}

// startingUp is the store-down classification the service passes (readmodels.Unavailable), for
// the one error these tests raise.
func startingUp(err error) bool {
	var pgErr *pgconn.PgError
	return errors.As(err, &pgErr) && pgErr.Code == "57P03"
}

func generation(id string) eventstore.EventData {
	data, _ := json.Marshal(map[string]string{"receiptId": id})
	return eventstore.EventData{ID: uuid.New(), Type: "ReceiptGenerated", Data: data}
}

func entryOf(stream string, ev eventstore.EventData) Entry {
	return Entry{Stream: stream, Events: []eventstore.EventData{ev}}.WithSealedKey(SealedKey{ReceiptID: stream, Nonce: []byte{1}, Sealed: []byte{2}})
}

func openJournal(t *testing.T) *Journal {
	t.Helper()
	j, err := Open(filepath.Join(t.TempDir(), "journal.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	return j
}

// The order's append committed but its answer was lost, so the same event went to the journal;
// the first replay fails on the webhook key (the database is starting up). The next replay
// stores the key, finds the event stored, and empties the journal: nothing is stored twice.
func TestReplayCompletesAnEntryWhoseEventIsStored(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	store := postgres.New(pgtest.Pool(t))
	ev := generation("r1")
	if _, err := store.Append(ctx, "receipt-r1", eventstore.NoStream(), ev); err != nil {
		t.Fatal(err)
	}
	j := openJournal(t)
	if err := j.Append(entryOf("receipt-r1", ev)); err != nil {
		t.Fatal(err)
	}
	keys := &flakyKeys{fails: 1, keys: map[string][]byte{}}
	r := NewReplayer(j, entryStore{store, keys}, startingUp, zerolog.Nop())
	if n, err := r.DrainOnce(ctx); err == nil || n != 0 {
		t.Fatalf("first replay: %d, %v", n, err)
	}
	if n, err := r.DrainOnce(ctx); err != nil || n != 1 {
		t.Fatalf("second replay: %d, %v", n, err)
	}
	if p, _ := j.Pending(); len(p) != 0 {
		t.Fatalf("%d entries left", len(p))
	}
	if len(keys.keys) != 1 {
		t.Fatalf("webhook key not saved: %v", keys.keys)
	}
	evs, _ := store.ReadStream(ctx, "receipt-r1", 1, 10)
	if len(evs) != 1 || evs[0].ID != ev.ID {
		t.Fatalf("stream holds %d events", len(evs))
	}
	if st := r.Stats(); st.Failures != 0 || st.Failing != 0 || st.Pending != 0 {
		t.Fatalf("a store that was starting up counted as entry failures: %+v", st)
	}
}

// An entry that cannot be stored (its stream holds another event) is kept and retried with
// backoff; the entries behind it are stored; the figures report it.
func TestReplayGoesOnPastAFailingEntry(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	store := postgres.New(pgtest.Pool(t))
	if _, err := store.Append(ctx, "receipt-taken", eventstore.NoStream(), generation("taken")); err != nil {
		t.Fatal(err)
	}
	j := openJournal(t)
	bad := entryOf("receipt-taken", generation("taken"))
	_ = j.Append(bad)
	for _, id := range []string{"a", "b", "c"} {
		_ = j.Append(entryOf("receipt-"+id, generation(id)))
	}
	r := NewReplayer(j, entryStore{store, &flakyKeys{keys: map[string][]byte{}}}, startingUp, zerolog.Nop())
	now := time.Unix(1_800_000_000, 0)
	r.now = func() time.Time { return now }

	n, err := r.DrainOnce(ctx)
	if n != 3 || !errors.Is(err, eventstore.ErrWrongExpectedVersion) {
		t.Fatalf("replay: %d stored, %v", n, err)
	}
	for _, id := range []string{"a", "b", "c"} {
		if evs, _ := store.ReadStream(ctx, "receipt-"+id, 1, 10); len(evs) != 1 {
			t.Fatalf("receipt %s behind the failing entry not stored", id)
		}
	}
	p, _ := j.Pending()
	if len(p) != 1 || p[0].Stream != "receipt-taken" {
		t.Fatalf("journal after the replay: %+v", p)
	}
	if st := r.Stats(); st != (Stats{Pending: 1, Failing: 1, Failures: 1}) {
		t.Fatalf("stats %+v", st)
	}
	// Backing off: the next pass leaves it alone.
	if _, err := r.DrainOnce(ctx); r.Stats().Failures != 1 || err == nil {
		t.Fatalf("retried before its backoff: %+v, %v", r.Stats(), err)
	}
	now = now.Add(firstRetry)
	_, _ = r.DrainOnce(ctx)
	if st := r.Stats(); st.Failures != 2 || st.Pending != 1 {
		t.Fatalf("not retried after its backoff: %+v", st)
	}
}
