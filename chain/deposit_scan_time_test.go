package chain_test

import (
	"context"
	"math/big"
	"testing"

	"github.com/ethereum/go-ethereum/common"

	"github.com/payledger/payledger/chain"
)

// TestDepositTransfersCarryTheirBlocksTime: every transfer a scan or the late look-back finds
// carries its block's timestamp (Unix ms), so the late-payment watch is judged by when the chain
// shows the payment, not by when the service saw it (docs/decisions.md, stop 66).
func TestDepositTransfersCarryTheirBlocksTime(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ctx := context.Background()
	s := chain.DepositScanner{RPC: e.rpc, Tokens: []chain.Token{{Symbol: "USDC", Address: e.usdc, Decimals: 6}}}
	head, err := s.Head(ctx)
	e.ok(err)
	watched := e.elsewhere
	e.mined(e.payToken(e.usdc, e.buyer, watched, 5_000_000), e.payETH(e.stranger, watched, eth(2)))
	header, err := e.sim.HeaderByNumber(ctx, new(big.Int).SetUint64(head+1))
	e.ok(err)
	want := int64(header.Time) * 1000
	scan, err := s.Scan(ctx, head+1, 100, watching(func(a string) bool { return common.HexToAddress(a) == watched }))
	e.ok(err)
	if len(scan.Transfers) != 2 {
		t.Fatalf("scan %+v", scan)
	}
	for _, tr := range scan.Transfers {
		if tr.BlockTime != want {
			t.Errorf("%s transfer: block time %d, want the header's %d", tr.Token, tr.BlockTime, want)
		}
	}
	back, err := s.TransfersTo(ctx, head+1, head+1, []string{watched.Hex()})
	e.ok(err)
	if len(back) != 1 || back[0].BlockTime != want {
		t.Errorf("the look-back's transfers %+v, want one at %d", back, want)
	}
}
