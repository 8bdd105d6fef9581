package commands

import (
	"context"
	"slices"
	"strings"
	"time"

	"github.com/payledger/payledger/domain/address"
	"github.com/payledger/payledger/domain/onchain"
	"github.com/payledger/payledger/domain/receipt"
	"github.com/payledger/payledger/eventstore"
)

// Rules of a payment hint (POST /api/portal/{id}/payment; DESIGN 9 and 10: a hint from the
// browser, kept like telemetry):
//   - only the chain's view of the receipt's own deposit address decides paid; a hint never does;
//   - a hint is kept outside the receipt's stream (PaymentHints), at most MaxHintsPerHour per
//     receipt in any hour (ErrHintsLimited); a repeat of a hash the receipt holds stores nothing;
//   - it reaches the receipt's stream only when its transaction, mined, transfers to the
//     receipt's own deposit address: a generated or pending receipt then opens a wallet attempt
//     and submits it (the hash, and the sender and token of the transfer as the chain shows them,
//     never the buyerWallet and token posted), once per hash; a failed one records nothing (only
//     confirmed funds move it), nor does one with a card or bank session open (a new attempt would
//     end the session's hold on the payment window). So a hint never names a wallet that did not
//     pay, nor sets the buyer wallet of a receipt it does not pay;
//   - a transaction not mined yet (or a chain that cannot be read now) is kept waiting, and
//     CheckPaymentHints checks it once it is mined;
//   - 409 conflict only when the transfer is credited to another receipt: the deposit follower
//     credited it to another one, or, mined, it transfers to another receipt's deposit address.
//     A mined transaction that credits nothing to this receipt's deposit address is Invalid.
//     Neither changes the receipt, and a front-runner's hint for another receipt never blocks
//     the payer's own;
//   - a mined transaction that reverted changes no status: telemetry PORTAL_CHAIN_TX_REVERTED;
//   - a receipt without a deposit address (its merchant has no split) takes no hint;
//   - a hint for a paid (closed) receipt is refused (receipt.ErrState) unless the deposit follower
//     already credited that transaction to it, or it pays its deposit: then answered as is.

// SubmitWalletPayment is a transaction the customer's wallet sent for a receipt, as the payment
// page reports it.
type SubmitWalletPayment struct {
	ReceiptID       string
	Token           string // one of receipt.PaymentTokens
	TransactionHash string
	BuyerWallet     string
	Meta            eventstore.Metadata
}

// WalletPaymentSubmitted is what the hint did: the attempt it opened ("" when none), the
// receipt's status after it, whether it waits for its transaction to be mined, and whether the
// transaction reverted (recorded as telemetry).
type WalletPaymentSubmitted struct {
	AttemptID string
	Status    receipt.Status
	Waiting   bool
	Reverted  bool
	Result    eventstore.AppendResult
}

// DepositOwners says which receipt a deposit address, or a transfer the deposit follower
// credited, belongs to (addresses and hashes lower-case hex).
type DepositOwners interface {
	// CreditedReceipts lists the receipts the transfers of transaction hash were credited to.
	CreditedReceipts(ctx context.Context, hash string) ([]string, error)
	// DepositOwner is the receipt whose deposit address is address, "" for none.
	DepositOwner(ctx context.Context, address string) (string, error)
}

// ChainTransactions is the chain as the hint's check reads it (implemented in chain/).
type ChainTransactions interface {
	// Transaction is what transaction hash did on chain now; Mined false while it is not mined
	// (or unknown). Errors: RPC errors.
	Transaction(ctx context.Context, hash string) (MinedTransaction, error)
}

// MinedTransaction is a transaction as the chain shows it.
type MinedTransaction = onchain.MinedTransaction

// ChainCredit is one transfer a transaction made: to (lower-case hex), the token's symbol (ETH:
// the transaction's value, LogIndex -1) and the amount in base units.
type ChainCredit = onchain.ChainCredit

// Refusals of a hint.
var (
	ErrTransactionCredited = &Refusal{Kind: KindConflict, Code: "conflict", Message: "This transaction pays another receipt"}
	errCreditsNothing      = Invalid("This transaction sends nothing to this receipt's deposit address (in a token this service accepts)")
)

// SubmitWalletPaymentHandler records the hints.
type SubmitWalletPaymentHandler struct {
	store Store
	hints hintChecker
	now   func() time.Time
}

// NewSubmitWalletPaymentHandler returns the handler; chain may be nil (no chain: every hint
// waits, and no receipt has a deposit address). It panics on another nil dependency.
func NewSubmitWalletPaymentHandler(store Store, hints PaymentHints, owners DepositOwners, chain ChainTransactions,
	now func() time.Time) *SubmitWalletPaymentHandler {
	if store == nil || hints == nil || owners == nil || now == nil {
		panic("commands.NewSubmitWalletPaymentHandler: nil dependency")
	}
	return &SubmitWalletPaymentHandler{store: store, now: now,
		hints: hintChecker{store: store, hints: hints, owners: owners, chain: chain, now: now}}
}

// Handle checks the hint's shape and the receipt (open, with a deposit address), refuses a hash
// credited to another receipt, keeps the hint (within the hourly limit) and checks it now (see
// the rules above). Errors: Invalid, ErrSplitRequired, ErrTransactionCredited, ErrHintsLimited,
// receipt.ErrNotFound, receipt.ErrState, ErrContended, wrapped store and chain errors.
func (h *SubmitWalletPaymentHandler) Handle(ctx context.Context, cmd SubmitWalletPayment) (WalletPaymentSubmitted, error) {
	if err := cmd.validate(); err != nil {
		return WalletPaymentSubmitted{}, err
	}
	cmd.TransactionHash, cmd.BuyerWallet = strings.ToLower(cmd.TransactionHash), strings.ToLower(cmd.BuyerWallet)
	loaded, err := LoadReceipt(ctx, h.store, cmd.ReceiptID)
	if err != nil {
		return WalletPaymentSubmitted{}, err
	}
	st := loaded.State
	if err := receipt.CanStartAttempt(st); err != nil {
		return h.late(ctx, cmd, st, err)
	}
	if st.Receipt.DepositAddress == "" {
		return WalletPaymentSubmitted{}, ErrSplitRequired
	}
	if err := h.hints.creditedElsewhere(ctx, cmd.ReceiptID, cmd.TransactionHash); err != nil {
		return WalletPaymentSubmitted{}, err
	}
	hint := PaymentHint{ReceiptID: cmd.ReceiptID, TransactionHash: cmd.TransactionHash, Token: cmd.Token, BuyerWallet: cmd.BuyerWallet,
		SubmittedAt: h.now()}
	if _, err := h.hints.hints.Keep(ctx, hint, MaxHintsPerHour); err != nil {
		return WalletPaymentSubmitted{}, err
	}
	out, err := h.hints.check(ctx, hint, st.Receipt.DepositAddress, cmd.Meta)
	if err != nil {
		return WalletPaymentSubmitted{}, err
	}
	if out.Status == "" {
		out.Status = st.Status
	}
	return out, nil
}

// late answers a hint for a receipt that takes no new attempt (err, from
// receipt.CanStartAttempt): when the hash is credited to this receipt, or its transaction pays
// this receipt's deposit (the deposit follower was faster than the page's report), the hint is
// answered with the receipt's status; any other hint is err. Nothing is kept.
func (h *SubmitWalletPaymentHandler) late(ctx context.Context, cmd SubmitWalletPayment, st receipt.State, err error) (WalletPaymentSubmitted, error) {
	if !st.Exists {
		return WalletPaymentSubmitted{}, err
	}
	credited, cerr := h.hints.owners.CreditedReceipts(ctx, cmd.TransactionHash)
	if cerr != nil {
		return WalletPaymentSubmitted{}, cerr
	}
	if slices.Contains(credited, cmd.ReceiptID) || h.hints.paysDeposit(ctx, cmd.TransactionHash, st.Receipt.DepositAddress) {
		return WalletPaymentSubmitted{Status: st.Status}, nil
	}
	return WalletPaymentSubmitted{}, err
}

func (cmd SubmitWalletPayment) validate() error {
	switch {
	case !slices.Contains(receipt.PaymentTokens(), cmd.Token):
		return Invalid("token must be one of " + strings.Join(receipt.PaymentTokens(), ", "))
	case !txHashRE.MatchString(cmd.TransactionHash):
		return Invalid(msgTxHash)
	case !address.Valid(cmd.BuyerWallet):
		return Invalid("buyerWallet must be 0x followed by 40 hex characters")
	}
	return nil
}

// CodeTxReverted is the failure-catalog code of a submitted transaction that reverted, recorded
// as telemetry, never as a failure.
const CodeTxReverted = "PORTAL_CHAIN_TX_REVERTED"
