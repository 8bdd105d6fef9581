package transport

import (
	"net/http"
	"strings"
	"testing"
	"time"
)

// TestExportRowsAgreeWithTheStatusRead: a receipt's export row says what its status read says of
// it: status, amount received and, with the amount, the token, transaction and sender it came
// with. A deposit receipt paid in part (pending, 5.00 of 12.34 received) was exported with its
// amountReceived but an empty token, transactionHash and buyerWallet, which the status read
// showed (the first transfer seen), so the row did not say in what, or from whom, 5.00 arrived.
func TestExportRowsAgreeWithTheStatusRead(t *testing.T) {
	t.Parallel()
	e := portalEnv(t)
	m := e.merchant(true)
	paid, part := e.receiptFor(m, "12.34"), e.receiptFor(m, "12.34")
	e.depositCredit(paid, "0x"+strings.Repeat("1", 64), "USDC", "12340000", true)
	e.depositCredit(part, "0x"+strings.Repeat("2", 64), "USDC", "5000000", true)
	waitUntil(t, "paid", 10*time.Second, func() bool { return e.status(m, paid)["status"] == "paid" })

	out := e.dev(m, http.MethodGet, "/api/exports/receipts.csv", "")
	if out.Code != 200 {
		t.Fatalf("export: %d %s", out.Code, out.Body)
	}
	rows := map[string][]string{}
	for _, r := range readCSV(t, out.Body.String())[1:] {
		rows[r[0]] = r
	}
	for _, id := range []string{paid, part} {
		st, row := e.status(m, id), rows[id]
		if row == nil {
			t.Fatalf("no row for %s", id)
		}
		for col, field := range map[int]string{2: "status", 8: "token", 9: "amountReceived", 10: "transactionHash", 11: "buyerWallet"} {
			want, _ := st[field].(string)
			if row[col] != want {
				t.Errorf("%s (status %s): %s exported as %q, the status read says %q", id, st["status"], field, row[col], want)
			}
		}
	}
	if rows[part][9] != "5.00" {
		t.Errorf("amountReceived of the part payment: %q", rows[part][9])
	}
}
