package settlement_test

import (
	"errors"
	"math/big"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/accounts/abi/bind"
	"github.com/ethereum/go-ethereum/common"
	"github.com/rs/zerolog"

	"github.com/payledger/payledger/chain"
	"github.com/payledger/payledger/chain/contracts"
	"github.com/payledger/payledger/domain/money"
	"github.com/payledger/payledger/internal/syncbuf"
	"github.com/payledger/payledger/internal/wait"
	"github.com/payledger/payledger/settlement"
)

// A merchant's own split (any PaymentSplitter may be one) whose receive() burns millions of gas
// without reverting, and ETH sent to one of its deposits: a deposit's ETH flush forwards all the
// gas left to the split, so a sweep batch holding that deposit would cost the operator the burn,
// other merchants' deposits in the same batch included. The batch's estimate is refused above the
// ceiling for its deposits, the batch is swept in halves, and the burning split is held back
// (logged once as an error, every pass returns its error for /healthz) while the other merchant's
// deposits are swept. After the hold, a split that now receives within the ceiling is swept.
func TestSweepDepositsHoldsASplitWhoseReceiveBurnsGas(t *testing.T) {
	t.Parallel()
	e := newSweepEnv(t)
	merchant, _, st, _ := e.merchantWithSplit()
	good, _, _ := e.paidAt(merchant, st.Address, []money.Cents{100, 200, 300})
	burner, other := newWallet(t), newWallet(t)
	hostile, c, owner := e.deployBurningReceiveSplit([]string{burner, other}, []int64{5000, 5000}, 30_000)
	bad, deposit := e.depositReceipt(burner, hostile, 100)
	e.payDeposit(bad, deposit, "USDC", 1_000_000)
	e.sendETH(deposit, big.NewInt(1))

	clock := &holdClock{at: time.Now()}
	h := settlement.NewSweepDepositsHandler(e.store, e.sweeper, e.sweeps, clock.Now)
	var logs syncbuf.Buffer
	ctx := zerolog.New(&logs).WithContext(e.ctx)
	var last error
	swept := func(ids ...string) bool {
		for _, id := range ids {
			if s := e.state(id); !s.Swept() || len(s.Sweeps) == 0 {
				return false
			}
		}
		return true
	}
	wait.Until(t, "the other merchant's deposits swept", 60*time.Second, func() bool {
		_, last = h.Handle(ctx)
		return swept(good...)
	})
	e.sweepsMined()
	if _, last = h.Handle(ctx); !errors.Is(last, settlement.ErrSweepGas) || !strings.Contains(last.Error(), hostile) {
		t.Fatalf("a pass while the split is held back returned %v, want ErrSweepGas naming %s", last, hostile)
	}
	if s := e.state(bad); len(s.Sweeps) != 0 {
		t.Fatalf("the burning split's deposit was swept (the operator paid its burn): %+v", s.Sweeps)
	}
	if b := e.balanceOf("USDC", deposit); b.Int64() != 1_000_000 {
		t.Fatalf("the burning split's deposit holds %s USDC units", b)
	}
	if n := strings.Count(logs.String(), "needs more gas than any real deposit"); n != 1 || !strings.Contains(logs.String(), `"level":"error"`) {
		t.Fatalf("the refusal was logged %d times, want one error:\n%s", n, logs.String())
	}

	// After the hold (and the claim's lease), a split that receives within the ceiling is swept.
	e.setReceiveRounds(c, owner, 0)
	clock.advance(16 * time.Minute)
	if _, err := e.pool.Exec(e.ctx, `UPDATE deposit_sweeps SET claimed_at = now() - interval '1 hour' WHERE receipt_id = $1 AND claimed_at IS NOT NULL`, bad); err != nil {
		t.Fatal(err)
	}
	wait.Until(t, "the split's deposit swept after the hold", 60*time.Second, func() bool {
		_, last = h.Handle(ctx)
		return swept(bad)
	})
	if b := e.balanceOf("ETH", deposit); b.Sign() != 0 {
		t.Fatalf("the deposit still holds %s wei", b)
	}
}

// deployBurningReceiveSplit deploys, from a development account as a merchant with its own tools
// would, a PaymentSplitter whose receive() first burns gas (rounds hashing rounds).
func (e *sweepEnv) deployBurningReceiveSplit(payees []string, shares []int64, rounds int64) (string, *contracts.BurningReceiveSplit, *bind.TransactOpts) {
	e.t.Helper()
	e.mu.Lock()
	defer e.mu.Unlock()
	opts := e.devOpts(1)
	addrs, sh := make([]common.Address, len(payees)), make([]*big.Int, len(payees))
	for i := range payees {
		addrs[i], sh[i] = common.HexToAddress(payees[i]), big.NewInt(shares[i])
	}
	addr, tx, c, err := contracts.DeployBurningReceiveSplit(opts, e.rpc.Backend(), addrs, sh)
	e.waitMined(tx, err)
	tx, err = c.SetRounds(opts, big.NewInt(rounds))
	e.waitMined(tx, err)
	return strings.ToLower(addr.Hex()), c, opts
}

func (e *sweepEnv) setReceiveRounds(c *contracts.BurningReceiveSplit, opts *bind.TransactOpts, rounds int64) {
	e.t.Helper()
	e.mu.Lock()
	defer e.mu.Unlock()
	tx, err := c.SetRounds(opts, big.NewInt(rounds))
	e.waitMined(tx, err)
}

// sendETH sends wei from a development account to a deposit by a plain transfer (not credited).
func (e *sweepEnv) sendETH(to string, wei *big.Int) {
	e.t.Helper()
	e.mu.Lock()
	defer e.mu.Unlock()
	opts := e.devOpts(1)
	opts.Value = wei
	e.waitMined(chain.SendETH(opts, e.rpc.Backend(), common.HexToAddress(to)))
}

// A merchant's own split contract whose receive() burns gas, but less than a batch's ceiling
// leaves spare: its deposits are swept in a transaction of their own, never in the batch of
// another merchant's deposits (whose sweep would otherwise pay the burn, unseen by the ceiling).
// Splits holding the operator's PaymentSplit code are swept together as before.
func TestSweepDepositsSweepsAForeignSplitApart(t *testing.T) {
	t.Parallel()
	e := newSweepEnv(t)
	merchant, _, st, _ := e.merchantWithSplit()
	good, _, _ := e.paidAt(merchant, st.Address, []money.Cents{100, 200})
	other, _, st2, _ := e.merchantWithSplit()
	good2, _, _ := e.paidAt(other, st2.Address, []money.Cents{300})
	burner := newWallet(t)
	hostile, _, _ := e.deployBurningReceiveSplit([]string{burner, newWallet(t)}, []int64{5000, 5000}, 200)
	bad, deposit := e.depositReceipt(burner, hostile, 100)
	e.payDeposit(bad, deposit, "USDC", 1_000_000)
	e.sendETH(deposit, big.NewInt(1))
	e.listedPaid(bad)

	out := e.sweepAll(e.sweeperOf(e.sweeper), append(append(good, good2...), bad)...)
	if out.Sent != 2 {
		t.Fatalf("%d sweep transactions, want 2: the PaymentSplit deposits together, the foreign split's apart", out.Sent)
	}
	tx := func(id string) string {
		sw := e.sweptEvents(id)
		if len(sw) == 0 {
			t.Fatalf("receipt %s not swept", id)
		}
		return sw[0].TransactionHash
	}
	if tx(good[0]) != tx(good2[0]) || tx(good[0]) != tx(good[1]) {
		t.Fatalf("the PaymentSplit deposits were swept apart: %s %s %s", tx(good[0]), tx(good[1]), tx(good2[0]))
	}
	if tx(bad) == tx(good[0]) {
		t.Fatalf("the foreign split's deposit was swept in the other merchants' sweep %s", tx(bad))
	}
	if b := e.balanceOf("ETH", deposit); b.Sign() != 0 {
		t.Fatalf("the deposit still holds %s wei", b)
	}
}
