package receipt

import "strings"

// Balance credits (DESIGN 9, settlement's deposit detector): ETH that a contract sends a deposit
// (an internal call) shows in no transaction's fields, so the detector reads the deposit's ETH
// balance at the end of a block and credits what it holds beyond the credits as one credit of
// that block, keyed by the block's hash and a log index below ETHLogIndex.
//   - Such a credit holds every ETH arrival at or before its block that was not credited when it
//     was read: ETH dust (dust_transfers.go) among them. A transfer by transaction mined at or
//     before the block of a balance credit that still counts or may count (not dropped) and not
//     credited yet is held by it: it adds nothing (HeldByBalance). Recorded, it counted twice:
//     a reorg's rescan (or a second detector) judging a dust transfer again once the balance
//     credit had lowered what is due found it no dust any more, and a receipt was paid by ETH it
//     never received (stop 71).
//   - So does a balance credit read while an ETH transfer credited before was dropped (its block
//     left the chain): the read counted what the credits held, and a dropped one holds nothing,
//     so the transfer mined again at or before the balance's block is in that balance. Seen
//     again there it is not recorded again (heldAgain); recorded, it counted twice (stop 72).
//     Dropped after the read, the balance did not count it, and it is recorded as before. The
//     credit keeps which balance credit was read last while it was dropped (Credit.HeldBy).
//   - Its ETH was at the deposit at the end of its block: it is after every sweep of that block
//     (swept.go's Unswept).

// isBalance says whether c is a credit of the deposit's balance, not of one transfer.
func (c Credit) isBalance() bool { return c.LogIndex < ETHLogIndex }

// HeldByBalance says whether the new transfer t is ETH a balance credit holds already (the rules
// above): an ETH transfer by transaction mined at or before the block of a balance credit that is
// not dropped.
func (s State) HeldByBalance(t DepositTransferSeen) bool {
	if t.LogIndex != ETHLogIndex {
		return false
	}
	for _, c := range s.Credits {
		if c.isBalance() && !c.Dropped && c.BlockNumber >= t.BlockNumber && strings.EqualFold(c.Token, t.Token) {
			return true
		}
	}
	return false
}

// droppedETH says whether c is an ETH transfer by transaction that is dropped.
func (c Credit) droppedETH() bool { return c.LogIndex == ETHLogIndex && c.Dropped }

// heldAgain says whether the dropped ETH credit c, seen again as t, is held by the balance credit
// read while it was dropped (the rules above): that credit is not dropped and its block is at or
// after t's.
func (s State) heldAgain(c Credit, t DepositTransferSeen) bool {
	if !c.droppedETH() || c.HeldBy == "" {
		return false
	}
	for _, b := range s.Credits {
		if b.isBalance() && !b.Dropped && b.BlockNumber >= t.BlockNumber && strings.EqualFold(b.BlockHash, c.HeldBy) {
			return true
		}
	}
	return false
}
