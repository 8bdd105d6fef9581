package commands

import (
	"context"
	"slices"
	"strings"
	"time"

	"github.com/payledger/payledger/domain/receipt"
	"github.com/payledger/payledger/eventstore"
)

// SubmitWalletPayment records a transaction the customer sent from their wallet: a new attempt,
// submitted at once. The receipt goes pending; paid comes only from the chain verifier reading
// the transaction receipt.
type SubmitWalletPayment struct {
	ReceiptID       string
	Token           string // one of PaymentTokens
	TransactionHash string
	BuyerWallet     string
	Meta            eventstore.Metadata
}

// WalletPaymentSubmitted is the attempt a wallet payment opened and the receipt's status after it.
type WalletPaymentSubmitted struct {
	AttemptID string
	Status    receipt.Status
	Result    eventstore.AppendResult
}

// TransactionClaims binds a transaction hash to the receipt it pays: one transaction pays one
// receipt (DESIGN 8). The binding is kept by the database (a unique index), so that two
// instances cannot bind one hash to two receipts.
type TransactionClaims interface {
	// ClaimTransaction binds hash (compared case-insensitively) to receiptID unless it is bound
	// already, and returns the receipt it is bound to.
	ClaimTransaction(ctx context.Context, hash, receiptID string) (string, error)
}

// ErrTransactionUsed refuses a transaction hash already submitted for another receipt.
var ErrTransactionUsed = &Refusal{Kind: KindConflict, Code: "conflict", Message: "This transaction was already submitted for another receipt"}

// SubmitWalletPaymentHandler records wallet payments.
type SubmitWalletPaymentHandler struct {
	store  Store
	claims TransactionClaims
	now    func() time.Time
}

// NewSubmitWalletPaymentHandler returns the handler. It panics on a nil dependency.
func NewSubmitWalletPaymentHandler(store Store, claims TransactionClaims, now func() time.Time) *SubmitWalletPaymentHandler {
	if store == nil || claims == nil || now == nil {
		panic("commands.NewSubmitWalletPaymentHandler: nil dependency")
	}
	return &SubmitWalletPaymentHandler{store: store, claims: claims, now: now}
}

// Handle checks the submission's shape, then starts a wallet attempt and submits it in one
// append (hash and wallet lower-cased). The hash is claimed for the receipt once the receipt is
// known to accept a payment, before the append: a hash claimed by another receipt is refused,
// and a claim whose append then fails stays with this receipt (its retry may use it).
// Errors: Invalid, ErrTransactionUsed, receipt.ErrNotFound, receipt.ErrState, ErrContended,
// wrapped store errors.
func (h *SubmitWalletPaymentHandler) Handle(ctx context.Context, cmd SubmitWalletPayment) (WalletPaymentSubmitted, error) {
	switch {
	case !slices.Contains(PaymentTokens, cmd.Token):
		return WalletPaymentSubmitted{}, Invalid("token must be one of " + strings.Join(PaymentTokens, ", "))
	case !txHashRE.MatchString(cmd.TransactionHash):
		return WalletPaymentSubmitted{}, Invalid(msgTxHash)
	case !walletRE.MatchString(cmd.BuyerWallet):
		return WalletPaymentSubmitted{}, Invalid("buyerWallet must be 0x followed by 40 hex characters")
	}
	attemptID := newAttemptID()
	now := h.now().UnixMilli()
	st, res, err := ChangeReceipt(ctx, h.store, cmd.ReceiptID, cmd.Meta, func(st receipt.State) ([]receipt.Event, error) {
		evs, err := receipt.StartAttempt(st, receipt.AttemptStarted{AttemptID: attemptID, Kind: "wallet", OpenedBy: "service", At: now})
		if err != nil {
			return nil, err
		}
		holder, err := h.claims.ClaimTransaction(ctx, cmd.TransactionHash, cmd.ReceiptID)
		if err != nil {
			return nil, err
		}
		if holder != cmd.ReceiptID {
			return nil, ErrTransactionUsed
		}
		return receipt.Then(st, evs, err, func(st receipt.State) ([]receipt.Event, error) {
			return receipt.Submit(st, receipt.PaymentSubmitted{AttemptID: attemptID, Source: "wallet", Token: cmd.Token,
				TransactionHash: strings.ToLower(cmd.TransactionHash), BuyerWallet: strings.ToLower(cmd.BuyerWallet), At: now})
		})
	})
	if err != nil {
		return WalletPaymentSubmitted{}, err
	}
	return WalletPaymentSubmitted{AttemptID: attemptID, Status: st.Status, Result: res}, nil
}
