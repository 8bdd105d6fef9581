package settlement_test

import (
	"errors"
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
)

// merchantReceipt generates a USD receipt of total for merchant with a deposit address of its own,
// visible in the read model (its deposit_address column).
func (e *walletEnv) merchantReceipt(merchant string, total money.Cents) (string, common.Address) {
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
	submit := commands.NewSubmitWalletPaymentHandler(e.store, e.receipts, e.receipts, chain.NewTransactionCredits(e.rpc, []chain.Token{e.usdc}), e.now)
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
