package receipt

import (
	"fmt"
	"math/big"
	"strings"
)

// Refunds of unconfigured tokens (issue 41, docs/decisions.md): a DepositUnknownToken has no
// decimals and no rate, so the ledger cannot value it, but it can prove that it went back.
//   - The merchant names the unknown transfer (its transaction hash and log index) and the hash of
//     the refund they sent; no amount: the refund is the raw amount the log reported, in raw units.
//   - The claim follows the rules of every claim (refund.go): one counted refund per hash, judged
//     by the refund verifier at depth, refused with a reason, taken back by a reorg. It is accepted
//     only if the transaction moves at least the raw amount received of THAT contract to the
//     transfer's sender (or the refundTo the merchant named).
//   - It is worth nothing in the receipt's currency: it never changes refundedUsd, the requested
//     amount or the status, on claim, proof, refusal or reorg.
//   - An unknown transfer is refunded at most once: a counted refund of it holds it.

// UnknownTransferRef names a recorded DepositUnknownToken: the transaction and log that moved it.
type UnknownTransferRef struct {
	TransactionHash string `json:"transactionHash"` // lower case
	LogIndex        int    `json:"logIndex"`
}

// UnknownTokenOf is the recorded unknown-token transfer ref names, if any.
func (s State) UnknownTokenOf(ref UnknownTransferRef) (UnknownToken, bool) {
	for _, u := range s.UnknownTokens {
		if strings.EqualFold(u.TransactionHash, ref.TransactionHash) && u.LogIndex == ref.LogIndex {
			return u, true
		}
	}
	return UnknownToken{}, false
}

// UnknownRefund is the counted (claimed or processed) refund of the unknown transfer ref, if any.
func (s State) UnknownRefund(ref UnknownTransferRef) (RefundRecord, bool) {
	for _, r := range s.Refunds {
		if r.Unknown != nil && r.Counted() && strings.EqualFold(r.Unknown.TransactionHash, ref.TransactionHash) && r.Unknown.LogIndex == ref.LogIndex {
			return r, true
		}
	}
	return RefundRecord{}, false
}

// requestUnknownRefund decides the claim of a refund of an unknown-token transfer (RequestRefund
// with o.Unknown). Errors: ErrState (no such transfer, no hash, already refunded), ErrAmount (an
// amount named: it has none), ErrRefundHashUsed.
func requestUnknownRefund(s State, o RefundOrder) ([]Event, error) {
	ref := UnknownTransferRef{TransactionHash: strings.ToLower(o.Unknown.TransactionHash), LogIndex: o.Unknown.LogIndex}
	if _, ok := s.UnknownTokenOf(ref); !ok {
		return nil, fmt.Errorf("%w: the receipt records no transfer of an unconfigured token in %s log %d", ErrState, ref.TransactionHash, ref.LogIndex)
	}
	if o.TransactionHash == "" {
		return nil, fmt.Errorf("%w: a refund of an unconfigured token is recorded with its transaction hash only", ErrState)
	}
	if o.AmountCents != 0 {
		return nil, fmt.Errorf("%w: a refund of an unconfigured token has no amount in the receipt's currency (it returns the raw amount received)", ErrAmount)
	}
	if _, ok := s.CountedRefund(o.TransactionHash); ok {
		return nil, ErrRefundHashUsed
	}
	if r, ok := s.UnknownRefund(ref); ok {
		return nil, fmt.Errorf("%w: this transfer is already %s for refund by %s", ErrState, r.State, r.TransactionHash)
	}
	if err := s.CheckClaim(o); err != nil {
		return nil, err
	}
	return []Event{RefundRequested{Reason: o.Reason, RequestedBy: o.By, TransactionHash: o.TransactionHash, RefundTo: o.RefundTo, Unknown: &ref, At: o.At}}, nil
}

// judgeUnknownRefund is JudgeRefund for the claim of an unknown transfer's refund: the
// transaction (successful) must move at least the raw amount received of that contract to its
// sender or to the claim's refundTo.
func judgeUnknownRefund(s State, claim RefundRecord, ev RefundEvidence) (RefundProcessed, string, bool) {
	u, ok := s.UnknownTokenOf(*claim.Unknown)
	if !ok {
		return RefundProcessed{}, "the receipt records no such transfer of an unconfigured token", false
	}
	to := []string{u.Sender}
	if claim.RefundTo != "" {
		to = append(to, claim.RefundTo)
	}
	want, ok := new(big.Int).SetString(u.AmountUnits, 10)
	if !ok || want.Sign() <= 0 {
		return RefundProcessed{}, fmt.Sprintf("the amount received (%q raw units of %s) is not known, so no refund of it can be proven", u.AmountUnits, u.TokenAddress), false
	}
	senders := s.refundSenders()
	of := func(t ChainTransfer) bool { return strings.EqualFold(t.Contract, u.TokenAddress) }
	sum, recipient := netBack(ev.Transfers, of, to, senders)
	switch {
	case recipient == "":
		return RefundProcessed{}, fmt.Sprintf("the transaction sends no token of contract %s to the sender %s%s%s", u.TokenAddress, u.Sender,
			refundToNote(claim.RefundTo), notBackNote(ev.Transfers, senders)), false
	case sum.Cmp(want) < 0:
		return RefundProcessed{}, fmt.Sprintf("the transaction sends %s raw units of %s back (net of what it moves away from the same addresses), less than the %s received", sum, u.TokenAddress, want), false
	}
	return RefundProcessed{TransactionHash: claim.TransactionHash, Token: u.TokenAddress, AmountUnits: sum.String(), Recipient: recipient,
		Sender: backFrom(ev.Transfers, of, to, senders), BlockNumber: ev.BlockNumber, BlockHash: ev.BlockHash, ProcessedBy: "chain", At: ev.At}, "", true
}

// evolveUnknownRefund applies a refund event of an unknown transfer's claim (refunds whose record
// names one): the record changes, never the amounts or the status. ok false: not such a refund.
func (s *State) evolveUnknownRefund(e Event) bool {
	switch e := e.(type) {
	case RefundRequested:
		if e.Unknown == nil {
			return false
		}
		u, _ := s.UnknownTokenOf(*e.Unknown)
		s.withRefund(-1, RefundRecord{Reason: e.Reason, TransactionHash: e.TransactionHash, RefundTo: e.RefundTo, State: RefundStateClaimed,
			Token: u.TokenAddress, AmountUnits: u.AmountUnits, Unknown: e.Unknown, At: e.At})
		s.UpdatedAt = e.At
		return true
	case RefundProcessed:
		return s.changeUnknownRefund(e.TransactionHash, RefundStateClaimed, e.At, func(r *RefundRecord) {
			r.State, r.Proof = RefundStateProcessed, ProofChain
			r.Token, r.AmountUnits, r.Recipient, r.BlockNumber, r.BlockHash = e.Token, e.AmountUnits, e.Recipient, e.BlockNumber, e.BlockHash
			r.Sender = e.Sender
		})
	case RefundRefused:
		return s.changeUnknownRefund(e.TransactionHash, RefundStateClaimed, e.At, func(r *RefundRecord) {
			r.State, r.RefusedReason = RefundStateRefused, e.Reason
		})
	case RefundReverted:
		return s.changeUnknownRefund(e.TransactionHash, RefundStateProcessed, e.At, func(r *RefundRecord) {
			u, _ := s.UnknownTokenOf(*r.Unknown)
			r.State, r.Proof, r.Recipient, r.Sender, r.BlockNumber, r.BlockHash = RefundStateClaimed, "", "", "", 0, ""
			r.Token, r.AmountUnits = u.TokenAddress, u.AmountUnits
		})
	}
	return false
}

// changeUnknownRefund changes the counted refund of hash, when it is an unknown transfer's (ok
// true; in state from, else unchanged).
func (s *State) changeUnknownRefund(hash, from string, at int64, change func(*RefundRecord)) bool {
	i := s.refundIndex(hash)
	if i < 0 || s.Refunds[i].Unknown == nil {
		return false
	}
	if r := s.Refunds[i]; r.State == from {
		change(&r)
		s.withRefund(i, r)
		s.UpdatedAt = at
	}
	return true
}
