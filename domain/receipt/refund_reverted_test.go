package receipt

import (
	"reflect"
	"testing"
)

// Stop 67: a refund a reorg took back is a claim again, as it was before it was processed: no
// proof, token, amount, recipient or block (docs/decisions.md, issue 41: "proof ... null while
// claimed", "token, amount and to are what the chain showed, null until then"). The record kept
// them, so it read "claimed" with proof chain and the amount of a block that left the chain, and
// "refused" so after a refusal.
func TestRefundRevertedIsAClaimAgain(t *testing.T) {
	t.Parallel()
	s := paidOnChain(t)
	s = then(t, s)(RequestRefund(s, RefundOrder{AmountCents: 400, Reason: "r", TransactionHash: hashA, RefundTo: "0xd00d", By: "m", At: 20}))
	claim := s.Refunds[0]
	p := verified(hashA)
	p.Parts = []RefundPart{{Token: "USDC", AmountUnits: "4000000", Decimals: 6, Recipient: "0xc0ffee"}}
	s = then(t, s)(ProcessRefund(s, p))
	if r := s.Refunds[0]; r.Proof != ProofChain || r.Token != "USDC" || r.BlockNumber != 9 {
		t.Fatalf("processed %+v", r)
	}
	s = then(t, s)(RevertRefund(s, hashA, 40))
	if r := s.Refunds[0]; !reflect.DeepEqual(r, claim) {
		t.Fatalf("reverted\n %+v\nwant the claim\n %+v", r, claim)
	}
	if got := s.Refunds[0].TokenAmount(); got != "" {
		t.Fatalf("a reverted refund's amount %q", got)
	}
	refused := then(t, s)(RefuseRefund(s, hashA, "no transfer to a payer", 50))
	if r := refused.Refunds[0]; r.State != RefundStateRefused || r.Proof != "" || r.Token != "" || r.AmountUnits != "" || r.Recipient != "" || r.BlockHash != "" {
		t.Fatalf("refused after the revert %+v", r)
	}
	// Processed again in another block, it says that block.
	p.BlockNumber, p.BlockHash = 12, "0xb12"
	again := then(t, s)(ProcessRefund(s, p))
	if r := again.Refunds[0]; r.State != RefundStateProcessed || r.Proof != ProofChain || r.BlockNumber != 12 || r.Token != "USDC" || len(r.Parts) != 1 {
		t.Fatalf("processed again %+v", r)
	}
}
