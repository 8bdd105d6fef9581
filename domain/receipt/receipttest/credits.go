// Package receipttest makes receipt streams for the tests and benchmarks of the packages that
// fold them (commands, projections): one generator, so that every fold is measured and checked on
// the same stream.
package receipttest

import (
	"fmt"
	"strings"

	"github.com/payledger/payledger/domain/receipt"
)

// CreditStream is the stream of deposit receipt id with n credits of every kind the fold tells
// apart (as receipt's own foldStream): token transfers confirmed, dropped and seen again in
// another block, moved by a reorg to another log index (upper-case hashes among them), ETH by
// transaction (some dropped for good, held by a later balance credit), balance credits with their
// senders, a quote, a sweep and a payment between them. About 2.4 events a credit.
func CreditStream(id string, n int) []receipt.Event {
	evs := []receipt.Event{
		receipt.Generated{ReceiptID: id, Merchant: "0x" + strings.Repeat("a", 40), Source: "direct", Currency: "USD", Subtotal: 1231, Total: 1231,
			LineItems: []receipt.LineItem{{Kind: receipt.KindCustom, Label: "x", Amount: 1231}}, DepositAddress: "0xD", DepositSplit: "0xS", CreatedAt: 1},
		receipt.TokenQuoted{Token: "ETH", Amount: "0.005", At: 2},
	}
	for i := range n {
		s := seen(i)
		evs = append(evs, s)
		evs = append(evs, after(s, i)...)
		if i == n/2 {
			evs = append(evs, receipt.DepositSwept{TransactionHash: "0xs", Token: "USDC", AmountUnits: "1000", BlockNumber: uint64(10 + i)})
		}
		if i == n-2 {
			evs = append(evs, payment(s, 9))
		}
	}
	return evs
}

// seen is the i-th credit's first sighting: a token transfer, ETH by transaction (i%5 == 1) or a
// balance credit (i%5 == 2).
func seen(i int) receipt.DepositTransferSeen {
	b := fmt.Sprintf("0xb%d", i)
	tx := fmt.Sprintf("0x%064x", i)
	if i%7 == 3 {
		tx = strings.ToUpper(tx)
	}
	s := receipt.DepositTransferSeen{TransactionHash: tx, LogIndex: i % 3, BlockNumber: uint64(10 + i), BlockHash: b, Sender: "0xB",
		Token: "USDC", AmountUnits: "1000", Decimals: 6, At: int64(i)}
	switch i % 5 {
	case 1:
		s.LogIndex, s.Token, s.Decimals = receipt.ETHLogIndex, "ETH", 18
	case 2:
		s.LogIndex, s.TransactionHash, s.Token, s.Decimals, s.Senders = -2, b, "ETH", 18, []string{fmt.Sprintf("0xd%d", i)}
	}
	return s
}

// after is what becomes of sighting s (credit i): confirmed; dropped then seen again (moved, for
// a token transfer) in another block and confirmed; dropped under another block's hash (nothing);
// or dropped for good.
func after(s receipt.DepositTransferSeen, i int) []receipt.Event {
	switch i % 4 {
	case 0:
		return []receipt.Event{confirmed(s)}
	case 1:
		out := []receipt.Event{receipt.DepositTransferDropped{TransactionHash: strings.ToLower(s.TransactionHash), LogIndex: s.LogIndex, BlockHash: s.BlockHash}}
		s.BlockHash, s.BlockNumber = s.BlockHash+"r", s.BlockNumber+1
		if s.LogIndex >= 0 {
			s.LogIndex += 3
		}
		return append(out, s, confirmed(s))
	case 2:
		return []receipt.Event{receipt.DepositTransferDropped{TransactionHash: s.TransactionHash, LogIndex: s.LogIndex, BlockHash: "0xother"}}
	default:
		return []receipt.Event{receipt.DepositTransferDropped{TransactionHash: s.TransactionHash, LogIndex: s.LogIndex, BlockHash: s.BlockHash}}
	}
}

func confirmed(s receipt.DepositTransferSeen) receipt.DepositTransferConfirmed {
	return receipt.DepositTransferConfirmed{TransactionHash: s.TransactionHash, LogIndex: s.LogIndex, BlockNumber: s.BlockNumber, BlockHash: s.BlockHash}
}

// payment is the receipt paid by credit s, as the deposit detector confirms it.
func payment(s receipt.DepositTransferSeen, at int64) receipt.PaymentConfirmed {
	p := receipt.PaymentConfirmed{AttemptID: receipt.MethodDeposit, TransactionHash: s.TransactionHash, BuyerWallet: s.Sender, Token: s.Token,
		VerifiedBy: receipt.VerifiedByChain, Method: receipt.MethodDeposit, BlockNumber: s.BlockNumber, BlockHash: s.BlockHash,
		AmountUnits: "1000", At: at}
	if s.LogIndex != receipt.ETHLogIndex {
		li := s.LogIndex
		p.LogIndex = &li
	}
	return p
}

// Evolved is evs applied one by one with receipt.Evolve onto s: the fold every other fold must
// equal.
func Evolved(s receipt.State, evs ...receipt.Event) receipt.State {
	for _, e := range evs {
		s = receipt.Evolve(s, e)
	}
	return s
}
