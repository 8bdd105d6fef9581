package commands

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/payledger/payledger/domain/address"
	"github.com/payledger/payledger/domain/money"
	"github.com/payledger/payledger/domain/receipt"
	"github.com/payledger/payledger/eventstore"
)

// Refund requests a refund of a paid receipt (without a transaction hash) or records the hash of
// the refund's transaction: a claim the refund verifier checks on chain for a receipt paid on
// chain, a refund processed on the merchant's word for one paid otherwise (DESIGN 10).
type Refund struct {
	ReceiptID       string
	AmountUSD       string // "": the whole unrefunded total
	Reason          string
	TransactionHash string // "": a request
	RefundTo        string // "": a sender of the receipt's payment; else the address the refund went to
	// Unknown: the refund returns this unconfigured token's transfer (no AmountUSD, a hash required).
	Unknown *receipt.UnknownTransferRef
	// Excess: the refund returns what the customer sent beyond the order's total, apart from the
	// order's refunds (receipt.ExcessUnrefundedCents; a transaction hash required; stop 70).
	Excess bool
	// ProcessorPayment: the refund returns card or bank payments the processor collected and the
	// receipt does not count (processorPaymentsToRefund), apart from the order, on the merchant's
	// word (receipt.ProcessorUnrefundedCents; a transaction hash required; stop 71).
	ProcessorPayment bool
	By               string // the merchant's (or admin's) wallet
	Admin            bool   // a platform admin may refund any merchant's receipt
	Meta             eventstore.Metadata
}

// Refunded is a receipt after a refund.
type Refunded struct {
	State  receipt.State
	Result eventstore.AppendResult
}

// RefundClaims holds refund transaction hashes per receipt, so that one transfer never counts
// for two refunds: any receipt may hold a claim of a hash until one receipt's refund takes it
// (the verifier proved it first, or it was counted on the merchant's word), and a hold on the
// merchant's word (holdKey) is one receipt's only.
type RefundClaims interface {
	// Reserve holds hash for a refund of receiptID from at (the claim's time, by the command's
	// clock, which the verifier's wait for the transaction counts from); fresh says this call made
	// the reservation (false: the receipt held it already). Errors: ErrRefundHashTaken (another
	// receipt's refund took it), wrapped store errors.
	Reserve(ctx context.Context, hash, receiptID string, at time.Time) (fresh bool, err error)
	// Release gives back a reservation made by a request that recorded no refund: every Reserve
	// (fresh or not) holds the hash once, and the hash is free again only when no request holds
	// it (a double submit's other request may have recorded the refund meanwhile).
	Release(ctx context.Context, hash, receiptID string) error
}

// ErrRefundHashTaken: the transaction hash is already counted for another refund.
var ErrRefundHashTaken = &Refusal{Kind: KindConflict, Code: "conflict", Message: "This transactionHash is already counted for another refund"}

// RefundHandler refunds receipts.
type RefundHandler struct {
	store  Store
	claims RefundClaims
	now    func() time.Time
	turns  *refundTurns // one refund of a receipt at a time in this process (refund_turns.go)
}

// NewRefundHandler returns the handler. It panics on a nil dependency.
func NewRefundHandler(store Store, claims RefundClaims, now func() time.Time) *RefundHandler {
	if store == nil || claims == nil || now == nil {
		panic("commands.NewRefundHandler: nil dependency")
	}
	return &RefundHandler{store: store, claims: claims, now: now, turns: &refundTurns{}}
}

// Handle checks the refund's shape, waits for the receipt's turn (refundTurns), reserves its
// transaction hash, then applies receipt.RequestRefund. Another merchant's receipt is not there
// for the caller (receipt.ErrNotFound) unless the caller is a platform admin. Errors: Invalid,
// ErrRefundHashTaken, ErrRefundClaimsOpen, ErrRefundRecordsExhausted, receipt.ErrNotFound, receipt.ErrState, receipt.ErrAmount, ErrContended,
// ctx's, wrapped store errors.
func (h *RefundHandler) Handle(ctx context.Context, cmd Refund) (Refunded, error) {
	order, err := refundOrder(cmd)
	if err != nil {
		return Refunded{}, err
	}
	release, err := h.turns.take(ctx, cmd.ReceiptID)
	if err != nil {
		return Refunded{}, err
	}
	defer release()
	var key string              // the refund's hold on its hash (holdKey)
	var l Loaded[receipt.State] // what the hash's checks read; the decision reads only what came after
	if order.TransactionHash != "" {
		// The receipt's owner first: another merchant's refund must neither learn that a hash is
		// counted (409) nor hold it. A receipt's merchant never changes, so the check holds below.
		if l, err = LoadReceipt(ctx, h.store, cmd.ReceiptID); err != nil {
			return Refunded{}, err
		}
		if err := refunder(l.State, cmd); err != nil {
			return Refunded{}, err
		}
		if err := l.State.CheckClaim(order); err != nil { // before the hash is held
			return Refunded{}, claimRefusal(err)
		}
		key = holdKey(l.State, order)
		if _, err = h.claims.Reserve(ctx, key, cmd.ReceiptID, h.now()); err != nil {
			return Refunded{}, err
		}
	}
	var after receipt.State
	l, res, err := executeOn(ctx, h.store, ReceiptStream(cmd.ReceiptID), receiptAggregate, l, receiptDecision(&after, cmd.Meta, func(st receipt.State) ([]receipt.Event, error) {
		if err := refunder(st, cmd); err != nil {
			return nil, err
		}
		if order.TransactionHash != "" && holdKey(st, order) != key { // held as the other kind of refund
			return nil, errRefundKindChanged
		}
		o := order
		o.At = h.now().UnixMilli()
		return receipt.RequestRefund(st, o)
	}))
	if err != nil {
		if order.TransactionHash != "" {
			if rerr := h.release(ctx, key, cmd.ReceiptID, l); rerr != nil {
				err = errors.Join(err, fmt.Errorf("releasing the refund hash: %w", rerr))
			}
		}
		if errors.Is(err, receipt.ErrRefundHashUsed) {
			return Refunded{}, ErrRefundHashTaken
		}
		return Refunded{}, claimRefusal(err)
	}
	return Refunded{State: after, Result: res}, nil
}

// ErrRefundClaimsOpen: the receipt's open claims are at receipt.MaxOpenRefundClaims (409: a
// verdict makes room).
var ErrRefundClaimsOpen = &Refusal{Kind: KindConflict, Code: "conflict", Message: fmt.Sprintf(
	"At most %d refund claims of a receipt wait for the chain's verdict at once; claim the next refund once one is processed or refused", receipt.MaxOpenRefundClaims)}

// ErrRefundRecordsExhausted: the receipt has recorded receipt.MaxRefundRecords refunds with a
// transaction hash (403: a lifetime bound never lifts, as the quotes' and onramp sessions' do not).
var ErrRefundRecordsExhausted = &Refusal{Kind: KindForbidden, Code: "forbidden", Message: fmt.Sprintf(
	"At most %d refunds with a transaction hash per receipt", receipt.MaxRefundRecords)}

// claimRefusal is the refusal of a claim that breaks a rule of receipt.CheckClaim; other errors
// are returned as they are.
func claimRefusal(err error) error {
	switch {
	case errors.Is(err, receipt.ErrRefundRecordsExhausted):
		return ErrRefundRecordsExhausted
	case errors.Is(err, receipt.ErrRefundClaimsOpen):
		return ErrRefundClaimsOpen
	case errors.Is(err, receipt.ErrRefundTarget):
		return Invalid(strings.TrimPrefix(err.Error(), receipt.ErrState.Error()+": "))
	}
	return err
}

// refunder refuses (receipt.ErrNotFound) a refund of another merchant's receipt unless a
// platform admin asks: it is not there for the caller.
func refunder(st receipt.State, cmd Refund) error {
	if st.Receipt.Merchant != cmd.By && !cmd.Admin {
		return receipt.ErrNotFound
	}
	return nil
}

// release gives back this request's hold (key, holdKey) on its hash after its refund failed,
// unless the receipt's history counts a refund with the hash: an append whose commit answered
// with an error may have been recorded, and its claim is the verifier's to judge. (A crash
// before this leaves the hold to the verifier, which deletes a claim never recorded.) seen is the
// receipt as the refund's decision last read it: only what was appended since is read.
func (h *RefundHandler) release(ctx context.Context, key, receiptID string, seen Loaded[receipt.State]) error {
	l, err := loadOn(ctx, h.store, ReceiptStream(receiptID), receiptAggregate, seen)
	if err != nil { // the hold stays; the verifier deletes it in a minute if nothing was recorded
		return err
	}
	if _, recorded := l.State.CountedRefund(RefundHashOf(key)); recorded {
		return nil
	}
	return h.claims.Release(ctx, key, receiptID)
}

// errRefundKindChanged: the receipt changed between the hold on the hash and the append so that
// the refund is now of the other kind (a claim, or the merchant's word); rare, sent again it holds
// the right key.
var errRefundKindChanged = &Refusal{Kind: KindConflict, Code: "conflict", Message: "The receipt changed while the refund was recorded; send the refund again"}

// holdKey is what RefundClaims holds for a refund with a transaction hash. A claim, which the
// chain proves, holds the hash itself: one transfer counts for one refund, service-wide. A refund
// on the merchant's word (a receipt paid by the onramp processor or at a terminal) proves nothing
// and holds the hash for its merchant only ("<hash>/<merchant>"): it held the hash itself, so any
// merchant could refund a receipt of its own (a terminal sale it completed itself) on its word
// with the hash of another merchant's refund transaction, seen on chain or in the mempool, and
// that merchant's claim of its own refund was 409 conflict for good. A refund of the excess is a
// claim whatever paid the receipt (the chain proves it) and holds the hash itself. A claim naming
// a refundTo that is none of the receipt's payers is held the same way (namedElsewhere). A refund
// of processor payments is on the merchant's word whatever paid the receipt (stop 71).
func holdKey(st receipt.State, o receipt.RefundOrder) string {
	if !o.Processor && (o.Unknown != nil || o.Excess || st.PaidOnChain() || st.Status == receipt.StatusFailed) && !namedElsewhere(st, o) {
		return o.TransactionHash
	}
	return o.TransactionHash + "/" + strings.ToLower(st.Receipt.Merchant)
}

// namedElsewhere says whether the refund names a refundTo that is none of the addresses the
// receipt's money came from (its payers; an unconfigured token's refund: that transfer's sender).
// A transfer to it proves only that money reached an address the merchant chose, which is the
// merchant's word on where the customer wanted it (stop 60): such a claim must not take the hash
// from other merchants. It did (stop 66): any merchant with a receipt paid on chain claimed
// another merchant's refund transaction naming its recipient as refundTo, was proven first, and
// the real merchant's claim was refused ("counted for another refund") or 409 for good.
func namedElsewhere(st receipt.State, o receipt.RefundOrder) bool {
	if o.RefundTo == "" {
		return false
	}
	if o.Unknown != nil {
		u, ok := st.UnknownTokenOf(*o.Unknown)
		return !ok || !strings.EqualFold(u.Sender, o.RefundTo)
	}
	return !slices.Contains(st.RefundRecipients(), strings.ToLower(o.RefundTo))
}

// RefundHashOf is the transaction hash of a hold key (holdKey).
func RefundHashOf(key string) string {
	hash, _, _ := strings.Cut(key, "/")
	return hash
}

// maxRefundReason is the longest reason of a refund, in characters.
const maxRefundReason = 500

// refundOrder checks a refund's shape and returns it as the domain's order. Errors: Invalid.
func refundOrder(cmd Refund) (receipt.RefundOrder, error) {
	// In characters, as the message and the dashboard's maxlength say: 200 Japanese characters
	// (600 bytes) were refused as over 500.
	if cmd.ReceiptID == "" || strings.TrimSpace(cmd.Reason) == "" || utf8.RuneCountInString(cmd.Reason) > maxRefundReason {
		return receipt.RefundOrder{}, Invalid("receiptId and a reason (up to 500 characters) are required")
	}
	if cmd.TransactionHash != "" && !txHashRE.MatchString(cmd.TransactionHash) {
		return receipt.RefundOrder{}, Invalid(msgTxHash)
	}
	if cmd.RefundTo != "" && !address.Valid(cmd.RefundTo) {
		return receipt.RefundOrder{}, Invalid("refundTo must be 0x followed by 40 hex characters")
	}
	o := receipt.RefundOrder{Reason: cmd.Reason, TransactionHash: strings.ToLower(cmd.TransactionHash), RefundTo: strings.ToLower(cmd.RefundTo),
		Excess: cmd.Excess, Processor: cmd.ProcessorPayment, By: cmd.By}
	if cmd.Excess && (cmd.TransactionHash == "" || cmd.Unknown != nil) {
		return receipt.RefundOrder{}, Invalid("a refund of the excess needs the refund's transactionHash (the chain proves it) and no unknownTransfer")
	}
	if cmd.ProcessorPayment && (cmd.TransactionHash == "" || cmd.Unknown != nil || cmd.Excess) {
		return receipt.RefundOrder{}, Invalid("a refund of processor payments needs the refund's transactionHash, and neither excess nor unknownTransfer")
	}
	if u := cmd.Unknown; u != nil {
		if !txHashRE.MatchString(u.TransactionHash) || u.LogIndex < 0 || cmd.TransactionHash == "" || cmd.AmountUSD != "" {
			return receipt.RefundOrder{}, Invalid("unknownTransfer needs its transactionHash (0x and 64 hex characters) and logIndex (0 or more), the refund's transactionHash, and no amountUsd (the refund returns the raw amount received)")
		}
		o.Unknown = &receipt.UnknownTransferRef{TransactionHash: strings.ToLower(u.TransactionHash), LogIndex: u.LogIndex}
	}
	if cmd.AmountUSD != "" {
		c, err := money.ParseCents(cmd.AmountUSD)
		if err != nil || c == 0 {
			return receipt.RefundOrder{}, Invalid(msgAmount)
		}
		o.AmountCents = int64(c)
	}
	return o, nil
}
