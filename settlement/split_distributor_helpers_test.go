package settlement_test

// Setup of the split tests: the development chain, a ledger with the receipts projection, and
// helpers that read what the distributor did.

import (
	"context"
	"fmt"
	"math/big"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/accounts/abi/bind"
	"github.com/ethereum/go-ethereum/common"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/payledger/payledger/chain"
	"github.com/payledger/payledger/chain/contracts"
	"github.com/payledger/payledger/commands"
	"github.com/payledger/payledger/domain/money"
	"github.com/payledger/payledger/domain/receipt"
	"github.com/payledger/payledger/eventstore"
	"github.com/payledger/payledger/internal/wait"
	"github.com/payledger/payledger/settlement"
	"github.com/payledger/payledger/settlement/pgstore"
)

// distEnv is the development chain (a real EVM sealing a block per transaction) and a fresh
// PostgreSQL database with the receipts projection running, as in serve.
type distEnv struct {
	t      *testing.T
	ctx    context.Context
	pool   *pgxpool.Pool
	store  commands.Store
	dev    *chain.DevChain
	rpc    *chain.RPC
	op     *chain.Operator
	ledger *pgstore.OperatorTransactions
	nonces map[common.Address]uint64
	mu     sync.Mutex
}

func newDistEnv(t *testing.T) *distEnv {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	pool, store, _, stop := receiptsLedger(t, ctx)
	dev, rpc := startDevChain(t, ctx, chain.DevChainOptions{BlockInterval: 300 * time.Millisecond})
	t.Cleanup(func() { cancel(); stop() }) // before the chain closes
	op, err := chain.NewOperator(dev.Operator.KeyHex(), chain.DevChainID, rpc.Backend(), dev.Tokens)
	if err != nil {
		t.Fatal(err)
	}
	return &distEnv{t: t, ctx: ctx, pool: pool, store: store, dev: dev, rpc: rpc, op: op,
		ledger: pgstore.NewOperatorTransactions(pool), nonces: map[common.Address]uint64{}}
}

// deploy deploys merchant's default 9,950/50 split through the command (no splitAddress).
func (e *distEnv) deploy(h *settlement.DeploySplitHandler, merchant string) commands.SplitState {
	e.t.Helper()
	res, err := h.Handle(e.ctx, commands.ConfigureMerchantSplit{Merchant: merchant})
	if err != nil {
		e.t.Fatalf("deploy: %v", err)
	}
	return res.State
}

// merchantWithSplit makes a merchant and a platform wallet and deploys the merchant's default
// split through the command; sender is the operator's.
func (e *distEnv) merchantWithSplit() (merchant, platform string, st commands.SplitState, sender *settlement.OperatorSender) {
	e.t.Helper()
	merchant, platform = newWallet(e.t), newWallet(e.t)
	deploy, sender := e.handlers(platform)
	return merchant, platform, e.deploy(deploy, merchant), sender
}

func (e *distEnv) handlers(platform string) (*settlement.DeploySplitHandler, *settlement.OperatorSender) {
	sender := settlement.NewOperatorSender(e.op, e.ledger)
	configure := commands.NewConfigureSplitHandler(e.store, platform, time.Now)
	return settlement.NewDeploySplitHandler(configure, e.op, sender), sender
}

// pay sends units of USDC from the first development account to the split and waits for it.
func (e *distEnv) pay(split string, units int64) {
	e.t.Helper()
	e.mu.Lock()
	defer e.mu.Unlock()
	buyer := e.dev.Accounts[0]
	opts, err := bind.NewKeyedTransactorWithChainID(buyer.Key, big.NewInt(chain.DevChainID))
	if err != nil {
		e.t.Fatal(err)
	}
	opts.Context = e.ctx
	usdc, _ := e.dev.Token("USDC")
	tx, err := chain.SendToken(opts, e.rpc.Backend(), usdc.Address, common.HexToAddress(split), big.NewInt(units))
	if err != nil {
		e.t.Fatal(err)
	}
	if _, err := bind.WaitMined(e.ctx, e.rpc.Backend(), tx); err != nil {
		e.t.Fatal(err)
	}
}

// paidReceipt generates a receipt of total for merchant and confirms it paid in USDC by chain.
func (e *distEnv) paidReceipt(merchant string, total money.Cents) string {
	e.t.Helper()
	return e.paidReceiptIn(merchant, total, "USDC")
}

// paidReceiptIn is paidReceipt in token.
func (e *distEnv) paidReceiptIn(merchant string, total money.Cents, token string) string {
	e.t.Helper()
	now := time.Now()
	id := commands.NewReceiptID(now)
	g := receipt.Generated{ReceiptID: id, Merchant: merchant, Source: "direct", Currency: "USD", TaxRate: "0", TaxComponents: []string{},
		LineItems: []receipt.LineItem{{Kind: receipt.KindCustom, Label: "Order", Amount: total}}, Subtotal: total, Total: total}
	if _, _, err := commands.GenerateReceipt(e.ctx, e.store, now, eventstore.Metadata{}, g); err != nil {
		e.t.Fatal(err)
	}
	_, _, err := commands.ChangeReceipt(e.ctx, e.store, id, eventstore.Metadata{}, func(s receipt.State) ([]receipt.Event, error) {
		evs, err := receipt.StartAttempt(s, receipt.AttemptStarted{AttemptID: "w1", Kind: "wallet", At: 1})
		return receipt.Then(s, evs, err, func(s receipt.State) ([]receipt.Event, error) {
			return receipt.Confirm(s, receipt.PaymentConfirmed{AttemptID: "w1", Token: token, VerifiedBy: "chain", TransactionHash: "0x" + strings.Repeat("7", 64), At: 2})
		})
	})
	if err != nil {
		e.t.Fatal(err)
	}
	e.listedPaid(id)
	return id
}

// listedPaid waits until the receipts read model lists id as paid (the projection follows).
func (e *distEnv) listedPaid(id string) {
	e.t.Helper()
	wait.Until(e.t, "receipt "+id+" listed paid", 10*time.Second, func() bool {
		list, err := pgstore.NewReceipts(e.pool).PaidReceipts(e.ctx, settlement.PaidCursor{}, 1000)
		if err != nil {
			e.t.Fatal(err)
		}
		return slices.ContainsFunc(list, func(p settlement.PaidReceipt) bool { return p.ReceiptID == id })
	})
}

// blockPasses waits until the chain has sealed a block after the current head.
func (e *distEnv) blockPasses() {
	e.t.Helper()
	head, err := e.rpc.Backend().BlockNumber(e.ctx)
	if err != nil {
		e.t.Fatal(err)
	}
	wait.Until(e.t, fmt.Sprintf("a block after %d", head), 10*time.Second, func() bool {
		n, err := e.rpc.Backend().BlockNumber(e.ctx)
		if err != nil {
			e.t.Fatal(err)
		}
		return n > head
	})
}

func (e *distEnv) distributor(sender *settlement.OperatorSender) *settlement.DistributeSplitsHandler {
	return settlement.NewDistributeSplitsHandler(e.store, commands.NewSplits(e.store), pgstore.NewReceipts(e.pool), sender, time.Now)
}

// until runs passes of h until every receipt is reconciled (a pass error is tolerated: the next
// pass retries).
func (e *distEnv) until(h *settlement.DistributeSplitsHandler, ids ...string) {
	e.t.Helper()
	if err := e.reconcileAll(h, ids...); err != nil {
		e.t.Fatal(err)
	}
}

// reconcileAll is until for any goroutine.
func (e *distEnv) reconcileAll(h *settlement.DistributeSplitsHandler, ids ...string) error {
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		_, _ = h.Handle(e.ctx)
		done := true
		for _, id := range ids {
			l, err := commands.LoadReceipt(e.ctx, e.store, id)
			if err != nil {
				return err
			}
			done = done && l.State.Status == receipt.StatusReconciled
		}
		if done {
			return nil
		}
		time.Sleep(100 * time.Millisecond)
	}
	return fmt.Errorf("receipts %v not reconciled in time", ids)
}

func (e *distEnv) state(id string) receipt.State {
	e.t.Helper()
	l, err := commands.LoadReceipt(e.ctx, e.store, id)
	if err != nil {
		e.t.Fatal(err)
	}
	return l.State
}

// distributed returns receipt id's SplitDistributed events.
func (e *distEnv) distributed(id string) []receipt.SplitDistributed {
	return eventsOf[receipt.SplitDistributed](e, id, receipt.EventSplitDistributed)
}

// eventsOf returns receipt id's events of type typ, decoded.
func eventsOf[T receipt.Event](e *distEnv, id, typ string) []T {
	e.t.Helper()
	evs, err := commands.ReadReceiptEvents(e.ctx, e.store, id)
	if err != nil {
		e.t.Fatal(err)
	}
	var out []T
	for _, ev := range evs {
		if ev.Type == typ {
			d, err := receipt.Decode(ev.Type, ev.Data)
			if err != nil {
				e.t.Fatal(err)
			}
			out = append(out, d.(T))
		}
	}
	return out
}

func (e *distEnv) usdcBalance(wallet string) *big.Int {
	e.t.Helper()
	return usdcBalance(e.t, e.ctx, e.dev, e.rpc, wallet)
}

// releases counts the split's ERC20PaymentReleased events per payee on chain.
func (e *distEnv) releases(split string) map[string]int {
	e.t.Helper()
	f, err := contracts.NewPaymentSplitFilterer(common.HexToAddress(split), e.rpc.Backend())
	if err != nil {
		e.t.Fatal(err)
	}
	it, err := f.FilterERC20PaymentReleased(&bind.FilterOpts{Context: e.ctx}, nil)
	if err != nil {
		e.t.Fatal(err)
	}
	defer it.Close()
	out := map[string]int{}
	for it.Next() {
		out[strings.ToLower(it.Event.To.Hex())]++
	}
	return out
}

func (e *distEnv) gasUsed(kind string) []int64 {
	e.t.Helper()
	rows, err := e.pool.Query(e.ctx, `SELECT gas_used FROM operator_transactions WHERE kind = $1 AND status = 'mined' ORDER BY id`, kind)
	if err != nil {
		e.t.Fatal(err)
	}
	defer rows.Close()
	var out []int64
	for rows.Next() {
		var g int64
		if err := rows.Scan(&g); err != nil {
			e.t.Fatal(err)
		}
		out = append(out, g)
	}
	return out
}

var _ settlement.SplitChain = (*chain.Operator)(nil)
