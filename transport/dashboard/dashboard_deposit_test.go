package dashboard_test

import (
	"regexp"
	"strings"
	"testing"

	"github.com/payledger/payledger/transport/transporttest"
)

var depositAddressRE = regexp.MustCompile(`<dt>Deposit address</dt><dd><code>(0x[0-9a-fA-F]{40})</code></dd>`)

// TestDashboardReceiptShowsItsDepositAndAmounts (DESIGN 9: the receipt page's payment details
// are the deposit address and the amounts required and received): the page had the fields but
// nothing set them, so a receipt paid by deposit address read "Payment: none yet" with no
// address, and an underpaid one never said how much of what was due had arrived.
func TestDashboardReceiptShowsItsDepositAndAmounts(t *testing.T) {
	e := transporttest.New(t, transporttest.Portal())
	m := e.Merchant(true)
	id := e.ReceiptFor(m, "10")
	_, page, _ := e.Get("/dashboard/receipts/"+id, m.Cookies)
	addr := depositAddressRE.FindStringSubmatch(page)
	if addr == nil || !strings.Contains(page, `<dt>Required</dt><dd>10.00 USDC</dd>`) || strings.Contains(page, `<dt>Received</dt>`) {
		t.Fatalf("a new deposit receipt's page lacks its address or required amount, or shows one received:\n%s", page)
	}
	e.DepositCredit(id, "0x"+strings.Repeat("7", 64), "USDC", "4000000", true) // 4 of 10 USDC
	_, page, _ = e.Get("/dashboard/receipts/"+id, m.Cookies)
	if !strings.Contains(page, `<dt>Required</dt><dd>10.00 USDC</dd>`) || !strings.Contains(page, `<dt>Received</dt><dd>4.00 USDC</dd>`) ||
		!strings.Contains(page, addr[1]) {
		t.Fatalf("an underpaid receipt's page does not say what arrived of what is due:\n%s", page)
	}

	// A receipt without a deposit address (no deposit factory) shows none of them.
	plain := transporttest.New(t, transporttest.Options{})
	pm := plain.Merchant(true)
	_, page, _ = plain.Get("/dashboard/receipts/"+plain.ReceiptFor(pm, "10"), pm.Cookies)
	if strings.Contains(page, "Deposit address") || strings.Contains(page, "<dt>Required</dt>") || !strings.Contains(page, "none yet") {
		t.Fatalf("a receipt without a deposit address:\n%s", page)
	}
}
