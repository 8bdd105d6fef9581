package receipt

import "strings"

// Balance credits (DESIGN 9, settlement's deposit detector): ETH that a contract sends a deposit
// (an internal call) shows in no transaction's fields, so the detector reads the deposit's ETH
// balance at the end of a block and credits what it holds beyond the credits as one credit of
// that block, keyed by the block's hash and a log index below ETHLogIndex.
//   - Such a credit holds every ETH arrival at or before its block that was not credited when it
//     was read: ETH dust (dust_transfers.go) among them. A transfer by transaction mined at or
//     before the block of a balance credit that still counts or may count (not dropped) and not
//     credited yet is held by it: it adds nothing (heldByBalance). Recorded, it counted twice:
//     a reorg's rescan (or a second detector) judging a dust transfer again once the balance
//     credit had lowered what is due found it no dust any more, and a receipt was paid by ETH it
//     never received (stop 71).
//   - Its ETH was at the deposit at the end of its block: it is after every sweep of that block
//     (swept.go's Unswept).

// isBalance says whether c is a credit of the deposit's balance, not of one transfer.
func (c Credit) isBalance() bool { return c.LogIndex < ETHLogIndex }

// heldByBalance says whether the new transfer t is ETH a balance credit holds already (the rules
// above): an ETH transfer by transaction mined at or before the block of a balance credit that is
// not dropped.
func (s State) heldByBalance(t DepositTransferSeen) bool {
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
