package pgstore

import (
	"context"
	"encoding/json"
	"slices"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/payledger/payledger/migrations/pgtest"
	"github.com/payledger/payledger/settlement"
)

// seedDepositReceipts stores n receipts paid at deposit addresses, ids dep-1 … dep-n, at version 3.
func seedDepositReceipts(t *testing.T, pool *pgxpool.Pool, n int) {
	t.Helper()
	_, err := pool.Exec(context.Background(), `INSERT INTO receipts (receipt_id, merchant_wallet, status, currency, total_cents,
			created_at, updated_at, version, pos_commit, pos_prepare, state, deposit_address, deposit_split)
		SELECT 'dep-' || i, '0xm', 'paid', 'USD', 100, now(), now() + i * interval '1 millisecond', 3, i, 0, '{}',
			'0x' || lpad(to_hex(i), 40, '0'), '0xsplit'
		FROM generate_series(1, $1::int) i`, n)
	if err != nil {
		t.Fatal(err)
	}
}

func exec(t *testing.T, pool *pgxpool.Pool, sql string, args ...any) {
	t.Helper()
	if _, err := pool.Exec(context.Background(), sql, args...); err != nil {
		t.Fatal(err)
	}
}

func claimIDs(t *testing.T, d *DepositSweeps, token uuid.UUID, lease time.Duration) []string {
	t.Helper()
	cands, err := d.Claim(context.Background(), token, lease, 100_000)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, c := range cands {
		ids = append(ids, c.ReceiptID)
	}
	slices.Sort(ids)
	return ids
}

// rowsRead sums, over the plan nodes of an executed EXPLAIN (FORMAT JSON) that scan a table, the
// rows they produced.
func rowsRead(node map[string]any) float64 {
	var n float64
	if _, ok := node["Relation Name"]; ok && node["Node Type"] != "ModifyTable" {
		rows, _ := node["Actual Rows"].(float64)
		loops, _ := node["Actual Loops"].(float64)
		n += rows * loops
	}
	plans, _ := node["Plans"].([]any)
	for _, p := range plans {
		if m, ok := p.(map[string]any); ok {
			n += rowsRead(m)
		}
	}
	return n
}

// With thousands of paid deposit receipts checked, Claim's statement reads rows only for the few
// that changed since: the work list is the partial index of deposit_sweeps (migration 030), not
// a scan of every paid deposit receipt (before it, this read all 3,000 of receipts).
func TestDepositSweepsClaimReadsOnlyChangedReceipts(t *testing.T) {
	pool := pgtest.Pool(t)
	ctx := context.Background()
	d := NewDepositSweeps(pool)
	seedDepositReceipts(t, pool, 3000)
	token := uuid.New()
	cands, err := d.Claim(ctx, token, time.Minute, 100_000)
	if err != nil || len(cands) != 3000 {
		t.Fatalf("first claim: %d candidates, %v", len(cands), err)
	}
	if err := d.Checked(ctx, token, cands); err != nil {
		t.Fatal(err)
	}
	exec(t, pool, `UPDATE receipts SET version = 4 WHERE receipt_id IN ('dep-7', 'dep-2500')`)
	exec(t, pool, `ANALYZE receipts`)
	exec(t, pool, `ANALYZE deposit_sweeps`)

	tx, err := pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = tx.Rollback(ctx) }()
	var raw []byte
	if err := tx.QueryRow(ctx, `EXPLAIN (ANALYZE, FORMAT JSON) `+claimSQL, uuid.New(), "60000 milliseconds", 1000).Scan(&raw); err != nil {
		t.Fatal(err)
	}
	var plan []map[string]any
	if err := json.Unmarshal(raw, &plan); err != nil {
		t.Fatal(err)
	}
	if n := rowsRead(plan[0]["Plan"].(map[string]any)); n > 10 {
		t.Fatalf("Claim read %.0f rows of receipts and deposit_sweeps to find 2 changed receipts; plan:\n%s", n, raw)
	}
	_ = tx.Rollback(ctx)

	if got := claimIDs(t, d, uuid.New(), time.Minute); !slices.Equal(got, []string{"dep-2500", "dep-7"}) {
		t.Fatalf("claimed %v, want the two receipts whose version rose", got)
	}
}

// Claim's candidates: paid or reconciled deposit receipts past their last check, in no live
// claim; a receipt whose version rises after its check is a candidate again, one checked is not.
func TestDepositSweepsClaimCandidates(t *testing.T) {
	pool := pgtest.Pool(t)
	ctx := context.Background()
	d := NewDepositSweeps(pool)
	seedDepositReceipts(t, pool, 4)
	exec(t, pool, `INSERT INTO receipts (receipt_id, merchant_wallet, status, currency, total_cents, created_at, updated_at,
			version, pos_commit, pos_prepare, state, deposit_address) VALUES
		('plain', '0xm', 'paid', 'USD', 1, now(), now(), 3, 10, 0, '{}', NULL),
		('open', '0xm', 'pending', 'USD', 1, now(), now(), 2, 11, 0, '{}', '0xopen')`)
	first := uuid.New()
	if got := claimIDs(t, d, first, time.Minute); !slices.Equal(got, []string{"dep-1", "dep-2", "dep-3", "dep-4"}) {
		t.Fatalf("first claim %v", got)
	}
	if got := claimIDs(t, d, uuid.New(), time.Minute); len(got) != 0 {
		t.Fatalf("another instance claimed %v under a live claim", got)
	}
	cands, err := d.Claim(ctx, first, time.Minute, 10) // the holder may claim its own again
	if err != nil || len(cands) != 4 {
		t.Fatalf("the holder's claim again: %d, %v", len(cands), err)
	}
	if err := d.Checked(ctx, first, cands[:3]); err != nil { // dep-4 stays claimed
		t.Fatal(err)
	}
	exec(t, pool, `UPDATE receipts SET version = 5, status = 'reconciled' WHERE receipt_id = 'dep-2'`)
	exec(t, pool, `UPDATE receipts SET version = 3, status = 'paid' WHERE receipt_id = 'open'`)
	exec(t, pool, `UPDATE receipts SET version = 4 WHERE receipt_id = 'plain'`)
	exec(t, pool, `UPDATE deposit_sweeps SET claimed_at = now() - interval '2 minutes' WHERE receipt_id = 'dep-4'`)
	if got := claimIDs(t, d, uuid.New(), time.Minute); !slices.Equal(got, []string{"dep-2", "dep-4", "open"}) {
		t.Fatalf("claimed %v, want the receipt changed after its check, the lapsed claim and the newly paid one", got)
	}
}

// A receipt that left the sweepable statuses after its sweep settled (which resets its check) is
// never a candidate, and Claim takes it off the work list instead of reading it on every pass;
// paid again (a higher version), it is due again. A refunded receipt stays a candidate: a refund
// is sent from the merchant's wallet, and a payment still at its deposit is swept to the split (so
// does a failed one since stop 69: the status left here is ach_pending, which is never swept).
func TestDepositSweepsForgetsRefundedReceipts(t *testing.T) {
	pool := pgtest.Pool(t)
	d := NewDepositSweeps(pool)
	seedDepositReceipts(t, pool, 2)
	token := uuid.New()
	cands, err := d.Claim(context.Background(), token, time.Minute, 10)
	if err != nil || len(cands) != 2 {
		t.Fatalf("first claim: %d, %v", len(cands), err)
	}
	if err := d.Checked(context.Background(), token, cands); err != nil {
		t.Fatal(err)
	}
	exec(t, pool, `UPDATE deposit_sweeps SET checked_version = 0`) // as SettleSweep leaves a swept receipt
	exec(t, pool, `UPDATE receipts SET status = 'ach_pending', version = 6 WHERE receipt_id = 'dep-1'`)
	exec(t, pool, `UPDATE receipts SET status = 'refunded', version = 6 WHERE receipt_id = 'dep-2'`)
	if got := claimIDs(t, d, uuid.New(), time.Minute); !slices.Equal(got, []string{"dep-2"}) {
		t.Fatalf("claimed %v, want only the refunded receipt", got)
	}
	var due []string
	if err := pool.QueryRow(context.Background(), `SELECT coalesce(array_agg(receipt_id ORDER BY receipt_id), '{}') FROM deposit_sweeps WHERE due`).Scan(&due); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(due, []string{"dep-2"}) { // dep-2 stays due: claimed, not checked here
		t.Fatalf("due after the claim: %v, want the ach_pending receipt off the list", due)
	}
	exec(t, pool, `UPDATE receipts SET status = 'paid', version = 7 WHERE receipt_id = 'dep-1'`)
	if got := claimIDs(t, d, uuid.New(), time.Minute); !slices.Equal(got, []string{"dep-1"}) {
		t.Fatalf("claimed %v after it was paid again, want dep-1", got)
	}
}

// A receipt the sweeper claims and leaves claimed without checking it (its stream cannot be read,
// during a rollback: settlement's due keeps its claim to try again) goes behind the receipts not
// claimed. Before, claims came oldest change first whoever held them, so a full claim of such
// receipts (1,000 a pass) came back first on every pass and no other deposit was swept.
func TestDepositSweepsClaimsUnclaimedBeforeTheKept(t *testing.T) {
	pool := pgtest.Pool(t)
	d := NewDepositSweeps(pool)
	seedDepositReceipts(t, pool, 4)
	token := uuid.New()
	first, err := d.Claim(context.Background(), token, time.Minute, 2)
	if err != nil || len(first) != 2 || first[0].ReceiptID != "dep-1" || first[1].ReceiptID != "dep-2" {
		t.Fatalf("first claim: %+v, %v; want the two oldest", first, err)
	}
	// Neither checked nor swept: kept claimed by the same sweeper, which claims again.
	if got := claimOf(t, d, token, 2); !slices.Equal(got, []string{"dep-3", "dep-4"}) {
		t.Fatalf("second claim: %v, want the receipts not claimed yet", got)
	}
	if got := claimOf(t, d, token, 2); !slices.Equal(got, []string{"dep-1", "dep-2"}) {
		t.Fatalf("third claim: %v, want the longest claimed again", got)
	}
}

func claimOf(t *testing.T, d *DepositSweeps, token uuid.UUID, limit int) []string {
	t.Helper()
	cands, err := d.Claim(context.Background(), token, time.Minute, limit)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, c := range cands {
		ids = append(ids, c.ReceiptID)
	}
	slices.Sort(ids)
	return ids
}

// TestDepositSweepsCheckedKeepsHeldFunds (stop 71): a check that leaves a failed receipt's funds
// under the sweep floor keeps them on the row (held_units, and held_at, which a later check
// holding other units keeps); a check holding nothing clears them, and so does a sweep recorded
// for the receipt.
func TestDepositSweepsCheckedKeepsHeldFunds(t *testing.T) {
	pool := pgtest.Pool(t)
	ctx := context.Background()
	d := NewDepositSweeps(pool)
	seedDepositReceipts(t, pool, 2)
	row := func(id string) (string, *time.Time) {
		t.Helper()
		var held *string
		var at *time.Time
		if err := pool.QueryRow(ctx, `SELECT held_units::text, held_at FROM deposit_sweeps WHERE receipt_id = $1`, id).Scan(&held, &at); err != nil {
			t.Fatal(err)
		}
		if held == nil {
			return "", at
		}
		return *held, at
	}
	// check claims the receipts at version, each checked with the held units given (by id).
	check := func(version int, held map[string]map[string]string) (uuid.UUID, []settlement.SweepCandidate) {
		t.Helper()
		exec(t, pool, `UPDATE receipts SET version = $1`, version)
		token := uuid.New()
		cands, err := d.Claim(ctx, token, time.Minute, 10)
		if err != nil || len(cands) != 2 {
			t.Fatalf("claim at version %d: %d, %v", version, len(cands), err)
		}
		for i := range cands {
			cands[i].Held = held[cands[i].ReceiptID]
		}
		return token, cands
	}
	token, cands := check(4, map[string]map[string]string{"dep-1": {"USDC": "1", "ETH": "1"}, "dep-2": {"USDC": "3"}})
	if err := d.Checked(ctx, token, cands); err != nil {
		t.Fatal(err)
	}
	held, at := row("dep-1")
	if held != `{"ETH": "1", "USDC": "1"}` || at == nil {
		t.Fatalf("dep-1 held %q at %v", held, at)
	}
	if held, at := row("dep-2"); held != `{"USDC": "3"}` || at == nil {
		t.Fatalf("dep-2 held %q at %v", held, at)
	}

	token, cands = check(5, map[string]map[string]string{"dep-1": {"USDC": "2", "ETH": "1"}})
	if err := d.Checked(ctx, token, cands[:1]); err != nil {
		t.Fatal(err)
	}
	if _, err := d.RecordSweep(ctx, token, settlement.OperatorTx{Sender: "0xop", Nonce: 1, Kind: settlement.TxSweep, Hash: "0xsweep", Raw: []byte{1}},
		[]string{cands[1].ReceiptID}); err != nil {
		t.Fatal(err)
	}
	if held2, at2 := row(cands[0].ReceiptID); held2 != `{"ETH": "1", "USDC": "2"}` || at2 == nil || !at2.Equal(*at) {
		t.Fatalf("held again: %q at %v, want the new units since %v", held2, at2, at)
	}
	if held, at := row(cands[1].ReceiptID); held != "" || at != nil {
		t.Fatalf("in a sweep: held %q at %v, want nothing", held, at)
	}

	exec(t, pool, `UPDATE receipts SET version = 6`)
	token = uuid.New()
	again, err := d.Claim(ctx, token, time.Minute, 10)
	if err != nil || len(again) != 1 {
		t.Fatalf("claim a third time: %+v, %v", again, err)
	}
	if err := d.Checked(ctx, token, again); err != nil {
		t.Fatal(err)
	}
	if held, at := row(again[0].ReceiptID); held != "" || at != nil {
		t.Fatalf("checked with nothing held: %q at %v", held, at)
	}
}

// Renew restamps the token's own claims, and only those: a claim renewed within the lease is not
// taken over, one of another token left unrenewed is (stop 83).
func TestDepositSweepsRenewKeepsOnlyItsOwnClaims(t *testing.T) {
	pool := pgtest.Pool(t)
	ctx := context.Background()
	d := NewDepositSweeps(pool)
	seedDepositReceipts(t, pool, 4)
	live, dead, next := uuid.New(), uuid.New(), uuid.New()
	exec(t, pool, `UPDATE deposit_sweeps SET claim_token = $1, claimed_at = now() - interval '1 hour' WHERE receipt_id IN ('dep-1', 'dep-2')`, live)
	exec(t, pool, `UPDATE deposit_sweeps SET claim_token = $1, claimed_at = now() - interval '1 hour' WHERE receipt_id IN ('dep-3', 'dep-4')`, dead)
	if err := d.Renew(ctx, live); err != nil {
		t.Fatal(err)
	}
	if got := claimIDs(t, d, next, time.Minute); !slices.Equal(got, []string{"dep-3", "dep-4"}) {
		t.Fatalf("taken over: %v, want only the unrenewed claims", got)
	}
	var renewed int
	if err := pool.QueryRow(ctx, `SELECT count(*) FROM deposit_sweeps WHERE claim_token = $1 AND claimed_at > now() - interval '1 minute'`,
		live).Scan(&renewed); err != nil || renewed != 2 {
		t.Fatalf("%d of the live token's claims renewed (%v), want 2", renewed, err)
	}
}
