package readmodels

import (
	"encoding/base64"
	"errors"
	"testing"

	"github.com/payledger/payledger/eventstore"
)

// TestPositionCursorIsOnlyOneThisStoreWrote: the receipts list's cursor reads back what
// encodePositionCursor wrote and refuses anything else (trailing text, negative or padded
// numbers were taken as a position).
func TestPositionCursorIsOnlyOneThisStoreWrote(t *testing.T) {
	t.Parallel()
	good := encodePositionCursor(eventstore.Position{Commit: 12, Prepare: 3})
	if c, err := decodePositionCursor(good); err != nil || *c.commit != 12 || *c.prepare != 3 {
		t.Fatalf("decode %q: %+v %v", good, c, err)
	}
	enc := func(s string) string { return base64.RawURLEncoding.EncodeToString([]byte(s)) }
	for _, raw := range []string{"p1.2junk", "p-1.-1", "p01.2", "p+1.2", "p1.2 ", "q1.2", "p1"} {
		if _, err := decodePositionCursor(enc(raw)); !errors.Is(err, ErrBadCursor) {
			t.Errorf("cursor %q: %v, want ErrBadCursor", raw, err)
		}
	}
}
