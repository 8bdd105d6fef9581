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
// receipts are awaited in batches before the next phase is estimated. A row left open by a
// crash is taken over after Lease and its transactions looked up on chain: found, they are
// recorded; not found, the same signed bytes are sent again; nothing is ever signed twice for
// one step. After the charges, the splits that received charges are released to their payees.
//
// The handler only sequences a run; each step is a small type of its own (chargeParts), built
// for every run from the settings below so that a change of them takes effect at the next run.
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
	Limit      int           // due subscriptions read at a time (default 5,000); a run reads them all
	Log        zerolog.Logger
	Notify     ChargeNotifier // nil: no webhooks
	// Progress, when set, is how far the read model DueSubscriptions reads has applied the log: a
	// daily run lists from it only once it has reached the log's head (ErrReadModelBehind after
	// CatchUp, default 30 s, and after a page listed from a model reset meanwhile).
	Progress DueProgress
	CatchUp  time.Duration
	// Ran, when set, is told the outcome of each daily run Run makes: its error, an error for a
	// run that left unreadable subscriptions uncharged, or nil for one that went through (serve's
	// health shows the worker stuck until a later run goes through); nil again when this process
	// stops leading, as the daily run is no longer its own.
	Ran func(err error)

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
		Poll: 200 * time.Millisecond, Limit: 5000, CatchUp: 30 * time.Second, Log: zerolog.Nop(), code: deployedSplits{}}
}

// Configured says whether charging has a chain.
func (h *ChargeSubscriptionsHandler) Configured() bool { return h.chain != nil }

// connecting is a charging chain whose node may not have answered yet (chain.ChargeOperator made
// before ETH_RPC_URL answered, connected later by serve's background dial).
type connecting interface{ Connected() bool }

// ready says why nothing can be charged now: ErrSubscriptionsNotSetUp without a chain,
// ErrChainUnavailable (503 chain_unavailable) while its node has not answered.
func (h *ChargeSubscriptionsHandler) ready() error {
	if h.chain == nil {
		return commands.ErrSubscriptionsNotSetUp
	}
	if c, ok := h.chain.(connecting); ok && !c.Connected() {
		return ErrChainUnavailable
	}
	return nil
}

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
// ErrChainUnavailable, Invalid, subscription.ErrNotFound, ErrCancelled, ErrNotDue,
// ErrOutsideWindow (invalid), ErrChargeInProgress, wrapped store and chain errors.
func (h *ChargeSubscriptionsHandler) Handle(ctx context.Context, cmd ChargeSubscription) (ChargeResult, error) {
	if err := h.ready(); err != nil {
		return ChargeResult{}, err
	}
	if strings.TrimSpace(cmd.ID) == "" {
		return ChargeResult{}, commands.Invalid("subscriptionId is required")
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	p := h.parts()
	recovered, err := p.open.recover(ctx, cmd.ID, cmd.Meta)
	if err != nil {
		return ChargeResult{}, err
	}
	st, err := commands.LoadSubscription(ctx, h.store, cmd.ID)
	if err != nil {
		return ChargeResult{}, err
	}
	it, skip, err := p.due.prepare(st, cmd.ID)
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
	if err := p.wave.run(ctx, []*chargeItem{it}, nil, cmd.Meta); err != nil {
		return ChargeResult{}, err
	}
	p.releases.distribute(ctx)
	if it.res == nil {
		return ChargeResult{}, fmt.Errorf("charge of %s: no outcome", cmd.ID)
	}
	return *it.res, nil
}

// ChargeDue charges every due subscription (the daily cron): open charges left by a crash are
// recovered first; a recovery that fails is logged (error level) and the due charges go on. A
// failure of one charge is its result; an error is a failure of the ledger, the store or the
// node while charging the due ones (what was done before it stands and is in the results).
func (h *ChargeSubscriptionsHandler) ChargeDue(ctx context.Context, meta eventstore.Metadata) (ChargeRun, error) {
	if err := h.ready(); err != nil {
		return ChargeRun{}, err
	}
	start := time.Now()
	// Waited for outside the lock: a charge of one subscription meanwhile need not wait for it.
	head, behind := h.dueFrom(ctx)
	h.mu.Lock()
	defer h.mu.Unlock()
	p := h.parts()
	results, err := p.open.recover(ctx, "", meta)
	if err != nil && ctx.Err() == nil {
		// A charge left open that cannot be finished now must not hold every other subscription's
		// charge back: it is logged, its row stays open, and the next run takes it over again.
		h.Log.Error().Err(err).Msg("subscription charging: recovery of open charges failed; the due charges go on")
	}
	if ctx.Err() == nil {
		var more []ChargeResult
		more, err = h.chargeDue(ctx, p, head, behind, meta)
		results = append(results, more...)
	}
	if err == nil {
		p.releases.distribute(ctx)
	}
	return summarize(results, time.Since(start)), err
}

// chargeDue claims the due subscriptions' periods and charges those this process claimed, a
// page of Limit and in it a wave at a time, until every due subscription was listed once; the
// results include the charges skipped without a claim. Paging by subscription id, rather than
// taking the Limit longest due, keeps the ones that keep failing (past_due, their nextChargeAt
// never moves) from taking every run's places, and lists each subscription at most once a run.
// The read model must reflect the log up to head (behind: dueFrom's answer) when each page is
// listed: one being rebuilt lacks the subscriptions not replayed yet, and a run that counted as
// the day's would leave them uncharged until the next day; the run fails instead (charges made
// from earlier pages stand; the next run's claims and streams keep them from being made twice).
func (h *ChargeSubscriptionsHandler) chargeDue(ctx context.Context, p chargeParts, head eventstore.Position, behind error, meta eventstore.Metadata) ([]ChargeResult, error) {
	if behind != nil {
		return nil, behind
	}
	var results []ChargeResult
	for after := ""; ; {
		items, skipped, last, err := p.due.list(ctx, after)
		if err == nil {
			err = h.dueComplete(ctx, head) // a rebuild begun since the last check
		}
		results = append(results, skipped...)
		if err != nil {
			return results, err
		}
		more, err := h.chargePage(ctx, p, items, meta)
		results = append(results, more...)
		if err != nil || last == "" {
			return results, err
		}
		after = last
	}
}

// chargePage claims the periods of items and charges those this process claimed, a wave at a time.
func (h *ChargeSubscriptionsHandler) chargePage(ctx context.Context, p chargeParts, items []*chargeItem, meta eventstore.Metadata) ([]ChargeResult, error) {
	var results []ChargeResult
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
		err := p.wave.run(ctx, wave, nil, meta)
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

// summarize is the cron's response figures over results.
func summarize(results []ChargeResult, took time.Duration) ChargeRun {
	run := ChargeRun{Duration: took, Results: results}
	if run.Results == nil {
		run.Results = []ChargeResult{}
	}
	for _, r := range results {
		run.Processed++
		if r.unreadable {
			run.Unreadable++
		}
		switch r.Status {
		case ResultCharged:
			run.Succeeded++
		case ResultFailed:
			run.Failed++
		}
	}
	return run
}

// Recover finishes the open charges left by a crashed run (rows untouched for Lease).
func (h *ChargeSubscriptionsHandler) Recover(ctx context.Context, meta eventstore.Metadata) ([]ChargeResult, error) {
	if err := h.ready(); err != nil {
		return nil, err
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.parts().open.recover(ctx, "", meta)
}

// Run is serve's daily ticker: every tick, while leader says this process leads, it runs the
// cron (ChargeDue) when every has passed since the last run that went through (the first tick
// runs it), and otherwise only recovers open charges. A run that fails (the node, the ledger or
// the store) is logged at error level and run again at the next tick: before, it counted as the
// day's run, so one failure left every due subscription uncharged for a day with only a warning.
// A node that has not answered since the start fails the daily run the same way (chain_unavailable)
// until serve's background dial connects it. It returns when ctx ends.
func (h *ChargeSubscriptionsHandler) Run(ctx context.Context, leader func() bool, every, tick time.Duration) error {
	if h.chain == nil {
		return nil
	}
	meta := eventstore.Metadata{Actor: "cron", Source: "daily subscription charging"}
	var last time.Time
	failed := false // the last daily run reported to Ran failed
	ran := func(err error) {
		if h.Ran != nil {
			h.Ran(err)
		}
		failed = err != nil
	}
	for {
		if err := sleep(ctx, tick); err != nil {
			return err
		}
		if !leader() {
			if failed {
				ran(nil)
			}
			continue
		}
		if last.IsZero() || time.Since(last) >= every {
			run, err := h.ChargeDue(ctx, meta)
			if err != nil && ctx.Err() != nil {
				return ctx.Err()
			}
			ev, msg := h.Log.Info(), "subscription charging: daily run"
			switch {
			case err != nil:
				ev, msg = h.Log.Error().Err(err), "subscription charging: daily run failed; run again at the next tick"
				ran(err)
			case run.Unreadable > 0:
				// The run went through for every other subscription: it is the day's run (running
				// it again at each tick would retry the failing customers' charges every hour), but
				// not a quiet one: the unreadable ones stay uncharged until a build that reads them.
				ev, msg = h.Log.Error().Int("unreadable", run.Unreadable), "subscription charging: daily run left subscriptions uncharged whose streams hold events this build cannot read"
				last = time.Now()
				ran(fmt.Errorf("daily run left %d subscriptions uncharged: their streams hold events this build cannot read", run.Unreadable))
			default:
				last = time.Now()
				ran(nil)
			}
			ev.Int("processed", run.Processed).Int("succeeded", run.Succeeded).Int("failed", run.Failed).
				Dur("duration", run.Duration).Msg(msg)
			continue
		}
		if _, err := h.Recover(ctx, meta); err != nil && ctx.Err() == nil && !errors.Is(err, ErrChainUnavailable) {
			h.Log.Warn().Err(err).Msg("subscription charging: recovery")
		}
	}
}

// chargeParts are the steps of one run, each holding only what it needs.
type chargeParts struct {
	due      dueCharges
	open     openCharges
	wave     chargeWave
	releases splitReleases
}

// parts builds the steps of a run from the handler's dependencies and settings.
func (h *ChargeSubscriptionsHandler) parts() chargeParts {
	claims := chargeClaims{ledger: h.ledger, token: h.token, log: h.Log}
	outcomes := chargeOutcomes{store: h.store, ledger: h.ledger, token: h.token, now: h.now, notifier: h.Notify, log: h.Log}
	receipts := chargeReceipts{chain: h.chain, ledger: h.ledger, wait: h.Await, poll: h.Poll}
	txs := chargeTxs{chain: h.chain, ledger: h.ledger, token: h.token, claims: claims, log: h.Log}
	wave := chargeWave{
		checks:    spendChecks{chain: h.chain, splits: h.splits, code: h.code, claims: claims, outcomes: outcomes},
		approvals: approvalStep{chain: h.chain, txs: txs, receipts: receipts, outcomes: outcomes},
		spends: spendStep{chain: h.chain, txs: txs, receipts: receipts, outcomes: outcomes,
			live: cancelChecks{store: h.store, claims: claims, ledger: h.ledger, token: h.token, now: h.now}},
		transfers: transferStep{chain: h.chain, ledger: h.ledger, token: h.token, txs: txs, receipts: receipts, outcomes: outcomes, log: h.Log},
	}
	return chargeParts{
		due: dueCharges{store: h.store, due: h.due, now: h.now, limit: h.Limit, spender: h.chain, log: h.Log},
		open: openCharges{store: h.store, ledger: h.ledger, chain: h.chain, token: h.token, lease: h.Lease, limit: h.Limit,
			claims: claims, dropped: droppedCharges{chain: h.chain, ledger: h.ledger, token: h.token, claims: claims}, wave: wave, log: h.Log},
		wave:     wave,
		releases: splitReleases{chain: h.chain, ledger: h.ledger, splits: h.splits, receipts: receipts, limit: h.Limit, log: h.Log},
	}
}
