package journal

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/payledger/payledger/internal/syncbuf"
)

// refusingStore refuses every entry, as the store does an entry that can never be stored.
type refusingStore struct{}

func (refusingStore) StoreEntry(context.Context, Entry) error {
	return errors.New("the stream holds other events")
}

// An entry that cannot be stored is logged at error level at each of its tries (with backoff);
// the replay's passes in between, every 2 s while it backs off (up to 5 min, for ever for such an
// entry), each logged a warning of their own about it. Only its tries are logged now.
func TestAPassOverABackingOffEntryLogsNothing(t *testing.T) {
	t.Parallel()
	j := openJournal(t)
	if err := j.Append(entryOf("receipt-x", generation("x"))); err != nil {
		t.Fatal(err)
	}
	logs := &syncbuf.Buffer{}
	r := NewReplayer(j, refusingStore{}, func(error) bool { return false }, zerolog.New(logs))
	now := time.Unix(1_800_000_000, 0)
	r.now = func() time.Time { return now }
	ctx := context.Background()
	r.pass(ctx) // tried: fails, backs off
	first := logs.String()
	if !strings.Contains(first, "could not be stored") {
		t.Fatalf("the failing try was not logged:\n%s", first)
	}
	for range 3 {
		r.pass(ctx) // backing off: not tried
	}
	if again := strings.TrimPrefix(logs.String(), first); again != "" {
		t.Fatalf("passes over the entry backing off logged:\n%s", again)
	}
	now = now.Add(firstRetry)
	r.pass(ctx) // due again: tried and logged
	if st := r.Stats(); st.Failures != 2 || !strings.Contains(strings.TrimPrefix(logs.String(), first), "could not be stored") {
		t.Fatalf("the retry when due: %+v\n%s", st, logs.String())
	}
}
