package journal

import (
	"errors"
	"path/filepath"
	"testing"

	"github.com/google/uuid"

	"github.com/payledger/payledger/eventstore"
)

// TestASecondEntryOfAWaitingStreamIsRefused: while the datastore is down, a receipt id chosen
// twice (POST /api/receipts with the same id, a retry without Idempotency-Key or another order)
// was journaled twice and both were acknowledged: a status read showed the second, the replay
// stored the first, and the second then failed for ever as a receipt id taken by another. The
// second entry of a stream that waits is refused, the file and the lookup keep the first, and the
// very same entry again (the same event ids) is a no-op.
func TestASecondEntryOfAWaitingStreamIsRefused(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "journal.jsonl")
	j, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	first := Entry{Stream: "receipt-inv-1", Events: []eventstore.EventData{{ID: uuid.New(), Type: "T", Data: []byte(`{"total":1000}`)}}, At: 1}
	second := Entry{Stream: "receipt-inv-1", Events: []eventstore.EventData{{ID: uuid.New(), Type: "T", Data: []byte(`{"total":5000}`)}}, At: 2}
	if err := j.Append(first); err != nil {
		t.Fatal(err)
	}
	if err := j.Append(second); !errors.Is(err, ErrStreamPending) {
		t.Fatalf("a second entry of a waiting stream: %v, want ErrStreamPending", err)
	}
	if err := j.Append(first); err != nil {
		t.Fatalf("the same entry again: %v", err)
	}
	_ = j.Close()
	again, err := Open(path) // what the file holds, after a restart
	if err != nil {
		t.Fatal(err)
	}
	if p, _ := again.Pending(); len(p) != 1 || p[0].Events[0].ID != first.Events[0].ID {
		t.Fatalf("the journal holds %+v, want the first entry once", p)
	}
	if e, ok := again.Lookup("receipt-inv-1"); !ok || e.Events[0].ID != first.Events[0].ID {
		t.Fatalf("lookup: %+v %v, want the first entry", e, ok)
	}
	if err := again.Append(second); !errors.Is(err, ErrStreamPending) {
		t.Fatalf("after a restart: %v, want ErrStreamPending", err)
	}
}
