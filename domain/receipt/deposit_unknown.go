package receipt

import (
	"fmt"
	"strings"
)

// Transfers of tokens the service does not configure (issue 41 item 3, docs/decisions.md):
//   - The deposit detector reads every ERC-20 Transfer log of a block (one eth_getLogs by topic,
//     not by token); a log of a contract not in CHAIN_TOKENS whose recipient is the receipt's
//     deposit address is recorded as DepositUnknownToken: the contract, the sender and the raw
//     amount the log reports, and where it was seen.
//   - It is never credited or valued (no decimals or price are known, and any contract can emit a
//     Transfer log without moving anything) and never changes the status: the deposit can only
//     send it to the split (anyone may flush it there with the contract's address). The merchant
//     returns it from their own wallet, and the ledger records that refund on the chain's proof,
//     in raw units, never as money (refund_unknown.go).
//   - Recorded once per (transaction, log index), at most MaxUnknownTokens per receipt: a stream
//     of spam tokens cannot grow the receipt's history without bound.

// EventDepositUnknownToken is the type name of DepositUnknownToken.
const EventDepositUnknownToken = "DepositUnknownToken"

// MaxUnknownTokens bounds the unknown-token transfers a receipt records.
const MaxUnknownTokens = 16

// DepositUnknownToken records a Transfer log of a token not configured whose recipient is the
// receipt's deposit address, as seen in a block (not judged at depth: it counts for nothing).
type DepositUnknownToken struct {
	TransactionHash string `json:"transactionHash"`
	LogIndex        int    `json:"logIndex"`
	BlockNumber     uint64 `json:"blockNumber"`
	BlockHash       string `json:"blockHash"`
	TokenAddress    string `json:"tokenAddress"` // the contract that emitted the log, lower case
	Sender          string `json:"sender"`
	AmountUnits     string `json:"amountUnits"` // the log's raw amount, a decimal integer
	At              int64  `json:"at"`
}

func (DepositUnknownToken) eventType() string { return EventDepositUnknownToken }

// UnknownToken is a recorded DepositUnknownToken, as State.UnknownTokens keeps it.
type UnknownToken struct {
	TransactionHash string `json:"transactionHash"`
	LogIndex        int    `json:"logIndex"`
	BlockNumber     uint64 `json:"blockNumber"`
	TokenAddress    string `json:"tokenAddress"`
	Sender          string `json:"sender"`
	AmountUnits     string `json:"amountUnits"`
	At              int64  `json:"at"`
}

// unknownTokenState is the unknown tokens' part of State (embedded: its fields are State's).
type unknownTokenState struct {
	UnknownTokens []UnknownToken `json:"unknownTokens,omitempty"`
}

// ObserveUnknownToken decides what a Transfer log of a token not configured to the receipt's
// deposit address adds: the DepositUnknownToken, unless it is recorded already or the receipt
// holds MaxUnknownTokens. Errors: ErrNotFound, ErrState (no deposit address).
func ObserveUnknownToken(s State, t DepositUnknownToken) ([]Event, error) {
	if err := must(s); err != nil {
		return nil, err
	}
	if s.Receipt.DepositAddress == "" {
		return nil, fmt.Errorf("%w: the receipt has no deposit address", ErrState)
	}
	if len(s.UnknownTokens) >= MaxUnknownTokens {
		return nil, nil
	}
	for _, u := range s.UnknownTokens {
		if strings.EqualFold(u.TransactionHash, t.TransactionHash) && u.LogIndex == t.LogIndex {
			return nil, nil
		}
	}
	t.TokenAddress, t.Sender = strings.ToLower(t.TokenAddress), strings.ToLower(t.Sender)
	return []Event{t}, nil
}

// unknownTokenSeen applies a DepositUnknownToken (Evolve's case); never a change of status.
func (s *State) unknownTokenSeen(e DepositUnknownToken) {
	s.UnknownTokens = append(append(make([]UnknownToken, 0, len(s.UnknownTokens)+1), s.UnknownTokens...), UnknownToken{
		TransactionHash: e.TransactionHash, LogIndex: e.LogIndex, BlockNumber: e.BlockNumber, TokenAddress: e.TokenAddress,
		Sender: e.Sender, AmountUnits: e.AmountUnits, At: e.At})
}
