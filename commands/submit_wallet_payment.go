package commands

import (
	"context"
	"errors"
	"slices"
	"strings"
	"time"

	"github.com/payledger/payledger/domain/address"
	"github.com/payledger/payledger/domain/receipt"
	"github.com/payledger/payledger/eventstore"
)

// Rules of a submitted hash (DESIGN 9: a hint from the browser, like telemetry):
//   - only the chain's view of the receipt's own deposit address decides paid or a chain failure;
//     a submitted hash never does;
//   - a well-formed hash makes a generated receipt pending (a new wallet attempt, submitted) and
//     is followed by the wallet verifier; a pending receipt takes it as a new attempt and stays
//     pending; a failed one records nothing (only confirmed funds on chain move it out of failed);
//   - a mined transaction that credits nothing to this receipt's deposit address (the split,
//     another receipt's deposit, a token the chain does not configure): Invalid, nothing changes;
//   - a hash already credited to another receipt (its deposit credits), one whose transfer goes
//     to another receipt's deposit address, or one already submitted for another receipt:
//     conflict, nothing changes;
//   - a mined transaction that reverted changes no status: telemetry with
//     PORTAL_CHAIN_TX_REVERTED (so the page can say so); the payment window decides;
//   - a receipt without a deposit address (its merchant has no split) takes no hint;
//   - a hint for a paid receipt is refused (receipt.ErrState) unless the deposit follower already
//     credited that transaction to it (the page reported it late): then it is answered as is.

// SubmitWalletPayment is a transaction the customer's wallet sent for a receipt, as the payment
// page reports it (POST /api/portal/{id}/payment).
type SubmitWalletPayment struct {
	ReceiptID       string
	Token           string // one of receipt.PaymentTokens
	TransactionHash string
	BuyerWallet     string
	Meta            eventstore.Metadata
}

// WalletPaymentSubmitted is what the hint did: the attempt it opened ("" when none), the
// receipt's status after it, and whether the transaction reverted (recorded as telemetry).
type WalletPaymentSubmitted struct {
	AttemptID string
	Status    receipt.Status
	Reverted  bool
	Result    eventstore.AppendResult
}

// TransactionClaims binds a submitted transaction hash to the receipt it was submitted for, so
// that two receipts never hold one hash. The binding is kept by the database (a unique index),
// so that two instances cannot bind one hash to two receipts.
type TransactionClaims interface {
	// ClaimTransaction binds hash (compared case-insensitively) to receiptID unless it is bound
	// already, and returns the receipt it is bound to.
	ClaimTransaction(ctx context.Context, hash, receiptID string) (string, error)
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
type MinedTransaction struct {
	Mined, Reverted bool
	BlockNumber     uint64
	Credits         []ChainCredit // a successful transaction's transfers of configured tokens and its ETH value
}

// ChainCredit is one transfer a transaction made: to (lower-case hex), the token's symbol (ETH:
// the transaction's value, LogIndex -1) and the amount in base units.
type ChainCredit struct {
	To, Token   string
	LogIndex    int
	AmountUnits string
}

// Refusals of a hint.
var (
	ErrTransactionUsed     = &Refusal{Kind: KindConflict, Code: "conflict", Message: "This transaction was already submitted for another receipt"}
	ErrTransactionCredited = &Refusal{Kind: KindConflict, Code: "conflict", Message: "This transaction pays another receipt"}
	errCreditsNothing      = Invalid("This transaction sends nothing to this receipt's deposit address (in a token this service accepts)")
)

// SubmitWalletPaymentHandler records the hints.
type SubmitWalletPaymentHandler struct {
	store  Store
	claims TransactionClaims
	owners DepositOwners
	chain  ChainTransactions // nil: no chain configured; a hint is taken unchecked
	now    func() time.Time
}

// NewSubmitWalletPaymentHandler returns the handler; chain may be nil (no chain: nothing is
// checked, and no receipt has a deposit address). It panics on another nil dependency.
func NewSubmitWalletPaymentHandler(store Store, claims TransactionClaims, owners DepositOwners, chain ChainTransactions,
	now func() time.Time) *SubmitWalletPaymentHandler {
	if store == nil || claims == nil || owners == nil || now == nil {
		panic("commands.NewSubmitWalletPaymentHandler: nil dependency")
	}
	return &SubmitWalletPaymentHandler{store: store, claims: claims, owners: owners, chain: chain, now: now}
}

// Handle checks the hint's shape, the receipt (open, with a deposit address), who the hash is
// credited to, and what the transaction did if it is mined (see the rules above); then it opens
// and submits a wallet attempt in one append (hash and wallet lower-cased) when the receipt is
// generated or pending. Errors: Invalid, ErrSplitRequired, ErrTransactionUsed,
// ErrTransactionCredited, receipt.ErrNotFound, receipt.ErrState, ErrContended, wrapped store
// and chain errors.
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
	deposit := strings.ToLower(st.Receipt.DepositAddress)
	if deposit == "" {
		return WalletPaymentSubmitted{}, ErrSplitRequired
	}
	reverted, err := h.check(ctx, cmd, deposit)
	if err != nil {
		return WalletPaymentSubmitted{}, err
	}
	if reverted {
		return WalletPaymentSubmitted{Status: st.Status, Reverted: true}, h.revertedTelemetry(ctx, cmd)
	}
	return h.submit(ctx, cmd)
}

// late answers a hint for a receipt that takes no new attempt (err, from
// receipt.CanStartAttempt): when the hash is credited to this receipt, or its transaction pays
// this receipt's deposit (the deposit follower was faster than the page's report), the hint is
// answered with the receipt's status; any other hint is err.
func (h *SubmitWalletPaymentHandler) late(ctx context.Context, cmd SubmitWalletPayment, st receipt.State, err error) (WalletPaymentSubmitted, error) {
	if !st.Exists {
		return WalletPaymentSubmitted{}, err
	}
	credited, cerr := h.owners.CreditedReceipts(ctx, cmd.TransactionHash)
	if cerr != nil {
		return WalletPaymentSubmitted{}, cerr
	}
	if slices.Contains(credited, cmd.ReceiptID) || h.creditsDeposit(ctx, cmd.TransactionHash, st.Receipt.DepositAddress) {
		return WalletPaymentSubmitted{Status: st.Status}, nil
	}
	return WalletPaymentSubmitted{}, err
}

// creditsDeposit reports whether the chain shows transaction hash mined and crediting deposit
// (the read model may lag the receipt's events by a moment).
func (h *SubmitWalletPaymentHandler) creditsDeposit(ctx context.Context, hash, deposit string) bool {
	if h.chain == nil || deposit == "" {
		return false
	}
	tx, err := h.chain.Transaction(ctx, hash)
	if err != nil || !tx.Mined || tx.Reverted {
		return false
	}
	return slices.ContainsFunc(tx.Credits, func(c ChainCredit) bool { return strings.EqualFold(c.To, deposit) })
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

// check refuses a hash credited to another receipt, and a mined transaction that credits nothing
// to deposit; reverted reports a mined transaction that reverted. A chain that cannot be read
// checks nothing now: the hint is only a hint, and the verifier follows it.
func (h *SubmitWalletPaymentHandler) check(ctx context.Context, cmd SubmitWalletPayment, deposit string) (reverted bool, err error) {
	credited, err := h.owners.CreditedReceipts(ctx, cmd.TransactionHash)
	if err != nil {
		return false, err
	}
	for _, id := range credited {
		if id != cmd.ReceiptID {
			return false, ErrTransactionCredited
		}
	}
	if h.chain == nil {
		return false, nil
	}
	tx, err := h.chain.Transaction(ctx, cmd.TransactionHash)
	if err != nil || !tx.Mined {
		return false, nil // an unreadable chain decides nothing now; the verifier follows the hint
	}
	if tx.Reverted {
		return true, nil
	}
	return false, h.credits(ctx, cmd.ReceiptID, deposit, tx.Credits)
}

// credits accepts credits with one to deposit; one to another receipt's deposit is a conflict,
// anything else Invalid.
func (h *SubmitWalletPaymentHandler) credits(ctx context.Context, receiptID, deposit string, credits []ChainCredit) error {
	for _, c := range credits {
		if strings.EqualFold(c.To, deposit) {
			return nil
		}
	}
	for _, c := range credits {
		owner, err := h.owners.DepositOwner(ctx, strings.ToLower(c.To))
		if err != nil {
			return err
		}
		if owner != "" && owner != receiptID {
			return ErrTransactionCredited
		}
	}
	return errCreditsNothing
}

// revertedTelemetry records the reverted transaction as the receipt's telemetry; a receipt past
// its hourly telemetry limit keeps the reports it has.
func (h *SubmitWalletPaymentHandler) revertedTelemetry(ctx context.Context, cmd SubmitWalletPayment) error {
	now := h.now()
	evs := []receipt.Event{receipt.TelemetryRecorded{Event: "error", Code: CodeTxReverted, At: now.UnixMilli()}}
	err := AppendTelemetry(ctx, h.store, cmd.ReceiptID, now, evs, cmd.Meta)
	if errors.Is(err, ErrTelemetryLimited) {
		return nil
	}
	return err
}

// CodeTxReverted is the failure-catalog code of a submitted transaction that reverted, recorded
// as telemetry, never as a failure.
const CodeTxReverted = "PORTAL_CHAIN_TX_REVERTED"

// submit claims the hash for the receipt and, while the receipt is generated or pending, opens
// a wallet attempt and submits it in one append.
func (h *SubmitWalletPaymentHandler) submit(ctx context.Context, cmd SubmitWalletPayment) (WalletPaymentSubmitted, error) {
	attemptID := newAttemptID()
	now := h.now().UnixMilli()
	opened := false
	st, res, err := ChangeReceipt(ctx, h.store, cmd.ReceiptID, cmd.Meta, func(st receipt.State) ([]receipt.Event, error) {
		if err := receipt.CanStartAttempt(st); err != nil {
			return nil, err
		}
		holder, err := h.claims.ClaimTransaction(ctx, cmd.TransactionHash, cmd.ReceiptID)
		if err != nil {
			return nil, err
		}
		if holder != cmd.ReceiptID {
			return nil, ErrTransactionUsed
		}
		opened = st.Status == receipt.StatusGenerated || st.Status == receipt.StatusPending
		if !opened {
			return nil, nil // failed: only confirmed funds on chain move it
		}
		evs, err := receipt.StartAttempt(st, receipt.AttemptStarted{AttemptID: attemptID, Kind: "wallet", OpenedBy: "service", At: now})
		return receipt.Then(st, evs, err, func(st receipt.State) ([]receipt.Event, error) {
			return receipt.Submit(st, receipt.PaymentSubmitted{AttemptID: attemptID, Source: "wallet", Token: cmd.Token,
				TransactionHash: cmd.TransactionHash, BuyerWallet: cmd.BuyerWallet, At: now})
		})
	})
	if err != nil {
		return WalletPaymentSubmitted{}, err
	}
	out := WalletPaymentSubmitted{Status: st.Status, Result: res}
	if opened {
		out.AttemptID = attemptID
	}
	return out, nil
}
