package readmodels

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/payledger/payledger/internal/cache"
	"github.com/payledger/payledger/internal/wait"
	"github.com/payledger/payledger/migrations/pgtest"
)

// TestCachedKeyIsConfirmedAgainWithoutTheRevocationNotice: an instance's key cache trusted a key
// for as long as its listener was connected, however long ago the datastore confirmed it. A
// listener that is connected but hears nothing (PgBouncer in transaction mode, where LISTEN
// succeeds and no NOTIFY ever comes back; a half-open connection until TCP keepalive notices)
// left a key revoked through another instance, or `payledger keys revoke`, working on this one
// until a restart. A cached key is now confirmed by the datastore again once
// it is keyCacheMaxAge old, so a revocation takes effect within that bound whatever the listener.
func TestCachedKeyIsConfirmedAgainWithoutTheRevocationNotice(t *testing.T) {
	t.Parallel()
	pool := pgtest.Pool(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	here, elsewhere := NewKeys(pool), NewKeys(pool)
	// Connected and listening, on a channel nobody announces revocations on: the cache fills
	// and no revocation ever reaches it, as behind a transaction pooler.
	inv := cache.NewInvalidations(pool)
	inv.Register("payledger_auth_test_silent", here.Cache())
	done := make(chan struct{})
	go func() { defer close(done); _ = inv.Run(ctx) }()
	defer func() { cancel(); <-done }()

	wallet := "0x" + strings.Repeat("c", 40)
	secret, key, err := elsewhere.Create(ctx, wallet, "leaked", []string{"orders:create"})
	if err != nil {
		t.Fatal(err)
	}
	wait.Until(t, "the key to be cached here", 10*time.Second, func() bool {
		_, err := here.Authenticate(ctx, secret)
		return err == nil && here.Cache().Len() == 1
	})
	if err := elsewhere.Revoke(ctx, wallet, key.ID); err != nil {
		t.Fatal(err)
	}
	revokedAt := time.Now()
	wait.Until(t, "the key revoked elsewhere to be refused here without the notice", keyCacheMaxAge+10*time.Second, func() bool {
		_, err := here.Authenticate(ctx, secret)
		return errors.Is(err, ErrNotFound)
	})
	if took := time.Since(revokedAt); took > keyCacheMaxAge+2*time.Second {
		t.Fatalf("the revoked key was accepted for %v after its revocation, want at most %v", took, keyCacheMaxAge)
	}
}
