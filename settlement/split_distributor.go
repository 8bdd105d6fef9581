package settlement

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/rs/zerolog"

	"github.com/payledger/payledger/commands"
	"github.com/payledger/payledger/domain/onchain"
	"github.com/payledger/payledger/domain/receipt"
	"github.com/payledger/payledger/domain/split"
	"github.com/payledger/payledger/eventstore"
)

// PaidReceipt is a receipt that is paid and not reconciled yet: the distributor's work.
type PaidReceipt struct {
	ReceiptID string
	Merchant  string
	Token     string    // the paying token's symbol; "" when the processor did not say
	PaidAt    time.Time // when the read model last changed it (the list's order)
	Deposit   bool      // paid at a deposit address: distributed once swept (deposit_sweep_wait.go)
}

// PaidCursor is a position in the paid receipts' order (PaidAt, then ReceiptID); the zero
// cursor is before the first.
type PaidCursor struct {
	PaidAt    time.Time
	ReceiptID string
}

// PaidReceipts lists paid receipts, oldest first, after a cursor.
type PaidReceipts interface {
	PaidReceipts(ctx context.Context, after PaidCursor, limit int) ([]PaidReceipt, error)
}

// DefaultProcessorToken is what an onramp payment without a token delivers to the split.
const DefaultProcessorToken = "USDC"

// distributeBatch bounds one pass. Passes page through the paid receipts (the next page after
// the last one read, from the first again after the last page), so receipts that cannot be
// distributed yet (no contract, a token the chain does not know, a failing release) never hold
// up the ones behind them: every paid receipt is visited once every ceil(paid/batch) passes.
const distributeBatch = 500

// Distributed is what one distribution pass did.
type Distributed struct {
	Settled    int // operator transactions found mined
	Releases   int // release transactions sent
	Reconciled []commands.ReceiptChange
}

// DistributeSplitsHandler pays the payees of paid receipts from their merchant's split contract:
// per split and token, one release per payee with something releasable covers every paid receipt
// not yet covered for that payee (gas is paid per batch, not per receipt). Once every payee of a
// receipt is covered by a mined release (or had nothing due), the receipt records SplitDistributed
// and is reconciled. A receipt is covered at most once per payee (the ledger's claim), so two
// distributors on one database, or a restart after a crash, never release twice for it.
type DistributeSplitsHandler struct {
	store    commands.Store
	splits   *commands.Splits
	paid     PaidReceipts
	sender   *OperatorSender // nil: no operator key, receipts stay paid
	now      func() time.Time
	contract deployedSplits
	batch    int
	cursor   PaidCursor // where the next pass reads (Handle is not called concurrently)
	held     holds[heldKey]
	// unreadableLogged holds back the next log line of each merchant whose split cannot be read.
	unreadableLogged holds[string]
}

// releaseGasRetry is how long a payee's release refused for its gas (onchain.ErrReleaseGas: a
// split contract that burns the operator's gas) is held back before it is estimated again. While
// it is, its receipts stay paid, no node call is made for it, and every pass returns its error
// (GET /healthz names it); the other splits are released as usual.
const releaseGasRetry = 15 * time.Minute

// heldKey is a release: split, token symbol, payee.
type heldKey [3]string

// NewDistributeSplitsHandler returns the handler; sender nil means no operator key (a pass does
// nothing). It panics on another nil dependency.
func NewDistributeSplitsHandler(store commands.Store, splits *commands.Splits, paid PaidReceipts, sender *OperatorSender, now func() time.Time) *DistributeSplitsHandler {
	if store == nil || splits == nil || paid == nil || now == nil {
		panic("settlement.NewDistributeSplitsHandler: nil dependency")
	}
	return &DistributeSplitsHandler{store: store, splits: splits, paid: paid, sender: sender, now: now, contract: deployedSplits{},
		batch: distributeBatch, held: holds[heldKey]{}, unreadableLogged: holds[string]{}}
}

// WithBatch sets how many paid receipts one pass reads (default 500); for tests and tuning.
func (h *DistributeSplitsHandler) WithBatch(n int) *DistributeSplitsHandler {
	h.batch = max(n, 1)
	return h
}

// Run runs a pass every interval until ctx ends; a failed pass is logged and retried.
func (h *DistributeSplitsHandler) Run(ctx context.Context, interval time.Duration, log zerolog.Logger) error {
	if h.sender == nil {
		return nil
	}
	for {
		if _, err := h.Handle(ctx); err != nil && ctx.Err() == nil {
			log.Error().Err(err).Msg("split distribution pass failed; retrying")
		}
		if err := sleep(ctx, interval); err != nil {
			return err
		}
	}
}

// distGroup is the paid receipts of one split in one token, by their cover keys (distPart).
type distGroup struct {
	split      string
	symbol     string
	token      string // contract address, "" for ETH
	recipients []split.Recipient
	keys       []string
}

// Handle runs one pass: settle the operator's transactions, send the releases that are due,
// reconcile the receipts whose releases are mined. Errors: the first failure of the chain, the
// ledger or the store (what was done before it stands).
func (h *DistributeSplitsHandler) Handle(ctx context.Context) (Distributed, error) {
	var out Distributed
	if h.sender == nil {
		return out, nil
	}
	var err error
	if out.Settled, err = h.sender.Settle(ctx); err != nil {
		return out, err
	}
	list, err := h.nextPage(ctx)
	if err != nil {
		return out, err
	}
	if len(list) == 0 {
		return out, nil
	}
	groups, byReceipt, unreadable, err := h.group(ctx, list)
	if err != nil {
		return out, err
	}
	var keys []string
	for _, g := range groups {
		keys = append(keys, g.keys...)
	}
	covers, err := h.sender.ledger.Coverage(ctx, keys)
	if err != nil {
		return out, err
	}
	// A split that cannot be released (a node error, a pre-deployed contract whose release
	// reverts in the gas estimate) must not hold up the others: the first error is returned
	// after every group had its turn; a merchant's split, or a receipt, that cannot be read is
	// such an error.
	failed := unreadable
	for _, g := range groups {
		n, err := h.release(ctx, g, covers)
		out.Releases += n
		if err != nil {
			if !errors.Is(err, onchain.ErrReleaseGas) { // logged when it was refused
				zerolog.Ctx(ctx).Error().Err(err).Str("split", g.split).Str("token", g.symbol).Msg("split distribution: release failed; retried next pass")
			}
			if failed == nil {
				failed = err
			}
		}
	}
	if covers, err = h.sender.ledger.Coverage(ctx, keys); err != nil {
		return out, err
	}
	out.Reconciled, err = h.reconcileAll(ctx, list, byReceipt, covers)
	return out, cmp.Or(err, failed)
}

// reconcileAll reconciles, in list's order, the receipts whose releases are all mined. Errors:
// the store's (the rest is not reconciled this pass), or, after the others, the first receipt
// whose stream cannot be read (it stays paid).
func (h *DistributeSplitsHandler) reconcileAll(ctx context.Context, list []PaidReceipt, byReceipt map[string][]distPart, covers map[string]map[string]Cover) ([]commands.ReceiptChange, error) {
	var done []commands.ReceiptChange
	var unreadable error
	for _, r := range list {
		parts := byReceipt[r.ReceiptID]
		if parts == nil {
			continue
		}
		change, ok, err := h.reconcile(ctx, r.ReceiptID, parts, covers)
		if errors.Is(err, errReceiptUndecodable) {
			unreadable = cmp.Or(unreadable, h.unreadableReceipt(ctx, r.ReceiptID, err))
			continue
		}
		if err != nil {
			return done, err
		}
		if ok {
			done = append(done, change)
		}
	}
	return done, unreadable
}

// nextPage is the next page of paid receipts; after the last page the next pass starts from the
// first again, so receipts that cannot be distributed never starve those behind them.
func (h *DistributeSplitsHandler) nextPage(ctx context.Context) ([]PaidReceipt, error) {
	list, err := h.paid.PaidReceipts(ctx, h.cursor, h.batch)
	if err != nil {
		return nil, err
	}
	if len(list) < h.batch {
		h.cursor = PaidCursor{}
	} else {
		last := list[len(list)-1]
		h.cursor = PaidCursor{PaidAt: last.PaidAt, ReceiptID: last.ReceiptID}
	}
	return list, nil
}

// group sorts paid receipts by split contract and token, each receipt in its paid token and
// every other token swept for it (partsOf); receipts of merchants without a split contract, or
// paid in a token the chain does not know, are left paid, and so are those of a merchant whose
// split cannot be read and those whose own stream cannot be read (unreadable: the first such
// error). err fails the pass.
func (h *DistributeSplitsHandler) group(ctx context.Context, list []PaidReceipt) (groups []*distGroup, byReceipt map[string][]distPart, unreadable, err error) {
	index := map[[2]string]*distGroup{}
	byReceipt = map[string][]distPart{}
	noCode := map[string]bool{} // this pass's splits without code
	for _, r := range list {
		sp, isContract, swept, err := h.splitOf(ctx, r, noCode)
		switch {
		case errors.Is(err, commands.ErrSplitUndecodable):
			unreadable = cmp.Or(unreadable, h.unreadableSplit(ctx, r.Merchant, err))
			continue
		case errors.Is(err, errReceiptUndecodable):
			unreadable = cmp.Or(unreadable, h.unreadableReceipt(ctx, r.ReceiptID, err))
			continue
		case err != nil:
			return nil, nil, nil, err
		}
		if !sp.Configured || !isContract {
			continue
		}
		if parts, ok := h.partsOf(r, sp, swept, index, &groups); ok {
			byReceipt[r.ReceiptID] = parts
		}
	}
	return groups, byReceipt, unreadable, nil
}

// splitOf is the split r's funds are released from, whether it holds code there, and r's state
// when r is paid at a deposit (its sweeps; nil otherwise); a split not configured, or r a deposit
// not swept yet, is returned not Configured (r waits): until its confirmed credits are swept to
// the split (DepositSwept, the sweeper's record) its funds are not there, and an earlier release
// would be taken for its cover. Errors: commands.ErrSplitUndecodable (the merchant's own),
// errReceiptUndecodable (r's own), the chain's, the store's.
func (h *DistributeSplitsHandler) splitOf(ctx context.Context, r PaidReceipt, noCode map[string]bool) (split.State, bool, *receipt.State, error) {
	sp, err := h.splits.Get(ctx, r.Merchant)
	if err != nil || !sp.Configured {
		return sp, false, nil, err
	}
	var swept *receipt.State
	if r.Deposit {
		s, err := h.loadReceipt(ctx, r.ReceiptID)
		if err != nil || !s.Swept() {
			return split.State{}, false, nil, err
		}
		swept = &s
	}
	isContract, err := h.holdsCode(ctx, sp.Address, noCode)
	if err == nil && !isContract {
		sp, isContract, err = h.splitMoved(ctx, r.Merchant, sp, noCode)
	}
	if err != nil {
		return sp, false, nil, err
	}
	sp, isContract, err = h.depositSplit(ctx, r, swept, sp, isContract, noCode)
	return sp, isContract, swept, err
}

// unreadableLogEvery is how often a merchant's split that cannot be read is logged again.
const unreadableLogEvery = time.Minute

// unreadableSplit is the error of a pass that passed over merchant's receipts: the split's stream
// holds an event this build cannot read (a newer build's, during a rollback or a rolling
// upgrade), so releasing to the recipients it knows may pay the wrong ones. It is that merchant's
// alone: before, it failed every pass, and no merchant's receipts were released. The receipts stay
// paid; the error is logged once every unreadableLogEvery per merchant (a pass runs every few
// seconds) and every pass returns it, so /healthz shows the worker degraded while it lasts.
func (h *DistributeSplitsHandler) unreadableSplit(ctx context.Context, merchant string, err error) error {
	err = fmt.Errorf("merchant %s's split (stream %s) cannot be read; its paid receipts wait: %w", merchant, split.Stream(merchant), err)
	if now := h.now(); h.unreadableLogged.of(merchant, now) == nil {
		h.unreadableLogged.put(merchant, now.Add(unreadableLogEvery), err)
		zerolog.Ctx(ctx).Error().Err(err).Str("merchant", merchant).Str("stream", split.Stream(merchant)).
			Msg("split distribution: the merchant's split holds an event this build cannot read; its receipts stay paid, the other merchants' are released")
	}
	return err
}

// splitMoved is the merchant's split read again when the one remembered holds no code (deployed
// again on a new chain since, split.Redeployed); a split still without code is logged as an
// error: its receipts stay paid until it is deployed again (issue 40), never in silence.
func (h *DistributeSplitsHandler) splitMoved(ctx context.Context, merchant string, sp split.State, noCode map[string]bool) (split.State, bool, error) {
	fresh, err := h.splits.Reload(ctx, merchant)
	if err != nil {
		return sp, false, err
	}
	if fresh.Address != sp.Address {
		ok, err := h.holdsCode(ctx, fresh.Address, noCode)
		if err != nil || ok {
			return fresh, ok, err
		}
	}
	if !noCode["logged:"+fresh.Address] {
		noCode["logged:"+fresh.Address] = true
		zerolog.Ctx(ctx).Error().Str("merchant", merchant).Str("split", fresh.Address).
			Msg("split distribution: the merchant's split holds no code on this chain; its paid receipts wait until it is deployed again (POST /api/split/deploy, `payledger dev merchant`)")
	}
	return fresh, false, nil
}

// depositSplit is sp at the split r's deposit swept its funds to, and whether that holds code. A
// deposit is bound to the merchant's split of its receipt's creation (receipt.DepositSplit); it
// is another only once the split was deployed again (sp.Moved). Releases on the current split
// would pay out other receipts' funds for r, and a payee with nothing due there would count as
// covered: r is released where its funds are, or, that split holding no code (left on a chain no
// longer followed), it stays paid and an error is logged.
func (h *DistributeSplitsHandler) depositSplit(ctx context.Context, r PaidReceipt, s *receipt.State, sp split.State, isContract bool, noCode map[string]bool) (split.State, bool, error) {
	if s == nil || len(sp.Moved) == 0 {
		return sp, isContract, nil
	}
	bound := strings.ToLower(s.DepositSplit())
	if bound == "" || bound == sp.Address {
		return sp, isContract, nil
	}
	ok, err := h.holdsCode(ctx, bound, noCode)
	if err != nil {
		return sp, false, err
	}
	if !ok && !noCode["logged:"+bound] {
		noCode["logged:"+bound] = true
		zerolog.Ctx(ctx).Error().Str("merchant", r.Merchant).Str("receipt", r.ReceiptID).Str("split", bound).Str("current", sp.Address).
			Msg("split distribution: a receipt's deposit swept its funds to an earlier address of the merchant's split, which holds no code on this chain: they cannot be released there, and releases on the current split are not theirs; the receipt stays paid")
	}
	sp.Address = bound
	return sp, ok, nil
}

// holdsCode reports whether split holds a contract; its absence is remembered for the pass only
// (noCode), so that a split is asked at most once a pass.
func (h *DistributeSplitsHandler) holdsCode(ctx context.Context, split string, noCode map[string]bool) (bool, error) {
	if noCode[split] {
		return false, nil
	}
	ok, err := h.contract.holdsCode(ctx, h.sender.chain, split)
	if err == nil && !ok {
		noCode[split] = true
	}
	return ok, err
}

// release sends one release per payee of g with something releasable, covering g's receipts not
// yet covered for that payee. A payee with nothing due was paid these receipts' funds by an
// earlier release (the funds arrived before it; the read model showed the receipt paid after it):
// they are covered by that release. A payee with a release still pending (this pass's instance or
// another's) waits for it to settle: it pays out everything due when mined, so a second release
// would only revert, and which one paid the receipts is known only then.
//
// A release whose gas is refused (onchain.ErrReleaseGas) is held back (holdBack), and the other
// payees still have their turn; the error is returned after them, and on every pass while held.
// So does any other failure of one payee's read or release (its estimate reverts: a payee that
// cannot receive ETH, one the token blocklists): it ended the group's turn, and the payees after
// it in the split's order (the platform, after the merchant) were never released by the service.
func (h *DistributeSplitsHandler) release(ctx context.Context, g *distGroup, covers map[string]map[string]Cover) (int, error) {
	c, sent := h.sender.chain, 0
	var heldErr, failed error
	for _, p := range g.recipients {
		var uncovered []string
		for _, key := range g.keys {
			if _, ok := covers[key][p.Address]; !ok {
				uncovered = append(uncovered, key)
			}
		}
		if len(uncovered) == 0 {
			continue
		}
		k := heldKey{g.split, g.symbol, p.Address}
		if err := h.held.of(k, h.now()); err != nil {
			heldErr = cmp.Or(heldErr, err)
			continue
		}
		due, err := c.Releasable(ctx, g.split, g.token, p.Address)
		if errors.Is(err, onchain.ErrReleaseGas) {
			heldErr = cmp.Or(heldErr, h.holdBack(ctx, k, err))
			continue
		}
		if err != nil { // this payee's turn ends; the others still have theirs
			failed = cmp.Or(failed, fmt.Errorf("releasable of %s at %s: %w", p.Address, g.split, err))
			continue
		}
		if due.Sign() == 0 {
			err := h.sender.ledger.CoverReleased(ctx, g.split, g.symbol, p.Address, uncovered)
			if err != nil && !errors.Is(err, ErrCovered) && !errors.Is(err, ErrReleasePending) {
				return sent, err
			}
			continue
		}
		_, err = h.sender.Send(ctx, OperatorTx{Kind: TxRelease, Split: g.split, Token: g.symbol, Payee: p.Address}, uncovered,
			func(nonce uint64) (SignedTx, error) { return c.SignRelease(ctx, nonce, g.split, g.token, p.Address) })
		switch {
		case errors.Is(err, ErrCovered): // another distributor got there first
		case errors.Is(err, ErrReleasePending): // the pending one pays these funds out; covered once it is settled
		case errors.Is(err, onchain.ErrReleaseGas):
			heldErr = cmp.Or(heldErr, h.holdBack(ctx, k, err))
		case err != nil: // a revert (a payee that refuses the token), a node error: the next payee's turn
			failed = cmp.Or(failed, fmt.Errorf("release to %s at %s: %w", p.Address, g.split, err))
		default:
			sent++
		}
	}
	return sent, cmp.Or(failed, heldErr)
}

// holdBack holds release k back for releaseGasRetry after its gas was refused (err), logs it as
// an error once, and returns the error every pass returns while it is held.
func (h *DistributeSplitsHandler) holdBack(ctx context.Context, k heldKey, err error) error {
	until := h.now().Add(releaseGasRetry)
	err = fmt.Errorf("release to %s at %s in %s held back until %s: %w", k[2], k[0], k[1], until.UTC().Format(time.RFC3339), err)
	h.held.put(k, until, err)
	zerolog.Ctx(ctx).Error().Err(err).Str("split", k[0]).Str("token", k[1]).Str("payee", k[2]).Time("retry_at", until).
		Msg("split distribution: this split's release, or its read of what is due, needs more gas than any PaymentSplitter's (a contract that burns the operator's gas); not sent, its receipts stay paid")
	return err
}

// reconcile records SplitDistributed on a receipt once every payee of its split is covered, in
// each of its tokens (parts), by a mined release or had nothing due. The event is the paid
// token's, as before (its Token, amounts and hashes); the releases of the other tokens swept for
// the receipt are in the operator's ledger under their keys. Errors: errReceiptUndecodable (the
// receipt's stream cannot be read), the store's.
func (h *DistributeSplitsHandler) reconcile(ctx context.Context, id string, parts []distPart, covers map[string]map[string]Cover) (commands.ReceiptChange, bool, error) {
	for _, part := range parts {
		if !released(part.g, covers[part.key]) {
			return commands.ReceiptChange{}, false, nil
		}
	}
	g, paid := parts[0].g, covers[parts[0].key]
	d := receipt.SplitDistributed{Token: g.symbol, At: h.now().UnixMilli()}
	for _, p := range g.recipients {
		cv := paid[p.Address]
		amount := cv.Amount
		if cv.Hash == "" {
			amount = "0"
		} else {
			d.TransactionHashes = append(d.TransactionHashes, cv.Hash)
		}
		d.Amounts = append(d.Amounts, receipt.SplitAmount{Recipient: p.Address, Amount: amount, TransactionHash: cv.Hash})
	}
	if len(d.TransactionHashes) > 0 {
		d.TransactionHash = d.TransactionHashes[0]
	}
	meta := eventstore.Metadata{Actor: "distributor", Source: "split distribution"}
	st, res, err := commands.ChangeReceipt(ctx, h.store, id, meta, func(s receipt.State) ([]receipt.Event, error) {
		if s.Status != receipt.StatusPaid { // refunded or reconciled meanwhile: nothing to record
			return nil, nil
		}
		return receipt.DistributeSplit(s, d)
	})
	if errors.Is(err, receipt.ErrWithdrawn) { // flagged by a deep reorg since the list was read: waits for its restoration
		return commands.ReceiptChange{}, false, nil
	}
	if err != nil {
		return commands.ReceiptChange{}, false, fmt.Errorf("receipt %s: %w", id, h.undecodable(ctx, id, err))
	}
	return commands.ReceiptChange{ReceiptID: id, Result: res}, st.Status == receipt.StatusReconciled && res.Position != (eventstore.Position{}), nil
}
