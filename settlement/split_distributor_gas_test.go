package settlement_test

import (
	"context"
	"errors"
	"math/big"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/accounts/abi/bind"
	"github.com/ethereum/go-ethereum/common"
	"github.com/rs/zerolog"

	"github.com/payledger/payledger/chain"
	"github.com/payledger/payledger/chain/contracts"
	"github.com/payledger/payledger/commands"
	"github.com/payledger/payledger/domain/onchain"
	"github.com/payledger/payledger/domain/receipt"
	"github.com/payledger/payledger/internal/syncbuf"
	"github.com/payledger/payledger/settlement"
	"github.com/payledger/payledger/settlement/pgstore"
)

// signCounter is the operator, counting the releases it was asked to sign per split.
type signCounter struct {
	*chain.Operator
	mu sync.Mutex
	n  map[string]int
}

func (s *signCounter) SignRelease(ctx context.Context, nonce uint64, split, token, payee string) (settlement.SignedTx, error) {
	s.mu.Lock()
	s.n[strings.ToLower(split)]++
	s.mu.Unlock()
	return s.Operator.SignRelease(ctx, nonce, split, token, payee)
}

func (s *signCounter) signed(split string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.n[strings.ToLower(split)]
}

// holdClock is a clock the test moves.
type holdClock struct {
	mu sync.Mutex
	at time.Time
}

func (c *holdClock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.at }

func (c *holdClock) advance(d time.Duration) { c.mu.Lock(); c.at = c.at.Add(d); c.mu.Unlock() }

// deployGasBurningSplit deploys, from a development account as a merchant with its own tools
// would, a PaymentSplitter whose releases first burn gas (rounds hashing rounds) without reverting.
func (e *distEnv) deployGasBurningSplit(payees []string, shares []int64, rounds int64) (string, *contracts.GasBurningSplit, *bind.TransactOpts) {
	e.t.Helper()
	e.mu.Lock()
	defer e.mu.Unlock()
	opts := e.merchantTransactor()
	addrs, sh := splitArgs(payees, shares)
	addr, tx, c, err := contracts.DeployGasBurningSplit(opts, e.rpc.Backend(), addrs, sh)
	a := e.deployedAt(addr, tx, err)
	e.setRounds(c, opts, rounds)
	return a, c, opts
}

func (e *distEnv) setRounds(c *contracts.GasBurningSplit, opts *bind.TransactOpts, rounds int64) {
	e.t.Helper()
	tx, err := c.SetRounds(opts, big.NewInt(rounds))
	if err != nil {
		e.t.Fatal(err)
	}
	if _, err := bind.WaitMined(e.ctx, e.rpc.Backend(), tx); err != nil {
		e.t.Fatal(err)
	}
}

// releasesSentTo counts the operator's release transactions recorded for split.
func (e *distEnv) releasesSentTo(split string) int {
	e.t.Helper()
	var n int
	if err := e.pool.QueryRow(e.ctx, `SELECT count(*) FROM operator_transactions WHERE kind = 'release' AND lower(split_address) = $1`,
		strings.ToLower(split)).Scan(&n); err != nil {
		e.t.Fatal(err)
	}
	return n
}

// A merchant's own split contract (any PaymentSplitter may be one) whose release burns millions
// of gas without reverting: the operator, which pays every release's gas, sends none. The
// release is refused at the estimate (chain.ReleaseGasCeiling), logged as an error, held back
// for a while without node calls while every pass reports it, and the other merchant's split is
// released meanwhile. Once the contract releases within the ceiling, its receipt is distributed.
// Before, each release was sent with the node's estimate as its gas: a merchant could drain the
// operator with tiny self-payments.
func TestDistributeSplitRefusesAGasBurningRelease(t *testing.T) {
	t.Parallel()
	e := newDistEnv(t)
	ops := &signCounter{Operator: e.op, n: map[string]int{}}
	sender := settlement.NewOperatorSender(ops, e.ledger)

	burner, other, platform := newWallet(t), newWallet(t), newWallet(t)
	deploy, _ := e.handlers(platform)
	hostile, c, owner := e.deployGasBurningSplit([]string{burner, other}, []int64{5000, 5000}, 10_000)
	if _, err := deploy.Handle(e.ctx, commands.ConfigureMerchantSplit{Merchant: burner, Address: hostile}); err != nil {
		t.Fatal(err)
	}
	e.pay(hostile, 10_000)
	usdc, _ := e.dev.Token("USDC")
	// Asked within the ceiling, as the operator asks (chain.Operator's releaseGas): the node runs the
	// release once at the ceiling and says it needs more. Unbounded, the estimate ran the 4.4
	// million gas release several times and timed out (30 s) under CI's load with -race.
	gas, err := e.rpc.Backend().EstimateGas(e.ctx, ethereum.CallMsg{From: common.HexToAddress(e.op.Sender()), To: ptr(common.HexToAddress(hostile)),
		Data: releaseCall(t, usdc.Address, common.HexToAddress(burner)), Gas: chain.ReleaseGasCeiling})
	if err == nil || !strings.Contains(err.Error(), "gas required exceeds allowance") {
		t.Fatalf("the burning release estimates %d gas (%v) within the ceiling %d, want more than it", gas, err, chain.ReleaseGasCeiling)
	}
	burnt := e.paidReceipt(burner, 1)

	merchant, _, st, _ := e.merchantWithSplit()
	e.pay(st.Address, 2_000_000)
	good := e.paidReceipt(merchant, 200)

	clock := &holdClock{at: time.Now()}
	h := settlement.NewDistributeSplitsHandler(e.store, commands.NewSplits(e.store), pgstore.NewReceipts(e.pool), sender, clock.Now)
	var logs syncbuf.Buffer
	ctx := zerolog.New(&logs).WithContext(e.ctx)
	var last error
	for i := 0; i < 100 && e.state(good).Status != receipt.StatusReconciled; i++ {
		_, last = h.Handle(ctx)
		e.blockPasses()
	}
	if e.state(good).Status != receipt.StatusReconciled {
		t.Fatalf("the other merchant's receipt is %s", e.state(good).Status)
	}
	if n := e.releasesSentTo(hostile); n != 0 {
		t.Fatalf("%d releases of the burning split were sent, paid by the operator", n)
	}
	if !errors.Is(last, onchain.ErrReleaseGas) || !strings.Contains(last.Error(), hostile) {
		t.Fatalf("a pass while the release is held back returned %v, want onchain.ErrReleaseGas naming %s", last, hostile)
	}
	if s := e.state(burnt).Status; s != receipt.StatusPaid {
		t.Fatalf("the burning split's receipt is %s", s)
	}
	if n := ops.signed(hostile); n != 2 {
		t.Fatalf("the burning split's releases were estimated %d times, want once per payee while held back", n)
	}
	if n := strings.Count(logs.String(), "needs more gas than any PaymentSplitter's"); n != 2 || !strings.Contains(logs.String(), `"level":"error"`) {
		t.Fatalf("refusals logged %d times, want one error per payee:\n%s", n, logs.String())
	}

	// After the hold, the releases are estimated again; a contract that now releases within
	// the ceiling is distributed.
	e.setRounds(c, owner, 0)
	clock.advance(16 * time.Minute)
	for i := 0; i < 100 && e.state(burnt).Status != receipt.StatusReconciled; i++ {
		_, last = h.Handle(ctx)
		e.blockPasses()
	}
	if s := e.state(burnt).Status; s != receipt.StatusReconciled {
		t.Fatalf("after the hold the receipt is %s (last pass: %v)", s, last)
	}
	if n := e.releasesSentTo(hostile); n != 2 {
		t.Fatalf("%d releases of the split sent after the hold, want 2", n)
	}
}

func ptr[T any](v T) *T { return &v }

// releaseCall is the calldata of release(token, payee).
func releaseCall(t *testing.T, token, payee common.Address) []byte {
	t.Helper()
	a, err := contracts.GasBurningSplitMetaData.GetAbi()
	if err != nil {
		t.Fatal(err)
	}
	data, err := a.Pack("release0", token, payee)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// A contract that answers as a splitter whose releasable(...) burns millions of gas: the
// distributor's read of what is due is made with the release ceiling as its gas, refused above
// it (onchain.ErrReleaseGas) and held back like a burning release, so the other merchant's split
// is distributed in the same passes. Before, each read could take the node's whole RPC gas cap,
// every pass and payee (holding up every other split's distribution), and since the contract
// said something was due, its do-nothing releases were sent at the operator's expense.
func TestDistributeSplitBoundsAGasBurningReleasableRead(t *testing.T) {
	t.Parallel()
	e := newDistEnv(t)
	burner, other, platform := newWallet(t), newWallet(t), newWallet(t)
	deploy, sender := e.handlers(platform)
	slow := e.deploySlowReleasableSplit([]string{burner, other}, []int64{5000, 5000}, 10_000)
	if _, err := deploy.Handle(e.ctx, commands.ConfigureMerchantSplit{Merchant: burner, Address: slow}); err != nil {
		t.Fatal(err)
	}
	burnt := e.paidReceipt(burner, 1)
	merchant, _, st, _ := e.merchantWithSplit()
	e.pay(st.Address, 2_000_000)
	good := e.paidReceipt(merchant, 200)

	h := e.distributor(sender)
	var last error
	for i := 0; i < 100 && e.state(good).Status != receipt.StatusReconciled; i++ {
		_, last = h.Handle(e.ctx)
		e.blockPasses()
	}
	if e.state(good).Status != receipt.StatusReconciled {
		t.Fatalf("the other merchant's receipt is %s", e.state(good).Status)
	}
	if n := e.releasesSentTo(slow); n != 0 {
		t.Fatalf("%d releases of the contract were sent, paid by the operator", n)
	}
	if !errors.Is(last, onchain.ErrReleaseGas) || !strings.Contains(last.Error(), slow) {
		t.Fatalf("a pass returned %v, want onchain.ErrReleaseGas naming %s", last, slow)
	}
	if s := e.state(burnt).Status; s != receipt.StatusPaid {
		t.Fatalf("the contract's receipt is %s", s)
	}
}

// deploySlowReleasableSplit deploys, from a development account, a contract that answers as a
// splitter paying payees their shares and whose releasable reads burn gas (rounds hashing rounds).
func (e *distEnv) deploySlowReleasableSplit(payees []string, shares []int64, rounds int64) string {
	e.t.Helper()
	e.mu.Lock()
	defer e.mu.Unlock()
	opts := e.merchantTransactor()
	addrs, sh := splitArgs(payees, shares)
	addr, tx, c, err := contracts.DeploySlowReleasableSplit(opts, e.rpc.Backend(), addrs, sh)
	a := e.deployedAt(addr, tx, err)
	if tx, err = c.SetRounds(opts, big.NewInt(rounds)); err != nil {
		e.t.Fatal(err)
	}
	if _, err := bind.WaitMined(e.ctx, e.rpc.Backend(), tx); err != nil {
		e.t.Fatal(err)
	}
	return a
}
