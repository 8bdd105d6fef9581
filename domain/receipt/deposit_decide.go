package receipt

import (
	"fmt"
	"strings"

	"github.com/payledger/payledger/domain/money"
)

// DepositObservation is what the chain shows now of one transfer to the receipt's deposit
// address: the transfer as seen in its block, and whether that block is CHAIN_CONFIRMATIONS deep
// and still on the chain (Confirmed) or left the chain before the depth (Dropped).
type DepositObservation struct {
	Transfer  DepositTransferSeen
	Confirmed bool
	Dropped   bool
	At        int64
	// Prices are the service's current USD prices by asset (tokens by symbol, EUR/USD as "EUR"),
	// nil without a price source: they value a transfer in a token the receipt has no quote in
	// (ValueTransfer).
	Prices map[string]string
}

// ObserveDeposit decides what an observation of a transfer adds to the receipt: the quote that
// values it when the receipt has none in its token (ValueTransfer, at o.Prices), the transfer
// seen (new, or seen again in another block), confirmed, or dropped; and the payment when the
// confirmed transfers now cover the required amount. Reporting the same observation again adds
// nothing, and a new transfer that is dust (dust_transfers.go), or ETH a balance credit holds
// already (deposit_balance.go), adds nothing either. Errors: ErrNotFound, ErrState (the receipt
// has no deposit address).
func ObserveDeposit(s State, o DepositObservation) ([]Event, error) {
	if err := must(s); err != nil {
		return nil, err
	}
	if s.Receipt.DepositAddress == "" {
		return nil, fmt.Errorf("%w: the receipt has no deposit address", ErrState)
	}
	if !money.PositiveUnits(o.Transfer.AmountUnits) {
		return nil, nil // moves nothing (deposit.go's rules): no credit, no pending, no buyer
	}
	t := o.Transfer
	c, known := s.creditOf(t) // a transfer moved to another index by a reorg is the same transfer
	sameBlock := known && strings.EqualFold(c.BlockHash, t.BlockHash)
	if o.Dropped {
		if sameBlock && !c.Dropped && !c.Confirmed {
			return []Event{DepositTransferDropped{TransactionHash: c.TransactionHash, LogIndex: c.LogIndex, BlockHash: c.BlockHash, At: o.At}}, nil
		}
		return nil, nil
	}
	// A transfer in a token the receipt cannot price yet is valued at the price of now.
	evs := ValueTransfer(s, t.Token, o.Prices, o.At)
	if !known && dustAfter(s, evs, t) {
		return nil, nil // dust (dust_transfers.go): stays at the deposit, swept with the rest
	}
	if !known && s.HeldByBalance(t) || known && s.heldAgain(c, t) {
		return nil, nil // counted already by a balance credit (deposit_balance.go)
	}
	if known && c.Confirmed {
		// Past the depth the transfer stands as confirmed; a deep reorg is the audit's (DESIGN 8),
		// and so is the restoration of a flagged payment, at its new block's depth.
		if strings.EqualFold(s.ChainWithdrawnTx, c.TransactionHash) {
			return nil, nil
		}
		after := s
		for _, e := range evs {
			after = Evolve(after, e)
		}
		pay, err := payIfCovered(after, c, o.At)
		return append(evs, pay...), err
	}
	if !sameBlock || c.Dropped {
		t.At = o.At
		evs = append(evs, t)
	}
	if o.Confirmed {
		evs = append(evs, DepositTransferConfirmed{TransactionHash: t.TransactionHash, LogIndex: t.LogIndex, BlockNumber: t.BlockNumber,
			BlockHash: t.BlockHash, At: o.At})
	}
	after := s
	for _, e := range evs {
		after = Evolve(after, e)
	}
	c, _ = after.Credit(t.TransactionHash, t.LogIndex)
	if late := ignoreLate(after, c, o.At); o.Confirmed && len(late) > 0 {
		return append(evs, late...), nil // covering or not, it pays nothing now
	}
	pay, err := payIfCovered(after, c, o.At)
	return append(evs, pay...), err
}

// payIfCovered is the chain's payment of s when its confirmed transfers cover the required
// amount, the transfer c completing it (its hash is the payment's), paid by the sender who
// covers the most of it (payer); none when they do not or the receipt is settled already.
func payIfCovered(s State, c Credit, at int64) ([]Event, error) {
	if !c.Counts() || !s.Covered() {
		return nil, nil
	}
	p := chainPayment(c, at)
	p.BuyerWallet = s.payer(c) // who paid most of it, not whoever sent its last part
	p.PaidLate = s.Status == StatusFailed
	return Confirm(s, p)
}

// chainPayment is the chain's payment by the transfer c.
func chainPayment(c Credit, at int64) PaymentConfirmed {
	p := PaymentConfirmed{AttemptID: MethodDeposit, TransactionHash: c.TransactionHash, BuyerWallet: c.Sender, Token: c.Token,
		VerifiedBy: VerifiedByChain, Method: MethodDeposit, BlockNumber: c.BlockNumber, BlockHash: c.BlockHash,
		AmountUnits: c.AmountUnits, BlockTime: c.BlockTime, At: at}
	if c.LogIndex != ETHLogIndex {
		li := c.LogIndex
		p.LogIndex = &li
	}
	return p
}

// dustAfter says whether the new transfer t is dust for s once the quote events evs (the one
// that values t, if any) are applied: valued at that quote, not at none.
func dustAfter(s State, evs []Event, t DepositTransferSeen) bool {
	if len(s.Credits) < DustFreeCredits {
		return false
	}
	for _, e := range evs {
		s = Evolve(s, e)
	}
	return s.isDust(t)
}
