package settlement_test

// Setup of the sweep tests: the development chain with a deposit factory, receipts with deposit
// addresses paid by plain transfers and recorded paid through the pipeline (as detection does).

import (
	"math/big"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/accounts/abi/bind"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/payledger/payledger/chain"
	"github.com/payledger/payledger/chain/contracts"
	"github.com/payledger/payledger/commands"
	"github.com/payledger/payledger/domain/money"
	"github.com/payledger/payledger/domain/receipt"
	"github.com/payledger/payledger/eventstore"
	"github.com/payledger/payledger/settlement"
	"github.com/payledger/payledger/settlement/pgstore"
)

// sweepEnv is distEnv with a deposit factory and the sweeper's chain and ledger.
type sweepEnv struct {
	*distEnv
	factory common.Address
	sweeper *chain.Sweeper
	sweeps  *pgstore.DepositSweeps
}

func newSweepEnv(t *testing.T) *sweepEnv {
	t.Helper()
	e := &sweepEnv{distEnv: newDistEnv(t), sweeps: nil}
	e.sweeps = pgstore.NewDepositSweeps(e.pool)
	var tx *types.Transaction
	var err error
	e.factory, tx, _, err = contracts.DeployDepositFactory(e.devOpts(2), e.rpc.Backend())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := bind.WaitDeployed(e.ctx, e.rpc.Backend(), tx); err != nil {
		t.Fatal(err)
	}
	e.sweeper = e.newSweeper(e.op)
	return e
}

func (e *sweepEnv) newSweeper(op *chain.Operator) *chain.Sweeper {
	e.t.Helper()
	s, err := chain.NewSweeper(op, e.factory.Hex())
	if err != nil {
		e.t.Fatal(err)
	}
	return s
}

// devOpts signs as development account i.
func (e *sweepEnv) devOpts(i int) *bind.TransactOpts {
	e.t.Helper()
	o, err := bind.NewKeyedTransactorWithChainID(e.dev.Accounts[i].Key, big.NewInt(chain.DevChainID))
	if err != nil {
		e.t.Fatal(err)
	}
	o.Context = e.ctx
	return o
}

// depositReceipt generates a receipt of total for merchant whose deposit sweeps to split.
func (e *sweepEnv) depositReceipt(merchant, split string, total money.Cents) (id, deposit string) {
	e.t.Helper()
	now := time.Now()
	id = commands.NewReceiptID(now)
	deposit = chain.DepositAddress(e.factory, id, common.HexToAddress(split)).Hex()
	g := receipt.Generated{ReceiptID: id, Merchant: merchant, Source: "direct", Currency: "USD", TaxRate: "0", TaxComponents: []string{},
		LineItems: []receipt.LineItem{{Kind: receipt.KindCustom, Label: "Order", Amount: total}}, Subtotal: total, Total: total,
		DepositAddress: deposit, DepositSplit: strings.ToLower(split)}
	if _, _, err := commands.GenerateReceipt(e.ctx, e.store, now, eventstore.Metadata{}, g); err != nil {
		e.t.Fatal(err)
	}
	return id, deposit
}

// payDeposit sends units of token (a development token) from the first development account to
// deposit by a plain transfer, waits for it, and records it on receipt id as detection would:
// seen and confirmed (paid once it covers the amount).
func (e *sweepEnv) payDeposit(id, deposit, token string, units int64) {
	e.t.Helper()
	e.mu.Lock()
	t, _ := e.dev.Token(token)
	tx, err := chain.SendToken(e.devOpts(0), e.rpc.Backend(), t.Address, common.HexToAddress(deposit), big.NewInt(units))
	if err != nil {
		e.mu.Unlock()
		e.t.Fatal(err)
	}
	r, err := bind.WaitMined(e.ctx, e.rpc.Backend(), tx)
	e.mu.Unlock()
	if err != nil {
		e.t.Fatal(err)
	}
	e.credit(id, receipt.DepositTransferSeen{TransactionHash: tx.Hash().Hex(), LogIndex: int(r.Logs[0].Index), BlockNumber: r.BlockNumber.Uint64(),
		BlockHash: r.BlockHash.Hex(), Sender: strings.ToLower(e.dev.Accounts[0].Address.Hex()), Token: token, AmountUnits: big.NewInt(units).String(),
		Decimals: t.Decimals})
}

// credit records a transfer seen and confirmed on receipt id.
func (e *sweepEnv) credit(id string, seen receipt.DepositTransferSeen) {
	e.t.Helper()
	seen.At = time.Now().UnixMilli()
	_, res, err := commands.ChangeReceipt(e.ctx, e.store, id, eventstore.Metadata{Actor: "test"}, func(s receipt.State) ([]receipt.Event, error) {
		return receipt.ObserveDeposit(s, receipt.DepositObservation{Transfer: seen, Confirmed: true, At: seen.At})
	})
	if err != nil {
		e.t.Fatal(err)
	}
	e.projected(id, res.Version)
}

// projected waits until the receipts read model, which the sweeper's candidates come from, holds
// version of receipt id: the projection runs behind the append, further behind on a busy machine.
func (e *sweepEnv) projected(id string, version uint64) {
	e.t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		var v uint64
		err := e.pool.QueryRow(e.ctx, `SELECT version FROM receipts WHERE receipt_id = $1`, id).Scan(&v)
		if err == nil && v >= version {
			return
		}
		if time.Now().After(deadline) {
			e.t.Fatalf("receipt %s not projected at version %d: %d, %v", id, version, v, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// sweeperOf is a sweeper process (its own claim token, as another instance would have).
func (e *sweepEnv) sweeperOf(c settlement.SweepChain) *settlement.SweepDepositsHandler {
	return settlement.NewSweepDepositsHandler(e.store, c, e.sweeps, time.Now)
}

// sweepAll runs passes of h until every receipt's confirmed credits are swept; it returns the
// passes' sums.
func (e *sweepEnv) sweepAll(h *settlement.SweepDepositsHandler, ids ...string) settlement.Swept {
	e.t.Helper()
	var sum settlement.Swept
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		out, err := h.Handle(e.ctx)
		if err != nil {
			e.t.Logf("sweep pass: %v", err)
		}
		sum.Sent += out.Sent
		sum.Deposits += out.Deposits
		sum.Settled += out.Settled
		sum.Recorded = append(sum.Recorded, out.Recorded...)
		done := true
		for _, id := range ids {
			done = done && e.state(id).Swept() && len(e.state(id).Sweeps) > 0
		}
		if done {
			return sum
		}
	}
	e.t.Fatalf("receipts %v not swept in time", ids)
	return sum
}

// balanceOf is what wallet holds of a development token.
func (e *sweepEnv) balanceOf(token, wallet string) *big.Int {
	e.t.Helper()
	b, err := e.sweeper.DepositBalance(e.ctx, wallet, token)
	if err != nil {
		e.t.Fatal(err)
	}
	return b
}

// sweepTxs counts the operator's sweep transactions.
func (e *sweepEnv) sweepTxs() int {
	e.t.Helper()
	var n int
	if err := e.pool.QueryRow(e.ctx, `SELECT count(*) FROM operator_transactions WHERE kind = 'sweep'`).Scan(&n); err != nil {
		e.t.Fatal(err)
	}
	return n
}

// sweptEvents is receipt id's DepositSwept events.
func (e *sweepEnv) sweptEvents(id string) []receipt.DepositSwept {
	return eventsOf[receipt.DepositSwept](e.distEnv, id, receipt.EventDepositSwept)
}
