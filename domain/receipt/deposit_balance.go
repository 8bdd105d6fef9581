package receipt

import (
	"slices"
	"strings"
)

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
//   - Its senders (Credit.Senders, candidates for a refund's recipient) are its step's dust
//     senders (DepositTransferSeen.Senders) and those of the credits it takes over: the balance
//     credit of its key it replaces, every balance credit dropped when it is read (a dropped one
//     counts nothing, so the ETH it held, still at the deposit, is in this balance) and the
//     dropped ETH transfers it holds (HeldBy), each dropped credit by the first balance credit seen
//     after it dropped (which marks it: HeldBy). A later balance credit that superseded a dropped
//     one kept only its own step's senders, and the dust senders read in earlier steps were lost
//     from every credit that counts (stop 73); they are set by the fold, never by an event.

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

// takenOver says whether a balance credit seen now takes over c's senders (the rules above): c
// is a dropped balance credit or ETH transfer by transaction that no balance credit seen since it
// was dropped took over (HeldBy): each dropped credit's senders go to one balance credit, which
// passes them on if it is dropped in turn, so they are kept once, not by every later read.
func (c Credit) takenOver() bool {
	return c.Dropped && c.HeldBy == "" && (c.isBalance() || c.LogIndex == ETHLogIndex)
}

// balanceSenders are the senders of balance credit e, seen in place of credit replaced (-1:
// none): its own, then those of the credits it takes over, in their order (the rules above).
func (s State) balanceSenders(e DepositTransferSeen, replaced int) []string {
	var taken []Credit
	for i, c := range s.Credits {
		if i == replaced || c.takenOver() {
			taken = append(taken, c)
		}
	}
	return mergeSenders(e.Senders, taken)
}

// mergeSenders is own (a copy) then the senders of taken (a balance credit's Senders, a transfer's
// Sender) that it lacks, without case, once each.
func mergeSenders(own []string, taken []Credit) []string {
	out := slices.Clone(own)
	if len(taken) == 0 {
		return out
	}
	seen := make(map[string]bool, len(own))
	for _, a := range own {
		seen[strings.ToLower(a)] = true
	}
	add := func(a string) {
		if k := strings.ToLower(a); a != "" && !seen[k] {
			seen[k], out = true, append(out, a)
		}
	}
	for _, c := range taken {
		if !c.isBalance() {
			add(c.Sender)
		}
		for _, a := range c.Senders {
			add(a)
		}
	}
	return out
}
