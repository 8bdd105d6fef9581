package pgstore

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/payledger/payledger/commands"
	"github.com/payledger/payledger/migrations/pgtest"
	"github.com/payledger/payledger/settlement"
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

// TestRefundClaimedReadsOn: Claimed reads the claims in (claimed_at, hash) order from the first
// after the one named, so the verifier's steps go round every claim (stop 60).
func TestRefundClaimedReadsOn(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	claims := NewRefundClaims(pgtest.Pool(t))
	at := time.Now().Truncate(time.Millisecond)
	hash := func(d string) string { return "0x" + strings.Repeat(d, 64) }
	for _, h := range []string{"b", "a", "c"} { // a and b claimed at once: the hash breaks the tie
		when := at
		if h == "c" {
			when = at.Add(time.Second)
		}
		if _, err := claims.Reserve(ctx, hash(h), "r", when); err != nil {
			t.Fatal(err)
		}
	}
	read := func(after settlement.RefundClaim, limit int) string {
		t.Helper()
		got, err := claims.Claimed(ctx, after, limit)
		if err != nil {
			t.Fatal(err)
		}
		out := ""
		for _, c := range got {
			out += c.TransactionHash[2:3]
		}
		return out
	}
	if got := read(settlement.RefundClaim{}, 2); got != "ab" {
		t.Fatalf("first %q", got)
	}
	if got := read(settlement.RefundClaim{TransactionHash: hash("a"), ClaimedAt: at}, 5); got != "bc" {
		t.Fatalf("after a: %q", got)
	}
	if got := read(settlement.RefundClaim{TransactionHash: hash("c"), ClaimedAt: at.Add(time.Second)}, 5); got != "" {
		t.Fatalf("after the last: %q", got)
	}
}
