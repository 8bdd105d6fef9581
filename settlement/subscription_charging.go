package settlement

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

	"github.com/payledger/payledger/commands"
	"github.com/payledger/payledger/domain/subscription"
	"github.com/payledger/payledger/eventstore"
)

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
	store  commands.Store
	chain  ChargeChain // nil: not configured
	ledger ChargeLedger
	due    DueSubscriptions
	splits *commands.Splits
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
	code deployedSplits
}

// NewChargeSubscriptionsHandler returns the handler; chain nil means subscriptions are not
// configured (every call is ErrSubscriptionsNotSetUp). It panics on another nil dependency.
func NewChargeSubscriptionsHandler(store commands.Store, chain ChargeChain, ledger ChargeLedger, due DueSubscriptions, splits *commands.Splits, now func() time.Time) *ChargeSubscriptionsHandler {
	if store == nil || ledger == nil || due == nil || splits == nil || now == nil {
		panic("settlement.NewChargeSubscriptionsHandler: nil dependency")
	}
	return &ChargeSubscriptionsHandler{store: store, chain: chain, ledger: ledger, due: due, splits: splits, now: now,
		token: uuid.New(), Lease: 2 * time.Minute, RetryAfter: time.Hour, Wave: 250, Await: 2 * time.Minute,
		Poll: 200 * time.Millisecond, Limit: 5000, Log: zerolog.Nop(), code: deployedSplits{}}
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
		return ChargeResult{}, commands.ErrSubscriptionsNotSetUp
	}
	if strings.TrimSpace(cmd.ID) == "" {
		return ChargeResult{}, commands.Invalid("subscriptionId is required")
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	recovered, err := h.recoverOpen(ctx, cmd.ID, cmd.Meta)
	if err != nil {
		return ChargeResult{}, err
	}
	st, err := commands.LoadSubscription(ctx, h.store, cmd.ID)
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
		return ChargeRun{}, commands.ErrSubscriptionsNotSetUp
	}
	start := time.Now()
	h.mu.Lock()
	defer h.mu.Unlock()
	results, err := h.recoverOpen(ctx, "", meta)
	if err == nil {
		var more []ChargeResult
		more, err = h.chargeDue(ctx, meta)
		results = append(results, more...)
	}
	if err == nil {
		h.distribute(ctx)
	}
	return summarize(results, time.Since(start)), err
}

// chargeDue claims the due subscriptions' periods and charges those this process claimed, a
// wave at a time; the results include the charges skipped without a claim.
func (h *ChargeSubscriptionsHandler) chargeDue(ctx context.Context, meta eventstore.Metadata) ([]ChargeResult, error) {
	items, results, err := h.dueItems(ctx)
	if err != nil {
		return results, err
	}
	rows := make([]ChargeRow, len(items))
	for i, it := range items {
		rows[i] = it.row
	}
	claimed, err := h.ledger.Claim(ctx, h.token, rows, h.RetryAfter)
	if err != nil {
		return results, err
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
			return results, err
		}
	}
	return results, nil
}

// dueItems loads the due subscriptions and prepares a charge of each that can be charged now;
// skipped holds the results of those outside their permission (no claim is made for them).
func (h *ChargeSubscriptionsHandler) dueItems(ctx context.Context) (items []*chargeItem, skipped []ChargeResult, err error) {
	ids, err := h.due.DueSubscriptions(ctx, h.now(), h.Limit)
	if err != nil {
		return nil, nil, err
	}
	for _, id := range ids {
		st, err := commands.LoadSubscription(ctx, h.store, id)
		if err != nil {
			return nil, skipped, err
		}
		it, skip, err := h.prepare(st, id)
		switch {
		case err != nil: // cancelled or not due after all (the read model lags): nothing to do
			continue
		case skip != nil:
			skipped = append(skipped, *skip)
			continue
		}
		items = append(items, it)
	}
	return items, skipped, nil
}

// summarize is the cron's response figures over results.
func summarize(results []ChargeResult, took time.Duration) ChargeRun {
	run := ChargeRun{Duration: took, Results: results}
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
	return run
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
	fee := subscription.PlatformFee(st.Plan.PriceUSD)
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
		st, err := commands.LoadSubscription(ctx, h.store, r.SubscriptionID)
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
	has, err := h.code.holdsCode(ctx, h.chain, sp.Address)
	if err != nil || !has {
		return "", err
	}
	return sp.Address, nil
}

// Recover finishes the open charges left by a crashed run (rows untouched for Lease).
func (h *ChargeSubscriptionsHandler) Recover(ctx context.Context, meta eventstore.Metadata) ([]ChargeResult, error) {
	if h.chain == nil {
		return nil, commands.ErrSubscriptionsNotSetUp
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
