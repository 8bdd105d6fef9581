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
)

// DepositDetector follows the chain block by block and credits every transfer to an open deposit
// address to its receipt (DESIGN 9), with no submission from anyone. Per step (Run), whatever
// the number of open deposits, a constant number of JSON-RPC requests (issue 38): the newest
// block with its transactions (the head, and the ETH sent by transactions), ONE eth_getLogs over
// the new blocks for the Transfer logs of every contract (the recipients matched in memory; a
// token not configured is recorded as receipt.DepositUnknownToken, never credited), when some
// deposit has an open ETH quote one eth_call reading the balances of up to balanceSlice of them
// (ETH a contract sent), and, when transfers reached their depth in blocks not read this step,
// one batch of headers, and, only for deposits watched late (deposit_lookback.go), one
// eth_getLogs by recipient over the blocks already read; then the audit (deposit_audit.go) of
// the receipts paid lately (only when a reorg replaced the cursor's block: one batch of headers
// and one of transaction receipts) and of the flagged ones (hints are the hint follower's,
// commands.CheckPaymentHints). Facts go through the command pipeline (load, decide, append with
// the expected version, retry), so two detectors credit a transfer once. The last processed
// block is kept in the database (chain_cursors): a restart resumes there, and transfers mined
// while the service was down are found.
type DepositDetector struct {
	Chain         DepositChain
	Store         DepositStore
	Events        commands.Store
	Confirmations int           // CHAIN_CONFIRMATIONS: depth at which a transfer counts (its block is 1)
	Monitor       time.Duration // PAYMENT_MONITOR_WINDOW
	// LateWatch is how long after Monitor an expired receipt's deposit stays watched: its
	// transfers pay nothing (PaymentIgnored) and are credited to be refunded. 0 is DefaultLateWatch.
	LateWatch time.Duration
	Now       func() time.Time
	Log       zerolog.Logger
	Name      string // the cursor's name; "" is "deposits"
	MaxRange  uint64 // blocks read per step at most; 0 is 2,000
	// Prices, when set, value a transfer in a token its receipt has no quote in, at the price of
	// the step that observes it (receipt.ValueTransfer; DESIGN 10); nil: no price source.
	Prices commands.Prices

	balanceNext int           // where the next step's slice of balances starts
	known       knownReceipts // the receipts this detector appended to (deposit_record.go)
	genesis     string        // the chain's genesis hash, read at the first step
	// recent are the hashes of the last blocks read, up to the cursor's (recentHashes): a step
	// whose first new block is the cursor's block's child knows them canonical still, and
	// judges the transfers in them that reached their depth without asking for their headers.
	recent map[uint64]string
	late   lookback     // deposits watched late, looked for in the blocks already read
	held   heldDeposits // transfers to receipts that could not be read, recorded later (deposit_held.go)
}

// DefaultLateWatch is DepositDetector.LateWatch's default: a week of expired receipts past their
// late-payment watch (docs/decisions.md, issue 41: every watched deposit is read each step, and
// abandoned checkouts are most receipts; a transfer later than this is not seen by the service).
const DefaultLateWatch = 7 * 24 * time.Hour

// balanceSlice is how many ETH-quoted deposits a step reads the balance of: one JSON-RPC request
// (chain.BalancesPerCall). Each is read once per ceil(quoted/balanceSlice) blocks: every block up
// to 1,500 open ETH quotes, every 7 blocks at 10,000.
const balanceSlice = 1500

// firstLookback is how many blocks before the head a detector's very first step reads.
const firstLookback = 256

// reorgRewind is how far before its cursor the detector reads again when the cursor's block left
// the chain: past the confirmation depth, a reorg is the audit's (DESIGN 8).
const reorgRewind = 4

// StepResult says what a step did.
type StepResult struct {
	From, To  uint64 // the blocks read (To 0: no new block)
	Transfers int    // transfers found in them
	Receipts  int    // receipts changed
	// LookBack is why the look-back for deposits watched late failed (deposit_lookback.go): the
	// step read its blocks and moved the cursor, and those deposits are looked for again at the
	// next step. Nil when it did not fail.
	LookBack error
	// Unreadable is the first receipt whose stream this build cannot read among those with
	// transfers to record (deposit_held.go): the step credited the others and moved the cursor,
	// and that receipt's transfers are kept, recorded once it can be read. Nil when none.
	Unreadable error
}

// observation is one fact about a receipt's deposit for the pipeline: a transfer found, with its
// depth, or a balance to compare with what is credited.
type observation struct {
	t         DepositTransfer
	confirmed bool
	dropped   bool
	balance   bool // t.AmountUnits is the deposit's balance at t.BlockNumber
	scanned   bool // found in the blocks read (not a judgment of a credit recorded before)
}

func (d *DepositDetector) name() string {
	if d.Name == "" {
		return "deposits"
	}
	return d.Name
}

// Step reads the blocks since the cursor and records what they show. On an error nothing past the
// cursor is kept: the next step reads the same blocks again (recording is idempotent).
func (d *DepositDetector) Step(ctx context.Context) (StepResult, error) {
	now := d.Now()
	cur, err := d.cursor(ctx)
	if err != nil {
		return StepResult{}, err
	}
	if cur, err = d.resume(ctx, cur); err != nil {
		return StepResult{}, err
	}
	w := &watchList{d: d, now: now}
	t0 := time.Now()
	from, scan, reorged, err := d.scan(ctx, cur, w.read)
	if err != nil {
		return StepResult{}, err
	}
	if scan.To == 0 {
		return StepResult{}, nil
	}
	d.late.sawHead(scan.Head, w.at)
	d.late.cursorWatched = cur.WatchedAt
	open := w.open
	late, unread, lookBackErr := d.lookBack(ctx, open, from)
	scan.Transfers = append(scan.Transfers, late...)
	scan.Hashes = d.withRecent(cur, scan.Hashes, reorged)
	t1 := time.Now()
	obs, err := d.observe(ctx, scan.Head, scan.To, scan, open, w.owner)
	if err != nil {
		return StepResult{}, err
	}
	t2 := time.Now()
	d.withHeld(obs)
	n, unreadable, err := d.record(ctx, obs, now)
	if err != nil {
		return StepResult{}, err
	}
	d.Log.Debug().Dur("open", w.took).Dur("scan", t1.Sub(t0)-w.took).Dur("observe", t2.Sub(t1)).Dur("record", time.Since(t2)).
		Int("open_deposits", len(open)).Msg("deposits: step")
	// The audit comes before the cursor moves: when it fails, the next step reads the same blocks
	// again and finds the same reorg (the cursor's block replaced) to audit.
	if err := d.audit(ctx, scan.Head, open, scan.Hashes, reorged); err != nil {
		return StepResult{}, err
	}
	unreadableErr := d.keep(obs, unreadable, now)
	d.releaseHeld(obs, unreadable, open, scan.To)
	if err := d.saveHeld(ctx); err != nil { // before the cursor moves past a kept transfer
		return StepResult{}, err
	}
	next := DepositCursor{Number: scan.To, Hash: scan.Hashes[scan.To], Genesis: cur.Genesis, WatchedFor: time.Since(w.began)}
	if len(unread) > 0 {
		next.WatchedFor = -1 // keep the WatchedAt before: a restart still looks back for these
	}
	if err := d.Store.SaveCursor(ctx, d.name(), next); err != nil {
		return StepResult{}, err
	}
	d.recent = recentOf(scan.Hashes, scan.To, d.Confirmations)
	d.late.watching(open, unread)
	return StepResult{From: from, To: scan.To, Transfers: len(scan.Transfers), Receipts: n, LookBack: lookBackErr, Unreadable: unreadableErr}, nil
}

// watchList is a step's open deposits, read when the scan asks for them (its watch): after the
// chain's newest block, so a deposit address handed out before a block of the range was mined is
// among them (its receipt's row is written before the address is shown: the payment page reads
// it). Read before the head, as it once was, a receipt created and paid between that read and the
// head's went unwatched in the block that paid it, and the cursor moved past the payment for good
// (CI's cluster test saw one never credited).
type watchList struct {
	d     *DepositDetector
	now   time.Time
	open  []OpenDeposit
	owner map[string]string // deposit address -> receipt id, of open
	took  time.Duration     // reading them
	at    time.Time         // when the last read began: every block up to the scan's head was on the node
	began time.Time         // the same on the process's own clock (d.Now may be another): the cursor's WatchedFor
}

// read reads the open deposits and returns whether an address is one of them. A scan that reads
// the blocks again after a reorg calls it again, after its own newest block.
func (w *watchList) read(ctx context.Context) (func(string) bool, error) {
	t0, at := time.Now(), w.d.Now()
	open, err := w.d.open(ctx, w.now)
	if err != nil {
		return nil, err
	}
	owner := make(map[string]string, len(open))
	for _, o := range open {
		owner[o.Address] = o.ReceiptID
	}
	w.open, w.owner, w.took, w.at, w.began = open, owner, w.took+time.Since(t0), at, t0
	return func(a string) bool { _, ok := owner[a]; return ok }, nil
}

// open is the watched deposits, and those of the receipts whose kept transfers are watched
// whatever the watch list says (deposit_held.go); those of the receipts this detector holds at
// the read model's version filled from the states it holds (not read from the read model again).
func (d *DepositDetector) open(ctx context.Context, now time.Time) ([]OpenDeposit, error) {
	known := d.known.versions()
	open, err := d.Store.OpenKnown(ctx, now, d.Monitor, cmp.Or(d.LateWatch, DefaultLateWatch), known)
	if err != nil {
		return nil, err
	}
	if open, err = d.withHeldWatch(ctx, open, now, known); err != nil {
		return nil, err
	}
	kept, watched := open[:0], make(map[string]bool, len(open))
	for _, o := range open {
		watched[o.ReceiptID] = true
		if o.Known {
			k, ok := d.known.get(o.ReceiptID)
			if !ok || k.version != o.Version { // only this step changes known: never, but never decided on either
				return nil, fmt.Errorf("deposits: receipt %s open at version %d, not held at it", o.ReceiptID, o.Version)
			}
			if !FillFromState(&o, k.st) {
				continue
			}
		} else if k, ok := d.known.get(o.ReceiptID); ok && k.version < o.Version {
			// Changed since by another writer (a sweep recorded, the window, a refund, another
			// detector): decided on its stream, not on what this detector last appended. An
			// append decided on the old state fails its expected version and is reloaded, but a
			// decision of nothing is never checked: a balance read judged against credits the
			// sweeper had since recorded swept credited nothing (stop 71).
			d.known.forget(o.ReceiptID)
		}
		kept = append(kept, o)
	}
	d.known.retain(watched) // a receipt no longer watched is never decided on here again
	return kept, nil
}

// cursor is where the last step stopped; at a very first start, firstLookback blocks before the
// head (one more request, once). The chain's genesis is read once per detector: a cursor saved
// on another chain is never applied to this one (ErrOtherChain; serve checks it at start, see
// CheckDepositChain).
func (d *DepositDetector) cursor(ctx context.Context) (DepositCursor, error) {
	if d.genesis == "" {
		g, err := d.Chain.Genesis(ctx)
		if err != nil {
			return DepositCursor{}, err
		}
		d.genesis = g
	}
	cur, ok, err := d.Store.Cursor(ctx, d.name())
	if err != nil {
		return cur, err
	}
	if ok && cur.Genesis != "" && cur.Genesis != d.genesis {
		return cur, fmt.Errorf("%w: the cursor %s is at block %d of the chain with genesis %s, the node serves genesis %s",
			ErrOtherChain, d.name(), cur.Number, cur.Genesis, d.genesis)
	}
	if ok {
		cur.Genesis = d.genesis
		return cur, nil
	}
	head, err := d.Chain.Head(ctx)
	if err != nil {
		return cur, err
	}
	return DepositCursor{Number: head - min(head, firstLookback), Genesis: d.genesis}, nil
}

// ErrCursorAhead is a cursor past the chain's head: the node serves another chain than the one
// the cursor was saved on (or one that lost blocks). Nothing is read until it is resolved.
var ErrCursorAhead = errors.New("deposits: the stored cursor is ahead of the chain's head")

// scan reads the blocks after the cursor; when the first one's parent is not the cursor's block
// any more (a reorg replaced it: reorged), from reorgRewind blocks before the depth again.
// scan.To is 0 when there is no new block.
func (d *DepositDetector) scan(ctx context.Context, cur DepositCursor, watch DepositWatch) (uint64, DepositScan, bool, error) {
	from := cur.Number + 1
	scan, err := d.Chain.Scan(ctx, from, d.maxRange(), watch)
	if err != nil {
		return from, scan, false, err
	}
	if scan.Head+uint64(d.Confirmations+reorgRewind) < cur.Number { // a reorg to a shorter branch is no more than this
		return from, DepositScan{}, false, fmt.Errorf("%w: cursor at block %d, head at %d", ErrCursorAhead, cur.Number, scan.Head)
	}
	if scan.To == 0 || cur.Hash == "" || strings.EqualFold(scan.Parent, cur.Hash) {
		return from, scan, false, nil
	}
	// A node swapped for one of another chain (ETH_RPC_URL now routed elsewhere) looks like a
	// reorg here too: its blocks are no children of the cursor's. Its blocks are never read.
	if err := d.sameChain(ctx, cur); err != nil {
		return from, DepositScan{}, false, err
	}
	from = max(cur.Number-min(cur.Number, uint64(d.Confirmations+reorgRewind)), 1)
	d.Log.Info().Uint64("block", cur.Number).Uint64("from", from).Msg("deposits: the cursor's block left the chain; reading again")
	scan, err = d.Chain.Scan(ctx, from, scan.To-from+1, watch)
	return from, scan, true, err
}

// sameChain reads the node's genesis again (one request, only when the cursor's block left the
// chain) and fails with ErrOtherChain when it is not the one the detector began on.
func (d *DepositDetector) sameChain(ctx context.Context, cur DepositCursor) error {
	g, err := d.Chain.Genesis(ctx)
	if err != nil {
		return err
	}
	if g != d.genesis {
		return fmt.Errorf("%w: the cursor %s is at block %d of the chain with genesis %s, the node now serves genesis %s (ETH_RPC_URL swapped?)",
			ErrOtherChain, d.name(), cur.Number, d.genesis, g)
	}
	return nil
}

// maxRange is MaxRange or its default.
func (d *DepositDetector) maxRange() uint64 {
	if d.MaxRange == 0 {
		return 2000
	}
	return d.MaxRange
}

// depth is how deep block n is under head (its own block counts as 1).
func depth(head, n uint64) uint64 {
	if n > head {
		return 0
	}
	return head - n + 1
}

// observe turns a scan into observations: each transfer found (confirmed when deep enough), each
// earlier transfer that reached its depth (confirmed when its block is still on the chain, else
// dropped), and the balances of this step's slice of unpaid deposits. owner is open's receipt by
// deposit address (watchList's).
func (d *DepositDetector) observe(ctx context.Context, head, to uint64, scan DepositScan, open []OpenDeposit, owner map[string]string) (map[string][]observation, error) {
	out := map[string][]observation{}
	deep := uint64(max(d.Confirmations, 1))
	for _, t := range scan.Transfers {
		if id, ok := owner[t.Deposit]; ok {
			out[id] = append(out[id], observation{t: t, confirmed: depth(head, t.BlockNumber) >= deep, scanned: true})
		}
	}
	if err := d.observeUnconfirmed(ctx, head, scan, open, out); err != nil {
		return nil, err
	}
	return out, d.observeBalances(ctx, to, scan.Hashes[to], open, out)
}

// observeUnconfirmed judges the transfers seen earlier that are now deep enough, one batch of
// headers for the blocks the scan did not read.
func (d *DepositDetector) observeUnconfirmed(ctx context.Context, head uint64, scan DepositScan, open []OpenDeposit, out map[string][]observation) error {
	deep := uint64(max(d.Confirmations, 1))
	var ask []uint64 // distinct numbers: many transfers share a block
	asked := map[uint64]bool{}
	for _, o := range open {
		for _, u := range o.Unconfirmed {
			if _, read := scan.Hashes[u.BlockNumber]; !read && !asked[u.BlockNumber] && depth(head, u.BlockNumber) >= deep {
				ask, asked[u.BlockNumber] = append(ask, u.BlockNumber), true
			}
		}
	}
	hashes, err := d.withHashes(ctx, scan.Hashes, ask)
	if err != nil {
		return err
	}
	for _, o := range open {
		for _, u := range o.Unconfirmed {
			if depth(head, u.BlockNumber) < deep {
				continue
			}
			// No header at a number below the head is the node's gap (a load balancer's lagging
			// node), not a block replaced: a dropped credit is never judged again, so it waits.
			h, answered := hashes[u.BlockNumber]
			if !answered || h == "" {
				d.Log.Warn().Str("receipt_id", o.ReceiptID).Uint64("block", u.BlockNumber).
					Msg("deposits: the node answered no header below its head; the transfer is judged at the next step")
				continue
			}
			same := strings.EqualFold(h, u.BlockHash)
			out[o.ReceiptID] = append(out[o.ReceiptID], observation{t: u, confirmed: same, dropped: !same})
		}
	}
	return nil
}

// withHashes is known plus the canonical hash of each block of ask, read in one batch of
// headers (known itself when ask is empty).
func (d *DepositDetector) withHashes(ctx context.Context, known map[uint64]string, ask []uint64) (map[uint64]string, error) {
	if len(ask) == 0 {
		return known, nil
	}
	got, err := d.Chain.BlockHashes(ctx, ask)
	if err != nil {
		return nil, err
	}
	out := make(map[uint64]string, len(known)+len(got))
	for k, v := range known {
		out[k] = v
	}
	for k, v := range got {
		out[k] = v
	}
	return out, nil
}

// observeBalances reads the ETH balance, at block to, of this step's slice of the deposits whose
// ETH quote is open (one request for balanceSlice of them); the next step takes the next slice.
// ETH that a contract sends (a smart wallet, an exchange) is an internal transfer that no
// transaction's fields show: the balance beyond what is credited is how it is found.
func (d *DepositDetector) observeBalances(ctx context.Context, to uint64, hash string, open []OpenDeposit, out map[string][]observation) error {
	var quoted []OpenDeposit
	for _, o := range open {
		if o.ETHQuoted && !o.Settled {
			quoted = append(quoted, o)
		}
	}
	if len(quoted) == 0 || hash == "" {
		return nil
	}
	start := d.balanceNext % len(quoted)
	slice := quoted[start:min(start+balanceSlice, len(quoted))]
	d.balanceNext = start + len(slice)
	addrs := make([]string, len(slice))
	for i, o := range slice {
		addrs[i] = o.Address
	}
	balances, err := d.Chain.Balances(ctx, addrs, hash) // the block the credit names, by its hash
	if err != nil {
		return err
	}
	for i, o := range slice {
		if balances[i] == nil || balances[i].Sign() <= 0 {
			continue
		}
		t := DepositTransfer{Deposit: o.Address, TransactionHash: hash, LogIndex: BalanceLogIndex, BlockNumber: to, BlockHash: hash,
			Token: "ETH", Decimals: 18, AmountUnits: balances[i].String()}
		out[o.ReceiptID] = append(out[o.ReceiptID], observation{t: t, balance: true})
	}
	return nil
}

// Run steps every interval until ctx ends. A failed step is read again at the next one; it is
// logged as an error, never waited out in silence. (serve drives Step itself under app.Health,
// which shows a detector without progress as stuck in /healthz.)
func (d *DepositDetector) Run(ctx context.Context, interval time.Duration) error {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		res, err := d.Step(ctx)
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if err != nil {
			d.Log.Error().Err(err).Msg("deposits: step failed; reading the same blocks again next time")
		} else if res.Transfers > 0 || res.Receipts > 0 {
			d.Log.Info().Uint64("from", res.From).Uint64("to", res.To).Int("transfers", res.Transfers).Int("receipts", res.Receipts).
				Msg("deposits: transfers credited")
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-t.C:
		}
	}
}

// errStepRecord wraps the first failure of a step's recording.
var errStepRecord = errors.New("deposits: recording failed")

func recordErr(id string, err error) error {
	return fmt.Errorf("%w: receipt %s: %w", errStepRecord, id, err)
}
