package transport

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/payledger/payledger/commands"
	"github.com/payledger/payledger/domain/receipt"
	"github.com/payledger/payledger/eventstore"
)

// TestTheAmountsNameTheirToken (stop 69, status): a receipt paid in two tokens, 0.002 ETH first
// and then the rest in USDC, reads amountReceived "0.004" in ETH (the first transfer's token,
// receipt.State.RequestedToken), while its token is the paying transfer's, USDC. The status read
// showed "0.004" beside "USDC" and nothing naming ETH; the export wrote the same row. Now the
// status read names the amounts' token (amountToken), and the export's token cell beside
// amountReceived is the token that amount is in; a receipt paid in one token reads as before.
func TestTheAmountsNameTheirToken(t *testing.T) {
	t.Parallel()
	e := portalEnv(t)
	m := e.merchant(true)
	mixed, single := e.receiptFor(m, "12.34"), e.receiptFor(m, "12.34")
	e.quoteFor(mixed, receipt.TokenQuoted{Token: "ETH", Amount: "0.004", TokenUSDPrice: "3085", AmountUSD: "12.34"})
	e.creditIn(mixed, "0x"+strings.Repeat("a", 64), "ETH", "2000000000000000", 18) // 0.002 ETH, half
	e.creditIn(mixed, "0x"+strings.Repeat("b", 64), "USDC", "6170000", 6)          // 6.17 USDC, the other half
	e.creditIn(single, "0x"+strings.Repeat("c", 64), "USDC", "12340000", 6)
	waitUntil(t, "both paid", 10*time.Second, func() bool {
		return e.status(m, mixed)["status"] == "paid" && e.status(m, single)["status"] == "paid"
	})

	st := e.status(m, mixed)
	if st["amountReceived"] != "0.004" || st["amountRequired"] != "0.004" {
		t.Fatalf("amounts of the mixed payment: required %v, received %v", st["amountRequired"], st["amountReceived"])
	}
	if st["amountToken"] != "ETH" {
		t.Errorf("status read: amounts %v/%v with amountToken %v (token %v): the amounts are in ETH",
			st["amountReceived"], st["amountRequired"], st["amountToken"], st["token"])
	}
	if got := decode(t, e.dev(m, http.MethodGet, "/api/receipts/"+mixed, ""))["receipt"].(map[string]any); got["amountToken"] != "ETH" {
		t.Errorf("receipt read: amounts %v/%v with amountToken %v: the amounts are in ETH", got["amountReceived"], got["amountRequired"], got["amountToken"])
	}
	if st["token"] != "USDC" {
		t.Errorf("status read: token %v, want the paying transfer's USDC (unchanged)", st["token"])
	}
	one := e.status(m, single)
	if one["token"] != "USDC" || one["amountToken"] != "USDC" || one["amountReceived"] != "12.34" {
		t.Errorf("single token: token %v, amountToken %v, amountReceived %v", one["token"], one["amountToken"], one["amountReceived"])
	}

	out := e.dev(m, http.MethodGet, "/api/exports/receipts.csv", "")
	if out.Code != 200 {
		t.Fatalf("export: %d %s", out.Code, out.Body)
	}
	rows := map[string][]string{}
	for _, r := range readCSV(t, out.Body.String())[1:] {
		rows[r[0]] = r
	}
	if r := rows[mixed]; r == nil || r[8] != "ETH" || r[9] != "0.004" {
		t.Errorf("export of the mixed payment: token %q beside amountReceived %q, want ETH beside 0.004", r[8], r[9])
	}
	if r := rows[single]; r == nil || r[8] != "USDC" || r[9] != "12.34" {
		t.Errorf("export of the single-token payment: token %q, amountReceived %q", r[8], r[9])
	}
}

// quoteFor records q (at the clock's now) on receipt id, as a quote of the payment page does,
// and waits until the read model has it.
func (e *env) quoteFor(id string, q receipt.TokenQuoted) {
	e.t.Helper()
	q.At = e.clk.Now().UnixMilli()
	e.changeAndWait(id, func(receipt.State) ([]receipt.Event, error) { return []receipt.Event{q}, nil })
}

// creditIn records a confirmed transfer of units (of decimals) of token to receipt id's deposit
// address, as the deposit detector does, and waits until the read model has it.
func (e *env) creditIn(id, tx, token, units string, decimals uint8) {
	e.t.Helper()
	seen := receipt.DepositTransferSeen{TransactionHash: tx, LogIndex: 0, BlockNumber: 7, BlockHash: "0xb7", Sender: "0xbuyer",
		Token: token, AmountUnits: units, Decimals: decimals, At: e.clk.Now().UnixMilli()}
	e.changeAndWait(id, func(st receipt.State) ([]receipt.Event, error) {
		return receipt.ObserveDeposit(st, receipt.DepositObservation{Transfer: seen, Confirmed: true, At: seen.At})
	})
}

func (e *env) changeAndWait(id string, decide func(receipt.State) ([]receipt.Event, error)) {
	e.t.Helper()
	ctx := context.Background()
	_, res, err := commands.ChangeReceipt(ctx, e.svc.Events, id, eventstore.Metadata{Actor: "test"}, decide)
	if err != nil {
		e.t.Fatal(err)
	}
	if err := e.srv.waitReadable(ctx, id, res); err != nil {
		e.t.Fatal(err)
	}
}
