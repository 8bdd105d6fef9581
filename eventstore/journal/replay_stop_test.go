package journal

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/rs/zerolog"

	"github.com/payledger/payledger/internal/syncbuf"
)

// stoppingStore ends the replay's context while storing the first entry (serve shutting down
// mid-pass), as a store's call does then: the context's error.
type stoppingStore struct {
	stop   context.CancelFunc
	stored int
}

func (s *stoppingStore) StoreEntry(ctx context.Context, _ Entry) error {
	s.stop()
	if err := ctx.Err(); err != nil {
		return err
	}
	s.stored++
	return nil
}

// A replay pass whose context ends (serve stopping) ends there: every entry left was failed in
// turn on the ended context, each counted as a failure with a backoff and logged at error level
// ("could not be stored"), a line per journaled order. The entries stay for the next start, and
// nothing is counted against them.
func TestAReplayPassStopsWithItsContext(t *testing.T) {
	t.Parallel()
	j := openJournal(t)
	for _, id := range []string{"a", "b", "c", "d"} {
		if err := j.Append(entryOf("receipt-"+id, generation(id))); err != nil {
			t.Fatal(err)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	logs := &syncbuf.Buffer{}
	store := &stoppingStore{stop: cancel}
	r := NewReplayer(j, store, func(error) bool { return false }, zerolog.New(logs))
	n, err := r.DrainOnce(ctx)
	if n != 0 || !errors.Is(err, context.Canceled) {
		t.Fatalf("replay pass: %d stored, %v; want none and the context's error", n, err)
	}
	if st := r.Stats(); st.Failures != 0 || st.Failing != 0 || st.Pending != 4 {
		t.Fatalf("stats after a stopped pass: %+v, want no failure and 4 pending", st)
	}
	if strings.Contains(logs.String(), "could not be stored") {
		t.Fatalf("a stopped pass logged entry failures:\n%s", logs.String())
	}
	if p, _ := j.Pending(); len(p) != 4 {
		t.Fatalf("%d entries left, want 4", len(p))
	}
}
