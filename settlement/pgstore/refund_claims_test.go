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

// TestRefundClaimHolds: a reservation counts the requests holding it (migration 036). The
// receipt's hold is gone only when every request that held it gave it back, never while it is
// counted; another receipt's claim of the hash is a hold of its own meanwhile (041).
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
		var holders string
		if err := pool.QueryRow(ctx, `SELECT coalesce(string_agg(receipt_id, ',' ORDER BY receipt_id), '') FROM refund_claims
			WHERE transaction_hash = $1`, hash).Scan(&holders); err != nil {
			t.Fatal(err)
		}
		return holders
	}
	release := func(receiptID string) {
		t.Helper()
		if err := claims.Release(ctx, hash, receiptID); err != nil {
			t.Fatal(err)
		}
	}

	reserve("a", true, nil)
	reserve("a", false, nil) // a double submit: two requests hold it
	reserve("b", true, nil)  // another receipt's claim: its own hold
	release("a")
	if held() != "a,b" {
		t.Fatalf("held by %q: the first request's give-back freed the hash the other still holds", held())
	}
	release("b")
	release("a")
	if held() != "" {
		t.Fatalf("held by %q after every request gave it back", held())
	}
	reserve("b", true, nil)

	// Counted: a request refused on it gives its hold back, and the hash stays counted.
	if err := claims.Counted(ctx, hash, "b", 7, "0xb7"); err != nil {
		t.Fatal(err)
	}
	reserve("b", false, nil)
	reserve("c", false, commands.ErrRefundHashTaken)
	release("b")
	release("b")
	if held() != "b" {
		t.Fatalf("held by %q: a counted hash was freed by give-backs", held())
	}
}

// TestRefundClaimProvenFirstTakesTheHash: claims of one hash on several receipts wait side by
// side; the first proven takes it, the others' proofs are refused and no receipt may claim it
// again, until the proven claim is freed or taken back by a reorg (stop 64).
func TestRefundClaimProvenFirstTakesTheHash(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	claims := NewRefundClaims(pgtest.Pool(t))
	hash, at := "0x"+strings.Repeat("b", 64), time.Now()
	for _, id := range []string{"a", "b", "c"} {
		if _, err := claims.Reserve(ctx, hash, id, at); err != nil {
			t.Fatalf("claim on %s: %v", id, err)
		}
	}
	if got, err := claims.Claimed(ctx, settlement.RefundClaim{}, 10); err != nil || len(got) != 3 {
		t.Fatalf("claims: %+v, %v", got, err)
	}
	// The receipt breaks a tie of time and hash: a step's batch ending on a's claim reads on.
	first, err := claims.Claimed(ctx, settlement.RefundClaim{}, 1)
	if err != nil || len(first) != 1 || first[0].ReceiptID != "a" {
		t.Fatalf("first claim: %+v, %v", first, err)
	}
	if got, err := claims.Claimed(ctx, first[0], 10); err != nil || len(got) != 2 || got[0].ReceiptID != "b" {
		t.Fatalf("claims after a's: %+v, %v", got, err)
	}
	prove := func(id string, wantTaken bool, wantErr error) {
		t.Helper()
		if taken, err := claims.Prove(ctx, hash, id, 9, "0xb9"); taken != wantTaken || !errors.Is(err, wantErr) {
			t.Fatalf("prove on %s: %v, %v; want %v, %v", id, taken, err, wantTaken, wantErr)
		}
	}
	prove("b", true, nil)
	prove("b", true, nil) // again (a step after a crash, another instance): the same row
	prove("a", false, settlement.ErrRefundHashTaken)
	if _, err := claims.Reserve(ctx, hash, "d", at); !errors.Is(err, commands.ErrRefundHashTaken) {
		t.Fatalf("a new claim of a proven hash: %v", err)
	}
	if _, err := claims.Reserve(ctx, hash, "a", at); !errors.Is(err, commands.ErrRefundHashTaken) {
		t.Fatalf("a claim again of a proven hash: %v", err)
	}
	if err := claims.Reclaimed(ctx, hash, "b", at); err != nil { // a reorg took it back
		t.Fatal(err)
	}
	prove("c", true, nil)
	if err := claims.Free(ctx, settlement.RefundClaim{TransactionHash: hash, ReceiptID: "c", Holders: 1}, at); err != nil {
		t.Fatal(err)
	}
	prove("a", true, nil)
	if err := claims.Counted(ctx, hash, "a", 9, "0xb9"); err != nil {
		t.Fatal(err)
	}
	prove("b", false, settlement.ErrRefundHashTaken)
	// Prove of a row gone or counted takes nothing.
	if taken, err := claims.Prove(ctx, hash, "gone", 9, "0xb9"); taken || err != nil {
		t.Fatalf("prove of no claim: %v, %v", taken, err)
	}
}

// TestRefundOnTheWordIsOneReceiptsHold: a hold on the merchant's word ("<hash>/<merchant>",
// commands.holdKey) is one receipt's only, counted or not: the merchant's two receipts never
// hold one transaction, which proves nothing of either.
func TestRefundOnTheWordIsOneReceiptsHold(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	claims := NewRefundClaims(pgtest.Pool(t))
	key, at := "0x"+strings.Repeat("c", 64)+"/0xm", time.Now()
	if _, err := claims.Reserve(ctx, key, "a", at); err != nil {
		t.Fatal(err)
	}
	if _, err := claims.Reserve(ctx, key, "b", at); !errors.Is(err, commands.ErrRefundHashTaken) {
		t.Fatalf("the same word's hash on another receipt: %v", err)
	}
	if err := claims.Counted(ctx, key, "a", 0, ""); err != nil {
		t.Fatal(err)
	}
	if _, err := claims.Reserve(ctx, key, "b", at); !errors.Is(err, commands.ErrRefundHashTaken) {
		t.Fatalf("after it was counted: %v", err)
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
	if got := read(settlement.RefundClaim{TransactionHash: hash("a"), ReceiptID: "r", ClaimedAt: at}, 5); got != "bc" {
		t.Fatalf("after a: %q", got)
	}
	if got := read(settlement.RefundClaim{TransactionHash: hash("c"), ReceiptID: "r", ClaimedAt: at.Add(time.Second)}, 5); got != "" {
		t.Fatalf("after the last: %q", got)
	}
}
