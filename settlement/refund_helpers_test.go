package settlement_test

// The refund verifier's setup: the deposit tests' simulated chain and ledger, a receipt paid at
// its deposit address by the customer (buyers[0]), and the merchant's wallet (buyers[1]) that
// sends refunds.

import (
	"crypto/ecdsa"
	"math/big"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/accounts/abi/bind"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/rs/zerolog"

	"github.com/payledger/payledger/chain"
	"github.com/payledger/payledger/chain/contracts"
	"github.com/payledger/payledger/commands"
	"github.com/payledger/payledger/domain/money"
	"github.com/payledger/payledger/domain/receipt"
	"github.com/payledger/payledger/settlement"
	"github.com/payledger/payledger/settlement/pgstore"
)

type refundEnv struct {
	*depositEnv
	clock    *testClock
	verifier *settlement.RefundVerifier
	refunds  *commands.RefundHandler
	merchant *ecdsa.PrivateKey
	customer string // lower case
}

func newRefundEnv(t *testing.T) *refundEnv {
	t.Helper()
	return newRefundEnvWith(t, 2)
}

// newRefundEnvWith is newRefundEnv with buyers funded wallets (at least 2): buyers[2] and on pay
// other merchants' receipts.
func newRefundEnvWith(t *testing.T, buyers int) *refundEnv {
	t.Helper()
	d := newDepositEnvWith(t, buyers)
	e := &refundEnv{depositEnv: d, clock: &testClock{at: time.Now()}, merchant: d.buyers[1],
		customer: strings.ToLower(crypto.PubkeyToAddress(d.buyer.PublicKey).Hex())}
	claims := pgstore.NewRefundClaims(d.pool)
	e.verifier = &settlement.RefundVerifier{Chain: chain.RefundReader{RPC: d.rpc, Tokens: d.tokens}, Claims: claims, Events: d.store,
		Confirmations: 2, NotFoundAfter: time.Hour, Now: e.clock.now, Log: zerolog.Nop()}
	e.refunds = commands.NewRefundHandler(d.store, claims, e.clock.now)
	return e
}

// paid is a receipt of cents paid in USDC at its deposit address by the customer.
func (e *refundEnv) paid(cents int64) receipt.State {
	e.t.Helper()
	r := e.receipt(money.Cents(cents))
	d := e.detector()
	e.step(d)
	e.mined(e.payToken(e.usdc, r.DepositAddress(), cents*10_000))
	e.commit()
	e.step(d)
	return e.want(r.Receipt.ReceiptID, receipt.StatusPaid, money.Cents(cents).String())
}

// claim posts a refund of amount (USD) with hash, as the merchant.
func (e *refundEnv) claim(r receipt.State, amount, hash string) (commands.Refunded, error) {
	return e.refunds.Handle(e.ctx, commands.Refund{ReceiptID: r.Receipt.ReceiptID, AmountUSD: amount, Reason: "customer asked",
		TransactionHash: hash, By: r.Receipt.Merchant})
}

// send sends units of USDC from the merchant's wallet to `to` (unmined).
func (e *refundEnv) send(to string, units int64) *types.Transaction {
	e.t.Helper()
	tx, err := chain.SendToken(e.opts(e.merchant), e.sim, e.usdc, common.HexToAddress(to), big.NewInt(units))
	e.ok(err)
	return tx
}

// verify runs one verifier step and waits until the read model shows what it recorded.
func (e *refundEnv) verify() settlement.RefundStepResult {
	e.t.Helper()
	res, err := e.verifier.Step(e.ctx)
	e.ok(err)
	e.synced()
	return res
}

// processedAtDepth steps the verifier over a claimed refund mined in the head block: nothing at
// depth 1, the refund processed at depth 2 (CHAIN_CONFIRMATIONS), then two more blocks verified.
func (e *refundEnv) processedAtDepth(t *testing.T) {
	t.Helper()
	if res := e.verify(); res.Processed != 0 {
		t.Fatalf("processed at depth 1: %+v", res)
	}
	e.commit()
	if res := e.verify(); res.Processed != 1 {
		t.Fatalf("step at depth 2: %+v", res)
	}
	for range 2 {
		e.commit()
		e.verify()
	}
}

// refund is the receipt's refund of hash as its history says ("" state: none counted).
func (e *refundEnv) refund(id, hash string) (receipt.State, receipt.RefundRecord) {
	e.t.Helper()
	st := e.state(id)
	for i := len(st.Refunds) - 1; i >= 0; i-- {
		if strings.EqualFold(st.Refunds[i].TransactionHash, hash) {
			return st, st.Refunds[i]
		}
	}
	return st, receipt.RefundRecord{}
}

// count is how many events of type typ the receipt's stream holds.
func (e *refundEnv) count(id, typ string) int {
	e.t.Helper()
	evs, err := commands.ReadReceiptEvents(e.ctx, e.store, id)
	e.ok(err)
	n := 0
	for _, ev := range evs {
		if ev.Type == typ {
			n++
		}
	}
	return n
}

func (e *refundEnv) usdcOf(wallet string) *big.Int {
	e.t.Helper()
	tok, err := contracts.NewTestToken(e.usdc, e.sim)
	e.ok(err)
	b, err := tok.BalanceOf(&bind.CallOpts{Context: e.ctx}, common.HexToAddress(wallet))
	e.ok(err)
	return b
}
