package readmodels

import (
	"bytes"
	"context"
	"errors"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/payledger/payledger/internal/secrets"
	"github.com/payledger/payledger/migrations/pgtest"
)

// TestRotateSecretKeepsOnePreviousUntilItExpires: after a rotation a message opens the new
// secret then the old one until PreviousSecretLife has passed, then the new one only, and the
// version of the current secret changes; rotations
// racing each other end with a (current, previous) pair of two of their secrets, the previous
// being the one the current replaced; another merchant's or a deleted endpoint is ErrNotFound.
func TestRotateSecretKeepsOnePreviousUntilItExpires(t *testing.T) {
	t.Parallel()
	pool := pgtest.Pool(t)
	keys, err := secrets.NewWebhookKeys(pool, bytes.Repeat([]byte{6}, 32))
	if err != nil {
		t.Fatal(err)
	}
	store, ctx, now := NewEndpoints(pool, keys), context.Background(), time.Now()
	ep, err := store.Create(ctx, "0xm", "https://hooks.example/x", []string{"*"}, "whsec_first", now)
	if err != nil {
		t.Fatal(err)
	}
	if err := store.Record(ctx, NewEvent{Key: "k", Merchant: "0xm", Type: EventWebhookTest, At: now, Data: map[string]any{}, Endpoint: &ep.ID}); err != nil {
		t.Fatal(err)
	}
	signers := func(at time.Time) []string {
		t.Helper()
		var event uuid.UUID
		if err := pool.QueryRow(ctx, `SELECT event_id FROM webhook_endpoint_messages WHERE endpoint_id = $1`, ep.ID).Scan(&event); err != nil {
			t.Fatal(err)
		}
		m, err := store.Message(ctx, "0xm", ep.ID, event)
		if err != nil {
			t.Fatal(err)
		}
		list, err := store.SecretsNow(ctx, m, at)
		if err != nil {
			t.Fatal(err)
		}
		return list.Secrets
	}
	if got := signers(now); !slices.Equal(got, []string{"whsec_first"}) {
		t.Fatalf("before a rotation: %v", got)
	}
	version := func() string {
		t.Helper()
		s, err := store.SecretsNow(ctx, EndpointMessage{EndpointID: ep.ID}, now)
		if err != nil {
			t.Fatal(err)
		}
		return s.Version
	}
	before := version()
	if again := version(); before == "" || again != before {
		t.Fatalf("the current secret's version read twice: %q, %q", before, again)
	}
	_, expires, err := store.RotateSecret(ctx, "0xm", ep.ID, "whsec_second", now)
	if err != nil || !expires.Equal(now.Add(PreviousSecretLife).UTC().Truncate(time.Microsecond)) {
		t.Fatalf("rotate: %v %v", expires, err)
	}
	if after := version(); after == before {
		t.Fatalf("a rotation left the version %q (the send could not tell it signed with the replaced secret)", after)
	}
	if got := signers(now.Add(PreviousSecretLife - time.Second)); !slices.Equal(got, []string{"whsec_second", "whsec_first"}) {
		t.Fatalf("during the overlap: %v", got)
	}
	if got := signers(now.Add(PreviousSecretLife)); !slices.Equal(got, []string{"whsec_second"}) {
		t.Fatalf("after the overlap: %v", got)
	}

	var wg sync.WaitGroup
	racers := []string{"whsec_a", "whsec_b", "whsec_c", "whsec_d"}
	for _, s := range racers {
		wg.Go(func() {
			if _, _, err := store.RotateSecret(ctx, "0xm", ep.ID, s, now); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	got := signers(now)
	if len(got) != 2 || got[0] == got[1] || !slices.Contains(racers, got[0]) || !slices.Contains(racers, got[1]) {
		t.Fatalf("after racing rotations: %v", got)
	}

	if _, _, err := store.RotateSecret(ctx, "0xother", ep.ID, "whsec_x", now); !errors.Is(err, ErrNotFound) {
		t.Fatalf("another merchant's: %v", err)
	}
	if err := store.Delete(ctx, "0xm", ep.ID); err != nil {
		t.Fatal(err)
	}
	if _, _, err := store.RotateSecret(ctx, "0xm", ep.ID, "whsec_x", now); !errors.Is(err, ErrNotFound) {
		t.Fatalf("a deleted one: %v", err)
	}
}
