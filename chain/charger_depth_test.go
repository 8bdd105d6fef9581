package chain_test

import (
	"context"
	"encoding/hex"
	"math/big"
	"testing"

	"github.com/ethereum/go-ethereum/crypto"

	"github.com/payledger/payledger/chain"
	"github.com/payledger/payledger/domain/onchain"
)

// chargeOperatorAt is the env's operator as a charging chain judging its transactions final at
// depth confirmations.
func (e *env) chargeOperatorAt(confirmations int) *chain.ChargeOperator {
	e.t.Helper()
	tokens := []chain.Token{{Symbol: "USDC", Address: e.usdc, Decimals: 6}}
	op, err := chain.NewChargeOperator(hex.EncodeToString(crypto.FromECDSA(e.operator)), chain.DevChainID, e.rpc, tokens, e.elsewhere.Hex())
	e.ok(err)
	op.WithConfirmations(confirmations)
	return op
}

// sendTransfer signs and broadcasts a USDC transfer of the operator (nothing, to the env's
// stranger: the operator holds no USDC) at the operator's next nonce and returns its hash.
func (e *env) sendTransfer(op *chain.ChargeOperator) string {
	e.t.Helper()
	ctx := context.Background()
	call, err := op.TransferCall(addr(e.stranger).Hex(), big.NewInt(0))
	e.ok(err)
	est, err := op.EstimateGas(ctx, []onchain.TxCall{call})
	e.ok(err)
	if est[0].Revert != "" {
		e.t.Fatal(est[0].Revert)
	}
	call.Gas = est[0].Gas
	from := addr(e.operator)
	s, err := op.SignCall(ctx, e.nonces[from], call)
	e.ok(err)
	e.nonces[from]++
	e.ok(op.BroadcastAll(ctx, [][]byte{s.Raw}))
	return s.Hash
}

// TestChargeOutcomesAtConfirmationDepth: a charge transaction (approval, spend, transfer to the
// split) counts only once its block is CHAIN_CONFIRMATIONS deep and still on the chain. Before,
// its receipt at depth 1 was final: a spend recorded as charged (and followed by the transfer of
// the operator's funds to the split) or as failed could then be reorged away.
func TestChargeOutcomesAtConfirmationDepth(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ctx := context.Background()
	op := e.chargeOperatorAt(2)
	hash := e.sendTransfer(op)
	e.commit() // mined: depth 1
	got, err := op.Outcomes(ctx, []string{hash})
	e.ok(err)
	if got[0] != nil {
		t.Fatalf("outcome at depth 1 of 2: %+v, want none yet", got[0])
	}
	e.commit() // depth 2
	got, err = op.Outcomes(ctx, []string{hash})
	e.ok(err)
	if got[0] == nil || !got[0].Success {
		t.Fatalf("outcome at depth 2: %+v, want a success", got[0])
	}
	// Depth 1 configured: final as soon as mined.
	one := e.chargeOperatorAt(1)
	hash = e.sendTransfer(one)
	e.commit()
	got, err = one.Outcomes(ctx, []string{hash})
	e.ok(err)
	if got[0] == nil || !got[0].Success {
		t.Fatalf("outcome at depth 1 of 1: %+v, want a success", got[0])
	}
}

// TestChargeOutcomeOfAReorgedBlock: a charge transaction whose block a reorg replaced before the
// depth is not final: it is not mined any more (it waits in the pool or is sent again).
func TestChargeOutcomeOfAReorgedBlock(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ctx := context.Background()
	op := e.chargeOperatorAt(2)
	parent, err := e.sim.HeaderByNumber(ctx, nil)
	e.ok(err)
	hash := e.sendTransfer(op)
	e.commit()
	e.ok(e.b.Fork(parent.Hash()))
	e.b.Rollback() // the forked-away transaction leaves the pool
	e.ok(chain.WaitPoolSettled(ctx, e.rpc.Backend().Client()))
	e.b.Rollback()
	e.b.Commit()
	e.b.Commit()
	got, err := op.Outcomes(ctx, []string{hash})
	e.ok(err)
	if got[0] != nil {
		t.Fatalf("outcome of a transaction reorged away: %+v", got[0])
	}
}
