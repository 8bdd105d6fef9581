package settlement

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/google/uuid"
	"github.com/rs/zerolog"

	"github.com/payledger/payledger/commands"
	"github.com/payledger/payledger/domain/money"
	"github.com/payledger/payledger/domain/receipt"
	"github.com/payledger/payledger/internal/lease"
)

// Sweeping (DESIGN 9): once a receipt with a deposit address is paid, its deposit's funds move
// to its split, many deposits per transaction through the deposit factory; DepositSwept records
// each (receipt, token) moved, and the split distributor waits for it. A pass:
//  1. settles the open sweeps (recorded, not yet recorded on their receipts): a mined one's
//     Swept events, once its block is CHAIN_CONFIRMATIONS deep and still on the chain, become
//     DepositSwept on the receipts, then its deposits are freed; one not mined (or not that deep)
//     is broadcast again, the same bytes; one whose nonce another transaction of the key took
//     is dropped and its deposits freed. This is also the recovery after a crash between
//     sending a sweep and recording it: the sweep was recorded in the ledger before it was sent.
//  2. claims receipts paid (or since reconciled, refund_requested or refunded: a refund is sent
//     from the merchant's wallet, the payment is still the split's; or failed with funds at the
//     deposit, a partial or late payment, refunded from that wallet too) that changed since last
//     checked (a claim per receipt, so two instances never check or sweep the same deposit at
//     once), and keeps those with confirmed credits not yet swept (receipt.State.Unswept: beyond
//     the sweeps recorded, or mined after the token's latest one, however much dust that sweep
//     moved with them): a later transfer is swept again;
//  3. signs one sweep per batch at the operator's next nonce, records it with its receipts, then
//     broadcasts it. A batch whose estimate reverts is swept in halves, so one deposit that
//     makes it revert holds up no other; that deposit alone is left until its receipt changes.
//     A batch that needs more gas than the operator's ceiling for it (ErrSweepGas: a split whose
//     receive() burns the gas its deposit's ETH flush forwards) is swept in halves too; a single
//     such deposit's split is held back for sweepGasRetry (logged once as an error), its deposits
//     left out meanwhile, and every pass returns its error (GET /healthz names it).
//     Deposits of a split that is not the operator's PaymentSplit code (a merchant's own contract)
//     are swept in batches of their own per split, never with other merchants' deposits.

// Defaults of the sweeper.
const (
	DefaultSweepBatch = 200  // deposits per sweep transaction (252 fit under 2^24 gas)
	sweepClaim        = 1000 // receipts claimed a pass
)

// sweepLease is how old a claim is taken over. A pass restamps its claims every quarter of it
// (renewClaims), so a claim older than the lease is one whose process stopped renewing it: killed
// or crashed within a pass (a graceful stop gives its claims up, Release). After a SIGKILL the
// restarted process sweeps none of them until then: 30 s before stop 83, which left a receipt paid
// across a kill unswept for that long, and two minutes before stop 76. Two instances never sweep
// one deposit twice, whatever the lease: RecordSweep ties a deposit to a sweep only under the claim
// of the process that signed it (ErrClaimLost otherwise, nothing is sent); a pass whose renewals
// fail for a lease only does work another instance takes over.
const sweepLease = 10 * time.Second

// Swept is what one sweep pass did.
type Swept struct {
	Settled  int // open sweeps found mined and recorded
	Dropped  int // open sweeps whose nonce another transaction took: their deposits are swept again
	Sent     int // sweep transactions sent
	Deposits int // deposits in them
	Recorded []commands.ReceiptChange
	// Held are failed receipts whose unswept funds are under the sweep floor (receipt.SweepHeld):
	// left at their deposits, listed for the operator, judged again when their receipts change.
	Held []string
}

// SweepDepositsHandler sweeps the deposits of paid receipts, and of failed ones that received
// funds, to their splits.
type SweepDepositsHandler struct {
	store  commands.Store
	chain  SweepChain
	ledger SweepLedger
	now    func() time.Time
	token  uuid.UUID
	batch  int
	lease  time.Duration
	mu     sync.Mutex    // one pass at a time in this process
	held   holds[string] // splits, lower case
	// unreadable is the first error of this pass's receipts whose stream cannot be read
	// (unreadableReceipt); unreadableLogged holds back each one's next log line.
	unreadable       error
	unreadableLogged holds[string]
	// failedMin is the least a failed receipt's unswept funds must be worth, in USD cents, to be
	// swept, besides 1/DustShare of its price (receipt.SweepHeld; SWEEP_FAILED_MIN_CENTS).
	failedMin money.Cents
}

// sweepGasRetry is how long a split whose deposit's sweep needs more gas than the ceiling
// (ErrSweepGas) is held back: its deposits are left out of the sweeps (claimed, then left to
// lapse, so they are claimed again after the hold), the other splits' deposits are swept.
const sweepGasRetry = 15 * time.Minute

// NewSweepDepositsHandler returns the sweeper. It panics on a nil dependency.
func NewSweepDepositsHandler(store commands.Store, chain SweepChain, ledger SweepLedger, now func() time.Time) *SweepDepositsHandler {
	if store == nil || chain == nil || ledger == nil || now == nil {
		panic("settlement.NewSweepDepositsHandler: nil dependency")
	}
	return &SweepDepositsHandler{store: store, chain: chain, ledger: ledger, now: now, token: uuid.New(), batch: DefaultSweepBatch, lease: sweepLease,
		held: holds[string]{}, unreadableLogged: holds[string]{}}
}

// WithLease sets how old a claim is taken over (default sweepLease); a pass restamps its own every
// quarter of it.
func (h *SweepDepositsHandler) WithLease(d time.Duration) *SweepDepositsHandler {
	h.lease = max(d, 4*time.Millisecond)
	return h
}

// WithBatch sets the most deposits one sweep transaction names (default 200).
func (h *SweepDepositsHandler) WithBatch(n int) *SweepDepositsHandler {
	h.batch = max(n, 1)
	return h
}

// WithFailedMinCents sets the least, in USD cents, a failed receipt's unswept funds must be worth
// to be swept (default 0: 1/DustShare of its price, at least a cent's worth, receipt.SweepHeld).
func (h *SweepDepositsHandler) WithFailedMinCents(c money.Cents) *SweepDepositsHandler {
	h.failedMin = max(c, 0)
	return h
}

// Release gives up this sweeper's claims once its pass in flight, if any, has ended: called when
// the process stops, so that the deposits it had claimed and not swept are swept by the next
// instance at once instead of after the lease (sweepLease). A pass after it claims anew.
func (h *SweepDepositsHandler) Release(ctx context.Context) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.ledger.Release(ctx, h.token)
}

// Handle runs one pass. Errors: the first failure of the chain, the ledger or the store (what
// was done before it stands; what was claimed and not sent is claimed again after the lease).
func (h *SweepDepositsHandler) Handle(ctx context.Context) (Swept, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	defer h.renewClaims(ctx)()
	h.unreadable = nil
	var out Swept
	if err := h.settle(ctx, &out); err != nil {
		return out, err
	}
	due, err := h.due(ctx, &out)
	if err != nil {
		return out, err
	}
	nonces := nonceSource{sender: h.chain.Sender(), pending: h.chain.PendingNonce, ledger: h.ledger}
	batches, err := h.batches(ctx, h.unheld(due))
	if err != nil {
		return out, err
	}
	for _, b := range batches {
		if err := h.send(ctx, &nonces, h.unheld(b), &out); err != nil {
			return out, err
		}
	}
	return out, cmp.Or(h.unreadable, h.held.first(h.now()))
}

// renewClaims restamps this process's claims every quarter of the lease until the returned stop
// is called (at the pass's end), so that a pass slower than the lease (many deposits, a slow node)
// keeps them: without it, another instance took them over and this one's sweeps were refused
// (ErrClaimLost), and two instances whose passes outlasted the lease could take the same claims
// from each other forever. A failed renewal is not the pass's error: the claims then lapse, which
// costs only work (see sweepLease), and the pass's own statements report a database that fails.
func (h *SweepDepositsHandler) renewClaims(ctx context.Context) (stop func()) {
	return lease.Hold(ctx, h.lease/4, func(ctx context.Context) error { return h.ledger.Renew(ctx, h.token) }, func(err error) {
		zerolog.Ctx(ctx).Warn().Err(err).Msg("deposit sweep: renewing this pass's claims failed; they lapse after the lease if it goes on")
	})
}

// batches groups due deposits into sweeps of at most h.batch: those of splits holding the
// operator's PaymentSplit code together, those of any other split (a merchant's own contract,
// whose receive() runs on an ETH flush with all the gas left) in sweeps of their own per split,
// so that such a split can make only its own deposits' sweeps costlier (below the ceiling).
func (h *SweepDepositsHandler) batches(ctx context.Context, due []SweepCandidate) ([][]SweepCandidate, error) {
	var std []SweepCandidate
	own, order := map[string][]SweepCandidate{}, []string(nil)
	for _, c := range due {
		k := strings.ToLower(c.Split)
		ok, err := h.chain.StandardSplit(ctx, k)
		if err != nil {
			return nil, fmt.Errorf("the code of split %s: %w", k, err)
		}
		if ok {
			std = append(std, c)
			continue
		}
		if own[k] == nil {
			order = append(order, k)
		}
		own[k] = append(own[k], c)
	}
	out := chunks(std, h.batch)
	for _, k := range order {
		out = append(out, chunks(own[k], h.batch)...)
	}
	return out, nil
}

// chunks is items in slices of at most n.
func chunks(items []SweepCandidate, n int) [][]SweepCandidate {
	var out [][]SweepCandidate
	for lo := 0; lo < len(items); lo += n {
		out = append(out, items[lo:min(lo+n, len(items))])
	}
	return out
}

// due claims candidates and returns those whose deposits hold confirmed funds not yet swept; the
// others are released as checked, those of failed receipts under the sweep floor listed in out.
func (h *SweepDepositsHandler) due(ctx context.Context, out *Swept) ([]SweepCandidate, error) {
	cands, err := h.ledger.Claim(ctx, h.token, h.lease, sweepClaim)
	if err != nil || len(cands) == 0 {
		return nil, err
	}
	var due, checked []SweepCandidate
	for _, c := range cands {
		l, err := commands.Load(ctx, h.store, commands.ReceiptStream(c.ReceiptID), readableReceipt, receipt.State{})
		if errors.Is(err, errReceiptUndecodable) {
			h.unreadable = cmp.Or(h.unreadable, h.unreadableReceipt(ctx, c.ReceiptID, err)) // its claim is kept: tried again next pass
			continue
		}
		if err != nil {
			return nil, err
		}
		c.Version = max(c.Version, l.Version)
		if len(l.State.Unswept()) == 0 || c.Split == "" || l.State.DepositChainGone != nil { // gone: on a chain no longer followed
			checked = append(checked, c)
			continue
		}
		if l.State.SweepHeld(h.failedMin) {
			// Checked at this version: a later credit changes the receipt and it is judged again.
			c.Held = h.underFloor(ctx, c, l.State)
			out.Held = append(out.Held, c.ReceiptID)
			checked = append(checked, c)
			continue
		}
		due = append(due, c)
	}
	return due, h.ledger.Checked(ctx, h.token, checked)
}

// unreadableReceipt is the error of a pass that passed over receipt id: its stream holds an event
// this build cannot read (a newer build's, during a rollback or a rolling upgrade), so whether its
// deposit is still to be swept is not known. It is that receipt's alone: before, it failed every
// pass at its load (or at recording its sweep), and no deposit of any merchant was swept or
// recorded swept again. Its deposit waits; the error is logged once every unreadableLogEvery per
// receipt and every pass returns it, so /healthz shows the worker degraded while it lasts (as the
// split distributor does for the same receipt).
func (h *SweepDepositsHandler) unreadableReceipt(ctx context.Context, id string, err error) error {
	stream := receipt.Stream(id)
	err = fmt.Errorf("receipt %s (stream %s) cannot be read; its deposit waits: %w", id, stream, err)
	if now := h.now(); h.unreadableLogged.of(stream, now) == nil {
		h.unreadableLogged.put(stream, now.Add(unreadableLogEvery), err)
		zerolog.Ctx(ctx).Error().Err(err).Str("receipt", id).Str("stream", stream).
			Msg("deposit sweep: the receipt holds an event this build cannot read; its deposit waits, the others are swept")
	}
	return err
}

// send signs, records and broadcasts one sweep of items; a batch whose estimate reverts is sent in
// halves, a single deposit that reverts is left checked (until its receipt changes).
func (h *SweepDepositsHandler) send(ctx context.Context, nonces *nonceSource, items []SweepCandidate, out *Swept) error {
	if len(items) == 0 {
		return nil
	}
	deps, ids := make([]SweepDeposit, len(items)), make([]string, len(items))
	for i, c := range items {
		deps[i], ids[i] = SweepDeposit{ReceiptID: c.ReceiptID, Split: c.Split}, c.ReceiptID
	}
	txs, err := nonces.record(ctx, func(nonce uint64) ([]OperatorTx, error) {
		s, err := h.chain.SignSweep(ctx, nonce, deps)
		if err != nil {
			return nil, err
		}
		return []OperatorTx{{Sender: h.chain.Sender(), Nonce: s.Nonce, Kind: TxSweep, Hash: strings.ToLower(s.Hash), Raw: s.Raw, Status: TxSigned}}, nil
	}, func(txs []OperatorTx) (err error) {
		txs[0].ID, err = h.ledger.RecordSweep(ctx, h.token, txs[0], ids)
		return err
	})
	switch {
	case (errors.Is(err, ErrSweepReverts) || errors.Is(err, ErrSweepGas)) && len(items) > 1:
		half := len(items) / 2
		if err := h.send(ctx, nonces, items[:half], out); err != nil {
			return err
		}
		return h.send(ctx, nonces, h.unheld(items[half:]), out)
	case errors.Is(err, ErrSweepGas):
		h.holdBack(ctx, items[0], err)
		return nil
	case errors.Is(err, ErrSweepReverts):
		zerolog.Ctx(ctx).Error().Err(err).Str("receipt", items[0].ReceiptID).Str("deposit", items[0].Deposit).
			Msg("deposit sweep: this deposit's sweep reverts; left until its receipt changes")
		return h.ledger.Checked(ctx, h.token, items)
	case errors.Is(err, ErrClaimLost):
		return nil // another process took them over after our lease: it sweeps them
	case err != nil:
		return err
	}
	out.Sent++
	out.Deposits += len(items)
	if err := h.chain.Broadcast(ctx, txs[0].Raw); err != nil {
		// Recorded: the next pass finds it open and sends the same bytes again.
		zerolog.Ctx(ctx).Error().Err(err).Str("tx", txs[0].Hash).Msg("deposit sweep: broadcast failed")
	}
	return nil
}

// unheld is items without the deposits of splits held back (a hold that ended is forgotten).
func (h *SweepDepositsHandler) unheld(items []SweepCandidate) []SweepCandidate {
	out := make([]SweepCandidate, 0, len(items))
	for _, c := range items {
		if h.held.of(strings.ToLower(c.Split), h.now()) != nil {
			continue
		}
		out = append(out, c)
	}
	return out
}

// holdBack holds c's split back for sweepGasRetry after its sweep's gas was refused (err) and
// logs it as an error once; c's claim is left to lapse.
func (h *SweepDepositsHandler) holdBack(ctx context.Context, c SweepCandidate, err error) {
	until := h.now().Add(sweepGasRetry)
	err = fmt.Errorf("deposit sweeps to split %s held back until %s (receipt %s, deposit %s): %w",
		strings.ToLower(c.Split), until.UTC().Format(time.RFC3339), c.ReceiptID, c.Deposit, err)
	h.held.put(strings.ToLower(c.Split), until, err)
	zerolog.Ctx(ctx).Error().Err(err).Str("split", c.Split).Str("receipt", c.ReceiptID).Str("deposit", c.Deposit).Time("retry_at", until).
		Msg("deposit sweep: this deposit's sweep needs more gas than any real deposit's (its split burns the operator's gas); its split's deposits are not swept meanwhile")
}

// underFloor lists failed receipt st's unswept funds, left at deposit c under the sweep floor, for
// the operator: once per change of the receipt (it is checked at its version, so claimed again only
// when a new event, such as a credited transfer, may lift them over the floor). It returns them,
// base units by token, for the ledger's row (SweepCandidate.Held).
func (h *SweepDepositsHandler) underFloor(ctx context.Context, c SweepCandidate, st receipt.State) map[string]string {
	units, held := zerolog.Dict(), map[string]string{}
	for token, n := range st.Unswept() {
		units.Str(token, n.String())
		held[token] = n.String()
	}
	zerolog.Ctx(ctx).Warn().Str("receipt", c.ReceiptID).Str("deposit", c.Deposit).Str("split", c.Split).
		Dict("unswept_units", units).Strs("unvalued_tokens", st.UnsweptUnvalued()).Int64("min_usd_cents", int64(h.failedMin)).
		Msg("deposit sweep: a failed receipt's funds are worth less than a sweep (under 1% of its price or the configured minimum); left at its deposit until a later transfer lifts them")
	return held
}
