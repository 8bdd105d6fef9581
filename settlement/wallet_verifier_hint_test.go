package settlement_test

import (
	"errors"
	"math/big"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/payledger/payledger/chain"
	"github.com/payledger/payledger/commands"
	"github.com/payledger/payledger/domain/money"
	"github.com/payledger/payledger/domain/receipt"
	"github.com/payledger/payledger/eventstore"
	"github.com/payledger/payledger/readmodels"
)

// depositReceipt generates a USD receipt of total with a deposit address of its own (any
// address takes an ERC-20 transfer: no deposit contract is needed to receive).
func (e *walletEnv) depositReceipt(total money.Cents) (string, common.Address) {
	e.t.Helper()
	id, deposit, _ := e.generateDepositReceipt(payMerchant, total)
	return id, deposit
}

// generateDepositReceipt generates a USD receipt of total for merchant with a fresh deposit
// address, and the append's result.
func (e *walletEnv) generateDepositReceipt(merchant string, total money.Cents) (string, common.Address, eventstore.AppendResult) {
	e.t.Helper()
	k, err := crypto.GenerateKey()
	if err != nil {
		e.t.Fatal(err)
	}
	deposit := crypto.PubkeyToAddress(k.PublicKey)
	id := commands.NewReceiptID(e.at)
	g := receipt.Generated{ReceiptID: id, Merchant: merchant, Source: "direct", Currency: "USD", TaxRate: "0", TaxComponents: []string{},
		LineItems: []receipt.LineItem{{Kind: receipt.KindCustom, Label: "Order", Amount: total}}, Subtotal: total, Total: total,
		DepositAddress: deposit.Hex(), DepositSplit: e.split.Hex(), ExpiresAt: e.at.Add(time.Hour).UnixMilli()}
	_, res, err := commands.GenerateReceipt(e.ctx, e.store, e.at, eventstore.Metadata{}, g)
	if err != nil {
		e.t.Fatalf("generate: %v", err)
	}
	return id, deposit, res
}

// payUSDCTo sends units of USDC from the buyer to to; the transaction waits in the pool.
func (e *walletEnv) payUSDCTo(to common.Address, units int64) *types.Transaction {
	e.t.Helper()
	return e.sent(chain.SendToken(e.opts(), e.b.Client(), e.usdc.Address, to, big.NewInt(units)))
}

// revertingUSDC sends more USDC than the buyer holds, with a fixed gas limit (no estimate, which
// would refuse it): mined, it reverts.
func (e *walletEnv) revertingUSDC(to common.Address) *types.Transaction {
	e.t.Helper()
	o := e.opts()
	o.GasLimit = 200_000
	return e.sent(chain.SendToken(o, e.b.Client(), e.usdc.Address, to, new(big.Int).Mul(big.NewInt(1e12), big.NewInt(1000))))
}

// telemetry is receipt id's telemetry of the current hour.
func (e *walletEnv) telemetry(id string) []receipt.TelemetryRecorded {
	e.t.Helper()
	evs, err := e.store.ReadStream(e.ctx, commands.TelemetryStream(id, time.Now()), 1, 100)
	if err != nil {
		e.t.Fatal(err)
	}
	var out []receipt.TelemetryRecorded
	for _, re := range evs {
		ev, err := receipt.Decode(re.Type, re.Data)
		if err != nil {
			e.t.Fatal(err)
		}
		out = append(out, ev.(receipt.TelemetryRecorded))
	}
	return out
}

// eventTypes is receipt id's history, comma-separated.
func (e *walletEnv) eventTypes(id string) string {
	e.t.Helper()
	evs, err := commands.ReadReceiptEvents(e.ctx, e.store, id)
	if err != nil {
		e.t.Fatal(err)
	}
	types := make([]string, len(evs))
	for i, ev := range evs {
		types[i] = ev.Type
	}
	return strings.Join(types, ",")
}

// follower is the hint follower (commands.CheckPaymentHints) on the simulated chain, over the
// hint store e.submit keeps its hints in.
func (e *walletEnv) follower() *commands.CheckPaymentHintsHandler {
	return commands.NewCheckPaymentHintsHandler(e.store, readmodels.NewPaymentHints(e.pool), e.receipts,
		chain.NewTransactionCredits(e.rpc, []chain.Token{e.usdc}), e.now)
}

// TestSubmittedHashNeverPays: DESIGN 9 retires section 8's split path, and DESIGN 10 keeps hints
// out of the receipt's stream until they credit a transfer. Hints sent before mining wait (the
// streams keep their one event); once mined, the follower records the hints that transfer to the
// receipt's own deposit address (a full payment and an underpayment: pending, never paid by the
// hint) and refuses the one paid to the merchant's split; the same split hash hinted for another
// receipt blocks nobody.
func TestSubmittedHashNeverPays(t *testing.T) {
	e := newWalletEnv(t)
	follow := e.follower()
	toSplit, _ := e.depositReceipt(1250)
	toDeposit, deposit := e.depositReceipt(1250)
	under, underDeposit := e.depositReceipt(1250)
	txSplit, txDeposit, txUnder := e.payUSDC(12_500_000), e.payUSDCTo(deposit, 12_500_000), e.payUSDCTo(underDeposit, 12_499_999)
	e.submitted(toSplit, "USDC", txSplit)
	e.submitted(toDeposit, "USDC", txDeposit)
	e.submitted(under, "USDC", txUnder)
	other, _ := e.depositReceipt(1250)
	e.submitted(other, "USDC", txSplit)
	if out, err := follow.Handle(e.ctx, commands.CheckPaymentHints{}); err != nil || out.Credited != 0 {
		t.Fatalf("before mining: %+v %v", out, err)
	}
	for _, id := range []string{toSplit, toDeposit, under, other} {
		if h := e.eventTypes(id); h != receipt.EventGenerated {
			t.Fatalf("%s: a waiting hint reached the stream: %s", id, h)
		}
	}
	e.settledCommit()
	out, err := follow.Handle(e.ctx, commands.CheckPaymentHints{})
	if err != nil || out.Checked != 4 || out.Credited != 2 {
		t.Fatalf("after mining: %+v %v", out, err)
	}
	for _, id := range []string{toDeposit, under} {
		if st := e.state(id); st.Status != receipt.StatusPending || st.Payment != nil || st.Failure != nil {
			t.Fatalf("%s: %s %+v %+v; want pending, nothing paid", id, st.Status, st.Payment, st.Failure)
		}
		if h := e.eventTypes(id); h != "ReceiptGenerated,PaymentAttemptStarted,PaymentSubmitted" {
			t.Fatalf("%s history %s", id, h)
		}
	}
	for _, id := range []string{toSplit, other} {
		if h := e.eventTypes(id); h != receipt.EventGenerated || len(e.telemetry(id)) != 0 {
			t.Fatalf("%s: the split payment's hint changed it: %s", id, h)
		}
	}
}

// TestSubmittedHashRevertedIsTelemetry: a hinted transaction that reverts changes no status
// (section 8 failed the receipt with PORTAL_CHAIN_TX_REVERTED): once it is mined the follower
// records the code as the receipt's telemetry, once, and the receipt stays as it was for the
// payment window to decide.
func TestSubmittedHashRevertedIsTelemetry(t *testing.T) {
	e := newWalletEnv(t)
	follow := e.follower()
	id, deposit := e.depositReceipt(400)
	tx := e.revertingUSDC(deposit)
	e.submitted(id, "USDC", tx)
	e.settledCommit()
	for range 2 {
		if out, err := follow.Handle(e.ctx, commands.CheckPaymentHints{}); err != nil || out.Credited != 0 {
			t.Fatalf("follower: %+v %v", out, err)
		}
	}
	if r, err := e.b.Client().TransactionReceipt(e.ctx, tx.Hash()); err != nil || r.Status != types.ReceiptStatusFailed {
		t.Fatalf("the transaction did not revert: %+v %v", r, err)
	}
	tel := e.telemetry(id)
	if len(tel) != 1 || tel[0].Code != chain.CodeTxReverted || tel[0].Event != "error" {
		t.Fatalf("telemetry %+v; want one PORTAL_CHAIN_TX_REVERTED", tel)
	}
	if st := e.state(id); st.Status != receipt.StatusGenerated || st.Failure != nil {
		t.Fatalf("after a revert: %s %+v", st.Status, st.Failure)
	}
}

// merchantReceipt generates a USD receipt of total for merchant with a deposit address of its own,
// visible in the read model (its deposit_address column).
func (e *walletEnv) merchantReceipt(merchant string, total money.Cents) (string, common.Address) {
	e.t.Helper()
	id, deposit, res := e.generateDepositReceipt(merchant, total)
	e.visible(res.Position)
	return id, deposit
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
	e := newWalletEnv(t)
	submit := commands.NewSubmitWalletPaymentHandler(e.store, readmodels.NewPaymentHints(e.pool), e.receipts, chain.NewTransactionCredits(e.rpc, []chain.Token{e.usdc}), e.now)
	merchantB := "0x" + strings.Repeat("be", 20)
	a, depositA := e.merchantReceipt(payMerchant, 1250)
	b, _ := e.merchantReceipt(merchantB, 1250)
	toSplit, toA, reverted := e.payUSDC(12_500_000), e.payUSDCTo(depositA, 12_500_000), e.revertingUSDC(depositA)
	e.settledCommit()
	if r, err := e.b.Client().TransactionReceipt(e.ctx, reverted.Hash()); err != nil || r.Status != types.ReceiptStatusFailed {
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
	credited := e.payUSDCTo(common.HexToAddress("0x"+strings.Repeat("c3", 20)), 1)
	e.settledCommit()
	if _, err := e.pool.Exec(e.ctx, `INSERT INTO deposit_credits (transaction_hash, log_index, receipt_id) VALUES ($1, 0, 'rcpt_elsewhere')`,
		strings.ToLower(credited.Hash().Hex())); err != nil {
		t.Fatal(err)
	}
	refused("a transfer credited to another receipt", b, credited, "conflict")

	out, err := hint(a, reverted)
	if err != nil || !out.Reverted || e.state(a).Status != receipt.StatusGenerated {
		t.Fatalf("a reverted transfer: %+v, %v, %s", out, err, e.state(a).Status)
	}
	if tel := e.telemetry(a); len(tel) != 1 || tel[0].Code != chain.CodeTxReverted {
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

// settledCommit seals a block once the pool has taken in every transaction sent.
func (e *walletEnv) settledCommit() {
	e.t.Helper()
	if err := chain.WaitPoolSettled(e.ctx, e.rpc.Backend().Client()); err != nil {
		e.t.Fatal(err)
	}
	e.b.Commit()
}
