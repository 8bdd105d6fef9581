package settlement_test

import (
	"context"
	"errors"
	"math/big"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/accounts/abi/bind"
	"github.com/ethereum/go-ethereum/common"

	"github.com/payledger/payledger/chain"
	"github.com/payledger/payledger/chain/contracts"
	"github.com/payledger/payledger/commands"
	"github.com/payledger/payledger/domain/receipt"
	"github.com/payledger/payledger/settlement"
	"github.com/payledger/payledger/settlement/pgstore"
)

// Deployment through the command: the contract exists with the split's payees and shares; a
// given address without code is refused.
func TestDeploySplitOnChain(t *testing.T) {
	t.Parallel()
	e := newDistEnv(t)
	merchant, platform := newWallet(t), newWallet(t)
	deploy, _ := e.handlers(platform)
	st := e.deploy(deploy, merchant)
	ok, err := e.op.HasCode(e.ctx, st.Address)
	if err != nil || !ok {
		t.Fatalf("no code at %s: %v", st.Address, err)
	}
	s, err := contracts.NewPaymentSplit(common.HexToAddress(st.Address), e.rpc.Backend())
	if err != nil {
		t.Fatal(err)
	}
	opts := &bind.CallOpts{Context: e.ctx}
	for i, want := range []struct {
		addr   string
		shares int64
	}{{merchant, 9950}, {platform, 50}} {
		p, err := s.Payee(opts, big.NewInt(int64(i)))
		if err != nil || strings.ToLower(p.Hex()) != want.addr {
			t.Fatalf("payee %d = %s (%v), want %s", i, p.Hex(), err, want.addr)
		}
		sh, err := s.Shares(opts, p)
		if err != nil || sh.Int64() != want.shares {
			t.Fatalf("shares of %s = %v (%v), want %d", want.addr, sh, err, want.shares)
		}
	}
	if again := e.deploy(deploy, merchant); again.Address != st.Address {
		t.Fatalf("second deploy gave %s, want the first %s", again.Address, st.Address)
	}
	t.Logf("gas of the deployment: %v", e.gasUsed(settlement.TxDeploy))

	_, err = deploy.Handle(e.ctx, commands.ConfigureMerchantSplit{Merchant: newWallet(t), Address: newWallet(t)})
	wantRefusal(t, err, "invalid_input", "")
	// Another merchant's split: 409 conflict (TestDeploySplitOwnership has the rest).
	_, err = deploy.Handle(e.ctx, commands.ConfigureMerchantSplit{Merchant: newWallet(t), Address: st.Address})
	wantRefusal(t, err, "conflict", "")
}

// A 9,950/50 split: the payees get their shares to the base unit; two paid receipts are covered
// by one release per payee, and both record the same transactions.
func TestDistributeSplitBatched(t *testing.T) {
	t.Parallel()
	e := newDistEnv(t)
	merchant, platform, st, sender := e.merchantWithSplit()
	e.pay(st.Address, 12_345_678)
	e.pay(st.Address, 1_000_001)
	a, b := e.paidReceipt(merchant, 1235), e.paidReceipt(merchant, 100)
	e.until(e.distributor(sender), a, b)

	total := big.NewInt(12_345_678 + 1_000_001)
	wantMerchant := new(big.Int).Div(new(big.Int).Mul(total, big.NewInt(9950)), big.NewInt(10000))
	wantPlatform := new(big.Int).Div(new(big.Int).Mul(total, big.NewInt(50)), big.NewInt(10000))
	if got := e.usdcBalance(merchant); got.Cmp(wantMerchant) != 0 {
		t.Fatalf("merchant has %s, want %s", got, wantMerchant)
	}
	if got := e.usdcBalance(platform); got.Cmp(wantPlatform) != 0 {
		t.Fatalf("platform has %s, want %s", got, wantPlatform)
	}
	if r := e.releases(st.Address); r[merchant] != 1 || r[platform] != 1 || len(r) != 2 {
		t.Fatalf("releases on chain %v, want one per payee", r)
	}
	da, db := e.distributed(a), e.distributed(b)
	if len(da) != 1 || len(db) != 1 {
		t.Fatalf("SplitDistributed events: %d and %d, want 1 each", len(da), len(db))
	}
	if strings.Join(da[0].TransactionHashes, ",") != strings.Join(db[0].TransactionHashes, ",") || len(da[0].TransactionHashes) != 2 {
		t.Fatalf("hashes differ or missing: %v vs %v", da[0].TransactionHashes, db[0].TransactionHashes)
	}
	want := []receipt.SplitAmount{{Recipient: merchant, Amount: wantMerchant.String()}, {Recipient: platform, Amount: wantPlatform.String()}}
	for i, am := range da[0].Amounts {
		if am.Recipient != want[i].Recipient || am.Amount != want[i].Amount || am.TransactionHash == "" {
			t.Fatalf("amounts %+v, want %+v", da[0].Amounts, want)
		}
	}
	t.Logf("gas per release (ERC-20): %v", e.gasUsed(settlement.TxRelease))
}

// crashing fails like a process that dies: after Broadcast has sent the transaction (after),
// or before it could (before), once.
type crashing struct {
	settlement.SplitChain
	after  bool
	mu     sync.Mutex
	crashd bool
}

var errCrash = errors.New("crash")

func (c *crashing) Broadcast(ctx context.Context, raw []byte) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.crashd {
		return c.SplitChain.Broadcast(ctx, raw)
	}
	c.crashd = true
	if c.after {
		if err := c.SplitChain.Broadcast(ctx, raw); err != nil {
			return err
		}
	}
	return errCrash
}

// A crash between sending a release and recording it: the restarted distributor finds the
// release on chain (or sends the same signed bytes again) and records the distribution once.
func TestDistributeSplitCrash(t *testing.T) {
	t.Parallel()
	for _, after := range []bool{true, false} {
		name := map[bool]string{true: "after the broadcast", false: "before the broadcast"}[after]
		t.Run(name, func(t *testing.T) {
			e := newDistEnv(t)
			merchant, platform, st, _ := e.merchantWithSplit()
			e.pay(st.Address, 10_000_000)
			id := e.paidReceipt(merchant, 1000)
			crashed := settlement.NewOperatorSender(&crashing{SplitChain: e.op, after: after}, e.ledger)
			if _, err := e.distributor(crashed).Handle(e.ctx); !errors.Is(err, errCrash) {
				t.Fatalf("first pass: %v, want the crash", err)
			}
			e.blockPasses()
			restarted := settlement.NewOperatorSender(e.op, e.ledger)
			e.until(e.distributor(restarted), id)
			if r := e.releases(st.Address); r[merchant] != 1 || r[platform] != 1 {
				t.Fatalf("releases on chain %v, want one per payee", r)
			}
			if n := len(e.distributed(id)); n != 1 {
				t.Fatalf("%d SplitDistributed events, want 1", n)
			}
			if got := e.usdcBalance(merchant); got.Int64() != 9_950_000 {
				t.Fatalf("merchant has %s, want 9950000", got)
			}
		})
	}
}

// Two instances run the distributor on one database with the same operator key: each payee is
// released once and every receipt records one distribution.
func TestDistributeSplitTwoInstances(t *testing.T) {
	t.Parallel()
	e := newDistEnv(t)
	merchant, platform, st, _ := e.merchantWithSplit()
	e.pay(st.Address, 30_000_000)
	ids := []string{e.paidReceipt(merchant, 1000), e.paidReceipt(merchant, 1000), e.paidReceipt(merchant, 1000)}
	var wg sync.WaitGroup
	errs := make(chan error, 2)
	for range 2 { // each instance has its own sender (its own mutex), as two processes would
		h := e.distributor(settlement.NewOperatorSender(e.op, pgstore.NewOperatorTransactions(e.pool)))
		wg.Go(func() { errs <- e.reconcileAll(h, ids...) })
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	if r := e.releases(st.Address); r[merchant] != 1 || r[platform] != 1 {
		t.Fatalf("releases on chain %v, want one per payee", r)
	}
	for _, id := range ids {
		if n := len(e.distributed(id)); n != 1 {
			t.Fatalf("receipt %s: %d SplitDistributed events, want 1", id, n)
		}
	}
	if got := e.usdcBalance(merchant); got.Int64() != 29_850_000 {
		t.Fatalf("merchant has %s, want 29850000", got)
	}
}

// holding records the transactions it is given without sending them: a node that has not
// passed them on yet. Settle sends them later, the same bytes.
type holding struct{ settlement.SplitChain }

func (holding) Broadcast(context.Context, []byte) error { return nil }

// codeLater answers that no contract is there the first time it is asked: a node still behind the
// block that deployed the split.
type codeLater struct {
	settlement.SplitChain
	asked atomic.Bool
}

func (c *codeLater) HasCode(ctx context.Context, addr string) (bool, error) {
	if !c.asked.Swap(true) {
		return false, nil
	}
	return c.SplitChain.HasCode(ctx, addr)
}

// A split the node showed without code is asked again on the next pass, not left undistributed
// until a restart.
func TestDistributeSplitAsksAgainForMissingCode(t *testing.T) {
	t.Parallel()
	e := newDistEnv(t)
	merchant, _, st, _ := e.merchantWithSplit()
	e.pay(st.Address, 10_000_000)
	id := e.paidReceipt(merchant, 1000)
	h := e.distributor(settlement.NewOperatorSender(&codeLater{SplitChain: e.op}, e.ledger))
	if out, err := h.Handle(e.ctx); err != nil || out.Releases != 0 {
		t.Fatalf("first pass, no code seen: %+v %v, want nothing sent", out, err)
	}
	e.until(h, id)
	if got := e.usdcBalance(merchant); got.Int64() != 9_950_000 {
		t.Fatalf("merchant has %s, want 9950000", got)
	}
}

// A payee whose release is still pending gets no second one: the pending release pays out
// everything due when it is mined, so a second would revert after costing gas. Before the ledger
// refused it, the next pass (or another instance) sent one for the receipts paid meanwhile.
func TestDistributeSplitWaitsForItsPendingRelease(t *testing.T) {
	t.Parallel()
	e := newDistEnv(t)
	merchant, platform, st, _ := e.merchantWithSplit()
	e.pay(st.Address, 10_000_000)
	first := e.paidReceipt(merchant, 1000)
	if out, err := e.distributor(settlement.NewOperatorSender(holding{e.op}, e.ledger)).Handle(e.ctx); err != nil || out.Releases != 2 {
		t.Fatalf("first pass: %+v %v, want 2 releases recorded and held", out, err)
	}
	e.pay(st.Address, 20_000_000)
	second := e.paidReceipt(merchant, 2000)
	e.until(e.distributor(settlement.NewOperatorSender(e.op, e.ledger)), first, second)

	var recorded, reverted int
	if err := e.pool.QueryRow(e.ctx, `SELECT count(*), count(*) FILTER (WHERE status = 'reverted') FROM operator_transactions
		WHERE kind = 'release'`).Scan(&recorded, &reverted); err != nil {
		t.Fatal(err)
	}
	r := e.releases(st.Address)
	if reverted != 0 || recorded != r[merchant]+r[platform] {
		t.Fatalf("%d releases recorded, %d of them reverted; on chain %v", recorded, reverted, r)
	}
	if got := e.usdcBalance(merchant); got.Int64() != 29_850_000 {
		t.Fatalf("merchant has %s, want 29850000", got)
	}
	for _, id := range []string{first, second} {
		if n := len(e.distributed(id)); n != 1 {
			t.Fatalf("receipt %s: %d SplitDistributed events, want 1", id, n)
		}
	}
}

// Without an operator key nothing is sent and receipts stay paid.
func TestDistributeSplitNoOperatorKey(t *testing.T) {
	t.Parallel()
	e := newDistEnv(t)
	merchant := newWallet(t)
	if _, err := commands.NewConfigureSplitHandler(e.store, newWallet(t), time.Now).Handle(e.ctx,
		commands.ConfigureMerchantSplit{Merchant: merchant, Address: newWallet(t)}); err != nil {
		t.Fatal(err)
	}
	id := e.paidReceipt(merchant, 1000)
	out, err := e.distributor(nil).Handle(e.ctx)
	if err != nil || out.Releases != 0 || e.state(id).Status != receipt.StatusPaid {
		t.Fatalf("pass without a key: %+v %v, status %s", out, err, e.state(id).Status)
	}
}

// An ETH payment: release(payee) pays each payee its share in wei, to the unit.
func TestDistributeSplitETH(t *testing.T) {
	t.Parallel()
	e := newDistEnv(t)
	merchant, platform, st, sender := e.merchantWithSplit()
	opts, err := bind.NewKeyedTransactorWithChainID(e.dev.Accounts[1].Key, big.NewInt(chain.DevChainID))
	if err != nil {
		t.Fatal(err)
	}
	opts.Context, opts.Value = e.ctx, big.NewInt(4_100_000_000_000_003)
	tx, err := chain.SendETH(opts, e.rpc.Backend(), common.HexToAddress(st.Address))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := bind.WaitMined(e.ctx, e.rpc.Backend(), tx); err != nil {
		t.Fatal(err)
	}
	id := e.paidReceiptIn(merchant, 1000, "ETH")
	e.until(e.distributor(sender), id)
	for _, w := range []struct {
		addr string
		want string
	}{{merchant, "4079500000000002"}, {platform, "20500000000000"}} {
		b, err := e.rpc.Backend().BalanceAt(e.ctx, common.HexToAddress(w.addr), nil)
		if err != nil || b.String() != w.want {
			t.Fatalf("%s has %v wei (%v), want %s", w.addr, b, err, w.want)
		}
	}
	if d := e.distributed(id); len(d) != 1 || d[0].Token != "ETH" || len(d[0].TransactionHashes) != 2 {
		t.Fatalf("SplitDistributed %+v", d)
	}
	t.Logf("gas per release (ETH): %v", e.gasUsed(settlement.TxRelease))
}

// More paid receipts wait than one pass reads, and the oldest cannot be distributed (their
// split holds no contract): passes page through the list, so the receipt behind them is
// reconciled within a round, and the stuck ones stay paid.
func TestDistributeSplitPagesPastStuckReceipts(t *testing.T) {
	t.Parallel()
	e := newDistEnv(t)
	stuckMerchant := newWallet(t)
	if _, err := commands.NewConfigureSplitHandler(e.store, newWallet(t), time.Now).Handle(e.ctx,
		commands.ConfigureMerchantSplit{Merchant: stuckMerchant, Address: newWallet(t)}); err != nil {
		t.Fatal(err)
	}
	var stuck []string
	for range 5 {
		stuck = append(stuck, e.paidReceipt(stuckMerchant, 100))
	}
	merchant, _, st, sender := e.merchantWithSplit()
	e.pay(st.Address, 2_000_000)
	good := e.paidReceipt(merchant, 200)
	h := e.distributor(sender).WithBatch(3) // one pass reads 3 of the 6
	passes := 0
	for ; passes < 20 && e.state(good).Status != receipt.StatusReconciled; passes++ {
		_, _ = h.Handle(e.ctx)
		time.Sleep(200 * time.Millisecond)
	}
	if e.state(good).Status != receipt.StatusReconciled {
		t.Fatalf("the receipt behind %d stuck ones was never reconciled in %d passes", len(stuck), passes)
	}
	for _, id := range stuck {
		if s := e.state(id).Status; s != receipt.StatusPaid {
			t.Fatalf("stuck receipt %s is %s", id, s)
		}
	}
	t.Logf("reconciled after %d passes of 3", passes)
}
