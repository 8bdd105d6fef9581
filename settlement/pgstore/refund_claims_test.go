package pgstore

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/payledger/payledger/commands"
	"github.com/payledger/payledger/migrations/pgtest"
)

// TestRefundClaimHolds: a reservation counts the requests holding it (migration 036). The hash is
// free again only when every request that held it gave it back, never while it is counted, and
// another receipt is refused it meanwhile.
func TestRefundClaimHolds(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := pgtest.Pool(t)
	claims := NewRefundClaims(pool)
	hash, at := "0x"+strings.Repeat("a", 64), time.Now()
	reserve := func(receiptID string, wantFresh bool, wantErr error) {
		t.Helper()
		fresh, err := claims.Reserve(ctx, hash, receiptID, at)
		if !errors.Is(err, wantErr) || fresh != wantFresh {
			t.Fatalf("reserve for %s: fresh %v, %v; want %v, %v", receiptID, fresh, err, wantFresh, wantErr)
		}
	}
	held := func() string {
		t.Helper()
		var holder string
		if err := pool.QueryRow(ctx, `SELECT coalesce((SELECT receipt_id FROM refund_claims WHERE transaction_hash = $1), '')`, hash).Scan(&holder); err != nil {
			t.Fatal(err)
		}
		return holder
	}
	release := func(receiptID string) {
		t.Helper()
		if err := claims.Release(ctx, hash, receiptID); err != nil {
			t.Fatal(err)
		}
	}

	reserve("a", true, nil)
	reserve("a", false, nil) // a double submit: two requests hold it
	reserve("b", false, commands.ErrRefundHashTaken)
	release("a")
	if held() != "a" {
		t.Fatal("the first request's give-back freed the hash the other still holds")
	}
	release("b") // not its hold: nothing
	release("a")
	if held() != "" {
		t.Fatalf("held by %q after both requests gave it back", held())
	}
	reserve("b", true, nil)

	// Counted: a request refused on it gives its hold back, and the hash stays counted.
	if err := claims.Counted(ctx, hash, "b", 7, "0xb7"); err != nil {
		t.Fatal(err)
	}
	reserve("b", false, nil)
	release("b")
	release("b")
	if held() != "b" {
		t.Fatal("a counted hash was freed by give-backs")
	}
}
