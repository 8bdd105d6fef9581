package receipt

import "testing"

// at is transfer with its log index and block.
func at(tx, units string, logIndex int, block string) DepositTransferSeen {
	t := transfer(tx, "USDC", units, 6, block)
	t.LogIndex = logIndex
	return t
}

// A confirmed transfer whose block a reorg replaced, mined again in another block at another log
// index, is the same transfer: an underpaid receipt stays underpaid with one credit (it was paid
// by 6 USDC counted twice), whether it moved before or after its depth.
func TestObserveDepositMovedToAnotherLogIndex(t *testing.T) {
	t.Parallel()
	for _, confirmedFirst := range []bool{true, false} {
		s, _ := observe(t, depositReceipt(), DepositObservation{Transfer: at("0xA", "6000000", 0, "0xb1"), Confirmed: confirmedFirst})
		s, _ = observe(t, s, DepositObservation{Transfer: at("0xa", "6000000", 1, "0xb2")})
		s, _ = observe(t, s, DepositObservation{Transfer: at("0xa", "6000000", 1, "0xb2"), Confirmed: true})
		if len(s.Credits) != 1 || s.Status != StatusPending || s.AmountReceived() != "6.00" {
			t.Fatalf("confirmed first %v: %s received %s credits %+v", confirmedFirst, s.Status, s.AmountReceived(), s.Credits)
		}
		if !confirmedFirst && (s.Credits[0].BlockHash != "0xb2" || s.Credits[0].LogIndex != 1 || !s.Credits[0].Counts()) {
			t.Fatalf("moved before the depth: %+v, want counted in 0xb2 at log 1", s.Credits[0])
		}
	}
}

// A transaction with two transfers to the deposit is two credits; mined again elsewhere at other
// indices (one of them the other's old index), it is still two.
func TestObserveDepositTwoTransfersOfOneTransaction(t *testing.T) {
	t.Parallel()
	s := depositReceipt()
	for _, li := range []int{3, 5} {
		s, _ = observe(t, s, DepositObservation{Transfer: at("0xA", "4000000", li, "0xb1")})
	}
	if len(s.Credits) != 2 {
		t.Fatalf("two transfers of one transaction: %+v", s.Credits)
	}
	for _, li := range []int{5, 7} {
		s, _ = observe(t, s, DepositObservation{Transfer: at("0xA", "4000000", li, "0xb2"), Confirmed: true})
	}
	if len(s.Credits) != 2 || s.AmountReceived() != "8.00" || s.Status != StatusPending {
		t.Fatalf("moved: %s received %s credits %+v", s.Status, s.AmountReceived(), s.Credits)
	}
	for _, c := range s.Credits {
		if c.BlockHash != "0xb2" || !c.Counts() {
			t.Fatalf("a credit left in the replaced block: %+v", s.Credits)
		}
	}
	// The old block's transfers reported dropped change nothing: their credits moved.
	for _, li := range []int{3, 5} {
		if _, evs := observe(t, s, DepositObservation{Transfer: at("0xA", "4000000", li, "0xb1"), Dropped: true}); len(evs) != 0 {
			t.Fatalf("dropped after the move: %v", evs)
		}
	}
}

// Replay: a stream recorded before the rule (events are immutable) folds as it did when no
// transaction is credited in two blocks: two transfers of one transaction in one block, and a
// transfer moved at the same log index.
func TestDepositReplayUnchanged(t *testing.T) {
	t.Parallel()
	s := depositReceipt()
	for _, e := range []Event{at("0xA", "4000000", 3, "0xb1"), at("0xA", "4000000", 5, "0xb1"),
		DepositTransferConfirmed{TransactionHash: "0xA", LogIndex: 3, BlockHash: "0xb1"}, DepositTransferConfirmed{TransactionHash: "0xA", LogIndex: 5, BlockHash: "0xb1"},
		at("0xB", "1000000", 0, "0xb1"), DepositTransferDropped{TransactionHash: "0xB", LogIndex: 0, BlockHash: "0xb1"}, at("0xB", "1000000", 0, "0xb3"),
		DepositTransferConfirmed{TransactionHash: "0xB", LogIndex: 0, BlockHash: "0xb3"}} {
		s = Evolve(s, e)
	}
	if len(s.Credits) != 3 || s.AmountReceived() != "9.00" || s.Credits[2].BlockHash != "0xb3" {
		t.Fatalf("replayed: received %s credits %+v", s.AmountReceived(), s.Credits)
	}
}
