package commands

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"strings"
	"sync"
	"time"

	"github.com/google/uuid"
	"github.com/rs/zerolog"

	"github.com/payledger/payledger/domain/money"
	"github.com/payledger/payledger/domain/subscription"
	"github.com/payledger/payledger/eventstore"
)

// ChargeChain is the chain as subscription charging uses it: the operator account
// (CHAIN_OPERATOR_KEY, the spender of every permission), the spend-permission manager and USDC.
// Every gas limit comes from eth_estimateGas (EstimateGas: one JSON-RPC batch for a wave, with a
// margin); signing never sends, so that a wave's transactions of one step are estimated, signed
// at consecutive nonces, recorded, then broadcast in one batch; the plural reads are batched.
type ChargeChain interface {
	Sender() string
	PendingNonce(ctx context.Context) (uint64, error)
	HasCode(ctx context.Context, address string) (bool, error)
	// USDC is the token every permission spends (lower-case address).
	USDC() string
	// CheckSpends says, per check, whether its permission is approved on the manager and why a
	// spend of the amount would fail now ("" when it would not): the customer's balance or
	// ERC-20 approval of the manager too low, the permission revoked or its period's allowance
	// spent.
	CheckSpends(ctx context.Context, checks []SpendCheck) ([]SpendStatus, error)
	// ApproveCall, SpendCall and TransferCall build the calls of a charge's steps:
	// approveWithSignature(permission, signature), spend(permission, amount) on the manager,
	// and the USDC transfer of amount to the split.
	ApproveCall(p subscription.Permission, signature string) (TxCall, error)
	SpendCall(p subscription.Permission, amount *big.Int) (TxCall, error)
	TransferCall(to string, amount *big.Int) (TxCall, error)
	// EstimateGas estimates every call from the operator against the latest block (batched):
	// the limit to sign with (margin included), or why the call would revert.
	EstimateGas(ctx context.Context, calls []TxCall) ([]GasEstimate, error)
	// SignCall signs call with its Gas at nonce, without sending it.
	SignCall(ctx context.Context, nonce uint64, call TxCall) (SignedTx, error)
	// BroadcastAll sends signed transactions (one batch); one the node already has is no error.
	BroadcastAll(ctx context.Context, raws [][]byte) error
	// Outcomes returns, per hash, the mined transaction's result, nil while it is not mined.
	Outcomes(ctx context.Context, hashes []string) ([]*TxOutcome, error)
	Releasable(ctx context.Context, split, token, payee string) (*big.Int, error)
	SignRelease(ctx context.Context, nonce uint64, split, token, payee string) (SignedTx, error)
}

// TxCall is a transaction the operator is about to sign: its target, its call data and the gas
// limit estimated for it.
type TxCall struct {
	To   string
	Data []byte
	Gas  uint64
}

// GasEstimate is what the node says of a TxCall: the gas limit to sign with, or, when the call
// would revert now, the node's reason (nothing is sent then and no gas is spent).
type GasEstimate struct {
	Gas    uint64
	Revert string
}

// SpendCheck is a spend about to be sent.
type SpendCheck struct {
	Permission subscription.Permission
	Amount     *big.Int
}

// SpendStatus is what the chain says of a SpendCheck.
type SpendStatus struct {
	Approved bool
	Refusal  string // why the spend would revert now; "" when it would not
}

// ChargeRow is a subscription_charges row: the claim of one period, its intent and outcome.
type ChargeRow struct {
	SubscriptionID string
	Period         int64
	Merchant       string
	Customer       string
	Split          string
	AmountUnits    string
	AmountCents    money.Cents
	FeeCents       money.Cents
	Attempt        int
	Status         string
	ApproveTx      string
	SpendTx        string
	TransferTx     string
	Raws           map[string][]byte // the signed bytes of its unsettled transactions (recovery)
}

// Charge row statuses (migration 017).
const (
	ChargeClaimed      = "claimed"
	ChargeSpending     = "spending"
	ChargeSpent        = "spent"
	ChargeTransferring = "transferring"
	ChargeCharged      = "charged"
	ChargeFailed       = "failed"
)

// Operator transaction kinds of a charge.
const (
	TxApprove  = "approve"
	TxSpend    = "spend"
	TxTransfer = "transfer"
)

// ErrClaimLost: another process took the charge over (this one's lease ran out); it must not send.
var ErrClaimLost = errors.New("the charge claim is held by another process")

// SettledTx is a mined operator transaction to record.
type SettledTx struct {
	Hash    string
	Status  string // TxMined | TxReverted
	GasUsed uint64
	Amount  string // what a release paid, base units
}

// ChargeLedger keeps the claims (subscription_charges) and the operator's transactions.
type ChargeLedger interface {
	// NextNonce is one past the highest nonce recorded for sender (every kind), 0 when none.
	NextNonce(ctx context.Context, sender string) (uint64, error)
	// Claim claims each row's period for token: a new row, or a failed one last updated at
	// least retryAfter ago. It returns the subscription ids claimed.
	Claim(ctx context.Context, token uuid.UUID, rows []ChargeRow, retryAfter time.Duration) (map[string]bool, error)
	// Advance moves token's row from one of from to row.Status (setting its split and non-empty
	// hashes) and records txs (status signed), atomically. Errors: ErrClaimLost, ErrNonceTaken.
	Advance(ctx context.Context, token uuid.UUID, row ChargeRow, from []string, txs []OperatorTx) error
	// AdvanceAll is Advance for many rows in one transaction (all or nothing).
	AdvanceAll(ctx context.Context, token uuid.UUID, rows []ChargeRow, from []string, txs [][]OperatorTx) error
	// Finish closes token's row as charged (at) or failed (reason). Errors: ErrClaimLost.
	Finish(ctx context.Context, token uuid.UUID, row ChargeRow, status, reason string, at time.Time) error
	// Drop deletes token's claimed row: nothing was sent, the period is free again.
	Drop(ctx context.Context, token uuid.UUID, subscriptionID string, period int64) error
	// TakeOver gives token every open row (not charged or failed) not updated for stale, of
	// subscriptionID ("" any), with the raw bytes of its unsettled transactions.
	TakeOver(ctx context.Context, token uuid.UUID, stale time.Duration, subscriptionID string, limit int) ([]ChargeRow, error)
	// SettleTxs records mined operator transactions.
	SettleTxs(ctx context.Context, txs []SettledTx) error
	// Undistributed lists charged rows whose split was not released yet.
	Undistributed(ctx context.Context, limit int) ([]ChargeRow, error)
	// MarkDistributed marks rows released.
	MarkDistributed(ctx context.Context, rows []ChargeRow) error
	// RecordRelease records a release (status signed). Errors: ErrNonceTaken.
	RecordRelease(ctx context.Context, tx OperatorTx) error
}

// ChargeNotifier queues the merchant's webhook of a charge outcome; key makes it once.
type ChargeNotifier interface {
	Queue(ctx context.Context, event, key, subscriptionID, merchant string, payload map[string]any) error
}

// Webhook events of charges (docs/webhooks.md).
const (
	EventSubscriptionCharged      = "subscription.charged"
	EventSubscriptionChargeFailed = "subscription.charge_failed"
)

// DueSubscriptions lists subscriptions that may be due (the read model; each is checked against
// its stream before it is claimed).
type DueSubscriptions interface {
	DueSubscriptions(ctx context.Context, at time.Time, limit int) ([]string, error)
}

// ChargeResult is what a run did for one subscription.
type ChargeResult struct {
	SubscriptionID     string   `json:"subscriptionId"`
	PeriodIndex        int64    `json:"periodIndex"`
	Status             string   `json:"status"` // charged | failed | skipped | pending
	AmountUnits        string   `json:"amountUnits,omitempty"`
	TransactionHashes  []string `json:"transactionHashes,omitempty"`
	Reason             string   `json:"reason,omitempty"`
	Attempt            int      `json:"attempt,omitempty"`
	SubscriptionStatus string   `json:"subscriptionStatus,omitempty"`
	NextChargeAt       int64    `json:"nextChargeAt,omitempty"`
}

// Result statuses.
const (
	ResultCharged = "charged"
	ResultFailed  = "failed"
	ResultSkipped = "skipped" // nothing sent: split not deployed, outside the permission, held elsewhere
	ResultPending = "pending" // sent, not settled in time: the next run (or a restart) records it
)

// ChargeRun is what a cron run did.
type ChargeRun struct {
	Processed int
	Succeeded int
	Failed    int
	Duration  time.Duration
	Results   []ChargeResult
}

// PlatformFeeBps is the platform fee on a subscription charge (spec: 0.5%), paid by the split's
// platform share as for one-time payments.
const PlatformFeeBps = 50

// ErrChargeInProgress refuses a charge of a period another run holds.
var ErrChargeInProgress = &Refusal{Kind: KindConflict, Code: "conflict", Message: "A charge of this period is in progress"}

// ChargeSubscriptionsHandler charges subscriptions (DESIGN 8): per period, the claim first (no
// second charge of a period, whatever the number of instances), then approveWithSignature on
// first use and spend(permission, amount) from the operator, then the amount to the merchant's
// split contract, then SubscriptionCharged; a refused or reverted spend is
// SubscriptionChargeFailed (the third in a row makes it past_due). Charges go in waves, each in
// phases (approvals of first uses, spends, transfers): a phase's transactions are gas-estimated
// in one batch, signed at consecutive nonces, recorded, then broadcast at once, and their
// receipts are awaited in batches before the next phase is estimated. A row left open by a crash is taken over after Lease and
// its transactions looked up on chain: found, they are recorded; not found, the same signed
// bytes are sent again; nothing is ever signed twice for one step. After the charges, the
// splits that received charges are released to their payees.
type ChargeSubscriptionsHandler struct {
	store  Store
	chain  ChargeChain // nil: not configured
	ledger ChargeLedger
	due    DueSubscriptions
	splits *Splits
	now    func() time.Time
	token  uuid.UUID

	Lease      time.Duration // an open row untouched this long is taken over (default 2 min)
	RetryAfter time.Duration // the cron retries a failed period after this (default 1 h; the single charge: at once)
	Wave       int           // charges signed and broadcast together (default 250)
	Await      time.Duration // how long a wave waits for its receipts (default 2 min)
	Poll       time.Duration // receipt polling (default 200 ms)
	Limit      int           // due subscriptions per run (default 5,000)
	Log        zerolog.Logger
	Notify     ChargeNotifier // nil: no webhooks

	mu   sync.Mutex // one run at a time in a process: its nonces are consecutive
	code map[string]bool
}

// NewChargeSubscriptionsHandler returns the handler; chain nil means subscriptions are not
// configured (every call is ErrSubscriptionsNotSetUp). It panics on another nil dependency.
func NewChargeSubscriptionsHandler(store Store, chain ChargeChain, ledger ChargeLedger, due DueSubscriptions, splits *Splits, now func() time.Time) *ChargeSubscriptionsHandler {
	if store == nil || ledger == nil || due == nil || splits == nil || now == nil {
		panic("commands.NewChargeSubscriptionsHandler: nil dependency")
	}
	return &ChargeSubscriptionsHandler{store: store, chain: chain, ledger: ledger, due: due, splits: splits, now: now,
		token: uuid.New(), Lease: 2 * time.Minute, RetryAfter: time.Hour, Wave: 250, Await: 2 * time.Minute,
		Poll: 200 * time.Millisecond, Limit: 5000, Log: zerolog.Nop(), code: map[string]bool{}}
}

// Configured says whether charging has a chain.
func (h *ChargeSubscriptionsHandler) Configured() bool { return h.chain != nil }

// chargeItem is one period on its way through a run.
type chargeItem struct {
	row      ChargeRow
	st       subscription.State
	amount   *big.Int
	res      *ChargeResult
	approved bool   // the permission is approved on chain (checked, or this run's approval mined)
	call     TxCall // the transaction of the current step, its gas estimated
}

// ChargeSubscription asks to charge one subscription now.
type ChargeSubscription struct {
	ID   string
	Meta eventstore.Metadata
}

// Handle charges one subscription's next period now (POST /api/subscriptions/charge): an open
// charge of it left by a crash is recovered first. Errors: ErrSubscriptionsNotSetUp,
// Invalid, subscription.ErrNotFound, ErrCancelled, ErrNotDue, ErrOutsideWindow (invalid),
// ErrChargeInProgress, wrapped store and chain errors.
func (h *ChargeSubscriptionsHandler) Handle(ctx context.Context, cmd ChargeSubscription) (ChargeResult, error) {
	if h.chain == nil {
		return ChargeResult{}, ErrSubscriptionsNotSetUp
	}
	if strings.TrimSpace(cmd.ID) == "" {
		return ChargeResult{}, Invalid("subscriptionId is required")
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	recovered, err := h.recoverOpen(ctx, cmd.ID, cmd.Meta)
	if err != nil {
		return ChargeResult{}, err
	}
	st, err := LoadSubscription(ctx, h.store, cmd.ID)
	if err != nil {
		return ChargeResult{}, err
	}
	it, skip, err := h.prepare(st, cmd.ID)
	if err != nil {
		if len(recovered) > 0 && errors.Is(err, subscription.ErrNotDue) {
			return recovered[0], nil // the recovered charge was this period's
		}
		return ChargeResult{}, err
	}
	if skip != nil {
		return *skip, nil
	}
	claimed, err := h.ledger.Claim(ctx, h.token, []ChargeRow{it.row}, 0)
	if err != nil {
		return ChargeResult{}, err
	}
	if !claimed[cmd.ID] {
		return ChargeResult{}, ErrChargeInProgress
	}
	if err := h.run(ctx, []*chargeItem{it}, nil, cmd.Meta); err != nil {
		return ChargeResult{}, err
	}
	h.distribute(ctx)
	if it.res == nil {
		return ChargeResult{}, fmt.Errorf("charge of %s: no outcome", cmd.ID)
	}
	return *it.res, nil
}

// ChargeDue charges every due subscription (the daily cron): open charges left by a crash are
// recovered first. A failure of one charge is its result; an error is a failure of the
// ledger, the store or the node (what was done before it stands and is in the results).
func (h *ChargeSubscriptionsHandler) ChargeDue(ctx context.Context, meta eventstore.Metadata) (ChargeRun, error) {
	if h.chain == nil {
		return ChargeRun{}, ErrSubscriptionsNotSetUp
	}
	start := time.Now()
	h.mu.Lock()
	defer h.mu.Unlock()
	var results []ChargeResult
	out := func(err error) (ChargeRun, error) {
		run := ChargeRun{Duration: time.Since(start), Results: results}
		if run.Results == nil {
			run.Results = []ChargeResult{}
		}
		for _, r := range results {
			run.Processed++
			switch r.Status {
			case ResultCharged:
				run.Succeeded++
			case ResultFailed:
				run.Failed++
			}
		}
		return run, err
	}
	recovered, err := h.recoverOpen(ctx, "", meta)
	results = append(results, recovered...)
	if err != nil {
		return out(err)
	}
	ids, err := h.due.DueSubscriptions(ctx, h.now(), h.Limit)
	if err != nil {
		return out(err)
	}
	var items []*chargeItem
	var rows []ChargeRow
	for _, id := range ids {
		st, err := LoadSubscription(ctx, h.store, id)
		if err != nil {
			return out(err)
		}
		it, skip, err := h.prepare(st, id)
		switch {
		case err != nil: // cancelled or not due after all (the read model lags): nothing to do
			continue
		case skip != nil:
			results = append(results, *skip)
			continue
		}
		items, rows = append(items, it), append(rows, it.row)
	}
	claimed, err := h.ledger.Claim(ctx, h.token, rows, h.RetryAfter)
	if err != nil {
		return out(err)
	}
	mine := items[:0]
	for _, it := range items {
		if claimed[it.row.SubscriptionID] {
			mine = append(mine, it)
		}
	}
	for lo := 0; lo < len(mine); lo += h.Wave {
		wave := mine[lo:min(lo+h.Wave, len(mine))]
		err := h.run(ctx, wave, nil, meta)
		for _, it := range wave {
			if it.res != nil {
				results = append(results, *it.res)
			}
		}
		if err != nil {
			return out(err)
		}
	}
	h.distribute(ctx)
	return out(nil)
}

// prepare checks that st can be charged now and builds its claim. Errors: the domain's
// (not found, cancelled, not due); skip: a result without a claim (outside the permission).
func (h *ChargeSubscriptionsHandler) prepare(st subscription.State, id string) (*chargeItem, *ChargeResult, error) {
	now := h.now()
	switch {
	case !st.Exists:
		return nil, nil, subscription.ErrNotFound
	case st.Status == subscription.StatusCancelled:
		return nil, nil, fmt.Errorf("subscription %s: %w", id, subscription.ErrCancelled)
	case now.UnixMilli() < st.NextChargeAt:
		return nil, nil, fmt.Errorf("%w: the next charge is due at %d", subscription.ErrNotDue, st.NextChargeAt)
	}
	if !st.Permission.Contains(now) {
		return nil, &ChargeResult{SubscriptionID: id, PeriodIndex: st.NextPeriod(), Status: ResultSkipped,
			Reason: subscription.ErrOutsideWindow.Error(), SubscriptionStatus: string(st.Status), NextChargeAt: st.NextChargeAt}, nil
	}
	amount, ok := new(big.Int).SetString(st.PriceUnits, 10)
	if !ok || amount.Sign() <= 0 {
		return nil, nil, fmt.Errorf("subscription %s: price %q is not base units", id, st.PriceUnits)
	}
	fee := money.RoundHalfUp(big.NewRat(int64(st.Plan.PriceUSD)*PlatformFeeBps, 10_000))
	row := ChargeRow{SubscriptionID: id, Period: st.NextPeriod(), Merchant: st.Merchant, Customer: st.Customer,
		AmountUnits: amount.String(), AmountCents: st.Plan.PriceUSD, FeeCents: fee, Attempt: st.ConsecutiveFailures + 1, Status: ChargeClaimed}
	return &chargeItem{row: row, st: st, amount: amount}, nil, nil
}

// recoverOpen takes over the open rows nobody touched for Lease (of subscription id, "" any)
// and finishes them from what the chain says.
func (h *ChargeSubscriptionsHandler) recoverOpen(ctx context.Context, id string, meta eventstore.Metadata) ([]ChargeResult, error) {
	rows, err := h.ledger.TakeOver(ctx, h.token, h.Lease, id, h.Limit)
	if err != nil || len(rows) == 0 {
		return nil, err
	}
	var items []*chargeItem
	for _, r := range rows {
		if r.Status == ChargeClaimed { // nothing was signed: free the period for this run's claim
			if err := h.ledger.Drop(ctx, h.token, r.SubscriptionID, r.Period); err != nil && !errors.Is(err, ErrClaimLost) {
				return nil, err
			}
			continue
		}
		st, err := LoadSubscription(ctx, h.store, r.SubscriptionID)
		if err != nil {
			return nil, err
		}
		amount, _ := new(big.Int).SetString(r.AmountUnits, 10)
		items = append(items, &chargeItem{row: r, st: st, amount: amount})
	}
	h.Log.Info().Int("charges", len(items)).Msg("subscription charging: recovering open charges")
	var raws [][]byte
	for _, it := range items {
		for _, raw := range it.row.Raws {
			raws = append(raws, raw)
		}
	}
	// The same signed bytes again: mined ones are "already known" or "nonce too low", no error.
	if len(raws) > 0 {
		if err := h.chain.BroadcastAll(ctx, raws); err != nil {
			h.Log.Warn().Err(err).Msg("subscription charging: rebroadcast of open charges")
		}
	}
	err = h.run(ctx, nil, items, meta)
	var out []ChargeResult
	for _, it := range items {
		if it.res != nil {
			out = append(out, *it.res)
		}
	}
	return out, err
}

// run takes fresh claims (status claimed) and recovered rows (spending, spent, transferring)
// through the remaining steps, phased so that every gas limit is estimated on the state the
// transaction will run on: the approvals of first-use permissions (estimated in one batch,
// signed at consecutive nonces, recorded, broadcast together, receipts awaited in a batch), then
// the spends (estimated in one batch now that the approvals are mined), then the transfers to the
// splits. A 'spending' row without a spend hash has only its approval signed.
func (h *ChargeSubscriptionsHandler) run(ctx context.Context, fresh, recovered []*chargeItem, meta eventstore.Metadata) error {
	var approving, spending, spent, transferring []*chargeItem
	for _, it := range recovered {
		switch it.row.Status {
		case ChargeSpending:
			if it.row.SpendTx == "" {
				approving = append(approving, it)
			} else {
				spending = append(spending, it)
			}
		case ChargeSpent:
			spent = append(spent, it)
		case ChargeTransferring:
			transferring = append(transferring, it)
		}
	}
	ready, err := h.checkSpends(ctx, fresh, meta)
	if err != nil {
		return err
	}
	var toApprove, toSpend []*chargeItem
	for _, it := range ready {
		if it.approved {
			toSpend = append(toSpend, it)
		} else {
			toApprove = append(toApprove, it)
		}
	}
	sent, err := h.sendApprovals(ctx, toApprove, meta)
	if err != nil {
		return err
	}
	approved, err := h.awaitApprovals(ctx, append(approving, sent...))
	if err != nil {
		return err
	}
	sent, err = h.sendSpends(ctx, append(toSpend, approved...), meta)
	if err != nil {
		return err
	}
	spending = append(spending, sent...)
	done, err := h.awaitSpends(ctx, spending, meta)
	if err != nil {
		return err
	}
	spent = append(spent, done...)
	moving, err := h.sendTransfers(ctx, spent)
	if err != nil {
		return err
	}
	transferring = append(transferring, moving...)
	return h.awaitTransfers(ctx, transferring, meta)
}

// splitOf is the merchant's split contract, "" when none is configured or deployed.
func (h *ChargeSubscriptionsHandler) splitOf(ctx context.Context, merchant string) (string, error) {
	sp, err := h.splits.Get(ctx, merchant)
	if err != nil || !sp.Configured {
		return "", err
	}
	has, ok := h.code[sp.Address]
	if !ok {
		if has, err = h.chain.HasCode(ctx, sp.Address); err != nil {
			return "", fmt.Errorf("split %s: %w", sp.Address, err)
		}
		if has {
			h.code[sp.Address] = true
		}
	}
	if !has {
		return "", nil
	}
	return sp.Address, nil
}

// checkSpends checks fresh claims on chain in one batch: a merchant without a deployed split is
// skipped (the claim dropped); a spend the chain would refuse is a failed charge. It returns the
// others, each knowing whether its permission is approved.
func (h *ChargeSubscriptionsHandler) checkSpends(ctx context.Context, fresh []*chargeItem, meta eventstore.Metadata) ([]*chargeItem, error) {
	var ready []*chargeItem
	for _, it := range fresh {
		split, err := h.splitOf(ctx, it.row.Merchant)
		if err != nil {
			return nil, err
		}
		if split == "" {
			if err := h.ledger.Drop(ctx, h.token, it.row.SubscriptionID, it.row.Period); err != nil && !errors.Is(err, ErrClaimLost) {
				return nil, err
			}
			it.res = h.result(it, ResultSkipped, "the merchant's split contract is not deployed; nothing was charged")
			continue
		}
		it.row.Split = split
		ready = append(ready, it)
	}
	if len(ready) == 0 {
		return nil, nil
	}
	checks := make([]SpendCheck, len(ready))
	for i, it := range ready {
		checks[i] = SpendCheck{Permission: it.st.Permission, Amount: it.amount}
	}
	statuses, err := h.chain.CheckSpends(ctx, checks)
	if err != nil { // nothing was signed: free the periods for the next run
		h.dropClaims(ctx, ready)
		return nil, fmt.Errorf("check spends: %w", err)
	}
	var ok []*chargeItem
	for i, it := range ready {
		if statuses[i].Refusal != "" {
			if err := h.fail(ctx, it, statuses[i].Refusal, meta); err != nil {
				return nil, err
			}
			continue
		}
		it.approved = statuses[i].Approved
		ok = append(ok, it)
	}
	return ok, nil
}

// dropClaims frees the periods of the items nothing was signed for (status claimed).
func (h *ChargeSubscriptionsHandler) dropClaims(ctx context.Context, items []*chargeItem) {
	for _, it := range items {
		if it.row.Status != ChargeClaimed {
			continue
		}
		if err := h.ledger.Drop(context.WithoutCancel(ctx), h.token, it.row.SubscriptionID, it.row.Period); err != nil && !errors.Is(err, ErrClaimLost) {
			h.Log.Warn().Err(err).Msg("subscription charging: drop claim")
		}
	}
}

// estimate builds each item's call with mk and estimates them all in one batch. Items whose call
// would revert are returned apart with the node's reason; a node error drops the claims of the
// items nothing was signed for yet (the period is free at once) and is returned.
func (h *ChargeSubscriptionsHandler) estimate(ctx context.Context, what string, items []*chargeItem, mk func(*chargeItem) (TxCall, error)) (ok []*chargeItem, reverts map[*chargeItem]string, err error) {
	calls := make([]TxCall, len(items))
	for i, it := range items {
		if calls[i], err = mk(it); err != nil {
			h.dropClaims(ctx, items)
			return nil, nil, fmt.Errorf("%s of %s: %w", what, it.row.SubscriptionID, err)
		}
	}
	est, err := h.chain.EstimateGas(ctx, calls)
	if err != nil {
		h.dropClaims(ctx, items)
		return nil, nil, fmt.Errorf("estimate gas of the %s: %w", what, err)
	}
	reverts = map[*chargeItem]string{}
	for i, it := range items {
		if est[i].Revert != "" {
			reverts[it] = est[i].Revert
			continue
		}
		it.call = calls[i]
		it.call.Gas = est[i].Gas
		ok = append(ok, it)
	}
	return ok, reverts, nil
}

// signCall is sendWave's signer of the items' estimated calls.
func (h *ChargeSubscriptionsHandler) signCall(ctx context.Context, kind string) func(*chargeItem, uint64) ([]OperatorTx, error) {
	return func(it *chargeItem, nonce uint64) ([]OperatorTx, error) {
		t, err := h.chain.SignCall(ctx, nonce, it.call)
		if err != nil {
			return nil, err
		}
		return []OperatorTx{h.opTx(kind, t, it.row.Split)}, nil
	}
}

// sendApprovals estimates approveWithSignature for the first-use permissions in one batch, then
// signs them at consecutive nonces, records them (row spending, no spend yet) and broadcasts
// them together. An approval that would revert (the signature or permission refused) is a
// failed charge; nothing is sent for it.
func (h *ChargeSubscriptionsHandler) sendApprovals(ctx context.Context, items []*chargeItem, meta eventstore.Metadata) ([]*chargeItem, error) {
	if len(items) == 0 {
		return nil, nil
	}
	ok, reverts, err := h.estimate(ctx, "approvals", items, func(it *chargeItem) (TxCall, error) {
		return h.chain.ApproveCall(it.st.Permission, it.st.Signature)
	})
	if err != nil {
		return nil, err
	}
	for _, it := range items {
		if r, bad := reverts[it]; bad {
			if err := h.fail(ctx, it, "approveWithSignature would revert: "+r, meta); err != nil {
				return nil, err
			}
		}
	}
	return h.sendWave(ctx, "approvals", ok, []string{ChargeClaimed}, h.signCall(ctx, TxApprove), func(it *chargeItem, txs []OperatorTx) ChargeRow {
		row := it.row
		row.Status, row.ApproveTx = ChargeSpending, txs[0].Hash
		return row
	})
}

// awaitApprovals waits for the approvals: mined -> ready for the spend (a reverted approval is
// left out of the charge; the spend's estimate says whether the permission is approved anyway);
// not mined in time -> pending (a later run takes the row over and sends the spend).
func (h *ChargeSubscriptionsHandler) awaitApprovals(ctx context.Context, items []*chargeItem) ([]*chargeItem, error) {
	if len(items) == 0 {
		return nil, nil
	}
	hashes := make([]string, len(items))
	for i, it := range items {
		hashes[i] = it.row.ApproveTx
	}
	outcomes, err := h.await(ctx, hashes)
	if err != nil {
		return nil, err
	}
	var ready []*chargeItem
	for _, it := range items {
		switch o := outcomes[it.row.ApproveTx]; {
		case o == nil:
			it.res = h.result(it, ResultPending, "the approval is not mined yet; the next run sends the spend")
			continue
		case !o.Success:
			it.row.ApproveTx = ""
		default:
			it.approved = true
		}
		ready = append(ready, it)
	}
	return ready, nil
}

// sendSpends estimates spend(permission, amount) for every item in one batch (their approvals
// are mined), then signs them at consecutive nonces, records them and broadcasts them together.
// A spend that would revert is a failed charge with the node's reason; nothing is sent for it
// and no gas is spent.
func (h *ChargeSubscriptionsHandler) sendSpends(ctx context.Context, items []*chargeItem, meta eventstore.Metadata) ([]*chargeItem, error) {
	if len(items) == 0 {
		return nil, nil
	}
	ok, reverts, err := h.estimate(ctx, "spends", items, func(it *chargeItem) (TxCall, error) {
		return h.chain.SpendCall(it.st.Permission, it.amount)
	})
	if err != nil {
		return nil, err
	}
	for _, it := range items {
		if r, bad := reverts[it]; bad {
			if err := h.fail(ctx, it, "the spend would revert: "+r, meta); err != nil {
				return nil, err
			}
		}
	}
	return h.sendWave(ctx, "spends", ok, []string{ChargeClaimed, ChargeSpending}, h.signCall(ctx, TxSpend), func(it *chargeItem, txs []OperatorTx) ChargeRow {
		row := it.row
		row.Status, row.SpendTx = ChargeSpending, txs[0].Hash
		return row
	})
}

// sendWave signs each item's transactions with sign at consecutive nonces, records them with
// the row next makes (one database transaction for the wave; on a nonce taken or a claim lost
// meanwhile, one per charge), then broadcasts them all in one batch. It returns the items sent.
func (h *ChargeSubscriptionsHandler) sendWave(ctx context.Context, what string, items []*chargeItem, from []string,
	sign func(*chargeItem, uint64) ([]OperatorTx, error), next func(*chargeItem, []OperatorTx) ChargeRow) ([]*chargeItem, error) {
	if len(items) == 0 {
		return nil, nil
	}
	nonces := nonceSource{h: h}
	sent, raws, err := h.recordWave(ctx, &nonces, items, from, sign, next)
	if errors.Is(err, ErrNonceTaken) || errors.Is(err, ErrClaimLost) {
		sent, raws, err = nil, nil, nil
		for _, it := range items {
			signed, err := nonces.record(ctx, func(nonce uint64) ([]OperatorTx, error) { return sign(it, nonce) }, func(txs []OperatorTx) error {
				row := next(it, txs)
				if err := h.ledger.Advance(ctx, h.token, row, from, txs); err != nil {
					return err
				}
				it.row = row
				return nil
			})
			if errors.Is(err, ErrClaimLost) {
				it.res = h.result(it, ResultSkipped, "another run took this charge over")
				continue
			}
			if err != nil {
				return sent, err
			}
			for _, t := range signed {
				raws = append(raws, t.Raw)
			}
			sent = append(sent, it)
		}
	}
	if err != nil {
		return nil, err
	}
	if len(raws) > 0 {
		if err := h.chain.BroadcastAll(ctx, raws); err != nil {
			// Recorded: the receipts are awaited anyway, and a later run sends the same bytes again.
			h.Log.Warn().Err(err).Msg("subscription charging: broadcast of " + what)
		}
	}
	return sent, nil
}

// recordWave signs every item at consecutive nonces and records the wave in one transaction.
func (h *ChargeSubscriptionsHandler) recordWave(ctx context.Context, nonces *nonceSource, items []*chargeItem, from []string,
	sign func(*chargeItem, uint64) ([]OperatorTx, error), next func(*chargeItem, []OperatorTx) ChargeRow) ([]*chargeItem, [][]byte, error) {
	if err := nonces.sync(ctx); err != nil {
		return nil, nil, err
	}
	n := nonces.next
	rows, all := make([]ChargeRow, len(items)), make([][]OperatorTx, len(items))
	var raws [][]byte
	for i, it := range items {
		txs, err := sign(it, n)
		if err != nil {
			return nil, nil, err
		}
		n += uint64(len(txs))
		rows[i], all[i] = next(it, txs), txs
		for _, t := range txs {
			raws = append(raws, t.Raw)
		}
	}
	if err := h.ledger.AdvanceAll(ctx, h.token, rows, from, all); err != nil {
		if errors.Is(err, ErrNonceTaken) {
			nonces.known = false
		}
		return nil, nil, err
	}
	nonces.next = n
	for i, it := range items {
		it.row = rows[i]
	}
	return items, raws, nil
}

func (h *ChargeSubscriptionsHandler) opTx(kind string, s SignedTx, split string) OperatorTx {
	return OperatorTx{Sender: h.chain.Sender(), Nonce: s.Nonce, Kind: kind, Hash: strings.ToLower(s.Hash), Raw: s.Raw,
		Split: split, Token: "USDC", Status: TxSigned}
}

// nonceSource hands out the operator's nonces for one phase: the higher of the node's pending
// nonce and the ledger's next, then counted here; a nonce another process recorded meanwhile
// (ErrNonceTaken) makes it read both again.
type nonceSource struct {
	h     *ChargeSubscriptionsHandler
	next  uint64
	known bool
}

// sync reads the next nonce unless known.
func (n *nonceSource) sync(ctx context.Context) error {
	if n.known {
		return nil
	}
	pending, err := n.h.chain.PendingNonce(ctx)
	if err != nil {
		return fmt.Errorf("pending nonce: %w", err)
	}
	next, err := n.h.ledger.NextNonce(ctx, n.h.chain.Sender())
	if err != nil {
		return err
	}
	n.next, n.known = max(pending, next), true
	return nil
}

// record signs with sign at the next nonces and records with save; it retries a taken nonce.
func (n *nonceSource) record(ctx context.Context, sign func(nonce uint64) ([]OperatorTx, error), save func([]OperatorTx) error) ([]OperatorTx, error) {
	for attempt := 0; ; attempt++ {
		if err := n.sync(ctx); err != nil {
			return nil, err
		}
		txs, err := sign(n.next)
		if err != nil {
			return nil, err
		}
		err = save(txs)
		if errors.Is(err, ErrNonceTaken) && attempt < 5 {
			n.known = false
			continue
		}
		if err != nil {
			return nil, err
		}
		n.next += uint64(len(txs))
		return txs, nil
	}
}

// await polls the outcomes of hashes until every one is mined or Await passes; the missing
// ones are nil. Mined operator transactions are recorded as settled.
func (h *ChargeSubscriptionsHandler) await(ctx context.Context, hashes []string) (map[string]*TxOutcome, error) {
	out := map[string]*TxOutcome{}
	deadline := time.Now().Add(h.Await)
	for {
		var missing []string
		for _, x := range hashes {
			if out[x] == nil {
				missing = append(missing, x)
			}
		}
		if len(missing) == 0 {
			return out, nil
		}
		got, err := h.chain.Outcomes(ctx, missing)
		if err != nil {
			return out, fmt.Errorf("transaction receipts: %w", err)
		}
		var settled []SettledTx
		for i, o := range got {
			if o == nil {
				continue
			}
			out[missing[i]] = o
			st := SettledTx{Hash: missing[i], Status: TxMined, GasUsed: o.GasUsed}
			if !o.Success {
				st.Status = TxReverted
			}
			if o.Released != nil {
				st.Amount = o.Released.String()
			}
			settled = append(settled, st)
		}
		if len(settled) > 0 {
			if err := h.ledger.SettleTxs(ctx, settled); err != nil {
				return out, err
			}
			continue
		}
		if time.Now().After(deadline) {
			return out, nil
		}
		if err := sleep(ctx, h.Poll); err != nil {
			return out, err
		}
	}
}

// awaitSpends waits for the spends: mined -> ready for the transfer; reverted -> a failed charge;
// not mined in time -> pending (a later run finds it).
func (h *ChargeSubscriptionsHandler) awaitSpends(ctx context.Context, items []*chargeItem, meta eventstore.Metadata) ([]*chargeItem, error) {
	if len(items) == 0 {
		return nil, nil
	}
	var hashes []string
	for _, it := range items {
		hashes = append(hashes, it.row.SpendTx)
		if it.row.ApproveTx != "" && !it.approved { // a recovered row's approval: mined?
			hashes = append(hashes, it.row.ApproveTx)
		}
	}
	outcomes, err := h.await(ctx, hashes)
	if err != nil {
		return nil, err
	}
	var spent []*chargeItem
	for _, it := range items {
		o := outcomes[it.row.SpendTx]
		switch {
		case o == nil:
			it.res = h.result(it, ResultPending, "the spend is not mined yet; the next run records it")
		case !o.Success:
			if err := h.fail(ctx, it, "the spend transaction reverted on chain ("+it.row.SpendTx+")", meta); err != nil {
				return spent, err
			}
		default:
			if a := outcomes[it.row.ApproveTx]; it.row.ApproveTx != "" && !it.approved && (a == nil || !a.Success) {
				it.row.ApproveTx = "" // approved otherwise (the spend went through): not part of this charge
			}
			spent = append(spent, it)
		}
	}
	return spent, nil
}

// sendTransfers estimates the transfer of each spent amount to its split in one batch, then
// signs, records and broadcasts them together. A transfer that would revert stays spent (the
// amount is at the operator) and the next run tries again.
func (h *ChargeSubscriptionsHandler) sendTransfers(ctx context.Context, items []*chargeItem) ([]*chargeItem, error) {
	if len(items) == 0 {
		return nil, nil
	}
	ok, reverts, err := h.estimate(ctx, "transfers", items, func(it *chargeItem) (TxCall, error) {
		return h.chain.TransferCall(it.row.Split, it.amount)
	})
	if err != nil {
		return nil, err
	}
	for _, it := range items {
		r, bad := reverts[it]
		if !bad {
			continue
		}
		row := it.row
		row.Status, row.TransferTx = ChargeSpent, ""
		if err := h.ledger.Advance(ctx, h.token, row, []string{ChargeSpending, ChargeSpent}, nil); err != nil && !errors.Is(err, ErrClaimLost) {
			return nil, err
		}
		h.Log.Warn().Str("subscription_id", it.row.SubscriptionID).Str("reason", r).Msg("subscription charging: the transfer to the split would revert")
		it.res = h.result(it, ResultPending, "the transfer to the split would revert ("+r+"); the next run sends it")
	}
	return h.sendWave(ctx, "transfers", ok, []string{ChargeSpending, ChargeSpent}, h.signCall(ctx, TxTransfer), func(it *chargeItem, txs []OperatorTx) ChargeRow {
		row := it.row
		row.Status, row.TransferTx = ChargeTransferring, txs[0].Hash
		return row
	})
}

// awaitTransfers waits for the transfers and records the charges; a reverted transfer goes back
// to spent (the amount is at the operator; the next run sends a new transfer).
func (h *ChargeSubscriptionsHandler) awaitTransfers(ctx context.Context, items []*chargeItem, meta eventstore.Metadata) error {
	if len(items) == 0 {
		return nil
	}
	hashes := make([]string, len(items))
	for i, it := range items {
		hashes[i] = it.row.TransferTx
	}
	outcomes, err := h.await(ctx, hashes)
	if err != nil {
		return err
	}
	var done []*chargeItem
	for _, it := range items {
		o := outcomes[it.row.TransferTx]
		switch {
		case o == nil:
			it.res = h.result(it, ResultPending, "the transfer to the split is not mined yet; the next run records it")
		case !o.Success:
			row := it.row
			row.Status, row.TransferTx = ChargeSpent, ""
			if err := h.ledger.Advance(ctx, h.token, row, []string{ChargeTransferring}, nil); err != nil && !errors.Is(err, ErrClaimLost) {
				return err
			}
			it.res = h.result(it, ResultPending, "the transfer to the split reverted; the next run sends it again")
		default:
			done = append(done, it)
		}
	}
	// The charges are appended concurrently: independent streams, and the store commits
	// concurrent appends together.
	return parallel(ctx, done, 8, func(it *chargeItem) error { return h.record(ctx, it, meta) })
}

// parallel runs f for every item on at most n goroutines and returns the first error.
func parallel(ctx context.Context, items []*chargeItem, n int, f func(*chargeItem) error) error {
	var wg sync.WaitGroup
	var mu sync.Mutex
	var first error
	work := make(chan *chargeItem)
	for range min(n, len(items)) {
		wg.Go(func() {
			for it := range work {
				if err := f(it); err != nil {
					mu.Lock()
					if first == nil {
						first = err
					}
					mu.Unlock()
				}
			}
		})
	}
	for _, it := range items {
		if ctx.Err() != nil {
			break
		}
		work <- it
	}
	close(work)
	wg.Wait()
	if first == nil {
		first = ctx.Err()
	}
	return first
}

// record appends SubscriptionCharged (once: a period already charged is what a recovery finds
// after a crash between the event and the row) and closes the row as charged.
func (h *ChargeSubscriptionsHandler) record(ctx context.Context, it *chargeItem, meta eventstore.Metadata) error {
	var hashes []string
	for _, x := range []string{it.row.ApproveTx, it.row.SpendTx, it.row.TransferTx} {
		if x != "" {
			hashes = append(hashes, x)
		}
	}
	res, err := executeSubscription(ctx, h.store, it.row.SubscriptionID, meta, func(s subscription.State) ([]subscription.Event, error) {
		return subscription.DecideCharge(s, subscription.Charge{Period: it.row.Period, AmountUnits: it.row.AmountUnits, TransactionHashes: hashes}, h.now())
	})
	at := h.now()
	switch {
	case errors.Is(err, subscription.ErrAlreadyCharged):
		if it.st, err = LoadSubscription(ctx, h.store, it.row.SubscriptionID); err != nil {
			return err
		}
		at = time.UnixMilli(it.st.LastChargeAt)
	case err != nil:
		return fmt.Errorf("record charge of %s: %w", it.row.SubscriptionID, err)
	default:
		it.st = res.State
	}
	if err := h.ledger.Finish(ctx, h.token, it.row, ChargeCharged, "", at); err != nil && !errors.Is(err, ErrClaimLost) {
		return err
	}
	r := h.result(it, ResultCharged, "")
	r.AmountUnits, r.TransactionHashes = it.row.AmountUnits, hashes
	it.res = r
	p := h.payload(it)
	p["transactionHashes"], p["chargedAt"] = hashes, at.UnixMilli()
	h.notify(ctx, EventSubscriptionCharged, fmt.Sprintf("%s:%d:charged", it.row.SubscriptionID, it.row.Period), it, p)
	return nil
}

// payload is the webhook payload of a charge outcome (docs/webhooks.md); the sender adds event,
// idempotencyKey and timestamp.
func (h *ChargeSubscriptionsHandler) payload(it *chargeItem) map[string]any {
	return map[string]any{"subscriptionId": it.row.SubscriptionID, "planId": it.st.PlanID, "merchantWallet": it.row.Merchant,
		"customerWallet": it.row.Customer, "periodIndex": it.row.Period, "amountUnits": it.row.AmountUnits,
		"amountUsd": it.row.AmountCents.Float(), "token": "USDC", "status": string(it.st.Status), "nextChargeAt": it.st.NextChargeAt}
}

// notify queues a webhook; a failure is logged, never the charge's.
func (h *ChargeSubscriptionsHandler) notify(ctx context.Context, event, key string, it *chargeItem, p map[string]any) {
	if h.Notify == nil {
		return
	}
	if err := h.Notify.Queue(ctx, event, key, it.row.SubscriptionID, it.row.Merchant, p); err != nil {
		h.Log.Warn().Err(err).Str("subscription_id", it.row.SubscriptionID).Msg("subscription charging: queue webhook")
	}
}

// fail appends SubscriptionChargeFailed for the row's attempt (once: a recovery that finds the
// attempt recorded does not record it again) and closes the row as failed.
func (h *ChargeSubscriptionsHandler) fail(ctx context.Context, it *chargeItem, reason string, meta eventstore.Metadata) error {
	res, err := executeSubscription(ctx, h.store, it.row.SubscriptionID, meta, func(s subscription.State) ([]subscription.Event, error) {
		if s.NextPeriod() == it.row.Period && s.ConsecutiveFailures >= it.row.Attempt {
			return nil, nil // this attempt is recorded already
		}
		return subscription.DecideFailure(s, subscription.RecordFailure{Period: it.row.Period, Reason: reason}, h.now())
	})
	if err != nil && !errors.Is(err, subscription.ErrCancelled) {
		return fmt.Errorf("record failed charge of %s: %w", it.row.SubscriptionID, err)
	}
	if err == nil {
		it.st = res.State
	}
	if err := h.ledger.Finish(ctx, h.token, it.row, ChargeFailed, reason, h.now()); err != nil && !errors.Is(err, ErrClaimLost) {
		return err
	}
	r := h.result(it, ResultFailed, reason)
	r.Attempt = it.row.Attempt
	it.res = r
	p := h.payload(it)
	p["reason"], p["attempt"] = reason, it.row.Attempt
	h.notify(ctx, EventSubscriptionChargeFailed, fmt.Sprintf("%s:%d:failed:%d", it.row.SubscriptionID, it.row.Period, it.row.Attempt), it, p)
	return nil
}

func (h *ChargeSubscriptionsHandler) result(it *chargeItem, status, reason string) *ChargeResult {
	return &ChargeResult{SubscriptionID: it.row.SubscriptionID, PeriodIndex: it.row.Period, Status: status, Reason: reason,
		SubscriptionStatus: string(it.st.Status), NextChargeAt: it.st.NextChargeAt}
}

// distribute releases the splits that received charges to their payees, as the distributor does
// for paid receipts: per split, one release per payee with something releasable (a release pays
// everything due, receipts' funds included). Rows are marked once every payee's release is mined
// or nothing was due. Failures are logged: the next run tries again.
func (h *ChargeSubscriptionsHandler) distribute(ctx context.Context) {
	if err := h.release(ctx); err != nil && ctx.Err() == nil {
		h.Log.Warn().Err(err).Msg("subscription charging: split release failed; retried next run")
	}
}

func (h *ChargeSubscriptionsHandler) release(ctx context.Context) error {
	rows, err := h.ledger.Undistributed(ctx, h.Limit)
	if err != nil || len(rows) == 0 {
		return err
	}
	bySplit := map[string][]ChargeRow{}
	merchantOf := map[string]string{}
	for _, r := range rows {
		bySplit[r.Split] = append(bySplit[r.Split], r)
		merchantOf[r.Split] = r.Merchant
	}
	usdc := h.chain.USDC()
	nonces := nonceSource{h: h}
	var raws [][]byte
	var hashes []string
	var settle []ChargeRow
	for split, list := range bySplit {
		sp, err := h.splits.Get(ctx, merchantOf[split])
		if err != nil {
			return err
		}
		for _, p := range sp.Recipients {
			due, err := h.chain.Releasable(ctx, split, usdc, p.Address)
			if err != nil {
				return fmt.Errorf("releasable of %s at %s: %w", p.Address, split, err)
			}
			if due.Sign() == 0 {
				continue
			}
			signed, err := nonces.record(ctx, func(nonce uint64) ([]OperatorTx, error) {
				t, err := h.chain.SignRelease(ctx, nonce, split, usdc, p.Address)
				if err != nil {
					return nil, err
				}
				tx := h.opTx(TxRelease, t, split)
				tx.Payee = p.Address
				return []OperatorTx{tx}, nil
			}, func(txs []OperatorTx) error { return h.ledger.RecordRelease(ctx, txs[0]) })
			if err != nil {
				return fmt.Errorf("release to %s at %s: %w", p.Address, split, err)
			}
			raws, hashes = append(raws, signed[0].Raw), append(hashes, signed[0].Hash)
		}
		settle = append(settle, list...)
	}
	if len(raws) > 0 {
		if err := h.chain.BroadcastAll(ctx, raws); err != nil {
			return err
		}
		outcomes, err := h.await(ctx, hashes)
		if err != nil {
			return err
		}
		for _, x := range hashes {
			if o := outcomes[x]; o == nil || !o.Success {
				return fmt.Errorf("release %s not mined or reverted", x) // nothing marked: the next run looks again
			}
		}
	}
	return h.ledger.MarkDistributed(ctx, settle)
}

// Recover finishes the open charges left by a crashed run (rows untouched for Lease).
func (h *ChargeSubscriptionsHandler) Recover(ctx context.Context, meta eventstore.Metadata) ([]ChargeResult, error) {
	if h.chain == nil {
		return nil, ErrSubscriptionsNotSetUp
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.recoverOpen(ctx, "", meta)
}

// Run is serve's daily ticker: every tick, while leader says this process leads, it runs the
// cron (ChargeDue) when every has passed since the last run (the first tick runs it), and
// otherwise only recovers open charges. Failures are logged; it returns when ctx ends.
func (h *ChargeSubscriptionsHandler) Run(ctx context.Context, leader func() bool, every, tick time.Duration) error {
	if h.chain == nil {
		return nil
	}
	meta := eventstore.Metadata{Actor: "cron", Source: "daily subscription charging"}
	var last time.Time
	for {
		if err := sleep(ctx, tick); err != nil {
			return err
		}
		if !leader() {
			continue
		}
		if last.IsZero() || time.Since(last) >= every {
			run, err := h.ChargeDue(ctx, meta)
			last = time.Now()
			ev := h.Log.Info()
			if err != nil {
				ev = h.Log.Warn().Err(err)
			}
			ev.Int("processed", run.Processed).Int("succeeded", run.Succeeded).Int("failed", run.Failed).
				Dur("duration", run.Duration).Msg("subscription charging: daily run")
			continue
		}
		if _, err := h.Recover(ctx, meta); err != nil && ctx.Err() == nil {
			h.Log.Warn().Err(err).Msg("subscription charging: recovery")
		}
	}
}
