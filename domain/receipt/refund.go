package receipt

import (
	"errors"
	"fmt"
	"strings"

	"github.com/payledger/payledger/domain/money"
)

// Rules of refunds (DESIGN 10, "Refunds"):
//   - Refunds start from paid or reconciled (or refund_requested, with a transaction hash), never
//     exceed what is unrefunded, and the receipt is refunded once the whole total is back.
//   - Without a transaction hash a refund is requested (RefundRequested): the merchant still has
//     to send it.
//   - With a hash, a receipt paid on chain (verifiedBy chain) records a claim (RefundRequested with
//     the hash): it counts as requested, not refunded, until the chain shows it. The refund
//     verifier then records RefundProcessed (proof chain, with the token, amount, recipient and
//     block it verified) or RefundRefused (with the reason); a claim covers the hashless requests
//     open before it, up to its amount, and gives them back when it is refused.
//   - A receipt paid otherwise (the onramp processor, the merchant at a terminal) keeps the
//     earlier rule: a refund with a hash is processed on the merchant's word (proof merchant).
//   - A hash counts for one refund at most: a hash claimed or processed on the receipt is
//     ErrRefundHashUsed (the command also reserves it across receipts).
//   - A reorg that takes a counted refund's transaction off the chain takes the refund back
//     (RefundReverted): it is a claim again, to be verified again.
//   - Funds that paid nothing (a failed receipt's confirmed transfers: a partial payment the
//     window ended, a late one that did not cover it) may be refunded too, with a hash only, up to
//     what they are worth at the receipt's rate (ReceivedCents); the receipt stays failed.

// Refund event type names.
const (
	EventRefundRefused  = "RefundRefused"
	EventRefundReverted = "RefundReverted"
)

// Proofs of a processed refund.
const (
	ProofChain    = "chain"    // the refund verifier read the transfer at depth
	ProofMerchant = "merchant" // the merchant's word (a receipt not paid on chain)
)

// States of a refund in State.Refunds.
const (
	RefundStateClaimed   = "claimed"
	RefundStateProcessed = "processed"
	RefundStateRefused   = "refused"
)

// ErrRefundHashUsed: the transaction hash is already counted (claimed or processed) for a refund.
var ErrRefundHashUsed = errors.New("the transaction hash is already counted for a refund")

// RefundRefused: the chain does not support a claimed refund; Reason says what it shows.
type RefundRefused struct {
	TransactionHash string `json:"transactionHash"`
	AmountCents     int64  `json:"amountCents"`
	Reason          string `json:"reason"`
	At              int64  `json:"at"`
}

// RefundReverted: a reorg took a refund processed on chain proof off the chain; it is a claim again.
type RefundReverted struct {
	TransactionHash string `json:"transactionHash"`
	AmountCents     int64  `json:"amountCents"`
	BlockNumber     uint64 `json:"blockNumber"` // the block that left the chain
	BlockHash       string `json:"blockHash"`
	At              int64  `json:"at"`
}

func (RefundRefused) eventType() string  { return EventRefundRefused }
func (RefundReverted) eventType() string { return EventRefundReverted }

// RefundRecord is one refund with a transaction hash (or processed on the merchant's word), as the
// receipt's events say.
type RefundRecord struct {
	AmountCents     int64  `json:"amountCents"`
	Reason          string `json:"reason"`
	TransactionHash string `json:"transactionHash,omitempty"`
	RefundTo        string `json:"refundTo,omitempty"` // the address the merchant named
	State           string `json:"state"`              // claimed | processed | refused
	Proof           string `json:"proof,omitempty"`    // chain | merchant, once processed
	Token           string `json:"token,omitempty"`
	AmountUnits     string `json:"amountUnits,omitempty"` // base units the chain showed
	Decimals        uint8  `json:"decimals,omitempty"`
	Recipient       string `json:"recipient,omitempty"`
	Sender          string `json:"sender,omitempty"` // where a refund proven on chain came from (stop 68)
	RefusedReason   string `json:"refusedReason,omitempty"`
	BlockNumber     uint64 `json:"blockNumber,omitempty"`
	BlockHash       string `json:"blockHash,omitempty"`
	// CoversCents is how much of the hashless requests open at the claim the claim took over.
	CoversCents int64 `json:"coversCents,omitempty"`
	// Unknown names the unconfigured token's transfer this refund returns (refund_unknown.go):
	// Token is then its contract and AmountUnits raw units, worth nothing in the receipt's currency.
	Unknown *UnknownTransferRef `json:"unknownTransfer,omitempty"`
	// Parts: what each token brought of a refund sent in several stable tokens (RefundProcessed).
	Parts []RefundPart `json:"parts,omitempty"`
	// OfFunds: claimed while the receipt had no payment, a refund of funds that paid nothing (a
	// failed receipt's); they stay among its credits if a late payment pays it (ExcessCents).
	OfFunds bool `json:"ofFunds,omitempty"`
	// OfExcess: a claim returning what the customer sent beyond the total (refund_excess.go, stop
	// 70): not the order's refund, bounded by the excess.
	OfExcess bool `json:"ofExcess,omitempty"`
	// OfProcessor: the merchant returned processor payments the receipt does not count
	// (refund_processor.go, stop 71): processed on its word, not the order's refund.
	OfProcessor bool  `json:"ofProcessor,omitempty"`
	At          int64 `json:"at"`
}

// Counted says whether the refund holds its hash: claimed or processed.
func (r RefundRecord) Counted() bool {
	return r.State == RefundStateClaimed || r.State == RefundStateProcessed
}

// refundState is the refunds part of State.
type refundState struct {
	Refunds []RefundRecord `json:"refunds,omitempty"`
	// FundsRefundedCents and FundsRequestedCents are the parts of RefundedCents and RequestedCents
	// that refunds of funds (OfFunds) hold: once a late payment pays the receipt they are not the
	// order's refunds (refund_funds.go, stop 69).
	FundsRefundedCents   money.Cents `json:"fundsRefundedCents,omitempty"`
	FundsRequestedCents  money.Cents `json:"fundsRequestedCents,omitempty"`
	excessState                      // the excess's part (refund_excess.go, stop 70)
	processorRefundState             // refunds of processor payments, outside the sums above (refund_processor.go, stop 71)
}

// RefundOrder is a merchant's refund.
type RefundOrder struct {
	AmountCents     int64 // 0: the whole unrefunded total
	Reason          string
	TransactionHash string              // lower case; "": a request
	RefundTo        string              // lower case; "": a sender of the receipt's payment
	Unknown         *UnknownTransferRef // a refund of this unconfigured token's transfer (refund_unknown.go)
	Excess          bool                // a refund of what the customer sent beyond the total (refund_excess.go)
	Processor       bool                // a refund of processor payments the receipt does not count (refund_processor.go)
	By              string
	At              int64
}

// Refund requests a refund (without a transaction hash) or records one with it (RequestRefund).
func Refund(s State, amountCents int64, reason, txHash, by string, at int64) ([]Event, error) {
	return RequestRefund(s, RefundOrder{AmountCents: amountCents, Reason: reason, TransactionHash: txHash, By: by, At: at})
}

// PaidOnChain says whether the receipt's payment is one the chain shows (verifiedBy chain): its
// refunds with a hash are claims until the chain shows them.
func (s State) PaidOnChain() bool { return s.Payment != nil && s.Payment.VerifiedBy == VerifiedByChain }

// RequestRefund decides a merchant's refund: a request without a hash, a claim with one on a
// receipt paid on chain, a refund processed on the merchant's word otherwise. A zero amount means
// the whole unrefunded total (of the excess, of the processor payments, when the order says so).
// Errors: ErrNotFound, ErrState, ErrAmount, ErrRefundHashUsed, ErrExcessNeedsHash,
// ErrProcessorRefundNeedsHash.
func RequestRefund(s State, o RefundOrder) ([]Event, error) {
	if err := must(s); err != nil {
		return nil, err
	}
	if o.Unknown != nil {
		return requestUnknownRefund(s, o)
	}
	if o.Processor {
		return requestProcessorRefund(s, o)
	}
	if o.Excess && s.Payment != nil {
		return requestExcessRefund(s, o)
	}
	switch s.Status {
	case StatusPaid, StatusReconciled:
	case StatusRefundRequested:
		if o.TransactionHash == "" {
			return nil, fmt.Errorf("%w: a refund is already requested", ErrState)
		}
	case StatusFailed:
		if o.TransactionHash == "" || s.ReceivedCents() == 0 {
			return nil, fmt.Errorf("%w: a failed receipt is refunded only for funds it received, with the refund's transaction hash", ErrState)
		}
	default:
		return nil, fmt.Errorf("%w: only a paid or reconciled receipt can be refunded, this one is %s", ErrState, s.Status)
	}
	if o.TransactionHash != "" {
		if _, ok := s.CountedRefund(o.TransactionHash); ok {
			return nil, ErrRefundHashUsed
		}
	}
	if err := s.CheckClaim(o); err != nil {
		return nil, err
	}
	remaining := s.RefundableCents()
	hashless := s.hashlessRequested()
	if o.TransactionHash != "" { // a refund sent covers what was requested too
		remaining += hashless
	}
	if o.AmountCents == 0 {
		o.AmountCents = s.defaultFundsAmount(o, remaining)
	}
	if o.AmountCents <= 0 || o.AmountCents > remaining {
		return nil, fmt.Errorf("%w: the refund must be between 0.01 and the unrefunded %d cents", ErrAmount, remaining)
	}
	switch {
	case o.TransactionHash == "":
		return []Event{RefundRequested{AmountCents: o.AmountCents, Reason: o.Reason, RequestedBy: o.By, At: o.At}}, nil
	case s.PaidOnChain() || s.Status == StatusFailed:
		return []Event{RefundRequested{AmountCents: o.AmountCents, Reason: o.Reason, RequestedBy: o.By, TransactionHash: o.TransactionHash,
			RefundTo: o.RefundTo, CoversCents: min(o.AmountCents, hashless), At: o.At}}, nil
	}
	return []Event{RefundProcessed{AmountCents: o.AmountCents, Reason: o.Reason, TransactionHash: o.TransactionHash, ProcessedBy: o.By,
		Proof: ProofMerchant, Recipient: o.RefundTo, At: o.At}}, nil
}

// CountedRefund is the claimed or processed refund of hash, if any.
func (s State) CountedRefund(hash string) (RefundRecord, bool) {
	i := s.refundIndex(hash)
	if i < 0 {
		return RefundRecord{}, false
	}
	return s.Refunds[i], true
}

// refundIndex is the index of the counted refund of hash, -1 for none.
func (s State) refundIndex(hash string) int {
	for i := len(s.Refunds) - 1; i >= 0; i-- {
		if strings.EqualFold(s.Refunds[i].TransactionHash, hash) && s.Refunds[i].Counted() {
			return i
		}
	}
	return -1
}

// hashlessRequested is what hashless requests ask for and no claim took over yet.
func (s State) hashlessRequested() int64 {
	n := int64(s.RequestedCents)
	for _, r := range s.Refunds {
		if r.State == RefundStateClaimed {
			n -= r.AmountCents
		}
	}
	return max(n, 0)
}

// ProcessRefund records that the chain shows a claimed refund (p.Proof is set to chain). A claim
// already processed changes nothing. Errors: ErrNotFound, ErrState (no such claim).
func ProcessRefund(s State, p RefundProcessed) ([]Event, error) {
	if err := must(s); err != nil {
		return nil, err
	}
	r, ok := s.CountedRefund(p.TransactionHash)
	switch {
	case !ok:
		return nil, fmt.Errorf("%w: no refund claims %s", ErrState, p.TransactionHash)
	case r.State == RefundStateProcessed:
		return nil, nil
	}
	p.Proof, p.AmountCents, p.Reason, p.TransactionHash = ProofChain, r.AmountCents, r.Reason, r.TransactionHash
	return []Event{p}, nil
}

// RefuseRefund records that the chain does not support a claimed refund, and the payment of a
// failed receipt its transfers then cover (payAfterRefusal). Anything but a claim of hash changes
// nothing. Errors: ErrNotFound, Confirm's.
func RefuseRefund(s State, hash, reason string, at int64) ([]Event, error) {
	if err := must(s); err != nil {
		return nil, err
	}
	r, ok := s.CountedRefund(hash)
	if !ok || r.State != RefundStateClaimed {
		return nil, nil
	}
	refused := RefundRefused{TransactionHash: r.TransactionHash, AmountCents: r.AmountCents, Reason: reason, At: at}
	pay, err := payAfterRefusal(Evolve(s, refused), at)
	return append([]Event{refused}, pay...), err
}

// payAfterRefusal is the payment of a failed receipt whose transfers cover it again once a
// refused claim stops counting as returned (returnedCents): the transfers that arrived while the
// claim counted did not pay it, and no later observation asks again. The last transfer completes
// it, unless it came after the late-payment watch (LateCredit: it pays nothing).
func payAfterRefusal(s State, at int64) ([]Event, error) {
	if s.Status != StatusFailed || s.Payment != nil {
		return nil, nil
	}
	for i := len(s.Credits) - 1; i >= 0; i-- {
		if c := s.Credits[i]; c.Counts() {
			if s.LateCredit(c) {
				return nil, nil
			}
			return payIfCovered(s, c, at)
		}
	}
	return nil, nil
}

// RevertRefund takes back a refund processed on chain proof whose transaction a reorg took off
// the chain. Anything else changes nothing. Errors: ErrNotFound.
func RevertRefund(s State, hash string, at int64) ([]Event, error) {
	if err := must(s); err != nil {
		return nil, err
	}
	r, ok := s.CountedRefund(hash)
	if !ok || r.State != RefundStateProcessed || r.Proof != ProofChain {
		return nil, nil
	}
	return []Event{RefundReverted{TransactionHash: r.TransactionHash, AmountCents: r.AmountCents, BlockNumber: r.BlockNumber, BlockHash: r.BlockHash, At: at}}, nil
}

// evolveRefund applies a refund event (Evolve's cases).
func (s *State) evolveRefund(e Event) {
	if s.evolveUnknownRefund(e) {
		return
	}
	switch e := e.(type) {
	case RefundRequested:
		s.refundRequested(e)
	case RefundProcessed:
		s.refundProcessed(e)
	case RefundRefused:
		i := s.refundIndex(e.TransactionHash)
		if i < 0 || s.Refunds[i].State != RefundStateClaimed {
			return
		}
		r := s.Refunds[i]
		s.RequestedCents -= money.Cents(r.AmountCents - r.CoversCents) // the covered requests stand again
		s.apartMoved(r, 0, -(r.AmountCents - r.CoversCents))
		r.State, r.RefusedReason = RefundStateRefused, e.Reason
		s.withRefund(i, r)
		s.settleAfterRefund(r, e.At)
	case RefundReverted:
		i := s.refundIndex(e.TransactionHash)
		if i < 0 || s.Refunds[i].State != RefundStateProcessed {
			return
		}
		r := s.Refunds[i]
		s.RefundedCents -= money.Cents(r.AmountCents)
		s.RequestedCents += money.Cents(r.AmountCents)
		s.apartMoved(r, -r.AmountCents, r.AmountCents)
		// Back to the claim as it was before it was processed, with the requests it covers: a
		// refusal then gives them back (before stop 60 they were lost, CoversCents reset to 0).
		// What the chain showed goes too (stop 67): a claim has no proof, token, amount or
		// recipient yet, and the reverted record kept them, so the refund read "claimed" with
		// proof chain and the amount of a block that left the chain, and "refused" so after a
		// refusal.
		r.State = RefundStateClaimed
		r.Proof, r.Token, r.AmountUnits, r.Decimals, r.Recipient, r.BlockNumber, r.BlockHash, r.Parts = "", "", "", 0, "", 0, "", nil
		r.Sender = ""
		s.withRefund(i, r)
		if r.OfFunds && s.Payment != nil || r.OfExcess { // the funds' or the excess's refund, not the order's (stops 69, 70)
			s.UpdatedAt = e.At
			return
		}
		s.refundStatus(StatusRefundRequested, e.At)
	}
}

func (s *State) refundRequested(e RefundRequested) {
	s.RequestedCents += money.Cents(e.AmountCents - e.CoversCents)
	if e.TransactionHash != "" {
		r := RefundRecord{AmountCents: e.AmountCents, Reason: e.Reason, TransactionHash: e.TransactionHash, RefundTo: e.RefundTo,
			State: RefundStateClaimed, CoversCents: e.CoversCents, OfFunds: s.Payment == nil && !e.OfExcess, OfExcess: e.OfExcess, At: e.At}
		s.apartMoved(r, 0, e.AmountCents-e.CoversCents)
		s.withRefund(-1, r)
	}
	if e.OfExcess { // the order is not being refunded (stop 70)
		s.UpdatedAt = e.At
		return
	}
	s.refundStatus(StatusRefundRequested, e.At)
}

// refundStatus sets the status a refund leads to, except on a failed receipt (a refund of funds
// that paid nothing), which stays failed.
func (s *State) refundStatus(st Status, at int64) {
	if s.Status == StatusFailed {
		s.UpdatedAt = at
		return
	}
	s.setStatus(st, at)
}

// refundProcessed applies a processed refund: a claim's on chain proof, or one on the merchant's
// word (which covers open hashless requests); refunded once the whole total is back.
func (s *State) refundProcessed(e RefundProcessed) {
	if e.OfProcessor { // not the order's, the funds' or the excess's (stop 71)
		s.processorRefunded(e)
		return
	}
	i := s.refundIndex(e.TransactionHash)
	claimed := e.Proof == ProofChain && i >= 0 && s.Refunds[i].State == RefundStateClaimed
	if e.Proof == ProofChain && !claimed {
		return
	}
	s.RefundedCents += money.Cents(e.AmountCents)
	s.RequestedCents = max(0, s.RequestedCents-money.Cents(e.AmountCents))
	if claimed {
		s.apartMoved(s.Refunds[i], e.AmountCents, -e.AmountCents)
	}
	if e.TransactionHash != "" {
		s.RefundTxHashes = append(append([]string(nil), s.RefundTxHashes...), e.TransactionHash)
	}
	r := RefundRecord{AmountCents: e.AmountCents, Reason: e.Reason, TransactionHash: e.TransactionHash, At: e.At}
	if claimed {
		r = s.Refunds[i]
	} else {
		i = -1
	}
	r.State, r.Proof = RefundStateProcessed, e.Proof
	if r.Proof == "" {
		r.Proof = ProofMerchant // recorded before proofs were named
	}
	r.Token, r.AmountUnits, r.Decimals, r.Recipient, r.BlockNumber, r.BlockHash = e.Token, e.AmountUnits, e.Decimals, e.Recipient, e.BlockNumber, e.BlockHash
	r.Parts, r.Sender = e.Parts, e.Sender
	s.withRefund(i, r)
	s.settleAfterRefund(r, e.At)
}

// settleAfterRefund is the status after refund r was processed or refused: refunded once the
// order's whole total is back, else where the receipt was settled once no refund of the order is
// requested any more. Refunds of funds returned before the payment are neither (stop 69); a
// refund of the excess changes no status (stop 70).
func (s *State) settleAfterRefund(r RefundRecord, at int64) {
	switch {
	case s.Status == StatusFailed || r.OfExcess:
		s.UpdatedAt = at
	case s.orderRefunded() >= s.Receipt.Total:
		s.setStatus(StatusRefunded, at)
	case s.orderRequested() == 0:
		s.setStatus(s.SettledStatus, at)
	}
}

// withRefund sets the refund at i (-1: appends it), on a copy of the slice (states share it).
func (s *State) withRefund(i int, r RefundRecord) {
	out := append(make([]RefundRecord, 0, len(s.Refunds)+1), s.Refunds...)
	if i < 0 {
		out = append(out, r)
	} else {
		out[i] = r
	}
	s.Refunds = out
}
