package chain

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
)

// ErrAlreadyFollowed is returned by Follower.Add for a transaction hash already being followed:
// one transaction pays one receipt.
var ErrAlreadyFollowed = errors.New("chain: transaction already followed")

// Decision is a final verdict (Paid or Failed) on a followed payment; the follower forgets it.
type Decision struct {
	Expectation Expectation
	Verdict     Verdict
}

// maxBackoff bounds, in steps, how long an ERC-20 payment that the logs have not shown yet waits
// between two receipt lookups.
const maxBackoff = 8

// maxFilterList is go-ethereum's limit on the addresses, and on the alternatives of one topic,
// in one log filter.
const maxFilterList = 1000

// Follower verifies many pending payments together, one Step per poll (Run). Per step it reads
// the head, ONE eth_getLogs over the new blocks for every followed token and split (the normal
// way an ERC-20 payment is found; one more per 1,000 splits), receipts only of the hashes the
// logs did not explain, the transactions of ETH payments just found, and the headers of the
// blocks whose payments reached their depth, each of these one batch (of up to MaxBatch): the
// round trips per block do not grow with the number of payments.
//
// Receipts are still needed, since a reverted transfer, a transfer of another token and an ETH
// payment leave no matching log; an ERC-20 hash the logs keep missing is looked up with a growing
// backoff (1, 2, 4 .. 8 steps) so that hashes submitted before they are mined cost little.
//
// Add, Remove and Len may be called from any goroutine while Step runs; concurrent Steps take
// turns.
type Follower struct {
	c Client

	stepMu  sync.Mutex // one Step at a time
	mu      sync.Mutex // guards pending
	pending map[common.Hash]*followed
	cursor  uint64 // last block whose logs were read
	started bool
	step    uint64
	audit   map[common.Hash]*audited // paid payments watched after their verdict (Step only)
	resumed []*audited               // audits handed over by Audit, taken in by the next Step (guarded by mu)
}

// AuditBlocks is how many blocks past its paying block a paid payment is still watched: a reorg
// deeper than CHAIN_CONFIRMATIONS within that window is reported (Reorged), never undone silently.
const AuditBlocks = 64

// audited is a paid payment watched after its verdict.
type audited struct {
	exp  Expectation
	seen observation
}

// followed is one payment's progress; only Step touches its fields after Add.
type followed struct {
	exp     Expectation
	seen    *observation // mined, waiting for its depth
	due     uint64       // step at which the receipt is looked up again
	backoff uint64
}

// NewFollower follows nothing yet; the first Step starts reading logs from the head of that
// moment (an earlier payment is found by its receipt, which every new payment gets at once).
func NewFollower(c Client) *Follower {
	return &Follower{c: c, pending: map[common.Hash]*followed{}, audit: map[common.Hash]*audited{}}
}

// Add follows e until a Decision.
func (f *Follower) Add(e Expectation) error {
	if err := e.Validate(); err != nil {
		return err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if _, ok := f.pending[e.TxHash]; ok {
		return ErrAlreadyFollowed
	}
	f.pending[e.TxHash] = &followed{exp: e}
	return nil
}

// Remove stops following hash (the receipt was cancelled or decided elsewhere).
func (f *Follower) Remove(hash common.Hash) {
	f.mu.Lock()
	delete(f.pending, hash)
	f.mu.Unlock()
}

// Audit watches a payment recorded paid in block (number, hash) for a reorg past its depth, as if
// this follower had confirmed it: after a restart the verifier hands back the payments it
// confirmed within the last AuditBlocks blocks, so a restart never ends their audit. A payment
// older than that is dropped by the next Step.
func (f *Follower) Audit(hash common.Hash, number uint64, block common.Hash) {
	f.mu.Lock()
	f.resumed = append(f.resumed, &audited{exp: Expectation{TxHash: hash}, seen: observation{blockNumber: number, blockHash: block}})
	f.mu.Unlock()
}

// takeResumed moves the audits handed over by Audit into the step's own map.
func (f *Follower) takeResumed() {
	f.mu.Lock()
	resumed := f.resumed
	f.resumed = nil
	f.mu.Unlock()
	for _, a := range resumed {
		if _, ok := f.audit[a.exp.TxHash]; !ok {
			f.audit[a.exp.TxHash] = a
		}
	}
}

// Len is the number of payments followed.
func (f *Follower) Len() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.pending)
}

func (f *Follower) snapshot() []*followed {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := make([]*followed, 0, len(f.pending))
	for _, p := range f.pending {
		out = append(out, p)
	}
	return out
}

// Step reads what the chain shows since the last step and returns the payments decided. On an
// RPC error it returns the error and decides nothing more; the next step resumes where this one
// stopped (the log cursor only moves after a successful read), so an outage never fails a
// payment.
func (f *Follower) Step(ctx context.Context) ([]Decision, error) {
	f.stepMu.Lock()
	defer f.stepMu.Unlock()
	f.step++
	head, err := f.c.BlockNumber(ctx)
	if err != nil {
		return nil, err
	}
	if !f.started {
		f.cursor, f.started = head, true
	}
	f.takeResumed()
	all := f.snapshot()
	if err := f.readLogs(ctx, head, all); err != nil {
		return nil, err
	}
	if err := f.readReceipts(ctx, all); err != nil {
		return nil, err
	}
	deep := deepEnough(head, all)
	// One batch of headers serves both the audit of the paid payments and the confirmations.
	blocks := f.auditedBlocks(head)
	for _, p := range deep {
		blocks = append(blocks, p.seen.blockNumber)
	}
	canonical, err := f.canonical(ctx, blocks)
	if err != nil {
		return nil, err
	}
	flagged, err := f.reaudit(ctx, canonical)
	if err != nil {
		return nil, err
	}
	return append(flagged, f.confirm(head, deep, canonical)...), nil
}

// Run steps every interval until ctx ends, handing decisions to decided and errors to failed
// (an error only delays: the next tick tries again).
func (f *Follower) Run(ctx context.Context, interval time.Duration, decided func([]Decision), failed func(error)) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		ds, err := f.Step(ctx)
		if err != nil && ctx.Err() == nil {
			failed(err)
		}
		if len(ds) > 0 {
			decided(ds)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// readLogs reads the Transfer logs of the new blocks to every followed split, of every followed
// token, and marks the ERC-20 payments they show as seen.
func (f *Follower) readLogs(ctx context.Context, head uint64, all []*followed) error {
	if head <= f.cursor {
		return nil
	}
	tokens, splits := map[common.Address]bool{}, map[common.Address]bool{}
	for _, p := range all {
		if !p.exp.Native() && p.seen == nil {
			tokens[p.exp.TokenAddress], splits[p.exp.SplitAddress] = true, true
		}
	}
	if len(tokens) == 0 {
		f.cursor = head
		return nil
	}
	to := make([]common.Hash, 0, len(splits))
	for a := range splits {
		to = append(to, common.BytesToHash(a.Bytes()))
	}
	// go-ethereum refuses more than 1,000 addresses or alternatives of one topic in a filter:
	// more splits than that take one query per thousand.
	var logs []types.Log
	for lo := 0; lo < len(to); lo += maxFilterList {
		part, err := f.c.FilterLogs(ctx, f.cursor+1, head, keys(tokens), [][]common.Hash{{TransferTopic}, nil, to[lo:min(lo+maxFilterList, len(to))]})
		if err != nil {
			return err
		}
		logs = append(logs, part...)
	}
	f.cursor = head
	byTx := map[common.Hash][]int{}
	for i, l := range logs {
		byTx[l.TxHash] = append(byTx[l.TxHash], i)
	}
	for _, p := range all {
		idx, ok := byTx[p.exp.TxHash]
		if !ok || p.exp.Native() || p.seen != nil {
			continue
		}
		// Logs only come from successful transactions, and these hold every Transfer of a
		// followed token to a followed split in the transaction: enough to judge it.
		o := &observation{status: types.ReceiptStatusSuccessful, blockNumber: logs[idx[0]].BlockNumber, blockHash: logs[idx[0]].BlockHash}
		for _, i := range idx {
			o.logs = append(o.logs, logs[i])
		}
		p.seen = o
	}
	return nil
}

func keys(m map[common.Address]bool) []common.Address {
	out := make([]common.Address, 0, len(m))
	for a := range m {
		out = append(out, a)
	}
	return out
}

// readReceipts looks up, in one batch, the receipts of the unseen payments that are due, then,
// in one more, the transactions of the ETH payments among them that succeeded.
func (f *Follower) readReceipts(ctx context.Context, all []*followed) error {
	var ask []*followed
	var hashes []common.Hash
	for _, p := range all {
		if p.seen == nil && p.due <= f.step {
			ask, hashes = append(ask, p), append(hashes, p.exp.TxHash)
		}
	}
	if len(ask) == 0 {
		return nil
	}
	receipts, err := f.c.TransactionReceipts(ctx, hashes)
	if err != nil {
		return err
	}
	var eth []*followed
	var ethObs []*observation
	var ethHashes []common.Hash
	for i, p := range ask {
		r := receipts[i]
		if r == nil {
			p.retryLater(f.step)
			continue
		}
		o := &observation{status: r.Status, blockNumber: r.BlockNumber.Uint64(), blockHash: r.BlockHash, logs: derefLogs(r.Logs)}
		if p.exp.Native() && r.Status == types.ReceiptStatusSuccessful {
			eth, ethObs, ethHashes = append(eth, p), append(ethObs, o), append(ethHashes, p.exp.TxHash)
			continue
		}
		p.seen = o
	}
	if len(eth) == 0 {
		return nil
	}
	txs, err := f.c.TransactionsByHash(ctx, ethHashes)
	if err != nil {
		return err
	}
	for i, p := range eth {
		if txs[i] == nil {
			continue // mined a moment ago, unknown now: reorged away; its receipt is asked again
		}
		ethObs[i].tx = txs[i]
		p.seen = ethObs[i]
	}
	return nil
}

// retryLater schedules the next receipt lookup of a payment not mined yet: the next step for
// ETH, which no log reveals, and with a growing backoff for an ERC-20, which the logs reveal.
func (p *followed) retryLater(step uint64) {
	if p.exp.Native() {
		p.due = step + 1
		return
	}
	p.backoff = min(max(2*p.backoff, 1), maxBackoff)
	p.due = step + p.backoff
}

// deepEnough is the payments seen at least their confirmation depth deep.
func deepEnough(head uint64, all []*followed) []*followed {
	var deep []*followed
	for _, p := range all {
		if p.seen != nil && depth(head, p.seen.blockNumber) >= uint64(p.exp.Confirmations) {
			deep = append(deep, p)
		}
	}
	return deep
}

// confirm judges the deep payments whose block is still canonical and sends those whose block
// was replaced back to waiting.
func (f *Follower) confirm(head uint64, deep []*followed, canonical map[uint64]common.Hash) []Decision {
	var out []Decision
	var decided []*followed
	for _, p := range deep {
		if canonical[p.seen.blockNumber] != p.seen.blockHash {
			// Reorged away before its depth: waiting again; the receipt tells where (and
			// whether) it is mined now.
			p.seen, p.due, p.backoff = nil, f.step+1, 0
			continue
		}
		v := judge(p.exp, *p.seen)
		v.Depth = depth(head, p.seen.blockNumber)
		out, decided = append(out, Decision{Expectation: p.exp, Verdict: v}), append(decided, p)
		if v.Status == Paid {
			f.audit[p.exp.TxHash] = &audited{exp: p.exp, seen: *p.seen}
		}
	}
	f.forget(decided)
	return out
}

// forget drops the decided payments, unless one was removed and added again meanwhile.
func (f *Follower) forget(decided []*followed) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, p := range decided {
		if f.pending[p.exp.TxHash] == p {
			delete(f.pending, p.exp.TxHash)
		}
	}
}

// auditedBlocks stops watching the paid payments older than AuditBlocks and returns the paying
// blocks of the others.
func (f *Follower) auditedBlocks(head uint64) []uint64 {
	var blocks []uint64
	for h, a := range f.audit {
		if head > a.seen.blockNumber+AuditBlocks {
			delete(f.audit, h)
			continue
		}
		blocks = append(blocks, a.seen.blockNumber)
	}
	return blocks
}

// reaudit checks the paid payments of the last AuditBlocks blocks against the canonical hashes;
// only when a paying block was replaced, one batch of receipts. A transaction mined again
// elsewhere still pays (the same transaction; the audit follows it to its new block); one that
// is gone is reported once as Reorged and no longer watched.
func (f *Follower) reaudit(ctx context.Context, canonical map[uint64]common.Hash) ([]Decision, error) {
	var moved []*audited
	var hashes []common.Hash
	for _, a := range f.audit {
		if canonical[a.seen.blockNumber] != a.seen.blockHash {
			moved, hashes = append(moved, a), append(hashes, a.exp.TxHash)
		}
	}
	if len(moved) == 0 {
		return nil, nil
	}
	receipts, err := f.c.TransactionReceipts(ctx, hashes)
	if err != nil {
		return nil, err
	}
	var out []Decision
	for i, a := range moved {
		if r := receipts[i]; r != nil && r.Status == types.ReceiptStatusSuccessful {
			a.seen.blockNumber, a.seen.blockHash = r.BlockNumber.Uint64(), r.BlockHash
			continue
		}
		// Gone (or, mined again, reverted: the buyer's balance changed meanwhile): the ledger's
		// paid has no support on the chain any more.
		out = append(out, Decision{Expectation: a.exp, Verdict: Verdict{Status: Reorged, BlockNumber: a.seen.blockNumber,
			BlockHash: a.seen.blockHash, LogIndex: -1}})
		delete(f.audit, a.exp.TxHash)
	}
	return out, nil
}

// canonical is the hash of each of blocks on the node's chain now (one batch of header reads,
// one per distinct number); a number the node has no block for is absent.
func (f *Follower) canonical(ctx context.Context, blocks []uint64) (map[uint64]common.Hash, error) {
	var numbers []uint64
	distinct := make(map[uint64]bool, len(blocks))
	for _, n := range blocks {
		if !distinct[n] {
			distinct[n] = true
			numbers = append(numbers, n)
		}
	}
	if len(numbers) == 0 {
		return nil, nil
	}
	headers, err := f.c.HeadersByNumber(ctx, numbers)
	if err != nil {
		return nil, err
	}
	out := make(map[uint64]common.Hash, len(numbers))
	for i, h := range headers {
		if h != nil {
			out[numbers[i]] = h.Hash()
		}
	}
	return out, nil
}
