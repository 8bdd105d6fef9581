package settlement

import (
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
// the number of open deposits: the open set from the database, the head, ONE eth_getLogs over
// the new blocks for every configured token, the new blocks with their transactions (ETH), one
// batch of balances (a rotating slice of the unpaid deposits, for ETH a contract sent), and one
// batch of headers for the transfers that reached their depth; then the audit (deposit_audit.go)
// of the receipts paid lately (only when a reorg replaced the cursor's block), of the flagged
// ones and of the hints. Facts go through the command
// pipeline (load, decide, append with the expected version, retry), so two detectors credit a
// transfer once. The last processed block is kept in the database (chain_cursors): a restart
// resumes there, and transfers mined while the service was down are found.
type DepositDetector struct {
	Chain         DepositChain
	Store         DepositStore
	Events        commands.Store
	Confirmations int           // CHAIN_CONFIRMATIONS: depth at which a transfer counts (its block is 1)
	Monitor       time.Duration // PAYMENT_MONITOR_WINDOW
	Now           func() time.Time
	Log           zerolog.Logger
	Name          string // the cursor's name; "" is "deposits"
	MaxRange      uint64 // blocks read per step at most; 0 is 2,000
	// Prices, when set, value a transfer in a token its receipt has no quote in, at the price of
	// the step that observes it (receipt.ValueTransfer; DESIGN 10); nil: no price source.
	Prices commands.Prices

	balanceNext int                  // where the next step's slice of balances starts
	hintNext    int                  // where the next step's slice of hints starts
	told        map[string]time.Time // receipt/attempt -> when its hint's transaction was seen mined
}

// balanceSlice is how many unpaid deposits a step reads the balance of: one JSON-RPC batch.
// Every unpaid deposit is read once per ceil(open/balanceSlice) blocks (20 blocks for 10,000).
const balanceSlice = 500

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
}

// observation is one fact about a receipt's deposit for the pipeline: a transfer found, with its
// depth, or a balance to compare with what is credited.
type observation struct {
	t         DepositTransfer
	confirmed bool
	dropped   bool
	balance   bool // t.AmountUnits is the deposit's balance at t.BlockNumber
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
	open, err := d.Store.Open(ctx, now, d.Monitor)
	if err != nil {
		return StepResult{}, err
	}
	head, err := d.Chain.Head(ctx)
	if err != nil {
		return StepResult{}, err
	}
	cursor, cursorHash, ok, err := d.Store.Cursor(ctx, d.name())
	if err != nil {
		return StepResult{}, err
	}
	if !ok { // first run: the last firstLookback blocks, then on from the head
		cursor, cursorHash = head-min(head, firstLookback), ""
	}
	if head <= cursor {
		return StepResult{}, nil
	}
	byAddr := make(map[string]*OpenDeposit, len(open))
	for i := range open {
		byAddr[open[i].Address] = &open[i]
	}
	t0 := time.Now()
	from, to, scan, reorged, err := d.scan(ctx, cursor, cursorHash, head, byAddr)
	if err != nil {
		return StepResult{}, err
	}
	t1 := time.Now()
	obs, err := d.observe(ctx, head, to, scan, open)
	if err != nil {
		return StepResult{}, err
	}
	t2 := time.Now()
	n, err := d.record(ctx, obs, now)
	if err != nil {
		return StepResult{}, err
	}
	d.Log.Debug().Dur("open", t0.Sub(now)).Dur("scan", t1.Sub(t0)).Dur("observe", t2.Sub(t1)).Dur("record", time.Since(t2)).
		Int("open_deposits", len(open)).Msg("deposits: step")
	// The audit comes before the cursor moves: when it fails, the next step reads the same blocks
	// again and finds the same reorg (the cursor's block replaced) to audit.
	if err := d.audit(ctx, head, open, scan.Hashes, reorged); err != nil {
		return StepResult{}, err
	}
	if err := d.Store.SaveCursor(ctx, d.name(), to, scan.Hashes[to]); err != nil {
		return StepResult{}, err
	}
	return StepResult{From: from, To: to, Transfers: len(scan.Transfers), Receipts: n}, nil
}

// scan reads the blocks after cursor; when the first one's parent is not the cursor's block any
// more (a reorg replaced it: reorged), from reorgRewind blocks before the depth again.
func (d *DepositDetector) scan(ctx context.Context, cursor uint64, cursorHash string, head uint64, open map[string]*OpenDeposit) (uint64, uint64, DepositScan, bool, error) {
	maxRange := d.MaxRange
	if maxRange == 0 {
		maxRange = 2000
	}
	from := cursor + 1
	to := min(head, cursor+maxRange)
	watched := func(a string) bool { _, ok := open[a]; return ok }
	scan, err := d.Chain.Scan(ctx, from, to, watched)
	if err != nil || cursorHash == "" || strings.EqualFold(scan.Parent, cursorHash) {
		return from, to, scan, false, err
	}
	from = max(cursor-min(cursor, uint64(d.Confirmations+reorgRewind)), 1)
	d.Log.Info().Uint64("block", cursor).Uint64("from", from).Msg("deposits: the cursor's block left the chain; reading again")
	scan, err = d.Chain.Scan(ctx, from, to, watched)
	return from, to, scan, true, err
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
// dropped), and the balances of this step's slice of unpaid deposits.
func (d *DepositDetector) observe(ctx context.Context, head, to uint64, scan DepositScan, open []OpenDeposit) (map[string][]observation, error) {
	owner := make(map[string]string, len(open))
	for _, o := range open {
		owner[o.Address] = o.ReceiptID
	}
	out := map[string][]observation{}
	deep := uint64(max(d.Confirmations, 1))
	for _, t := range scan.Transfers {
		if id, ok := owner[t.Deposit]; ok {
			out[id] = append(out[id], observation{t: t, confirmed: depth(head, t.BlockNumber) >= deep})
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
			same := strings.EqualFold(hashes[u.BlockNumber], u.BlockHash)
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

// observeBalances reads the ETH balance, at block to, of this step's slice of the unpaid open
// deposits (one batch); the next step takes the next slice.
func (d *DepositDetector) observeBalances(ctx context.Context, to uint64, hash string, open []OpenDeposit, out map[string][]observation) error {
	var unpaid []OpenDeposit
	for _, o := range open {
		if !o.Settled {
			unpaid = append(unpaid, o)
		}
	}
	if len(unpaid) == 0 || hash == "" {
		return nil
	}
	start := d.balanceNext % len(unpaid)
	slice := unpaid[start:min(start+balanceSlice, len(unpaid))]
	d.balanceNext = start + len(slice)
	addrs := make([]string, len(slice))
	for i, o := range slice {
		addrs[i] = o.Address
	}
	balances, err := d.Chain.Balances(ctx, addrs, to)
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

// Run steps every interval until ctx ends; an error only delays (the next step reads again).
func (d *DepositDetector) Run(ctx context.Context, interval time.Duration) error {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		if res, err := d.Step(ctx); err != nil && ctx.Err() == nil {
			d.Log.Warn().Err(err).Msg("deposits: step failed; reading the same blocks again next time")
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
