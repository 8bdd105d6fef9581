package commands

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/payledger/payledger/domain/receipt"
	"github.com/payledger/payledger/eventstore"
)

// MaxHintsPerHour is how many hints one receipt takes in any hour (DESIGN 10): the route is
// public, and each hint is kept and checked on chain.
const MaxHintsPerHour = 20

// hintFollowFor is how long a hint whose transaction is not mined stays waiting: a transaction
// still unknown a day later was dropped (or never sent).
const hintFollowFor = 24 * time.Hour

// ErrHintsLimited refuses a hint past MaxHintsPerHour.
var ErrHintsLimited = errors.New("this receipt has taken its payment hints for this hour")

// Outcomes of a kept hint.
const (
	HintWaiting  = "waiting"
	HintCredited = "credited"
	HintRefused  = "refused"
	HintExpired  = "expired"
)

// PaymentHint is a hint as kept: hashes and addresses lower-case hex.
type PaymentHint struct {
	ReceiptID, TransactionHash, Token, BuyerWallet string
	SubmittedAt                                    time.Time
}

// PaymentHints keeps the hints outside the receipts' streams (pgstore.PaymentHints).
type PaymentHints interface {
	// Keep stores h as waiting unless its receipt took max hints in the hour before
	// h.SubmittedAt (ErrHintsLimited); fresh is false when the receipt holds this hash already
	// (nothing is stored or counted). Errors: ErrHintsLimited (a *receipt.Limited, reset when
	// the hour's oldest hint leaves it), wrapped database errors.
	Keep(ctx context.Context, h PaymentHint, max int) (fresh bool, err error)
	// Waiting lists up to limit hints still waiting that were submitted at or after since,
	// oldest first.
	Waiting(ctx context.Context, since time.Time, limit int) ([]PaymentHint, error)
	// Decide records a waiting hint's outcome (HintCredited, HintRefused).
	Decide(ctx context.Context, receiptID, hash, state string, at time.Time) error
	// Expire marks HintExpired every hint still waiting that was submitted before before.
	Expire(ctx context.Context, before, at time.Time) (int, error)
}

// hintChecker checks a kept hint against the chain and records what it found: the part of the
// rules (submit_wallet_payment.go) that runs when the hint is posted and again, for a
// transaction not mined then, when CheckPaymentHints finds it mined.
type hintChecker struct {
	store  Store
	hints  PaymentHints
	owners DepositOwners
	chain  ChainTransactions // nil: no chain; every hint waits
	now    func() time.Time
}

// creditedElsewhere refuses a hash the deposit follower credited to other receipts only. One
// transaction may pay several deposits (a batch transfer: a log each); a transfer of it credited
// to this receipt makes the hint this receipt's (DESIGN 10: 409 only when the transfer is credited
// to another receipt).
func (c hintChecker) creditedElsewhere(ctx context.Context, receiptID, hash string) error {
	credited, err := c.owners.CreditedReceipts(ctx, hash)
	if err != nil {
		return err
	}
	if len(credited) > 0 && !slices.Contains(credited, receiptID) {
		return ErrTransactionCredited
	}
	return nil
}

// check reads the hint's transaction: not mined (or unreadable) it waits; reverted, it is
// telemetry; mined, it either pays deposit (the hint reaches the receipt's stream) or is refused
// with ErrTransactionCredited or Invalid. Every decision is recorded on the kept hint.
func (c hintChecker) check(ctx context.Context, h PaymentHint, deposit string, meta eventstore.Metadata) (WalletPaymentSubmitted, error) {
	if c.chain == nil {
		return WalletPaymentSubmitted{Waiting: true}, nil
	}
	tx, err := c.chain.Transaction(ctx, h.TransactionHash)
	if err != nil || !tx.Mined {
		return WalletPaymentSubmitted{Waiting: true}, nil // checked again once mined
	}
	if tx.Reverted {
		if err := c.decide(ctx, h, HintRefused); err != nil {
			return WalletPaymentSubmitted{}, err
		}
		return WalletPaymentSubmitted{Reverted: true}, c.revertedTelemetry(ctx, h.ReceiptID, meta)
	}
	if refused := c.credits(ctx, h.ReceiptID, deposit, tx.Credits); refused != nil {
		if refused == errCreditsNothing && h.Token == "ETH" && c.ethArrived(ctx, tx.BlockNumber, deposit) {
			// ETH a contract sent (a smart-contract wallet's payment: an internal call) shows in
			// no transaction's fields, but the deposit's balance rose in the transaction's block:
			// not refused. The deposit follower credits it by the balance; the hint adds nothing.
			return WalletPaymentSubmitted{}, c.decide(ctx, h, HintCredited)
		}
		if err := c.decide(ctx, h, HintRefused); err != nil {
			return WalletPaymentSubmitted{}, err
		}
		return WalletPaymentSubmitted{}, refused
	}
	i := slices.IndexFunc(tx.Credits, func(cr ChainCredit) bool { return pays(cr, deposit) })
	out, err := c.submit(ctx, h, tx.Credits[i], meta)
	if err != nil {
		return WalletPaymentSubmitted{}, err
	}
	return out, c.decide(ctx, h, HintCredited)
}

func (c hintChecker) decide(ctx context.Context, h PaymentHint, state string) error {
	if err := c.hints.Decide(ctx, h.ReceiptID, h.TransactionHash, state, c.now()); err != nil {
		return fmt.Errorf("record hint %s for %s: %w", state, h.ReceiptID, err)
	}
	return nil
}

// credits accepts credits with one to deposit; one to another receipt's deposit is
// ErrTransactionCredited (the deposit follower credits it to that receipt), anything else
// Invalid.
func (c hintChecker) credits(ctx context.Context, receiptID, deposit string, credits []ChainCredit) error {
	if slices.ContainsFunc(credits, func(cr ChainCredit) bool { return pays(cr, deposit) }) {
		return nil
	}
	for _, cr := range credits {
		owner, err := c.owners.DepositOwner(ctx, strings.ToLower(cr.To))
		if err != nil {
			return err
		}
		if owner != "" && owner != receiptID {
			return ErrTransactionCredited
		}
	}
	return errCreditsNothing
}

// ETHArrivals is the chain's optional check of ETH that no transaction's fields show
// (chain.TransactionCredits implements it).
type ETHArrivals interface {
	// ETHReceivedIn reports whether address's ETH balance at block is greater than at the block
	// before. Errors: RPC errors.
	ETHReceivedIn(ctx context.Context, block uint64, address string) (bool, error)
}

// ethArrived reports whether deposit received ETH in block (its balance rose there), false when
// the chain cannot tell: a hint of a smart-contract wallet's ETH payment, whose transfer to the
// deposit is an internal call, is then refused as before.
func (c hintChecker) ethArrived(ctx context.Context, block uint64, deposit string) bool {
	a, ok := c.chain.(ETHArrivals)
	if !ok || block == 0 {
		return false
	}
	rose, err := a.ETHReceivedIn(ctx, block, deposit)
	return err == nil && rose
}

// paysDeposit reports whether the chain shows transaction hash mined and crediting deposit (the
// read model may lag the receipt's events by a moment).
func (c hintChecker) paysDeposit(ctx context.Context, hash, deposit string) bool {
	if c.chain == nil || deposit == "" {
		return false
	}
	tx, err := c.chain.Transaction(ctx, hash)
	if err != nil || !tx.Mined || tx.Reverted {
		return false
	}
	return slices.ContainsFunc(tx.Credits, func(cr ChainCredit) bool { return pays(cr, deposit) })
}

// pays reports whether cr moves something to deposit (a transfer of nothing pays nobody, as the
// deposit scan records none).
func pays(cr ChainCredit, deposit string) bool {
	return cr.Moves() && strings.EqualFold(cr.To, deposit)
}

// revertedTelemetry records the reverted transaction as the receipt's telemetry; a receipt past
// its hourly telemetry limit keeps the reports it has.
func (c hintChecker) revertedTelemetry(ctx context.Context, receiptID string, meta eventstore.Metadata) error {
	now := c.now()
	evs := []receipt.Event{receipt.TelemetryRecorded{Event: "error", Code: CodeTxReverted, At: now.UnixMilli()}}
	err := AppendTelemetry(ctx, c.store, receiptID, now, evs, meta)
	if errors.Is(err, ErrTelemetryLimited) {
		return nil
	}
	return err
}

// submit records a hint whose transfer (paid, the transaction's first credit to the deposit)
// pays the receipt: while the receipt is generated or pending, and holds no attempt with this hash
// yet, a wallet attempt opened and submitted in one append. The submission names the transfer's
// sender and token as the chain shows them, never the wallet and token the browser posted: the
// page's buyerWallet is anyone's word, and the pending receipt's status read, webhook and export
// show what the log records.
func (c hintChecker) submit(ctx context.Context, h PaymentHint, paid ChainCredit, meta eventstore.Metadata) (WalletPaymentSubmitted, error) {
	attemptID := newAttemptID()
	now := c.now().UnixMilli()
	opened := false
	st, res, err := ChangeReceipt(ctx, c.store, h.ReceiptID, meta, func(st receipt.State) ([]receipt.Event, error) {
		opened = false
		if st.Status != receipt.StatusGenerated && st.Status != receipt.StatusPending || holdsHash(st, h.TransactionHash) {
			return nil, nil // failed: only confirmed funds on chain move it; paid: nothing to add
		}
		if st.OnrampOpen() {
			// A card or bank session the processor has not decided holds the payment window only
			// while it is the current attempt: a wallet attempt opened over it would let the window
			// fail the receipt under a card payment in flight, whose success then pays nothing. The
			// deposit follower records the transfer (pending) without an attempt.
			return nil, nil
		}
		opened = true
		evs, err := receipt.StartAttempt(st, receipt.AttemptStarted{AttemptID: attemptID, Kind: "wallet", OpenedBy: "service", At: now})
		return receipt.Then(st, evs, err, func(st receipt.State) ([]receipt.Event, error) {
			return receipt.Submit(st, receipt.PaymentSubmitted{AttemptID: attemptID, Source: "wallet", Token: paid.Token,
				TransactionHash: h.TransactionHash, BuyerWallet: strings.ToLower(paid.From), At: now})
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

// holdsHash reports whether one of the receipt's attempts submitted hash already.
func holdsHash(st receipt.State, hash string) bool {
	for _, a := range st.Attempts {
		if strings.EqualFold(a.TransactionHash, hash) {
			return true
		}
	}
	return false
}

// hintMeta is the metadata of what the hint follower records.
var hintMeta = eventstore.Metadata{Actor: "chain", Source: "payment hints"}

// CheckPaymentHints checks the hints kept waiting for their transaction to be mined.
type CheckPaymentHints struct{ Limit int }

// HintsChecked is what one pass did: hints read, and how many reached a receipt's stream.
type HintsChecked struct {
	Checked, Credited int
	Changes           []ReceiptChange
}

// CheckPaymentHintsHandler runs the passes (the hint follower; every instance may run it: a
// receipt takes one attempt per hash).
type CheckPaymentHintsHandler struct {
	hints hintChecker
	mu    sync.Mutex // the cursor
	// after is where the next pass reads: hints submitted at or after it (zero: from the oldest).
	after time.Time
}

// NewCheckPaymentHintsHandler returns the handler; it panics on a nil dependency (without a
// chain there is nothing to follow: do not run it).
func NewCheckPaymentHintsHandler(store Store, hints PaymentHints, owners DepositOwners, chain ChainTransactions, now func() time.Time) *CheckPaymentHintsHandler {
	if store == nil || hints == nil || owners == nil || chain == nil || now == nil {
		panic("commands.NewCheckPaymentHintsHandler: nil dependency")
	}
	return &CheckPaymentHintsHandler{hints: hintChecker{store: store, hints: hints, owners: owners, chain: chain, now: now}}
}

// Handle expires the hints waiting longer than a day, then checks up to cmd.Limit (default 100)
// waiting ones, the page after the last pass's (from the oldest again after the last page): hints
// whose transaction is never mined (anyone can post well-formed hashes, and they wait a day) never
// keep the ones behind them from being checked. A mined transaction is decided as when the hint
// was posted; a closed receipt's hint is refused. A hint that cannot be checked (its receipt
// cannot be loaded, a store error) does not hold up the others. Errors: the hint store's
// (expiry, listing), then the first hint's error after the pass.
func (h *CheckPaymentHintsHandler) Handle(ctx context.Context, cmd CheckPaymentHints) (HintsChecked, error) {
	c, now := h.hints, h.hints.now()
	if _, err := c.hints.Expire(ctx, now.Add(-hintFollowFor), now); err != nil {
		return HintsChecked{}, err
	}
	waiting, err := h.nextPage(ctx, now.Add(-hintFollowFor), cmd.Limit)
	if err != nil {
		return HintsChecked{}, err
	}
	var out HintsChecked
	var first error
	for _, hint := range waiting {
		out.Checked++
		res, err := h.checkWaiting(ctx, hint)
		if err != nil && ctx.Err() != nil {
			return out, ctx.Err()
		}
		if err != nil && first == nil {
			first = fmt.Errorf("payment hint %s of %s: %w", hint.TransactionHash, hint.ReceiptID, err)
		}
		if res.AttemptID != "" {
			out.Credited++
			out.Changes = append(out.Changes, ReceiptChange{ReceiptID: hint.ReceiptID, Result: res.Result})
		}
	}
	return out, first
}

// nextPage is the next page of at most limit (default 100) waiting hints submitted at or after
// since, oldest first, after the last pass's page; after a short page the next pass starts from
// the oldest again. A page reads from the submission time of the last one's last hint (that hint
// again, as Waiting counts from a time); a page whose hints were all submitted at that very time
// moves past it.
func (h *CheckPaymentHintsHandler) nextPage(ctx context.Context, since time.Time, limit int) ([]PaymentHint, error) {
	if limit <= 0 {
		limit = 100
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	waiting, err := h.hints.hints.Waiting(ctx, maxTime(since, h.after), limit)
	switch {
	case err != nil:
		return nil, err
	case len(waiting) < limit:
		h.after = time.Time{}
	case waiting[0].SubmittedAt.Equal(waiting[len(waiting)-1].SubmittedAt):
		h.after = waiting[0].SubmittedAt.Add(time.Microsecond) // PostgreSQL's precision
	default:
		h.after = waiting[len(waiting)-1].SubmittedAt
	}
	return waiting, nil
}

func maxTime(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

// checkWaiting decides a waiting hint as when it was posted: refused for a receipt that takes
// no attempt now (or has no deposit address), else checked on chain. Errors: the receipt's load,
// the check's (not its refusals).
func (h *CheckPaymentHintsHandler) checkWaiting(ctx context.Context, hint PaymentHint) (WalletPaymentSubmitted, error) {
	c := h.hints
	loaded, err := LoadReceipt(ctx, c.store, hint.ReceiptID)
	if err != nil {
		return WalletPaymentSubmitted{}, err
	}
	st := loaded.State
	if receipt.CanStartAttempt(st) != nil || st.Receipt.DepositAddress == "" {
		return WalletPaymentSubmitted{}, c.decide(ctx, hint, HintRefused)
	}
	res, err := c.check(ctx, hint, st.Receipt.DepositAddress, hintMeta)
	var refusal *Refusal
	if err != nil && !errors.As(err, &refusal) {
		return res, err
	}
	return res, nil
}
