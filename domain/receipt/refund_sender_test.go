package receipt

import "testing"

// Stop 68: the refund's record keeps where it came from, for each token of a mix too, and a
// reorg that takes it back clears it with the rest of what the chain showed.
func TestRefundKeepsItsSender(t *testing.T) {
	t.Parallel()
	base := paidInTwoStables(t)
	s := then(t, base)(RequestRefund(base, RefundOrder{AmountCents: 1000, Reason: "r", TransactionHash: hashA, By: "m", At: 20}))
	p, reason, ok := JudgeRefund(s, RefundEvidence{TransactionHash: hashA, Succeeded: true, BlockNumber: 9, BlockHash: "0xb9", At: 30,
		Transfers: []ChainTransfer{
			{Token: "USDC", Decimals: 6, From: "0xMerchant", To: "0xc0ffee", AmountUnits: "5000000"},
			{Token: "USDT", Decimals: 6, From: "0xexchange", To: "0xbeef", AmountUnits: "5000000"},
		}})
	if !ok || p.Sender != "0xmerchant" || len(p.Parts) != 2 || p.Parts[0].Sender != "0xmerchant" || p.Parts[1].Sender != "0xexchange" {
		t.Fatalf("judged %v %q: %+v", ok, reason, p)
	}
	s = then(t, s)(ProcessRefund(s, p))
	if r, _ := s.CountedRefund(hashA); r.Sender != "0xmerchant" {
		t.Fatalf("record %+v", r)
	}
	s = then(t, s)(RevertRefund(s, hashA, 40))
	if r, _ := s.CountedRefund(hashA); r.State != RefundStateClaimed || r.Sender != "" {
		t.Fatalf("reverted %+v", r)
	}
}
