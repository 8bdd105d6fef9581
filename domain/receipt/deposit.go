package receipt

import (
	"strings"
)

// Rules of payments by deposit address (DESIGN 9):
//   - Every transfer to the receipt's deposit address, of a configured token or of ETH, from any
//     sender, is credited to the receipt, keyed by (transaction hash, log index; -1 for ETH): a
//     transfer is credited once however often it is reported. A transfer of nothing (0 base
//     units: anyone can log one, naming any sender) is no transfer: it is not recorded. Once the
//     receipt holds DustFreeCredits credits, a new transfer worth under 1/DustShare of the
//     requirement and under what is still due is dust, not recorded (dust_transfers.go). ETH found
//     by the deposit's balance is one credit of its block; an ETH transfer mined at or before it
//     and not credited then is held by it, not recorded again (deposit_balance.go).
//   - Seen in a block (DepositTransferSeen): a generated receipt becomes pending; any other status
//     stays. Seen again in another block (a reorg moved it) replaces the block it counts in.
//   - A log index is the log's position in its block: a transaction mined again in another block
//     after a reorg has its logs at other indices. A token transfer seen in a block under a key
//     the receipt has no credit for, whose transaction is credited in another block, is that
//     transfer moved: it takes the place of one credit of the transaction in the other block
//     (the first in order) instead of adding a credit (creditIndex). Two transfers of one
//     transaction in one block are two credits.
//   - Only a transfer CHAIN_CONFIRMATIONS deep in a block still on the chain counts
//     (DepositTransferConfirmed); a transfer whose block left the chain before the depth stops
//     counting (DepositTransferDropped) until it is seen again.
//   - When the confirmed transfers cover the required amount (required.go; USDC and USDT one to one
//     for a stablecoin request, ETH by the latest quote), the receipt is paid by the chain
//     (PaymentConfirmed, verifiedBy chain), also from failed (a late payment: PaidLate). Less
//     stays pending (underpaid); more is paid (overpaid: amountReceived > amountRequired).

// Deposit event type names.
const (
	EventDepositTransferSeen      = "DepositTransferSeen"
	EventDepositTransferConfirmed = "DepositTransferConfirmed"
	EventDepositTransferDropped   = "DepositTransferDropped"
)

// ETHLogIndex is the log index of an ETH transfer, which has no log.
const ETHLogIndex = -1

// VerifiedByChain is the verifiedBy of a payment the chain shows.
const VerifiedByChain = "chain"

// MethodDeposit is the method of a payment found at the receipt's deposit address.
const MethodDeposit = "deposit"

// DepositTransferSeen records a transfer to the receipt's deposit address seen in a block.
type DepositTransferSeen struct {
	TransactionHash string `json:"transactionHash"`
	LogIndex        int    `json:"logIndex"` // ETHLogIndex for ETH
	BlockNumber     uint64 `json:"blockNumber"`
	BlockHash       string `json:"blockHash"`
	Sender          string `json:"sender"`
	Token           string `json:"token"`       // symbol: USDC, USDT, ETH, ...
	AmountUnits     string `json:"amountUnits"` // base units, a decimal integer
	Decimals        uint8  `json:"decimals"`    // of the token's base units (ETH 18)
	// BlockTime is the block's timestamp (Unix ms), absent when the node gave none and in events
	// written before stop 66: whether a transfer came within the late-payment watch is judged by
	// it, not by when the service saw it (At), which an outage delays.
	BlockTime int64 `json:"blockTime,omitempty"`
	// TxIndex is the transaction's index in its block (stop 70), absent in events written before
	// and for ETH found by a balance: an ETH transfer has no log, so its place in the block of a
	// sweep is known only by it (swept.go's Unswept).
	TxIndex *int `json:"txIndex,omitempty"`
	// Senders (stop 72), on a balance credit only (log index below ETHLogIndex), are the senders
	// of the ETH transfers by transaction the detector read in the step that read the balance and
	// did not credit (dust), mined at or before its block: the balance holds their ETH, and a
	// balance credit has no sender of its own. Candidates for a refund's recipient, not who sent
	// what: the balance may hold ETH a contract sent too. Absent before stop 72 and when none.
	Senders []string `json:"senders,omitempty"`
	At      int64    `json:"at"`
}

// DepositTransferConfirmed records that a seen transfer is CHAIN_CONFIRMATIONS deep in the block
// it was seen in: it now counts toward the amount received.
type DepositTransferConfirmed struct {
	TransactionHash string `json:"transactionHash"`
	LogIndex        int    `json:"logIndex"`
	BlockNumber     uint64 `json:"blockNumber"`
	BlockHash       string `json:"blockHash"`
	At              int64  `json:"at"`
}

// DepositTransferDropped records that the block a transfer was seen in left the chain before the
// confirmation depth: the transfer stops counting.
type DepositTransferDropped struct {
	TransactionHash string `json:"transactionHash"`
	LogIndex        int    `json:"logIndex"`
	BlockHash       string `json:"blockHash"`
	At              int64  `json:"at"`
}

func (DepositTransferSeen) eventType() string      { return EventDepositTransferSeen }
func (DepositTransferConfirmed) eventType() string { return EventDepositTransferConfirmed }
func (DepositTransferDropped) eventType() string   { return EventDepositTransferDropped }

// Credit is one transfer to the receipt's deposit address as the receipt's events say.
type Credit struct {
	TransactionHash string `json:"transactionHash"`
	LogIndex        int    `json:"logIndex"`
	BlockNumber     uint64 `json:"blockNumber"`
	BlockHash       string `json:"blockHash"`
	Sender          string `json:"sender"`
	Token           string `json:"token"`
	AmountUnits     string `json:"amountUnits"`
	Decimals        uint8  `json:"decimals"`
	BlockTime       int64  `json:"blockTime,omitempty"` // DepositTransferSeen's
	TxIndex         *int   `json:"txIndex,omitempty"`   // DepositTransferSeen's; nil: not known
	Confirmed       bool   `json:"confirmed,omitempty"`
	Dropped         bool   `json:"dropped,omitempty"`
	// Senders are a balance credit's DepositTransferSeen.Senders and those of the credits it took
	// over when it was seen (deposit_balance.go).
	Senders []string `json:"senders,omitempty"`
	// HeldBy is, for an ETH transfer by transaction while it is dropped, the block hash of the
	// latest balance credit seen since it was dropped: that balance read did not count it among
	// the credits, so it holds the transfer if it was mined again at or before its block
	// (deposit_balance.go). For a dropped balance credit, the first balance credit seen since,
	// which took over its senders (stop 73). Set by the fold, never by an event's field.
	HeldBy string `json:"heldBy,omitempty"`
}

// of says whether c is the credit of the transfer at logIndex of transaction tx: a transfer is
// known by its transaction hash, in any case, and its log index. Hashes as the chain gives them
// are equal byte for byte, which is tried first: lowering both on every comparison was 9% of a
// confirmation's CPU (issue 38).
func (c Credit) of(tx string, logIndex int) bool {
	return c.LogIndex == logIndex && (c.TransactionHash == tx || strings.EqualFold(c.TransactionHash, tx))
}

// Counts says whether the credit counts toward the amount received (confirmed, not dropped).
func (c Credit) Counts() bool { return c.Confirmed && !c.Dropped }

// DepositAddress is the receipt's deposit address ("" for none).
func (s State) DepositAddress() string { return s.Receipt.DepositAddress }

// DepositSplit is the split the receipt's deposit sweeps to ("" for none).
func (s State) DepositSplit() string { return s.Receipt.DepositSplit }

// ExpiresAt is the end of the receipt's payment window, Unix ms (0 for none).
func (s State) ExpiresAt() int64 { return s.Receipt.ExpiresAt }

// PaidLate says whether the receipt was paid after its window had failed it.
func (s State) PaidLate() bool { return s.Payment != nil && s.Payment.PaidLate }

// Credit returns the credit of a transfer, if the receipt has it.
func (s State) Credit(tx string, logIndex int) (Credit, bool) {
	for _, c := range s.Credits {
		if c.of(tx, logIndex) {
			return c, true
		}
	}
	return Credit{}, false
}

// creditIndex is the index in s.Credits of the credit a transfer of transaction tx at logIndex,
// seen in block, is (-1 for none): the credit of that key; else, for a token transfer, the first
// token credit of tx in another block. A reorg that mines the transaction again elsewhere moves
// its logs to other indices, and the transfer must not be credited a second time (an underpaid
// receipt was paid by the same 6 USDC counted twice); the credits of tx in the old block are
// taken one per transfer seen in the new block, so a transaction with two transfers to the
// deposit keeps two credits. ETH (ETHLogIndex) and balances (negative indices) keep their key
// in any block. Replay: a transaction credited in one block only never takes this path.
func (s State) creditIndex(tx string, logIndex int, block string) int {
	moved := -1
	for i, c := range s.Credits {
		if c.of(tx, logIndex) {
			return i
		}
		if moved < 0 && logIndex >= 0 && c.LogIndex >= 0 && (c.TransactionHash == tx || strings.EqualFold(c.TransactionHash, tx)) &&
			!strings.EqualFold(c.BlockHash, block) {
			moved = i
		}
	}
	return moved
}

// creditOf is the credit a transfer seen is (creditIndex), if the receipt has it.
func (s State) creditOf(t DepositTransferSeen) (Credit, bool) {
	if i := s.creditIndex(t.TransactionHash, t.LogIndex, t.BlockHash); i >= 0 {
		return s.Credits[i], true
	}
	return Credit{}, false
}

// withCredit returns the credits with c in place of the credit of the same key (or appended);
// the slice is copied so that states sharing the old one are not changed.
func (s *State) withCredit(c Credit) {
	i := -1
	for j, o := range s.Credits {
		if o.of(c.TransactionHash, c.LogIndex) {
			i = j
			break
		}
	}
	s.putCredit(i, c)
}

// putCredit sets credit i to c (i < 0: appends c) in a copy of the credits, so that states
// sharing the old slice are not changed.
func (s *State) putCredit(i int, c Credit) {
	out := make([]Credit, len(s.Credits), len(s.Credits)+1)
	copy(out, s.Credits)
	if i >= 0 {
		out[i] = c
	} else {
		out = append(out, c)
	}
	s.Credits = out
}

// evolveDeposit applies a deposit event (Evolve's cases).
func (s *State) evolveDeposit(e Event) {
	switch e := e.(type) {
	case DepositTransferSeen:
		i, senders := s.creditIndex(e.TransactionHash, e.LogIndex, e.BlockHash), e.Senders
		if e.LogIndex < ETHLogIndex {
			senders = s.balanceSenders(e, i) // with those of the credits it takes over (deposit_balance.go)
		}
		s.putCredit(i, Credit{TransactionHash: e.TransactionHash, LogIndex: e.LogIndex,
			BlockNumber: e.BlockNumber, BlockHash: e.BlockHash, Sender: e.Sender, Token: e.Token, AmountUnits: e.AmountUnits, Decimals: e.Decimals, BlockTime: e.BlockTime, TxIndex: e.TxIndex, Senders: senders})
		if e.LogIndex < ETHLogIndex { // a balance credit: it holds the dropped ETH transfers mined again by its block
			for i, c := range s.Credits {
				if c.droppedETH() || c.isBalance() && c.Dropped && c.HeldBy == "" { // and took over a dropped balance credit's senders
					s.Credits[i].HeldBy = e.BlockHash // s.Credits is putCredit's copy
				}
			}
		}
		if s.Status == StatusGenerated {
			s.setStatus(StatusPending, e.At)
		}
	case DepositTransferConfirmed:
		if c, ok := s.Credit(e.TransactionHash, e.LogIndex); ok {
			c.Confirmed, c.Dropped, c.BlockNumber, c.BlockHash, c.HeldBy = true, false, e.BlockNumber, e.BlockHash, ""
			s.withCredit(c)
		}
	case DepositTransferDropped:
		if c, ok := s.Credit(e.TransactionHash, e.LogIndex); ok && strings.EqualFold(c.BlockHash, e.BlockHash) {
			c.Dropped, c.Confirmed = true, false
			s.withCredit(c)
		}
	}
}

// FirstCredit is the first transfer seen that still counts or may still count (not dropped).
func (s State) FirstCredit() (Credit, bool) {
	for _, c := range s.Credits {
		if !c.Dropped {
			return c, true
		}
	}
	return Credit{}, false
}
