package settlement

// What subscription charging consumes (the chain, the claim ledger, the webhook queue, the due
// list) and what it answers (a charge's result, a run's figures).

import (
	"context"
	"errors"
	"math/big"
	"time"

	"github.com/google/uuid"

	"github.com/payledger/payledger/commands"
	"github.com/payledger/payledger/domain/money"
	"github.com/payledger/payledger/domain/onchain"
	"github.com/payledger/payledger/domain/subscription"
)

// ChargeChain is the chain as subscription charging uses it: the operator account
// (CHAIN_OPERATOR_KEY, the spender of every permission), the spend-permission manager and USDC.
// Every gas limit comes from eth_estimateGas (EstimateGas: one JSON-RPC batch for a wave, with a
// margin); signing never sends, so that a wave's transactions of one step are estimated, signed
// at consecutive nonces, recorded, then broadcast in one batch; the plural reads are batched.
type ChargeChain interface {
	OperatorAccount
	SplitReleases // the splits that received charges are released in the same run
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
	// Dropped says whether a signed transaction can never be mined: another transaction of the
	// operator took its nonce and it is in no block.
	Dropped(ctx context.Context, raw []byte) (bool, error)
}

// TxCall is a transaction the operator is about to sign: its target, its call data and the gas
// limit estimated for it.
type TxCall = onchain.TxCall

// GasEstimate is what the node says of a TxCall: the gas limit to sign with, or, when the call
// would revert now, the node's reason (nothing is sent then and no gas is spent).
type GasEstimate = onchain.GasEstimate

// SpendCheck is a spend about to be sent.
type SpendCheck = onchain.SpendCheck

// SpendStatus is what the chain says of a SpendCheck.
type SpendStatus = onchain.SpendStatus

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
	EventSubscriptionCharged      = subscription.WebhookCharged
	EventSubscriptionChargeFailed = subscription.WebhookChargeFailed
)

// DueSubscriptions lists subscriptions that may be due at at (the read model; each is checked
// against its stream before it is claimed), leaving out those whose permission has ended: a page
// of at most limit, in subscription id order, after the id after ("" from the start).
type DueSubscriptions interface {
	DueSubscriptions(ctx context.Context, at time.Time, after string, limit int) ([]string, error)
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

	unreadable bool // its stream holds an event this build cannot read (counted in ChargeRun.Unreadable)
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
	// Unreadable counts the due subscriptions not charged because their stream holds an event
	// this build cannot read (skipped in Results); the daily run logs them as an error.
	Unreadable int
}

// PlatformFeeBps is the platform fee on a subscription charge (subscription.PlatformFeeBps).
const PlatformFeeBps = subscription.PlatformFeeBps

// ErrChargeInProgress refuses a charge of a period another run holds.
var ErrChargeInProgress = &commands.Refusal{Kind: commands.KindConflict, Code: "conflict", Message: "A charge of this period is in progress"}
