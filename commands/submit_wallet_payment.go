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

// SubmitWalletPaymentHandler records wallet payments.
type SubmitWalletPaymentHandler struct {
	store Store
	now   func() time.Time
}

// NewSubmitWalletPaymentHandler returns the handler. It panics on a nil dependency.
func NewSubmitWalletPaymentHandler(store Store, now func() time.Time) *SubmitWalletPaymentHandler {
	if store == nil || now == nil {
		panic("commands.NewSubmitWalletPaymentHandler: nil dependency")
	}
	return &SubmitWalletPaymentHandler{store: store, now: now}
}

// Handle checks the submission's shape, then starts a wallet attempt and submits it in one
// append (hash and wallet lower-cased). Errors: Invalid, receipt.ErrNotFound, receipt.ErrState,
// ErrContended, wrapped store errors.
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
		return Then(st, evs, err, func(st receipt.State) ([]receipt.Event, error) {
			return receipt.Submit(st, receipt.PaymentSubmitted{AttemptID: attemptID, Source: "wallet", Token: cmd.Token,
				TransactionHash: strings.ToLower(cmd.TransactionHash), BuyerWallet: strings.ToLower(cmd.BuyerWallet), At: now})
		})
	})
	if err != nil {
		return WalletPaymentSubmitted{}, err
	}
	return WalletPaymentSubmitted{AttemptID: attemptID, Status: st.Status, Result: res}, nil
}
