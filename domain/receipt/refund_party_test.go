package receipt

import (
	"strings"
	"testing"
)

// Stop 68: the customer's addresses (its payers and the refundTo the merchant named) are one
// party, as netFlows says: money moving between two of them brings the customer nothing. A
// transfer from the named refundTo to a payer counted as money going back, so a refund routed
// through refundTo (5 USDC to it, then the same 5 on to the payer, in one transaction) proved
// 10.00, and a transfer between the customer's own wallets proved a refund the merchant never
// sent.
func TestRefundBetweenTheCustomersAddressesCountsOnce(t *testing.T) {
	t.Parallel()
	base := paidOnChain(t) // 10 USDC paid by 0xc0ffee
	claim := func(cents int64, refundTo string) State {
		return then(t, base)(RequestRefund(base, RefundOrder{AmountCents: cents, Reason: "r", TransactionHash: hashA, RefundTo: refundTo, By: "m", At: 20}))
	}
	usdc := func(from, to, units string) ChainTransfer {
		return ChainTransfer{Token: "USDC", Decimals: 6, From: from, To: to, AmountUnits: units}
	}
	for _, c := range []struct {
		name      string
		cents     int64
		transfers []ChainTransfer
		ok        bool
		reason    string
	}{
		{"5 through refundTo on to the payer is 5, not 10", 1000,
			[]ChainTransfer{usdc("0xmerchant", "0xd00d", "5000000"), usdc("0xd00d", "0xc0ffee", "5000000")}, false, "sends 5000000 base units of USDC back"},
		{"5 through refundTo on to the payer refunds 5.00", 500,
			[]ChainTransfer{usdc("0xmerchant", "0xd00d", "5000000"), usdc("0xd00d", "0xc0ffee", "5000000")}, true, ""},
		{"refundTo's own transfer to the payer is no refund", 400,
			[]ChainTransfer{usdc("0xd00d", "0xc0ffee", "4000000")}, false, "sends no USDC to a payer"},
		{"the merchant's refund to refundTo still counts", 400,
			[]ChainTransfer{usdc("0xmerchant", "0xd00d", "4000000")}, true, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, reason, ok := JudgeRefund(claim(c.cents, "0xd00d"), RefundEvidence{TransactionHash: hashA, Succeeded: true, Transfers: c.transfers,
				BlockNumber: 9, BlockHash: "0xb9", At: 30})
			if ok != c.ok || !strings.Contains(reason, c.reason) {
				t.Fatalf("ok %v reason %q, want %v %q", ok, reason, c.ok, c.reason)
			}
		})
	}
}
