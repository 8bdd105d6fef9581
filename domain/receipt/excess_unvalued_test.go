package receipt

import (
	"fmt"
	"testing"
)

// Stop 71 (the refunds review): a transfer in a token the receipt has no price for is listed as
// unvalued excess in its own token, summed per token; before, no read showed it (ExcessCents and
// AmountReceived leave it out).
func TestUnvaluedExcessListsTokensWithoutAPrice(t *testing.T) {
	t.Parallel()
	s := overpaid(t) // 10 + 2 USDC for 10.00, quoted in USDC only
	if got := s.UnvaluedExcess(); got != nil {
		t.Fatalf("priced transfers only: %v", got)
	}
	for i, units := range []string{"10000000000000000", "5000000000000000"} { // 0.01 + 0.005 ETH
		tx := fmt.Sprintf("0xe%d", i)
		s = apply(t, s, []Event{
			DepositTransferSeen{TransactionHash: tx, LogIndex: 0, BlockNumber: 7, BlockHash: "0xb7", Sender: "0xc0ffee", Token: "ETH", AmountUnits: units, Decimals: 18, At: 7},
			DepositTransferConfirmed{TransactionHash: tx, LogIndex: 0, BlockNumber: 7, BlockHash: "0xb7", At: 8},
		}, nil)
	}
	got := s.UnvaluedExcess()
	if len(got) != 1 || got[0] != (TokenAmount{Token: "ETH", Amount: "0.015"}) || s.ExcessCents() != 200 || s.AmountReceived() != "12.00" {
		t.Fatalf("unvalued %v, excess %d, received %s; want ETH 0.015, 200, 12.00", got, s.ExcessCents(), s.AmountReceived())
	}
}
