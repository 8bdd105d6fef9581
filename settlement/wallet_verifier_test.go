package settlement_test

import (
	"context"
	"crypto/ecdsa"
	"errors"
	"fmt"
	"math/big"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/accounts/abi/bind"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/ethclient/simulated"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/payledger/payledger/chain"
	"github.com/payledger/payledger/chain/contracts"
	"github.com/payledger/payledger/commands"
	"github.com/payledger/payledger/domain/receipt"
	"github.com/payledger/payledger/domain/split"
	"github.com/payledger/payledger/eventstore"
	"github.com/payledger/payledger/projections"
	"github.com/payledger/payledger/readmodels"
	"github.com/payledger/payledger/settlement"
)

var _ settlement.WalletPaymentReads = (*readmodels.Receipts)(nil)

// walletEnv is a simulated chain (real EVM, served over HTTP JSON-RPC) with a 6-decimal USDC, a
// funded buyer, and a PostgreSQL ledger with the receipts projection running, as serve has it.
type walletEnv struct {
	*payEnv
	b        *simulated.Backend
	rpc      *chain.RPC
	buyer    *ecdsa.PrivateKey
	usdc     chain.Token
	split    common.Address
	receipts *readmodels.Receipts
	pool     *pgxpool.Pool
	runner   *projections.Runner
	submit   *commands.SubmitWalletPaymentHandler
	nonce    uint64
}

func newWalletEnv(t *testing.T) *walletEnv {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	pool, store, runner, stop := receiptsLedger(t, ctx)
	t.Cleanup(func() { cancel(); stop() })

	buyer, err := crypto.GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	port, err := chain.FreePort()
	if err != nil {
		t.Fatal(err)
	}
	b, err := chain.NewHTTPBackend(types.GenesisAlloc{crypto.PubkeyToAddress(buyer.PublicKey): {Balance: new(big.Int).Mul(big.NewInt(1e18), big.NewInt(1000))}}, port)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = b.Close() })
	rpc, err := chain.Dial(ctx, fmt.Sprintf("http://127.0.0.1:%d", port), chain.DevChainID)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(rpc.Close)
	e := &walletEnv{payEnv: &payEnv{t: t, ctx: ctx, store: store, at: time.Now()}, b: b, rpc: rpc, buyer: buyer,
		split: common.HexToAddress("0x" + strings.Repeat("5a", 20)), receipts: readmodels.NewReceipts(pool), pool: pool, runner: runner}
	// The buyer deploys the test token (it mints to its deployer on request) and mints itself some.
	addr, tx, tok, err := contracts.DeployTestToken(e.opts(), b.Client(), "USD Coin", "USDC")
	if err != nil {
		t.Fatal(err)
	}
	e.mined(tx)
	e.mined(e.sent(tok.Mint(e.opts(), e.buyerAddr(), big.NewInt(1e12))))
	e.usdc = chain.Token{Symbol: "USDC", Address: addr, Decimals: 6}
	if _, err := commands.ConfigureSplit(ctx, store, e.at, eventstore.Metadata{}, split.Configure{Merchant: payMerchant, Address: e.split.Hex(), Platform: payPlatform}); err != nil {
		t.Fatal(err)
	}
	// No chain for the hint's own check: what it submits is followed by the verifier.
	e.submit = commands.NewSubmitWalletPaymentHandler(store, readmodels.NewPaymentHints(pool), e.receipts, nil, e.now)
	return e
}

func (e *walletEnv) buyerAddr() common.Address { return crypto.PubkeyToAddress(e.buyer.PublicKey) }

// opts signs as the buyer with the next nonce (counted here: the pool updates its pending nonce
// on another goroutine); gas is estimated.
func (e *walletEnv) opts() *bind.TransactOpts {
	o, err := bind.NewKeyedTransactorWithChainID(e.buyer, big.NewInt(chain.DevChainID))
	if err != nil {
		e.t.Fatal(err)
	}
	o.Nonce = new(big.Int).SetUint64(e.nonce)
	e.nonce++
	return o
}

func (e *walletEnv) sent(tx *types.Transaction, err error) *types.Transaction {
	e.t.Helper()
	if err != nil {
		e.t.Fatal(err)
	}
	return tx
}

func (e *walletEnv) mined(tx *types.Transaction) {
	e.t.Helper()
	e.b.Commit()
	r, err := e.b.Client().TransactionReceipt(e.ctx, tx.Hash())
	if err != nil || r.Status != types.ReceiptStatusSuccessful {
		e.t.Fatalf("transaction %s: %+v, %v", tx.Hash(), r, err)
	}
}

// payUSDC sends units of USDC from the buyer to the split; the transaction waits in the pool.
func (e *walletEnv) payUSDC(units int64) *types.Transaction {
	e.t.Helper()
	return e.sent(chain.SendToken(e.opts(), e.b.Client(), e.usdc.Address, e.split, big.NewInt(units)))
}

// submitted submits tx for receipt id as the customer's wallet button does and waits until the
// receipts read model shows it (the verifier's work list).
func (e *walletEnv) submitted(id, token string, tx *types.Transaction) {
	e.t.Helper()
	out, err := e.submit.Handle(e.ctx, commands.SubmitWalletPayment{ReceiptID: id, Token: token, TransactionHash: tx.Hash().Hex(),
		BuyerWallet: e.buyerAddr().Hex()})
	if err != nil {
		e.t.Fatalf("submit: %v", err)
	}
	e.visible(out.Result.Position)
}

// attempted records tx as receipt id's wallet attempt (PaymentAttemptStarted, PaymentSubmitted),
// as a hint that credits a transfer records it, and waits until the read model shows it: the
// verifier's work list. (A hint waits outside the stream until its transaction is mined, DESIGN
// 10; these tests need the attempt before.)
func (e *walletEnv) attempted(id, token string, tx *types.Transaction) {
	e.t.Helper()
	_, res, err := recordAttempt(e.ctx, e.store, id, token, tx.Hash().Hex(), e.buyerAddr().Hex())
	if err != nil {
		e.t.Fatalf("attempt: %v", err)
	}
	e.visible(res.Position)
}

// recordAttempt appends a wallet attempt with hash to receipt id.
func recordAttempt(ctx context.Context, store commands.Store, id, token, hash, wallet string) (receipt.State, eventstore.AppendResult, error) {
	attempt := "att_" + strings.ToLower(hash[2:14])
	return commands.ChangeReceipt(ctx, store, id, eventstore.Metadata{}, func(st receipt.State) ([]receipt.Event, error) {
		evs, err := receipt.StartAttempt(st, receipt.AttemptStarted{AttemptID: attempt, Kind: "wallet", OpenedBy: "service", At: 1})
		return receipt.Then(st, evs, err, func(st receipt.State) ([]receipt.Event, error) {
			return receipt.Submit(st, receipt.PaymentSubmitted{AttemptID: attempt, Source: "wallet", Token: token,
				TransactionHash: strings.ToLower(hash), BuyerWallet: strings.ToLower(wallet), At: 2})
		})
	})
}

func (e *walletEnv) visible(pos eventstore.Position) {
	e.t.Helper()
	ctx, cancel := context.WithTimeout(e.ctx, 5*time.Second)
	defer cancel()
	if err := e.runner.WaitFor(ctx, pos); err != nil {
		e.t.Fatalf("read model: %v", err)
	}
}

func (e *walletEnv) verifier(c chain.Client) *settlement.VerifyWalletPaymentsHandler {
	return settlement.NewVerifyWalletPaymentsHandler(e.store, e.receipts, commands.NewSplits(e.store),
		chain.NewPaymentWatcher(c, []chain.Token{e.usdc}, 2), time.Now)
}

// pass runs one verifier pass and makes its changes visible.
func (e *walletEnv) pass(v *settlement.VerifyWalletPaymentsHandler) settlement.VerifiedWalletPayments {
	e.t.Helper()
	out, err := v.Handle(e.ctx)
	if err != nil {
		e.t.Fatalf("verifier pass: %v", err)
	}
	for _, c := range out.Changes {
		e.visible(c.Result.Position)
	}
	return out
}

func confirmedEvents(t *testing.T, e *walletEnv, id string) []receipt.PaymentConfirmed {
	t.Helper()
	evs, err := commands.ReadReceiptEvents(e.ctx, e.store, id)
	if err != nil {
		t.Fatal(err)
	}
	var out []receipt.PaymentConfirmed
	for _, re := range evs {
		if re.Type == receipt.EventConfirmed {
			ev, err := receipt.Decode(re.Type, re.Data)
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, ev.(receipt.PaymentConfirmed))
		}
	}
	return out
}

// flaky is a chain client whose node can be taken down.
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

// TestVerifyWalletPaymentRPCDown: while the node is down nothing is recorded; the revert is told
// once it is back.
func TestVerifyWalletPaymentRPCDown(t *testing.T) {
	e := newWalletEnv(t)
	c := &flaky{Client: e.rpc}
	v := e.verifier(c)
	id, deposit := e.depositReceipt(400)
	e.attempted(id, "USDC", e.revertingUSDC(deposit))
	e.pass(v)
	c.down.Store(true)
	for range 3 {
		e.b.Commit()
		if _, err := v.Handle(e.ctx); !errors.Is(err, errDown) {
			t.Fatalf("node down: %v", err)
		}
		if st, tel := e.state(id), e.telemetry(id); st.Status != receipt.StatusPending || len(tel) != 0 {
			t.Fatalf("node down: %s, telemetry %+v", st.Status, tel)
		}
	}
	c.down.Store(false)
	e.pass(v)
	if st, tel := e.state(id), e.telemetry(id); st.Status != receipt.StatusPending || len(tel) != 1 {
		t.Fatalf("node back: %s, telemetry %+v", st.Status, tel)
	}
}

// TestVerifyWalletPaymentWorkListPages: more hints pending than one page of the work list are
// all followed (none waits behind the others), and each is told apart at its depth.
func TestVerifyWalletPaymentWorkListPages(t *testing.T) {
	e := newWalletEnv(t)
	v := e.verifier(e.rpc).WithPage(2)
	ids := make([]string, 5)
	for i := range ids {
		var deposit common.Address
		ids[i], deposit = e.depositReceipt(300)
		e.attempted(ids[i], "USDC", e.revertingUSDC(deposit))
	}
	if out := e.pass(v); out.Followed != len(ids) {
		t.Fatalf("followed %d of %d with pages of 2", out.Followed, len(ids))
	}
	e.b.Commit()
	e.b.Commit()
	if out := e.pass(v); out.Followed != 0 {
		t.Fatalf("still followed after their depth: %d", out.Followed)
	}
	for _, id := range ids {
		if tel := e.telemetry(id); len(tel) != 1 {
			t.Fatalf("%s: telemetry %+v", id, tel)
		}
	}
}

// TestVerifyWalletPaymentReorgAfterTheDepth: a receipt paid at depth 2 whose paying block a
// deeper reorg removes, with the transaction gone, is flagged (Reorged) and never confirmed a
// second time; the receipt keeps its one PaymentConfirmed, which names the replaced block, and is
// not reconciled while flagged (the distributor's list leaves it out, the domain refuses it).
// When the same transaction is mined again, it is watched again from the work list and, at its
// depth, restored (PaymentRestored, naming the new block): still one confirmation, and the
// receipt may be reconciled.
func TestVerifyWalletPaymentReorgAfterTheDepth(t *testing.T) {
	e := newWalletEnv(t)
	v := e.verifier(e.rpc)
	id, tx, paying := e.paidThenReorgedAway(v)
	var flagged []commands.ReceiptChange
	for range 4 {
		e.b.Commit()
		out := e.pass(v)
		flagged = append(flagged, out.Reorged...)
		if len(out.Changes) != 0 {
			t.Fatalf("a reorged payment changed receipts: %+v", out)
		}
	}
	if len(flagged) != 1 || flagged[0].ReceiptID != id {
		t.Fatalf("flagged %v, want [%s]", flagged, id)
	}
	e.visible(flagged[0].Result.Position)
	if st := e.state(id); st.ChainWithdrawnTx != strings.ToLower(tx.Hash().Hex()) {
		t.Fatalf("flagged state: withdrawn %q", st.ChainWithdrawnTx)
	}
	e.notDistributable(id)
	c := confirmedEvents(t, e, id)
	if st := e.state(id); st.Status != receipt.StatusPaid || len(c) != 1 || c[0].BlockHash != strings.ToLower(paying.Hex()) {
		t.Fatalf("after the reorg: %s, confirmations %+v", st.Status, c)
	}
	if ok, err := chain.IsCanonical(e.ctx, e.rpc, c[0].BlockNumber, common.HexToHash(c[0].BlockHash)); err != nil || ok {
		t.Fatalf("the recorded block is canonical = %v, %v; want replaced", ok, err)
	}
	evs, err := commands.ReadReceiptEvents(e.ctx, e.store, id)
	if err != nil {
		t.Fatal(err)
	}
	last, err := receipt.Decode(evs[len(evs)-1].Type, evs[len(evs)-1].Data)
	if err != nil {
		t.Fatal(err)
	}
	if ig, ok := last.(receipt.FailureIgnored); !ok || ig.Code != receipt.CodeChainWithdrawn || ig.StatusAtArrival != receipt.StatusPaid {
		t.Fatalf("the log's last event %s %+v; want the chain's withdrawal recorded as ignored", evs[len(evs)-1].Type, last)
	}
	// The same signed transaction mined again: restored at its depth, still one confirmation.
	if err := e.b.Client().SendTransaction(e.ctx, tx); err != nil {
		t.Fatal(err)
	}
	var restored []commands.ReceiptChange
	for range 4 {
		e.b.Commit()
		out := e.pass(v)
		if len(out.Reorged) != 0 {
			t.Fatalf("mined again, flagged again: %+v", out)
		}
		restored = append(restored, out.Changes...)
	}
	if len(restored) != 1 || restored[0].ReceiptID != id {
		t.Fatalf("restorations %+v, want one of %s", restored, id)
	}
	e.visible(restored[0].Result.Position)
	if c := confirmedEvents(t, e, id); len(c) != 1 {
		t.Fatalf("%d confirmations, want 1", len(c))
	}
	evs, err = commands.ReadReceiptEvents(e.ctx, e.store, id)
	if err != nil {
		t.Fatal(err)
	}
	last, err = receipt.Decode(evs[len(evs)-1].Type, evs[len(evs)-1].Data)
	if err != nil {
		t.Fatal(err)
	}
	r, err := e.b.Client().TransactionReceipt(e.ctx, tx.Hash())
	if err != nil {
		t.Fatal(err)
	}
	if rs, ok := last.(receipt.PaymentRestored); !ok || rs.BlockHash != strings.ToLower(r.BlockHash.Hex()) {
		t.Fatalf("the log's last event %s %+v; want PaymentRestored in block %s", evs[len(evs)-1].Type, last, r.BlockHash.Hex())
	}
	if st := e.state(id); st.Status != receipt.StatusPaid || st.ChainWithdrawnTx != "" {
		t.Fatalf("restored: %s, withdrawn %q", st.Status, st.ChainWithdrawnTx)
	}
	if _, err := receipt.DistributeSplit(e.state(id), receipt.SplitDistributed{At: 1}); err != nil || !e.distributable(id) {
		t.Fatalf("a restored receipt cannot be reconciled: %v, in the distributor's list %v", err, e.distributable(id))
	}
}

// TestVerifyWalletPaymentReorgFlagOutlivesADownStore: a deep reorg found while the datastore
// refuses appends is not lost with the audit that found it: the flag is tried again at every step
// and recorded once the datastore answers.
func TestVerifyWalletPaymentReorgFlagOutlivesADownStore(t *testing.T) {
	e := newWalletEnv(t)
	store := &switchedStore{Store: e.store}
	v := settlement.NewVerifyWalletPaymentsHandler(store, e.receipts, commands.NewSplits(e.store),
		chain.NewPaymentWatcher(e.rpc, []chain.Token{e.usdc}, 2), time.Now)
	id, _, _ := e.paidThenReorgedAway(v)
	store.down.Store(true)
	for range 4 {
		e.b.Commit()
		if out, _ := v.Step(e.ctx); len(out.Reorged)+len(out.Changes) != 0 {
			t.Fatalf("recorded with the datastore down: %+v", out)
		}
	}
	store.down.Store(false)
	out := e.pass(v)
	if len(out.Reorged) != 1 || out.Reorged[0].ReceiptID != id {
		t.Fatalf("after the datastore came back: flagged %+v, want %s", out.Reorged, id)
	}
	e.visible(out.Reorged[0].Result.Position)
	e.notDistributable(id)
	if out := e.pass(v); len(out.Reorged) != 0 {
		t.Fatalf("flagged twice: %+v", out.Reorged)
	}
}

// TestVerifyWalletPaymentReorgAuditOutlivesARestart: a verifier started after a payment was
// confirmed (a restart, or another instance) resumes its post-depth audit from the receipts read
// model, so a deep reorg right after a restart is flagged all the same.
func TestVerifyWalletPaymentReorgAuditOutlivesARestart(t *testing.T) {
	e := newWalletEnv(t)
	id, _, paying := e.paidThenReorgedAway(e.verifier(e.rpc))
	restarted := e.verifier(e.rpc)
	var flagged []commands.ReceiptChange
	for range 4 {
		e.b.Commit()
		out := e.pass(restarted)
		flagged = append(flagged, out.Reorged...)
	}
	if len(flagged) != 1 || flagged[0].ReceiptID != id {
		t.Fatalf("flagged after the restart %+v, want %s", flagged, id)
	}
	e.visible(flagged[0].Result.Position)
	if st := e.state(id); st.Payment == nil || st.Payment.BlockHash != strings.ToLower(paying.Hex()) {
		t.Fatalf("the payment's block in the state: %+v, want %s", st.Payment, paying.Hex())
	}
	e.notDistributable(id)
}

// switchedStore refuses every append while down is set, as a datastore that went away.
type switchedStore struct {
	commands.Store
	down atomic.Bool
}

func (s *switchedStore) Append(ctx context.Context, stream string, expected eventstore.ExpectedVersion, evs ...eventstore.EventData) (eventstore.AppendResult, error) {
	if s.down.Load() {
		return eventstore.AppendResult{}, errors.New("the datastore is down")
	}
	return s.Store.Append(ctx, stream, expected, evs...)
}

// paidByDeposit records receipt id paid by tx in block, as the deposit follower does at depth
// (PaymentConfirmed, verifiedBy chain, the block; the attempt of the submitted hash).
func (e *walletEnv) paidByDeposit(id string, tx *types.Transaction, block common.Hash) {
	e.t.Helper()
	r, err := e.b.Client().TransactionReceipt(e.ctx, tx.Hash())
	if err != nil {
		e.t.Fatal(err)
	}
	_, res, err := commands.ChangeReceipt(e.ctx, e.store, id, eventstore.Metadata{}, func(st receipt.State) ([]receipt.Event, error) {
		a, _ := st.Current()
		return receipt.Confirm(st, receipt.PaymentConfirmed{AttemptID: a.ID, TransactionHash: strings.ToLower(tx.Hash().Hex()),
			BuyerWallet: strings.ToLower(e.buyerAddr().Hex()), Token: "USDC", VerifiedBy: "chain", BlockNumber: r.BlockNumber.Uint64(),
			BlockHash: strings.ToLower(block.Hex()), At: time.Now().UnixMilli()})
	})
	if err != nil {
		e.t.Fatal(err)
	}
	e.visible(res.Position)
}

// paidThenReorgedAway pays a new receipt of 7 USD in USDC at its deposit address (the hash
// submitted), records it paid at depth 2 as the deposit follower does, has verifier v (not run
// before: it resumes the audit from the read model) pass once, then forks the chain from before
// the paying block, which drops the transaction. It returns the
// receipt, the signed transaction (to mine again) and the replaced paying block.
func (e *walletEnv) paidThenReorgedAway(v *settlement.VerifyWalletPaymentsHandler) (string, *types.Transaction, common.Hash) {
	e.t.Helper()
	parent, err := e.b.Client().HeaderByNumber(e.ctx, nil)
	if err != nil {
		e.t.Fatal(err)
	}
	id, deposit := e.depositReceipt(700)
	tx := e.payUSDCTo(deposit, 7_000_000)
	e.attempted(id, "USDC", tx)
	paying := e.b.Commit()
	e.b.Commit()
	e.paidByDeposit(id, tx, paying)
	if out := e.pass(v); len(out.Changes) != 0 || e.state(id).Status != receipt.StatusPaid {
		e.t.Fatalf("depth 2: %+v %s", out, e.state(id).Status)
	}
	if err := e.b.Fork(parent.Hash()); err != nil {
		e.t.Fatal(err)
	}
	e.b.Rollback()
	time.Sleep(50 * time.Millisecond)
	e.b.Rollback()
	return id, tx, paying
}

// notDistributable checks that receipt id, flagged, is out of the distributor's list and that
// the domain refuses to reconcile it.
func (e *walletEnv) notDistributable(id string) {
	e.t.Helper()
	if e.distributable(id) {
		e.t.Fatalf("the flagged receipt %s is in the distributor's list", id)
	}
	if _, err := receipt.DistributeSplit(e.state(id), receipt.SplitDistributed{At: 1}); !errors.Is(err, receipt.ErrWithdrawn) {
		e.t.Fatalf("reconciling the flagged receipt: %v, want ErrWithdrawn", err)
	}
}

// distributable reports whether receipt id is in the distributor's list (PaidReceipts).
func (e *walletEnv) distributable(id string) bool {
	e.t.Helper()
	list, err := e.receipts.PaidReceipts(e.ctx, settlement.PaidCursor{}, 1000)
	if err != nil {
		e.t.Fatal(err)
	}
	return slices.ContainsFunc(list, func(p settlement.PaidReceipt) bool { return p.ReceiptID == id })
}
