package main

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/core/types"
	"github.com/jackc/pgx/v5"

	"github.com/payledger/payledger/internal/wait"
)

// Two serve instances on one database and one chain, both running every worker (deposit
// detection, sweeps, split distribution, the payment window, the projectors' stand-by, webhook
// dispatch): receipts created through either and paid by plain transfers each reach reconciled
// with every step recorded once (one payment, one sweep, one distribution), no operator
// release wasted (none reverted: a second release of the same funds reverts), and
// each status change delivered to the merchant's endpoint exactly once. Run before the fix of
// the sweeper's stuck deposits, a receipt now and then stayed paid for good: its sweep, estimated
// while its split held funds, ran out of gas once the split's releases were mined first
// (TestSweepDepositsRevertedByAnEmptiedSplitIsSweptAgain).
func TestMultiServeDepositsSettledOnceByTwoInstances(t *testing.T) {
	d := newDepositServe(t, withDevchainFactory())
	baseB, outB, stopB := startServeStoppable(t, d.serveVars)
	t.Cleanup(stopB)
	clients := []*e2eClient{d.c, {t: t, base: baseB}}
	logs := func() string {
		return "instance A:\n" + tail(notRequests(d.out.String()), 8000) + "\ninstance B:\n" + tail(notRequests(outB.String()), 8000)
	}

	hooks := newHAHooks()
	receiver := httptest.NewServer(hooks)
	t.Cleanup(receiver.Close)
	if code, m := d.c.call(http.MethodPost, "/api/webhooks/endpoints", "", map[string]any{
		"url": receiver.URL + "/hook", "events": []string{"receipt.status_updated"}}); code != http.StatusCreated {
		t.Fatalf("register the webhook endpoint: %d %v", code, m)
	}

	ids, deposits := []string{d.id}, []string{d.deposit}
	for i := range 3 { // through B, A, B
		c := clients[(i+1)%2]
		code, m := c.call(http.MethodPost, "/api/receipts", d.apiKey, map[string]any{
			"lineItems": []map[string]any{{"label": "Coffee", "priceUsd": 12.5}}, "totalUsd": 12.5})
		if code != http.StatusCreated {
			t.Fatalf("create receipt through instance %d: %d %v", (i+1)%2, code, m)
		}
		id := findString(m, "receiptId")
		_, m = c.call(http.MethodGet, "/api/receipts/"+id, d.apiKey, nil)
		r, _ := m["receipt"].(map[string]any)
		dep, _ := r["depositAddress"].(string)
		if dep == "" {
			t.Fatalf("receipt %s has no deposit address: %v", id, m)
		}
		ids, deposits = append(ids, id), append(deposits, dep)
	}
	for _, dep := range deposits {
		sendDeposit(t, d.vars, d.accounts[0], dep)
	}
	for i, id := range ids {
		c := clients[i%2]
		if !wait.Poll(3*time.Minute, func() bool {
			_, m := c.call(http.MethodGet, "/api/receipts/status?receiptId="+id, d.apiKey, nil)
			return m["status"] == "reconciled"
		}) {
			_, m := c.call(http.MethodGet, "/api/receipts/status?receiptId="+id, d.apiKey, nil)
			t.Fatalf("receipt %d %s not reconciled: %v\n%s\n%s", i, id, m, multiState(t, d.direct, id), logs())
		}
	}
	for _, id := range ids {
		if !wait.Poll(time.Minute, func() bool { return len(hooks.of(id, "reconciled")) > 0 && len(hooks.of(id, "paid")) > 0 }) {
			t.Errorf("receipt %s: paid %v, reconciled %v delivered", id, hooks.of(id, "paid"), hooks.of(id, "reconciled"))
		}
	}

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	db, err := pgx.Connect(ctx, d.direct)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close(context.Background())
	for _, p := range multiTwice(t, ctx, db, ids) {
		t.Error(p)
	}
	for _, id := range ids {
		if err := hooks.once(id, "paid", "reconciled"); err != nil {
			t.Error(err)
		}
	}
	if dup := hooks.duplicates(); len(dup) > 0 {
		t.Errorf("webhook-ids delivered more than once: %v", dup)
	}
	if t.Failed() {
		t.Log(logs())
	}
}

// multiTwice lists what the ledger recorded more than once for the receipts ids, and the
// operator's releases and deployments that reverted.
func multiTwice(t *testing.T, ctx context.Context, db *pgx.Conn, ids []string) []string {
	t.Helper()
	var out []string
	rows, err := db.Query(ctx, `SELECT stream_id, type, count(*) FROM events
		WHERE type IN ('PaymentConfirmed', 'DepositSwept', 'SplitDistributed') GROUP BY 1, 2 HAVING count(*) <> 1`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var stream, typ string
		var n int
		if err := rows.Scan(&stream, &typ, &n); err != nil {
			t.Fatal(err)
		}
		out = append(out, fmt.Sprintf("%s: %d %s events", stream, n, typ))
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	for _, id := range ids {
		var swept, distributed int
		if err := db.QueryRow(ctx, `SELECT count(*) FILTER (WHERE type = 'DepositSwept'), count(*) FILTER (WHERE type = 'SplitDistributed')
			FROM events WHERE stream_id = 'receipt-' || $1`, id).Scan(&swept, &distributed); err != nil {
			t.Fatal(err)
		}
		if swept != 1 || distributed != 1 {
			out = append(out, fmt.Sprintf("receipt %s: %d DepositSwept, %d SplitDistributed, want 1 each", id, swept, distributed))
		}
	}
	// A second release of funds already released reverts (nothing is due). A sweep may revert
	// when its gas estimate is overtaken by a release of its split (see the sweeper's stuck);
	// its deposit is swept again, once, which the DepositSwept count above checks.
	rows, err = db.Query(ctx, `SELECT kind, nonce, tx_hash, split_address, payee FROM operator_transactions
		WHERE status = 'reverted' AND kind <> 'sweep' ORDER BY nonce`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		var kind, hash, split, payee string
		var nonce int64
		if err := rows.Scan(&kind, &nonce, &hash, &split, &payee); err != nil {
			t.Fatal(err)
		}
		out = append(out, fmt.Sprintf("operator %s at nonce %d reverted (%s, split %s, payee %s)", kind, nonce, hash, split, payee))
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// notRequests is a serve log without its request lines.
func notRequests(log string) string {
	var b strings.Builder
	for _, l := range strings.Split(log, "\n") {
		if !strings.Contains(l, `"message":"request"`) {
			b.WriteString(l + "\n")
		}
	}
	return b.String()
}

// multiState is what the database holds of receipt id's settlement: its events, its sweep row and
// the operator's transactions.
func multiState(t *testing.T, dbURL, id string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	db, err := pgx.Connect(ctx, dbURL)
	if err != nil {
		return err.Error()
	}
	defer db.Close(context.Background())
	var b strings.Builder
	for _, q := range []string{
		`SELECT version::text || ' ' || type || ' ' || left(data::text, 300) FROM events WHERE stream_id = 'receipt-' || $1 ORDER BY version`,
		`SELECT row_to_json(s)::text FROM deposit_sweeps s WHERE receipt_id = $1`,
		`SELECT status || ' v' || version::text FROM receipts WHERE receipt_id = $1`,
		`SELECT row_to_json(o)::text FROM (SELECT id, nonce, kind, tx_hash, split_address, token, payee, status, amount FROM operator_transactions WHERE $1 <> '' ORDER BY nonce) o`,
	} {
		rows, err := db.Query(ctx, q, id)
		if err != nil {
			fmt.Fprintf(&b, "%s: %v\n", q, err)
			continue
		}
		lines, err := pgx.CollectRows(rows, pgx.RowTo[string])
		fmt.Fprintf(&b, "%s\n%v\n", strings.Join(lines, "\n"), err)
	}
	rows, err := db.Query(ctx, `SELECT nonce, status, coalesce(gas_used, 0), raw_tx FROM operator_transactions WHERE kind = 'sweep' ORDER BY nonce`)
	if err == nil {
		for rows.Next() {
			var nonce, used int64
			var status string
			var raw []byte
			if rows.Scan(&nonce, &status, &used, &raw) == nil {
				var tx types.Transaction
				_ = tx.UnmarshalBinary(raw)
				fmt.Fprintf(&b, "sweep %d %s gas used %d of %d\n", nonce, status, used, tx.Gas())
			}
		}
		rows.Close()
	}
	rows, err = db.Query(ctx, `SELECT nonce, status, coalesce(gas_used, 0), raw_tx FROM operator_transactions WHERE kind = 'sweep' ORDER BY nonce`)
	if err == nil {
		for rows.Next() {
			var nonce, used int64
			var status string
			var raw []byte
			if rows.Scan(&nonce, &status, &used, &raw) == nil {
				var tx types.Transaction
				_ = tx.UnmarshalBinary(raw)
				fmt.Fprintf(&b, "sweep %d %s gas used %d of %d\n", nonce, status, used, tx.Gas())
			}
		}
		rows.Close()
	}
	return b.String()
}
