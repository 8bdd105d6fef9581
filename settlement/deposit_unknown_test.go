package settlement_test

import (
	"math/big"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/accounts/abi/bind"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/payledger/payledger/chain"
	"github.com/payledger/payledger/chain/contracts"
	"github.com/payledger/payledger/commands"
	"github.com/payledger/payledger/domain/receipt"
)

// TestDepositUnknownTokenRecordedNeverCredited (issue 41 item 3): a token the service does not
// configure, sent to a deposit address, is seen by the detector's one eth_getLogs (the step
// costs what a configured token's does, same run), recorded once on the receipt with its
// contract, sender and raw amount, and never credited; the deposit can send it only to the
// split, where anyone may flush it with the token's address.
func TestDepositUnknownTokenRecordedNeverCredited(t *testing.T) {
	e := newDepositEnv(t)
	dai := e.unconfiguredToken("DAI")
	r, known := e.receipt(1000), e.receipt(1000)
	id := r.Receipt.ReceiptID
	d := e.detector()
	e.step(d)
	requests := func() uint64 {
		before := e.rpc.Stats()
		e.step(d)
		return e.rpc.Stats().Requests - before.Requests
	}
	e.mined(e.payToken(e.usdc, known.DepositAddress(), 1_000_000))
	withKnown := requests()
	e.commit()
	e.step(d) // the configured token's transfer confirmed: nothing left to judge at depth
	pay := e.payToken(dai, r.DepositAddress(), 5_000_000)
	e.mined(pay)
	withUnknown := requests()
	t.Logf("JSON-RPC requests of a step: %d with a configured token's transfer, %d with an unconfigured one's", withKnown, withUnknown)
	if withUnknown > withKnown || withUnknown > 5 {
		t.Fatalf("a step seeing an unconfigured token made %d requests (a configured one's: %d)", withUnknown, withKnown)
	}
	for range 2 {
		e.commit()
		e.step(d)
	}
	st := e.want(id, receipt.StatusGenerated, "")
	customer := strings.ToLower(crypto.PubkeyToAddress(e.buyer.PublicKey).Hex())
	if len(st.UnknownTokens) != 1 || len(st.Credits) != 0 {
		t.Fatalf("unknown tokens %+v, credits %+v", st.UnknownTokens, st.Credits)
	}
	if u := st.UnknownTokens[0]; u.TokenAddress != strings.ToLower(dai.Hex()) || u.Sender != customer || u.AmountUnits != "5000000" ||
		!strings.EqualFold(u.TransactionHash, pay.Hash().Hex()) || u.BlockNumber == 0 {
		t.Fatalf("recorded %+v", u)
	}
	evs, err := commands.ReadReceiptEvents(e.ctx, e.store, id)
	e.ok(err)
	n := 0
	for _, ev := range evs {
		if ev.Type == receipt.EventDepositUnknownToken {
			n++
		}
	}
	if n != 1 {
		t.Fatalf("%d DepositUnknownToken in the history", n)
	}

	f, err := contracts.NewDepositFactory(e.factory, e.sim)
	e.ok(err)
	tx, err := f.Sweep(e.opts(e.buyer), []contracts.DepositFactoryDepositKey{{ReceiptId: chain.DepositReceiptKey(id), Split: e.split}},
		[]common.Address{dai})
	e.ok(err)
	e.mined(tx)
	if got := e.balanceOf(dai, e.split); got.Int64() != 5_000_000 {
		t.Fatalf("the split holds %s DAI after the flush", got)
	}
}

// unconfiguredToken deploys a token the detector is not configured with; the buyer holds some.
func (e *depositEnv) unconfiguredToken(symbol string) common.Address {
	e.t.Helper()
	a, tx, tok, err := contracts.DeployTestToken(e.opts(e.op), e.sim, symbol, symbol)
	e.ok(err)
	e.mined(tx)
	tx, err = tok.Mint(e.opts(e.op), crypto.PubkeyToAddress(e.buyer.PublicKey), big.NewInt(1e12))
	e.ok(err)
	e.mined(tx)
	return a
}

func (e *depositEnv) balanceOf(token, holder common.Address) *big.Int {
	e.t.Helper()
	tok, err := contracts.NewTestToken(token, e.sim)
	e.ok(err)
	b, err := tok.BalanceOf(&bind.CallOpts{Context: e.ctx}, holder)
	e.ok(err)
	return b
}
