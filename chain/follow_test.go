package chain_test

import (
	"context"
	"errors"
	"math/big"
	"sync/atomic"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/payledger/payledger/chain"
)

// step runs one Follower step and returns its decisions and what it cost.
func step(t *testing.T, f *chain.Follower, c *chain.RPC) ([]chain.Decision, chain.Stats) {
	t.Helper()
	before := c.Stats()
	ds, err := f.Step(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	after := c.Stats()
	return ds, chain.Stats{Calls: after.Calls - before.Calls, Requests: after.Requests - before.Requests}
}

// followMany sends n payments in one block (one in ten in ETH, one in ten underpaid by one
// unit), follows them to their decisions, and returns the round trips of each step: submitted
// before mining, mined (depth 1), confirmed (depth 2).
func followMany(t *testing.T, n int) []uint64 {
	e := newEnv(t)
	f := chain.NewFollower(e.rpc)
	step(t, f, e.rpc) // the follower starts reading logs from here
	wantFailed := sendMany(e, f, n)
	var calls []uint64
	for i, when := range []string{"submitted, not mined", "mined, depth 1", "depth 2"} {
		if i > 0 {
			e.commit()
		}
		ds, s := step(t, f, e.rpc)
		t.Logf("n=%d %-22s %+v", n, when+":", s)
		calls = append(calls, s.Calls)
		if i < 2 && len(ds) != 0 {
			t.Fatalf("%s: %d decisions", when, len(ds))
		} else if i == 2 {
			checkMany(t, ds, n, wantFailed)
		}
	}
	if f.Len() != 0 {
		t.Errorf("%d still followed", f.Len())
	}
	return calls
}

// sendMany sends n payments without mining them and follows them; one in ten is in ETH and one
// in ten underpaid by one unit. It returns how many must fail.
func sendMany(e *env, f *chain.Follower, n int) int {
	wantFailed := 0
	for i := range n {
		var exp chain.Expectation
		switch i % 10 {
		case 0:
			exp = e.expectETH(e.payETH(e.buyer, e.split, eth(1000)), eth(1000))
		case 1:
			exp = e.expectUSDC(e.payToken(e.usdc, e.buyer, e.split, int64(1_000_000+i-1)), int64(1_000_000+i))
			wantFailed++
		default:
			exp = e.expectUSDC(e.payToken(e.usdc, e.buyer, e.split, int64(1_000_000+i)), int64(1_000_000+i))
		}
		e.ok(f.Add(exp))
	}
	return wantFailed
}

// checkMany checks the decisions of sendMany's payments.
func checkMany(t *testing.T, ds []chain.Decision, n, wantFailed int) {
	t.Helper()
	if len(ds) != n {
		t.Fatalf("%d decisions at depth 2, want %d", len(ds), n)
	}
	failed := 0
	for _, d := range ds {
		switch d.Verdict.Status {
		case chain.Failed:
			failed++
			if d.Verdict.FailureCode != chain.CodeSlippageExceeded {
				t.Errorf("%s failed %s", d.Expectation.TxHash, d.Verdict.FailureCode)
			}
		case chain.Paid:
			if d.Verdict.AmountUnits.Cmp(d.Expectation.RequiredUnits) != 0 || d.Verdict.Depth != 2 {
				t.Errorf("%s paid %+v", d.Expectation.TxHash, d.Verdict)
			}
		default:
			t.Errorf("decision %v", d.Verdict.Status)
		}
	}
	if failed != wantFailed {
		t.Errorf("%d failed, want %d", failed, wantFailed)
	}
}

// TestFollowerCallsPerBlockAreConstant: 20 and 200 payments in one block cost the same round
// trips per step.
func TestFollowerCallsPerBlockAreConstant(t *testing.T) {
	small := followMany(t, 20)
	large := followMany(t, 200)
	for i := range small {
		if small[i] != large[i] || large[i] > 4 {
			t.Errorf("step %d: %d round trips for 20 payments, %d for 200; want equal and at most 4", i, small[i], large[i])
		}
	}
}

// TestFollowerFailures: the follower reaches Verify's verdicts, whether the logs or the
// receipts showed the transaction.
func TestFollowerFailures(t *testing.T) {
	e := newEnv(t)
	f := chain.NewFollower(e.rpc)
	step(t, f, e.rpc)
	want := map[common.Hash]string{}
	add := func(exp chain.Expectation, code string) {
		e.ok(f.Add(exp))
		want[exp.TxHash] = code
	}
	add(e.expectUSDC(e.revertedTransfer(), 1), chain.CodeTxReverted)
	add(e.expectUSDC(e.payToken(e.usdt, e.buyer, e.split, 7), 7), chain.CodeWalletMismatch)
	add(e.expectUSDC(e.payToken(e.usdc, e.stranger, e.split, 7), 7), chain.CodeWalletMismatch)
	add(e.expectUSDC(e.payToken(e.usdc, e.buyer, e.elsewhere, 7), 7), chain.CodeWalletMismatch)
	add(e.expectETH(e.payETH(e.buyer, e.split, eth(989)), eth(1000)), chain.CodeSlippageExceeded)
	add(e.expectETH(e.payETH(e.buyer, e.split, eth(991)), eth(1000)), "")
	if err := f.Add(e.expectUSDC(e.payToken(e.usdc, e.buyer, e.split, 7), 7)); err != nil {
		t.Fatal(err)
	}
	dup := e.expectUSDC(e.payToken(e.usdc, e.buyer, e.split, 8), 8)
	e.ok(f.Add(dup))
	if err := f.Add(dup); !errors.Is(err, chain.ErrAlreadyFollowed) {
		t.Errorf("adding a followed hash again: %v", err)
	}
	want[dup.TxHash] = ""
	f.Remove(dup.TxHash)
	delete(want, dup.TxHash)
	e.commit()
	got := map[common.Hash]chain.Verdict{}
	for range 12 { // the ERC-20 receipts back off for up to 8 steps
		e.commit()
		ds, _ := step(t, f, e.rpc)
		for _, d := range ds {
			got[d.Expectation.TxHash] = d.Verdict
		}
	}
	if f.Len() != 0 {
		t.Errorf("%d payments still followed", f.Len())
	}
	for h, code := range want {
		v, ok := got[h]
		if !ok {
			t.Errorf("%s: no decision (want %q)", h, code)
		} else if v.FailureCode != code || (code == "") != (v.Status == chain.Paid) {
			t.Errorf("%s: %v %q, want %q", h, v.Status, v.FailureCode, code)
		}
	}
}

// followOnePayment starts a follower, then sends and follows a payment of 3 USDC, not mined yet;
// parent is the head it will be mined on (where a test's reorg forks).
func followOnePayment(t *testing.T) (e *env, f *chain.Follower, parent common.Hash, tx *types.Transaction) {
	t.Helper()
	e = newEnv(t)
	f = chain.NewFollower(e.rpc)
	step(t, f, e.rpc)
	head, err := e.sim.HeaderByNumber(context.Background(), nil)
	e.ok(err)
	tx = e.payToken(e.usdc, e.buyer, e.split, 3_000_000)
	e.ok(f.Add(e.expectUSDC(tx, 3_000_000)))
	return e, f, head.Hash(), tx
}

// TestFollowerReorgBeforeTheDepth: a payment seen at depth 1 whose block is replaced goes back
// to waiting and is paid once mined again, whether the reorg drops it (and it is sent again) or
// mines it again at once in the replacing block.
func TestFollowerReorgBeforeTheDepth(t *testing.T) {
	for _, dropped := range []bool{true, false} {
		e, f, parent, tx := followOnePayment(t)
		ctx := context.Background()
		first := e.commit()
		if ds, _ := step(t, f, e.rpc); len(ds) != 0 {
			t.Fatalf("decided at depth 1: %+v", ds)
		}
		if dropped {
			e.reorgDropping(parent)
		} else {
			e.ok(e.b.Fork(parent))
		}
		e.commit()
		e.commit() // the old block's height is now 2 deep on the new chain
		if ds, _ := step(t, f, e.rpc); len(ds) != 0 {
			t.Fatalf("dropped=%v: decided on a replaced block: %+v", dropped, ds)
		}
		if dropped {
			if ds, _ := step(t, f, e.rpc); len(ds) != 0 || f.Len() != 1 {
				t.Fatalf("decided while the transaction is nowhere: %+v", ds)
			}
			e.ok(e.sim.SendTransaction(ctx, tx))
			e.commit()
		}
		var ds []chain.Decision
		for i := 0; i < 4 && len(ds) == 0; i++ {
			e.commit()
			ds, _ = step(t, f, e.rpc)
		}
		if len(ds) != 1 || ds[0].Verdict.Status != chain.Paid || ds[0].Verdict.BlockHash == first {
			t.Fatalf("dropped=%v: after the reorg: %+v; want paid in another block than %s", dropped, ds, first)
		}
		if ok, err := chain.IsCanonical(ctx, e.rpc, ds[0].Verdict.BlockNumber, ds[0].Verdict.BlockHash); err != nil || !ok {
			t.Errorf("dropped=%v: paying block canonical = %v, %v", dropped, ok, err)
		}
	}
}

// flaky is a Client whose node can be made unreachable.
type flaky struct {
	chain.Client
	down atomic.Bool
}

var errDown = errors.New("connection refused")

func (f *flaky) BlockNumber(ctx context.Context) (uint64, error) {
	if f.down.Load() {
		return 0, errDown
	}
	return f.Client.BlockNumber(ctx)
}

func (f *flaky) FilterLogs(ctx context.Context, from, to uint64, a []common.Address, t [][]common.Hash) ([]types.Log, error) {
	if f.down.Load() {
		return nil, errDown
	}
	return f.Client.FilterLogs(ctx, from, to, a, t)
}

func (f *flaky) TransactionReceipts(ctx context.Context, h []common.Hash) ([]*types.Receipt, error) {
	if f.down.Load() {
		return nil, errDown
	}
	return f.Client.TransactionReceipts(ctx, h)
}

func (f *flaky) HeadersByNumber(ctx context.Context, n []uint64) ([]*types.Header, error) {
	if f.down.Load() {
		return nil, errDown
	}
	return f.Client.HeadersByNumber(ctx, n)
}

// TestFollowerRPCDownForAWhile: while the node is down every step fails and nothing is decided
// or lost; the blocks mined meanwhile are read when it is back, and the payment is paid.
func TestFollowerRPCDownForAWhile(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	c := &flaky{Client: e.rpc}
	f := chain.NewFollower(c)
	if _, err := f.Step(ctx); err != nil {
		t.Fatal(err)
	}
	tx := e.payToken(e.usdc, e.buyer, e.split, 4_000_000)
	e.ok(f.Add(e.expectUSDC(tx, 4_000_000)))
	if ds, err := f.Step(ctx); err != nil || len(ds) != 0 {
		t.Fatalf("before mining: %+v, %v", ds, err)
	}
	c.down.Store(true)
	for range 3 {
		e.commit()
		ds, err := f.Step(ctx)
		if err == nil || len(ds) != 0 {
			t.Fatalf("node down: %+v, %v; want an error and no decision", ds, err)
		}
	}
	if f.Len() != 1 {
		t.Fatalf("%d followed while down, want 1", f.Len())
	}
	c.down.Store(false)
	ds, err := f.Step(ctx)
	if err != nil || len(ds) != 1 || ds[0].Verdict.Status != chain.Paid || ds[0].Verdict.AmountUnits.Cmp(big.NewInt(4_000_000)) != 0 {
		t.Fatalf("node back: %+v, %v; want paid", ds, err)
	}
}

// TestFollowerLateSubmission: a hash submitted after its block was read is found by its receipt.
func TestFollowerLateSubmission(t *testing.T) {
	e := newEnv(t)
	f := chain.NewFollower(e.rpc)
	step(t, f, e.rpc)
	tx := e.payToken(e.usdc, e.buyer, e.split, 2_000_000)
	e.commit()
	e.commit()
	e.commit()
	step(t, f, e.rpc) // reads the logs of the paying block while nothing is followed
	e.ok(f.Add(e.expectUSDC(tx, 2_000_000)))
	ds, s := step(t, f, e.rpc)
	if len(ds) != 1 || ds[0].Verdict.Status != chain.Paid || ds[0].Verdict.Depth != 3 {
		t.Fatalf("late submission: %+v; want paid at depth 3", ds)
	}
	t.Logf("late submission decided in one step: %+v", s)
}

// logCounter counts the log queries of a Client.
type logCounter struct {
	chain.Client
	n atomic.Int64
}

func (c *logCounter) FilterLogs(ctx context.Context, from, to uint64, a []common.Address, t [][]common.Hash) ([]types.Log, error) {
	c.n.Add(1)
	return c.Client.FilterLogs(ctx, from, to, a, t)
}

// TestFollowerMoreSplitsThanOneFilterTakes: go-ethereum refuses a log filter with more than
// 1,000 alternatives for a topic; 1,001 payments to 1,001 splits are found with two queries.
func TestFollowerMoreSplitsThanOneFilterTakes(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	c := &logCounter{Client: e.rpc}
	f := chain.NewFollower(c)
	const n = 1001
	var last *types.Transaction
	for i := range n {
		split := common.BigToAddress(big.NewInt(int64(0x1000 + i)))
		last = e.payToken(e.usdc, e.buyer, split, 1_000)
		exp := e.expectUSDC(last, 1_000)
		exp.SplitAddress = split
		e.ok(f.Add(exp))
	}
	if _, err := f.Step(ctx); err != nil { // not mined: the receipts back off
		t.Fatal(err)
	}
	// More than one block's gas: commit until the last (highest nonce) is mined.
	for _, err := e.sim.TransactionReceipt(ctx, last.Hash()); err != nil; _, err = e.sim.TransactionReceipt(ctx, last.Hash()) {
		e.commit()
	}
	c.n.Store(0)
	ds, err := f.Step(ctx) // decides the blocks already 2 deep
	if err != nil {
		t.Fatal(err)
	}
	if got := c.n.Load(); got != 2 {
		t.Errorf("%d log queries for %d splits, want 2", got, n)
	}
	e.commit()
	more, err := f.Step(ctx)
	if err != nil {
		t.Fatal(err)
	}
	ds = append(ds, more...)
	paid := 0
	for _, d := range ds {
		if d.Verdict.Status == chain.Paid {
			paid++
		}
	}
	if paid != n {
		t.Fatalf("%d paid of %d", paid, n)
	}
}

// TestFollowerReorgAfterTheDepth: a payment decided Paid whose block is replaced later by a
// deeper reorg is audited: mined again elsewhere, nothing is reported (the same transaction
// still pays); gone, it is reported once as Reorged with the replaced block.
func TestFollowerReorgAfterTheDepth(t *testing.T) {
	for _, dropped := range []bool{true, false} {
		e, f, parent, tx := followOnePayment(t)
		paying := e.commit()
		e.commit()
		ds, _ := step(t, f, e.rpc)
		if len(ds) != 1 || ds[0].Verdict.Status != chain.Paid {
			t.Fatalf("depth 2: %+v", ds)
		}
		if dropped {
			e.reorgDropping(parent)
		} else {
			e.ok(e.b.Fork(parent)) // the pool mines it again in the new branch
		}
		for range 3 {
			e.commit()
		}
		var reported []chain.Decision
		for range 3 {
			ds, _ := step(t, f, e.rpc)
			reported = append(reported, ds...)
			e.commit()
		}
		if !dropped {
			if len(reported) != 0 {
				t.Fatalf("mined again: reported %+v; want nothing", reported)
			}
			continue
		}
		if len(reported) != 1 || reported[0].Verdict.Status != chain.Reorged || reported[0].Verdict.BlockHash != paying ||
			reported[0].Expectation.TxHash != tx.Hash() {
			t.Fatalf("dropped: reported %+v; want one Reorged of block %s", reported, paying)
		}
	}
}
