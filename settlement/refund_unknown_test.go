package settlement_test

import (
	"errors"
	"math/big"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/payledger/payledger/chain"
	"github.com/payledger/payledger/chain/contracts"
	"github.com/payledger/payledger/commands"
	"github.com/payledger/payledger/domain/receipt"
)

// TestRefundOfUnknownTokenOnChain (issue 41, the last part): a token the service does not
// configure (a second TestToken, real contract) left on a paid receipt's deposit is refunded with
// the chain's proof, in raw units: a made-up hash is refused, a transfer of the wrong token (a
// configured one, to the right sender) is refused, the right transfer is processed once at depth,
// its hash is 409 on reuse, and a reorg that drops it takes it back. refundedUsd and the status
// never move.
func TestRefundOfUnknownTokenOnChain(t *testing.T) {
	t.Parallel()
	e := newRefundEnv(t)
	dai := e.unconfiguredToken("DAI")
	e.mintTo(dai, crypto.PubkeyToAddress(e.merchant.PublicKey))
	r, ref := e.paidWithUnknown(dai, 5_000_000)
	id := r.Receipt.ReceiptID
	unchanged := func(step, hash, state string) receipt.RefundRecord {
		t.Helper()
		st, rec := e.refund(id, hash)
		if st.Status != receipt.StatusPaid || st.RefundedCents != 0 || st.RequestedCents != 0 || rec.State != state || rec.AmountCents != 0 {
			t.Fatalf("%s: %s refunded %d requested %d, refund %+v", step, st.Status, st.RefundedCents, st.RequestedCents, rec)
		}
		return rec
	}

	e.refusedUnknown(r, ref, unchanged)
	before := e.balanceOf(dai, common.HexToAddress(e.customer))
	right := e.sendToken(dai, e.customer, 5_000_000)
	e.mined(right)
	hash := strings.ToLower(right.Hash().Hex())
	if _, err := e.claimUnknown(r, ref, hash); err != nil {
		t.Fatal(err)
	}
	e.processedAtDepth(t)
	rec := unchanged("the right transfer", hash, receipt.RefundStateProcessed)
	if rec.Proof != receipt.ProofChain || rec.Token != ref.contract || rec.AmountUnits != "5000000" || rec.Recipient != e.customer || rec.BlockNumber == 0 {
		t.Fatalf("processed: %+v", rec)
	}
	if n := e.count(id, receipt.EventRefundProcessed); n != 1 {
		t.Fatalf("%d RefundProcessed", n)
	}
	if got := new(big.Int).Sub(e.balanceOf(dai, common.HexToAddress(e.customer)), before); got.Int64() != 5_000_000 {
		t.Fatalf("the customer got %s DAI back", got)
	}
	var told int
	var token, amount, usd string
	e.ok(e.pool.QueryRow(e.ctx, `SELECT count(*), max(data->>'token'), max(data->>'amount'), max(data->>'amountUsd') FROM webhook_events
		WHERE type = 'receipt.refunded'`).Scan(&told, &token, &amount, &usd))
	if told != 1 || token != ref.contract || amount != "5000000" || usd != "0" {
		t.Fatalf("receipt.refunded told %d times: %s %s %s", told, token, amount, usd)
	}
	e.ok(e.pool.QueryRow(e.ctx, `SELECT count(*) FROM webhook_events WHERE type = 'receipt.refund_failed'`).Scan(&told))
	if told != 2 {
		t.Fatalf("%d receipt.refund_failed, want the made-up hash's and the wrong token's", told)
	}
	other := e.paid(500)
	if _, err := e.claimUnknown(r, ref, hash); !errors.Is(err, commands.ErrRefundHashTaken) {
		t.Fatalf("hash reused on the same transfer: %v", err)
	}
	if _, err := e.claim(other, "1", hash); !errors.Is(err, commands.ErrRefundHashTaken) {
		t.Fatalf("hash reused for another receipt: %v", err)
	}
	if _, err := e.claimUnknown(r, ref, "0x"+strings.Repeat("ef", 32)); !errors.Is(err, receipt.ErrState) {
		t.Fatalf("the transfer refunded twice: %v", err)
	}
	e.reorgedAway(r, ref, dai)
}

// refusedUnknown claims ref's refund with a made-up hash (refused an hour later: not on the
// chain) and with a real transfer of the wrong token (a configured one, the right amount to the
// right sender: refused at depth); unchanged checks the receipt after each.
func (e *refundEnv) refusedUnknown(r receipt.State, ref unknownRef, unchanged func(step, hash, state string) receipt.RefundRecord) {
	e.t.Helper()
	t := e.t
	madeUp := "0x" + strings.Repeat("cd", 32)
	if _, err := e.claimUnknown(r, ref, madeUp); err != nil {
		t.Fatal(err)
	}
	unchanged("made-up hash claimed", madeUp, receipt.RefundStateClaimed)
	e.clock.advance(time.Hour + time.Second)
	if res := e.verify(); res.Refused != 1 {
		t.Fatalf("made-up hash: %+v", res)
	}
	if rec := unchanged("made-up hash", madeUp, receipt.RefundStateRefused); !strings.Contains(rec.RefusedReason, "not on the chain") {
		t.Fatalf("made-up hash refused for %q", rec.RefusedReason)
	}

	wrong := e.send(e.customer, 5_000_000) // USDC: a configured token, the right amount, the right sender
	e.mined(wrong)
	if _, err := e.claimUnknown(r, ref, wrong.Hash().Hex()); err != nil {
		t.Fatal(err)
	}
	e.commit()
	if res := e.verify(); res.Refused != 1 || res.Processed != 0 {
		t.Fatalf("the wrong token: %+v", res)
	}
	if rec := unchanged("the wrong token", wrong.Hash().Hex(), receipt.RefundStateRefused); !strings.Contains(rec.RefusedReason, "no token of contract "+ref.contract) {
		t.Fatalf("the wrong token refused for %q", rec.RefusedReason)
	}

}

// reorgedAway refunds a second unknown transfer of r, processes it at depth, then forks the chain
// before it and replaces the transaction: the refund is a claim again, the receipt unchanged.
func (e *refundEnv) reorgedAway(r receipt.State, first unknownRef, dai common.Address) {
	e.t.Helper()
	ref := e.unknownAgain(r, dai, 7_000_000)
	fork, err := e.sim.HeaderByNumber(e.ctx, nil)
	e.ok(err)
	tx := e.sendToken(dai, e.customer, 7_000_000)
	e.mined(tx)
	if _, err := e.claimUnknown(r, ref, tx.Hash().Hex()); err != nil {
		e.t.Fatal(err)
	}
	e.commit()
	if res := e.verify(); res.Processed != 1 {
		e.t.Fatalf("before the reorg: %+v", res)
	}
	e.ok(e.b.Fork(fork.Hash()))
	e.replace(tx)
	for range 4 {
		e.commit()
	}
	res := e.verify()
	st, rec := e.refund(r.Receipt.ReceiptID, tx.Hash().Hex())
	if res.Reverted != 1 || rec.State != receipt.RefundStateClaimed || rec.Recipient != "" || st.Status != receipt.StatusPaid || st.RefundedCents != 0 ||
		e.count(r.Receipt.ReceiptID, receipt.EventRefundReverted) != 1 {
		e.t.Fatalf("after the reorg: %+v %s refunded %d %+v", res, st.Status, st.RefundedCents, rec)
	}
	if _, ok := st.UnknownRefund(first.UnknownTransferRef); !ok {
		e.t.Fatal("the reorg took the first refund too")
	}
}

// replace sends, from the merchant, a transaction with tx's nonce and a higher fee once the pool
// took the fork: tx can never be mined again.
func (e *refundEnv) replace(tx *types.Transaction) {
	e.t.Helper()
	o := e.opts(e.merchant)
	o.Nonce = new(big.Int).SetUint64(tx.Nonce())
	o.GasTipCap, o.GasFeeCap = new(big.Int).Mul(tx.GasTipCap(), big.NewInt(10)), new(big.Int).Mul(tx.GasFeeCap(), big.NewInt(10))
	o.Value = big.NewInt(1)
	for deadline := time.Now().Add(10 * time.Second); ; runtime.Gosched() { // the pool takes the fork on its own goroutine
		_, err := chain.SendETH(o, e.sim, common.HexToAddress(e.customer))
		if err == nil || !strings.Contains(err.Error(), "nonce too low") || time.Now().After(deadline) {
			e.ok(err)
			return
		}
	}
}

// unknownRef is a recorded unknown transfer and its contract (lower case).
type unknownRef struct {
	receipt.UnknownTransferRef
	contract string
}

// paidWithUnknown is a receipt of 10.00 paid in USDC, then sent units of the unconfigured token
// by the customer, recorded as DepositUnknownToken.
func (e *refundEnv) paidWithUnknown(token common.Address, units int64) (receipt.State, unknownRef) {
	e.t.Helper()
	r := e.paid(1000)
	return r, e.unknownAgain(r, token, units)
}

// unknownAgain sends units of the unconfigured token to r's deposit from the customer and
// returns the transfer once the detector recorded it.
func (e *refundEnv) unknownAgain(r receipt.State, token common.Address, units int64) unknownRef {
	e.t.Helper()
	d := e.detector()
	tx := e.payToken(token, r.DepositAddress(), units)
	e.mined(tx)
	for range 3 {
		e.step(d)
		for _, u := range e.state(r.Receipt.ReceiptID).UnknownTokens {
			if strings.EqualFold(u.TransactionHash, tx.Hash().Hex()) {
				return unknownRef{UnknownTransferRef: receipt.UnknownTransferRef{TransactionHash: u.TransactionHash, LogIndex: u.LogIndex}, contract: u.TokenAddress}
			}
		}
		e.commit()
	}
	e.t.Fatal("the unknown transfer was never recorded")
	return unknownRef{}
}

// claimUnknown posts the refund of the unknown transfer ref with hash, as the merchant.
func (e *refundEnv) claimUnknown(r receipt.State, ref unknownRef, hash string) (commands.Refunded, error) {
	u := ref.UnknownTransferRef
	return e.refunds.Handle(e.ctx, commands.Refund{ReceiptID: r.Receipt.ReceiptID, Reason: "not a token we take", TransactionHash: hash,
		Unknown: &u, By: r.Receipt.Merchant})
}

// sendToken sends (unmined) units of token from the merchant's wallet to `to`.
func (e *refundEnv) sendToken(token common.Address, to string, units int64) *types.Transaction {
	e.t.Helper()
	tx, err := chain.SendToken(e.opts(e.merchant), e.sim, token, common.HexToAddress(to), big.NewInt(units))
	e.ok(err)
	return tx
}

// mintTo gives holder some of the test token.
func (e *refundEnv) mintTo(token, holder common.Address) {
	e.t.Helper()
	tok, err := contracts.NewTestToken(token, e.sim)
	e.ok(err)
	tx, err := tok.Mint(e.opts(e.op), holder, big.NewInt(1e12))
	e.ok(err)
	e.mined(tx)
}
