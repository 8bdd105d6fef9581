package settlement_test

// A simulated chain (real EVM, JSON-RPC over HTTP) with USDC, USDT and the deposit factory, a
// ledger with the receipts projection, and a deposit detector over both: the setup of the
// deposit detection tests.

import (
	"context"
	"crypto/ecdsa"
	"fmt"
	"math/big"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/accounts/abi/bind"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/eth/ethconfig"
	"github.com/ethereum/go-ethereum/ethclient/simulated"
	"github.com/ethereum/go-ethereum/node"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/rs/zerolog"

	"github.com/payledger/payledger/chain"
	"github.com/payledger/payledger/chain/contracts"
	"github.com/payledger/payledger/commands"
	"github.com/payledger/payledger/domain/money"
	"github.com/payledger/payledger/domain/receipt"
	"github.com/payledger/payledger/eventstore"
	"github.com/payledger/payledger/eventstore/postgres"
	"github.com/payledger/payledger/migrations/pgtest"
	"github.com/payledger/payledger/projections"
	"github.com/payledger/payledger/settlement"
	"github.com/payledger/payledger/settlement/pgstore"
)

type depositEnv struct {
	t       testing.TB
	ctx     context.Context
	b       *simulated.Backend
	sim     simulated.Client
	rpc     *chain.RPC
	buyer   *ecdsa.PrivateKey
	buyers  []*ecdsa.PrivateKey
	url     string
	op      *ecdsa.PrivateKey
	nonces  map[common.Address]uint64
	usdc    common.Address
	usdt    common.Address
	factory common.Address
	split   common.Address
	tokens  []chain.Token
	pool    *pgxpool.Pool
	store   *projections.ReceiptsAtAppend
	at      time.Time
}

func newDepositEnv(t testing.TB) *depositEnv { return newDepositEnvWith(t, 1) }

// newDepositEnvWith is the env with buyers funded buyers (e.buyer is the first) and the
// backend options opts.
func newDepositEnvWith(t testing.TB, buyers int, opts ...func(*node.Config, *ethconfig.Config)) *depositEnv {
	t.Helper()
	ctx := context.Background()
	e := &depositEnv{t: t, ctx: ctx, nonces: map[common.Address]uint64{}, at: time.Now()}
	e.op = depositKey(t)
	for range buyers {
		e.buyers = append(e.buyers, depositKey(t))
	}
	e.buyer = e.buyers[0]
	alloc := types.GenesisAlloc{}
	for _, k := range append([]*ecdsa.PrivateKey{e.op}, e.buyers...) {
		alloc[crypto.PubkeyToAddress(k.PublicKey)] = types.Account{Balance: new(big.Int).Mul(big.NewInt(1e6), big.NewInt(1e18))}
	}
	var port int
	var err error
	e.b, port, err = chain.NewHTTPBackendOnFreePort(alloc, opts...)
	e.ok(err)
	e.url = fmt.Sprintf("http://127.0.0.1:%d", port)
	t.Cleanup(func() { _ = e.b.Close() })
	e.sim = e.b.Client()
	e.rpc, err = chain.Dial(ctx, e.url, chain.DevChainID)
	e.ok(err)
	t.Cleanup(e.rpc.Close)
	e.deploy()
	e.split = crypto.PubkeyToAddress(depositKey(t).PublicKey)
	e.ledger()
	return e
}

// ledger is a fresh database whose store has the receipts projection running on it (applied at
// append too), recording the merchants' event log (webhook endpoints) as serve does.
func (e *depositEnv) ledger() {
	e.pool = pgtest.Pool(e.t)
	pg := postgres.New(e.pool)
	proj := projections.NewReceipts(nil)
	proj.EventLog = true
	runner, err := projections.NewRunner(e.pool, pg, proj, zerolog.Nop())
	e.ok(err)
	e.store = proj.AtAppend(pg, runner)
	ctx, cancel := context.WithCancel(e.ctx)
	done := make(chan struct{})
	go func() { defer close(done); _ = runner.Run(ctx) }()
	e.t.Cleanup(func() { cancel(); <-done })
}

func depositKey(t testing.TB) *ecdsa.PrivateKey {
	t.Helper()
	k, err := crypto.GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	return k
}

func (e *depositEnv) ok(err error) {
	e.t.Helper()
	if err != nil {
		e.t.Fatal(err)
	}
}

// deploy deploys the tokens (the buyer holds 1,000,000 of each) and the deposit factory.
func (e *depositEnv) deploy() {
	var txs []*types.Transaction
	for _, sym := range []string{"USDC", "USDT"} {
		a, tx, _, err := contracts.DeployTestToken(e.opts(e.op), e.sim, sym, sym)
		e.ok(err)
		e.tokens, txs = append(e.tokens, chain.Token{Symbol: sym, Address: a, Decimals: 6}), append(txs, tx)
	}
	e.usdc, e.usdt = e.tokens[0].Address, e.tokens[1].Address
	f, tx, _, err := contracts.DeployDepositFactory(e.opts(e.op), e.sim)
	e.ok(err)
	e.factory = f
	e.mined(append(txs, tx)...)
	var mints []*types.Transaction
	for _, tok := range e.tokens {
		t, err := contracts.NewTestToken(tok.Address, e.sim)
		e.ok(err)
		for _, k := range e.buyers {
			tx, err := t.Mint(e.opts(e.op), crypto.PubkeyToAddress(k.PublicKey), big.NewInt(1e12))
			e.ok(err)
			mints = append(mints, tx)
		}
	}
	e.mined(mints...)
}

func (e *depositEnv) opts(k *ecdsa.PrivateKey) *bind.TransactOpts {
	o, err := bind.NewKeyedTransactorWithChainID(k, big.NewInt(chain.DevChainID))
	e.ok(err)
	o.Context = e.ctx
	o.Nonce = new(big.Int).SetUint64(e.nonces[o.From])
	e.nonces[o.From]++
	return o
}

func (e *depositEnv) commit() common.Hash {
	e.t.Helper()
	e.ok(chain.WaitPoolSettled(e.ctx, e.rpc.Backend().Client()))
	return e.b.Commit()
}

// mined commits a block and fails unless every tx succeeded in it.
func (e *depositEnv) mined(txs ...*types.Transaction) {
	e.t.Helper()
	e.commit()
	for _, tx := range txs {
		r, err := e.sim.TransactionReceipt(e.ctx, tx.Hash())
		e.ok(err)
		if r.Status != types.ReceiptStatusSuccessful {
			e.t.Fatalf("tx %s reverted", tx.Hash())
		}
	}
}

// payToken sends (unmined) a plain ERC-20 transfer from the buyer, as a phone wallet does.
func (e *depositEnv) payToken(token common.Address, to string, units int64) *types.Transaction {
	e.t.Helper()
	tx, err := chain.SendToken(e.opts(e.buyer), e.sim, token, common.HexToAddress(to), big.NewInt(units))
	e.ok(err)
	return tx
}

// payETH sends (unmined) a plain ETH transfer of wei from the buyer.
func (e *depositEnv) payETH(to string, wei *big.Int) *types.Transaction {
	e.t.Helper()
	o := e.opts(e.buyer)
	o.Value = wei
	tx, err := chain.SendETH(o, e.sim, common.HexToAddress(to))
	e.ok(err)
	return tx
}

// receipt issues a receipt of total cents through the issuer, with its deposit address.
func (e *depositEnv) receipt(total money.Cents) receipt.State {
	e.t.Helper()
	return e.receiptOf(newWallet(e.t), total)
}

// receiptOf is receipt for merchant.
func (e *depositEnv) receiptOf(merchant string, total money.Cents) receipt.State {
	e.t.Helper()
	return e.receiptIssued(merchant, commands.NewReceiptID(e.at), time.Now(), total)
}

// receiptIssued is receipt id for merchant, issued at issued (a journaled order's replay keeps
// the time it was taken).
func (e *depositEnv) receiptIssued(merchant, id string, issued time.Time, total money.Cents) receipt.State {
	e.t.Helper()
	g := receipt.Generated{ReceiptID: id, Merchant: merchant, Source: "direct", Currency: "USD", TaxRate: "0", TaxComponents: []string{},
		LineItems: []receipt.LineItem{{Kind: receipt.KindCustom, Label: "Order", Amount: total}}, Subtotal: total, Total: total,
		DepositAddress: e.depositOf(id), DepositSplit: strings.ToLower(e.split.Hex())}
	st, _, err := commands.GenerateReceipt(e.ctx, e.store, issued, eventstore.Metadata{}, g)
	e.ok(err)
	return st
}

// depositOf is the deposit address of receipt id (known before the receipt is stored).
func (e *depositEnv) depositOf(id string) string {
	return chain.DepositAddress(e.factory, id, e.split).Hex()
}

// detector is a deposit detector over the env's chain and ledger (2 confirmations).
func (e *depositEnv) detector() *settlement.DepositDetector {
	return &settlement.DepositDetector{Chain: chain.DepositScanner{RPC: e.rpc, Tokens: e.tokens}, Store: pgstore.NewDeposits(e.pool),
		Events: e.store, Confirmations: 2, Monitor: 24 * time.Hour, Now: time.Now, Log: zerolog.Nop()}
}

// step runs one step of d and waits until the receipts read model shows what it recorded.
func (e *depositEnv) step(d *settlement.DepositDetector) settlement.StepResult {
	e.t.Helper()
	res, err := d.Step(e.ctx)
	e.ok(err)
	e.synced()
	return res
}

// synced waits until every receipt's row reflects its whole stream.
func (e *depositEnv) synced() {
	e.t.Helper()
	awaitReceiptsProjected(e.t, e.ctx, e.pool)
}

func (e *depositEnv) state(id string) receipt.State {
	e.t.Helper()
	l, err := commands.LoadReceipt(e.ctx, e.store, id)
	e.ok(err)
	return l.State
}

// want fails unless the receipt is in status with the amounts given.
func (e *depositEnv) want(id string, status receipt.Status, received string) receipt.State {
	e.t.Helper()
	st := e.state(id)
	if st.Status != status || st.AmountReceived() != received {
		e.t.Fatalf("receipt %s: status %s received %q, want %s %q (credits %+v)", id, st.Status, st.AmountReceived(), status, received, st.Credits)
	}
	return st
}

// quote records a quote of the receipt in ETH (what an ETH payment must bring).
func (e *depositEnv) quote(id, amount string) {
	e.t.Helper()
	_, _, err := commands.ChangeReceipt(e.ctx, e.store, id, eventstore.Metadata{}, func(receipt.State) ([]receipt.Event, error) {
		return []receipt.Event{receipt.TokenQuoted{Token: "ETH", Amount: amount, TokenUSDPrice: "1000", AmountUSD: "10.00", At: time.Now().UnixMilli()}}, nil
	})
	e.ok(err)
}

// fromContract makes a contract send wei to `to` (an internal call, as a smart-contract wallet
// pays: the transaction's own value is 0 and it logs no Transfer) and returns that transaction:
// a deposit of another (unwatched) key whose split is `to` receives wei, then a sweep deploys it
// and it forwards the ETH internally.
func (e *depositEnv) fromContract(to string, wei *big.Int) *types.Transaction {
	e.t.Helper()
	key := "forwarder-" + to
	fwd := chain.DepositAddress(e.factory, key, common.HexToAddress(to))
	e.mined(e.payETH(fwd.Hex(), wei))
	f, err := contracts.NewDepositFactory(e.factory, e.sim)
	e.ok(err)
	// The gas is fixed: an estimate may find the least gas at which the sweep succeeds with its
	// flush failing inside (the factory catches it), and nothing would be sent.
	o := e.opts(e.op)
	o.GasLimit = 1_000_000
	tx, err := f.Sweep(o, []contracts.DepositFactoryDepositKey{{ReceiptId: chain.DepositReceiptKey(key), Split: common.HexToAddress(to)}}, nil)
	e.ok(err)
	e.mined(tx)
	return tx
}

// chainAt moves the simulated chain's clock to t when t is later than its newest block (by
// sealing an empty block at t; the pool must be empty), so the blocks mined next carry a time at
// or after t. Tests that move the service's clock past a receipt's late-payment watch move the
// chain's with it, as the wall clock moves both in production: the watch is judged by the
// paying block's time (docs/decisions.md, stop 66).
func (e *depositEnv) chainAt(t time.Time) {
	e.t.Helper()
	head, err := e.sim.HeaderByNumber(e.ctx, nil)
	e.ok(err)
	if ahead := t.Unix() - int64(head.Time); ahead > 0 {
		e.ok(chain.AdjustTime(e.ctx, e.b, time.Duration(ahead)*time.Second))
	}
}

// expiredReceipt issues a 10.00 USD receipt with a one-hour window (monitor 24 h) on a clock the
// test moves, lets d watch it (d.Now is that clock), moves the clock past the window and has the
// window fail it: an expired receipt in its late-payment watch, as the read model shows it.
func (e *depositEnv) expiredReceipt(d *settlement.DepositDetector) (*testClock, string) {
	e.t.Helper()
	clock := &testClock{at: time.Now()}
	d.Now = clock.now
	window := settlement.NewPaymentWindowHandler(e.store, pgstore.NewReceipts(e.pool),
		settlement.PaymentWindowConfig{Window: time.Hour, Monitor: 24 * time.Hour}, clock.now)
	id := e.windowedReceipt(1000, clock.now(), clock.now().Add(time.Hour))
	e.step(d)
	clock.advance(time.Hour)
	e.synced()
	if got, err := window.Handle(e.ctx); err != nil || len(got) != 1 {
		e.t.Fatalf("expired %v (%v)", got, err)
	}
	e.synced() // the read model the open deposits are read from has the failure
	return clock, id
}
