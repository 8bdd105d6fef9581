package receipt

import (
	"fmt"
	"math/big"
	"testing"
)

// TestManyTransfersAreJudgedAtTheCostOfOne: 1,500 confirmed transfers of one base unit each (a
// contract logs hundreds in one transaction, for cents of gas, to any deposit address) cover what
// they bring, exactly, and the share they cover is one term per token, not one per transfer: with
// a term per transfer its denominator was the product of 1,500 thresholds (over 50,000 bits),
// and each decision on such a receipt cost it seconds of CPU (5,000 transfers: minutes).
func TestManyTransfersAreJudgedAtTheCostOfOne(t *testing.T) {
	t.Parallel()
	s := depositReceipt() // 12.31 USD
	var evs []Event
	for i := range 1500 {
		tx := fmt.Sprintf("0xd%063x", i)
		evs = append(evs, DepositTransferSeen{TransactionHash: tx, LogIndex: i % 7, BlockNumber: 5, BlockHash: "0xb5", Sender: "0xdust",
			Token: []string{"USDC", "usdc", "USDT"}[i%3], AmountUnits: "1", Decimals: 6},
			DepositTransferConfirmed{TransactionHash: tx, LogIndex: i % 7, BlockNumber: 5, BlockHash: "0xb5"})
	}
	s = withEvents(t, s, evs...)
	if _, den := s.coveredShare(); den.BitLen() > 256 {
		t.Fatalf("the covered share's denominator has %d bits for two tokens", den.BitLen())
	}
	if s.Covered() || s.AmountReceived() != "0.0015" {
		t.Fatalf("1,500 base units: covered %v, received %s", s.Covered(), s.AmountReceived())
	}
	if due := s.DueUnits(Required{Amount: big.NewRat(1231, 100)}, 6); due.String() != "12308500" {
		t.Fatalf("due %s, want 12308500", due)
	}
	rest := func(units string) State {
		return withEvents(t, s, DepositTransferSeen{TransactionHash: "0xrest", LogIndex: 0, BlockNumber: 6, BlockHash: "0xb6", Sender: "0xbuyer",
			Token: "USDT", AmountUnits: units, Decimals: 6},
			DepositTransferConfirmed{TransactionHash: "0xrest", LogIndex: 0, BlockNumber: 6, BlockHash: "0xb6"})
	}
	if rest("12308499").Covered() || !rest("12308500").Covered() {
		t.Fatal("the rest to the base unit: covered one short, or not covered when exact")
	}
}
