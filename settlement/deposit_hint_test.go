package settlement_test

// The hint's own checks (DESIGN 9, 10): a submitted hash never pays or fails a receipt; a hint
// waits outside the receipt's stream until its transaction is mined, and the hint follower
// (commands.CheckPaymentHints) then records it only when it transfers to the receipt's deposit,
// or tells a revert as telemetry; the submit command checks a mined one against the deposits
// (chain.TransactionCredits). The deposit detector pays by the deposit's transfers alone.

import (
	"context"
	"errors"
	"math/big"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/payledger/payledger/chain"
	"github.com/payledger/payledger/commands"
	"github.com/payledger/payledger/domain/money"
	"github.com/payledger/payledger/domain/receipt"
	"github.com/payledger/payledger/readmodels"
	"github.com/payledger/payledger/settlement/pgstore"
)

// hints is the submit command over the env's ledger and its hint store, reading the chain
// through c (nil: no chain, a hint waits as before its transaction is mined).
func (e *depositEnv) hints(c commands.ChainTransactions) *commands.SubmitWalletPaymentHandler {
	return commands.NewSubmitWalletPaymentHandler(e.store, pgstore.NewPaymentHints(e.pool), readmodels.NewReceipts(e.pool), c, time.Now)
}

// credits reads the env's chain for the hints (USDC).
func (e *depositEnv) credits() commands.ChainTransactions {
	return chain.NewTransactionCredits(e.rpc, e.tokens[:1])
}

// follower is the hint follower over the env's ledger, reading the chain through c.
func (e *depositEnv) follower(c commands.ChainTransactions) *commands.CheckPaymentHintsHandler {
	return commands.NewCheckPaymentHintsHandler(e.store, pgstore.NewPaymentHints(e.pool), readmodels.NewReceipts(e.pool), c, time.Now)
}

// follow runs one pass of f and waits for the read model.
func (e *depositEnv) follow(f *commands.CheckPaymentHintsHandler) commands.HintsChecked {
	e.t.Helper()
	out, err := f.Handle(e.ctx, commands.CheckPaymentHints{})
	e.ok(err)
	e.synced()
	return out
}

// hinted submits tx for receipt id as the page's wallet button does and waits for the read model.
func (e *depositEnv) hinted(h *commands.SubmitWalletPaymentHandler, id string, tx *types.Transaction) {
	e.t.Helper()
	if _, err := h.Handle(e.ctx, commands.SubmitWalletPayment{ReceiptID: id, Token: "USDC", TransactionHash: tx.Hash().Hex(),
		BuyerWallet: e.buyerAddr().Hex()}); err != nil {
		e.t.Fatalf("submit: %v", err)
	}
	e.synced()
}

func (e *depositEnv) buyerAddr() common.Address { return crypto.PubkeyToAddress(e.buyer.PublicKey) }

// revertingUSDC sends more USDC than the buyer holds, with a fixed gas limit (no estimate, which
// would refuse it): mined, it reverts.
func (e *depositEnv) revertingUSDC(to string) *types.Transaction {
	e.t.Helper()
	o := e.opts(e.buyer)
	o.GasLimit = 200_000
	tx, err := chain.SendToken(o, e.sim, e.usdc, common.HexToAddress(to), new(big.Int).Mul(big.NewInt(1e12), big.NewInt(1000)))
	e.ok(err)
	return tx
}

// telemetry is receipt id's telemetry of the current hour.
func (e *depositEnv) telemetry(id string) []receipt.TelemetryRecorded {
	e.t.Helper()
	evs, err := e.store.ReadStream(e.ctx, commands.TelemetryStream(id, time.Now()), 1, 100)
	e.ok(err)
	var out []receipt.TelemetryRecorded
	for _, re := range evs {
		ev, err := receipt.Decode(re.Type, re.Data)
		e.ok(err)
		out = append(out, ev.(receipt.TelemetryRecorded))
	}
	return out
}

// eventTypes is receipt id's history, comma-separated.
func (e *depositEnv) eventTypes(id string) string {
	e.t.Helper()
	evs, err := commands.ReadReceiptEvents(e.ctx, e.store, id)
	e.ok(err)
	types := make([]string, len(evs))
	for i, ev := range evs {
		types[i] = ev.Type
	}
	return strings.Join(types, ",")
}

// TestSubmittedHashNeverPays: DESIGN 9 retires section 8's split path, and DESIGN 10 keeps hints
// out of the receipt's stream until they credit a transfer. Hints sent before mining wait (the
// streams keep their one event); once mined, the hint follower records the hints that transfer
// to the receipt's own deposit (a full payment and an underpayment: pending, never paid by the
// hint) and refuses the one paid to the merchant's split; the deposit detector then pays the full
// deposit payment by the deposit and leaves the underpayment and the split payment pending or
// generated with nothing confirmed or failed. The same split hash hinted for another receipt
// blocks nobody (DESIGN 10: no first-claim binding) and pays nothing.
func TestSubmittedHashNeverPays(t *testing.T) {
	t.Parallel()
	e := newDepositEnv(t)
	d, h, f := e.detector(), e.hints(e.credits()), e.follower(e.credits())
	e.step(d)
	toSplit, toDeposit, under, other := e.receipt(1250), e.receipt(1250), e.receipt(1250), e.receipt(1250)
	txSplit := e.payToken(e.usdc, e.split.Hex(), 12_500_000)
	txDeposit := e.payToken(e.usdc, toDeposit.Receipt.DepositAddress, 12_500_000)
	txUnder := e.payToken(e.usdc, under.Receipt.DepositAddress, 12_499_999)
	e.hinted(h, toSplit.Receipt.ReceiptID, txSplit)
	e.hinted(h, toDeposit.Receipt.ReceiptID, txDeposit)
	e.hinted(h, under.Receipt.ReceiptID, txUnder)
	e.hinted(h, other.Receipt.ReceiptID, txSplit)
	if out := e.follow(f); out.Credited != 0 {
		t.Fatalf("before mining: %+v", out)
	}
	for _, st := range []receipt.State{toSplit, toDeposit, under, other} {
		if got := e.eventTypes(st.Receipt.ReceiptID); got != receipt.EventGenerated {
			t.Fatalf("%s: a waiting hint reached the stream: %s", st.Receipt.ReceiptID, got)
		}
	}
	e.commit()
	if out := e.follow(f); out.Checked != 4 || out.Credited != 2 {
		t.Fatalf("after mining: %+v", out)
	}
	for range 4 {
		e.commit()
		e.step(d)
	}
	for _, id := range []string{toSplit.Receipt.ReceiptID, other.Receipt.ReceiptID} {
		if got, st := e.eventTypes(id), e.state(id); got != receipt.EventGenerated || st.Payment != nil || len(e.telemetry(id)) != 0 {
			t.Fatalf("%s: the split payment's hint changed it: %s %+v", id, got, st.Payment)
		}
	}
	id := under.Receipt.ReceiptID
	if st := e.state(id); st.Status != receipt.StatusPending || st.Payment != nil || st.Failure != nil || len(e.telemetry(id)) != 0 {
		t.Fatalf("the underpayment: %s %+v %+v; want pending, nothing paid", st.Status, st.Payment, st.Failure)
	}
	if st := e.state(toDeposit.Receipt.ReceiptID); st.Status != receipt.StatusPaid || st.Payment.Method != receipt.MethodDeposit {
		t.Fatalf("the deposit payment's receipt: %s %+v; want paid by the deposit", st.Status, st.Payment)
	}
}

// TestSubmittedHashRevertedIsTelemetry: a submitted transaction that reverts changes no status
// (section 8 failed the receipt with PORTAL_CHAIN_TX_REVERTED): once it is mined the hint
// follower records the code as the receipt's telemetry, once (later passes and the deposit
// detector's steps add nothing), and the receipt keeps its one event for the window to decide.
func TestSubmittedHashRevertedIsTelemetry(t *testing.T) {
	t.Parallel()
	e := newDepositEnv(t)
	d, f := e.detector(), e.follower(e.credits())
	e.step(d)
	st := e.receipt(400)
	id := st.Receipt.ReceiptID
	tx := e.revertingUSDC(st.Receipt.DepositAddress)
	e.hinted(e.hints(nil), id, tx)
	for range 4 {
		e.commit()
		e.step(d)
		e.follow(f)
	}
	if r, err := e.sim.TransactionReceipt(e.ctx, tx.Hash()); err != nil || r.Status != types.ReceiptStatusFailed {
		t.Fatalf("the transaction did not revert: %+v %v", r, err)
	}
	tel := e.telemetry(id)
	if len(tel) != 1 || tel[0].Code != commands.CodeTxReverted || tel[0].Event != "error" {
		t.Fatalf("telemetry %+v; want one PORTAL_CHAIN_TX_REVERTED", tel)
	}
	if st := e.state(id); st.Status != receipt.StatusGenerated || st.Failure != nil || e.eventTypes(id) != receipt.EventGenerated {
		t.Fatalf("after a revert: %s %+v %s", st.Status, st.Failure, e.eventTypes(id))
	}
}

// downChain is a chain whose node can be taken down.
type downChain struct {
	commands.ChainTransactions
	down atomic.Bool
}

var errDown = errors.New("connection refused")

func (c *downChain) Transaction(ctx context.Context, hash string) (commands.MinedTransaction, error) {
	if c.down.Load() {
		return commands.MinedTransaction{}, errDown
	}
	return c.ChainTransactions.Transaction(ctx, hash)
}

// TestSubmittedHashCheckRPCDown: while the node is down the hint follower records nothing (the
// hint keeps waiting); the revert is told once it is back.
func TestSubmittedHashCheckRPCDown(t *testing.T) {
	t.Parallel()
	e := newDepositEnv(t)
	c := &downChain{ChainTransactions: e.credits()}
	f := e.follower(c)
	st := e.receipt(400)
	id := st.Receipt.ReceiptID
	e.hinted(e.hints(nil), id, e.revertingUSDC(st.Receipt.DepositAddress))
	c.down.Store(true)
	for range 3 {
		e.commit()
		if out, err := f.Handle(e.ctx, commands.CheckPaymentHints{}); err != nil || out.Credited != 0 { // an unread chain: the hint waits
			t.Fatalf("node down: %+v %v", out, err)
		}
		if st, tel := e.state(id), e.telemetry(id); st.Status != receipt.StatusGenerated || len(tel) != 0 {
			t.Fatalf("node down: %s, telemetry %+v", st.Status, tel)
		}
	}
	c.down.Store(false)
	e.follow(f)
	if st, tel := e.state(id), e.telemetry(id); st.Status != receipt.StatusGenerated || len(tel) != 1 {
		t.Fatalf("node back: %s, telemetry %+v", st.Status, tel)
	}
}

// hintReceipt generates a USD receipt of total for merchant with the env's split, visible in the
// read model, and returns its id and deposit address.
func (e *depositEnv) hintReceipt(merchant string, total money.Cents) (string, string) {
	e.t.Helper()
	st := e.receiptOf(merchant, total)
	e.synced()
	return st.Receipt.ReceiptID, st.Receipt.DepositAddress
}

// TestCrossMerchantClaimIsImpossible: DESIGN 9's probing note. Section 8 let anyone submit the
// hash of one customer's payment to a merchant's split for another receipt, even another
// merchant's, and get that receipt paid. Now the submitted hash is checked against the chain
// (chain.TransactionCredits) and the deposits' owners (the receipts read model): a payment to
// merchant A's split claimed for A's or B's receipt credits nothing to their deposits (400), one
// to A's receipt's deposit claimed for B's receipt pays another receipt (409), one already
// credited to another receipt (deposit_credits) is 409; each refusal changes nothing. Only A's
// own receipt takes its own transfer, as a hint (pending, never paid by it); a reverted one is
// telemetry.
func TestCrossMerchantClaimIsImpossible(t *testing.T) {
	t.Parallel()
	e := newDepositEnv(t)
	submit := e.hints(e.credits())
	merchantB := "0x" + strings.Repeat("be", 20)
	a, depositA := e.hintReceipt(payMerchant, 1250)
	b, _ := e.hintReceipt(merchantB, 1250)
	toSplit, toA, reverted := e.payToken(e.usdc, e.split.Hex(), 12_500_000), e.payToken(e.usdc, depositA, 12_500_000), e.revertingUSDC(depositA)
	e.commit()
	if r, err := e.sim.TransactionReceipt(e.ctx, reverted.Hash()); err != nil || r.Status != types.ReceiptStatusFailed {
		t.Fatalf("the transfer did not revert: %+v %v", r, err)
	}
	hint := func(id string, tx *types.Transaction) (commands.WalletPaymentSubmitted, error) {
		return submit.Handle(e.ctx, commands.SubmitWalletPayment{ReceiptID: id, Token: "USDC", TransactionHash: tx.Hash().Hex(), BuyerWallet: e.buyerAddr().Hex()})
	}
	refused := func(name, id string, tx *types.Transaction, code string) {
		t.Helper()
		_, err := hint(id, tx)
		var r *commands.Refusal
		if !errors.As(err, &r) || r.Code != code {
			t.Fatalf("%s: %v, want %s", name, err, code)
		}
		if h := e.eventTypes(id); h != receipt.EventGenerated {
			t.Fatalf("%s changed the receipt: %s", name, h)
		}
	}
	refused("A's split payment claimed for B", b, toSplit, "invalid_input")
	refused("A's split payment claimed for A", a, toSplit, "invalid_input")
	refused("A's deposit payment claimed for B", b, toA, "conflict")
	credited := e.payToken(e.usdc, "0x"+strings.Repeat("c3", 20), 1)
	e.commit()
	if _, err := e.pool.Exec(e.ctx, `INSERT INTO deposit_credits (transaction_hash, log_index, receipt_id) VALUES ($1, 0, 'rcpt_elsewhere')`,
		strings.ToLower(credited.Hash().Hex())); err != nil {
		t.Fatal(err)
	}
	refused("a transfer credited to another receipt", b, credited, "conflict")

	out, err := hint(a, reverted)
	if err != nil || !out.Reverted || e.state(a).Status != receipt.StatusGenerated {
		t.Fatalf("a reverted transfer: %+v, %v, %s", out, err, e.state(a).Status)
	}
	if tel := e.telemetry(a); len(tel) != 1 || tel[0].Code != commands.CodeTxReverted {
		t.Fatalf("telemetry %+v", tel)
	}
	out, err = hint(a, toA)
	if err != nil || out.Status != receipt.StatusPending || e.state(a).Payment != nil {
		t.Fatalf("A's own transfer: %+v, %v", out, err)
	}
	if st := e.state(b); st.Status != receipt.StatusGenerated {
		t.Fatalf("B is %s", st.Status)
	}
}
