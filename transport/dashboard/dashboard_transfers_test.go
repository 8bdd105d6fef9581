package dashboard

import (
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/payledger/payledger/domain/money"
	"github.com/payledger/payledger/domain/receipt"
)

// TestDashboardTransfersAndTotals: a receipt paid by two transfers lists both (sender, amount
// in the token, hash) linked to the explorer when there is one, and its tax and fee appear once
// (as lines), not again in the totals.
func TestDashboardTransfersAndTotals(t *testing.T) {
	hash1, hash2 := "0x"+strings.Repeat("1", 64), "0x"+strings.Repeat("2", 64)
	st := receipt.State{Status: receipt.StatusPaid, Receipt: receipt.Generated{ReceiptID: "rcpt_two", Currency: "USD",
		Subtotal: 1150, Tax: 100, Fee: 81, Total: 1331, LineItems: []receipt.LineItem{
			{Label: "Coffee", Amount: 1150, Kind: receipt.KindItem, Qty: 1, Unit: money.Cents(1150)},
			{Label: "Tax", Amount: 100, Kind: receipt.KindTax}, {Label: "Processing fee", Amount: 81, Kind: receipt.KindFee}}},
		Credits: []receipt.Credit{
			{TransactionHash: hash1, Sender: "0xaaaa000000000000000000000000000000000001", Token: "USDC", AmountUnits: "5000000", Decimals: 6, Confirmed: true},
			{TransactionHash: hash2, Sender: "0xbbbb000000000000000000000000000000000002", Token: "usdt", AmountUnits: "8310000", Decimals: 6, Confirmed: true},
		}}
	ui, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	render := func(explorer string) string {
		v := dashReceiptOf(st)
		v.Transfers = dashTransfers(st, explorer)
		totalsOnce(&v)
		rec := httptest.NewRecorder()
		if err := ui.Render(rec, 200, "receipt", Frame{Title: "Receipt"}, v); err != nil {
			t.Fatal(err)
		}
		return rec.Body.String()
	}
	html := render("https://basescan.org/")
	for _, want := range []string{
		`<code class="sender">0xaaaa000000000000000000000000000000000001</code>`, `5.00 USDC`,
		`<a class="tx" href="https://basescan.org/tx/` + hash1 + `"`,
		`<code class="sender">0xbbbb000000000000000000000000000000000002</code>`, `8.31 USDT`,
		`<a class="tx" href="https://basescan.org/tx/` + hash2 + `"`,
	} {
		if !strings.Contains(html, want) {
			t.Errorf("the page lacks %s", want)
		}
	}
	if strings.Count(html, `class="transfer"`) != 2 || strings.Contains(html, `id="tax"`) || strings.Contains(html, `id="fee"`) {
		t.Errorf("transfers %d; tax or fee repeated in the totals", strings.Count(html, `class="transfer"`))
	}
	if plain := render(""); strings.Contains(plain, `<a class="tx"`) || !strings.Contains(plain, `<code class="tx">`+hash2+`</code>`) {
		t.Error("without EXPLORER_URL a transfer still links, or lacks its hash")
	}
}
