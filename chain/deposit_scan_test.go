package chain_test

import (
	"context"
	"math/big"
	"testing"

	"github.com/ethereum/go-ethereum/common"

	"github.com/payledger/payledger/chain"
	"github.com/payledger/payledger/domain/onchain"
)

// Issue 38: the balances of 3,001 addresses (funded, empty, a contract) in three eth_call
// requests, each equal to eth_getBalance's answer, at the block asked for.
func TestBalancesAtInOneRequestPerSlice(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ctx := context.Background()
	addrs := []common.Address{addr(e.buyer), e.usdc, e.elsewhere}
	for i := range 2*chain.BalancesPerCall + 1 - len(addrs) {
		addrs = append(addrs, common.BigToAddress(big.NewInt(int64(1000+i))))
	}
	e.mined(e.payETH(e.buyer, e.elsewhere, eth(1234)))
	before, err := e.rpc.BlockNumber(ctx)
	e.ok(err)
	e.mined(e.payETH(e.buyer, e.elsewhere, eth(1)))
	stats := e.rpc.Stats()
	at, err := e.sim.HeaderByNumber(ctx, new(big.Int).SetUint64(before))
	e.ok(err)
	got, err := e.rpc.BalancesAt(ctx, addrs, at.Hash())
	e.ok(err)
	if n := e.rpc.Stats().Requests - stats.Requests; n != 3 {
		t.Fatalf("%d requests for %d balances, want 3", n, len(addrs))
	}
	for i, a := range addrs {
		want, err := e.sim.BalanceAt(ctx, a, new(big.Int).SetUint64(before))
		e.ok(err)
		if got[i].Cmp(want) != 0 {
			t.Fatalf("balance of %s: %s, eth_getBalance says %s", a, got[i], want)
		}
	}
	if got[2].Cmp(eth(1234)) != 0 {
		t.Fatalf("the paid address holds %s at block %d", got[2], before)
	}
}

// Issue 38: a scan of one new block costs two requests (the newest block with its
// transactions, one eth_getLogs by the block's hash) and finds the token and ETH transfers to a
// watched address only.
func TestDepositScanOfOneBlockInTwoRequests(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ctx := context.Background()
	s := chain.DepositScanner{RPC: e.rpc, Tokens: []chain.Token{{Symbol: "USDC", Address: e.usdc, Decimals: 6}}}
	head, err := s.Head(ctx)
	e.ok(err)
	watched := e.elsewhere
	e.mined(e.payToken(e.usdc, e.buyer, watched, 5_000_000), e.payETH(e.stranger, watched, eth(2)), e.payToken(e.usdc, e.buyer, e.split, 1))
	stats := e.rpc.Stats()
	scan, err := s.Scan(ctx, head+1, 100, watching(func(a string) bool { return common.HexToAddress(a) == watched }))
	e.ok(err)
	// one more request: the ETH transfer's receipt (did it succeed?)
	if n := e.rpc.Stats().Requests - stats.Requests; n != 3 {
		t.Fatalf("%d requests for one block, want 2 + 1 receipt", n)
	}
	if scan.Head != head+1 || scan.To != head+1 || len(scan.Transfers) != 2 || scan.Transfers[0].Token != "USDC" || scan.Transfers[1].Token != "ETH" {
		t.Fatalf("scan %+v", scan)
	}
	stats = e.rpc.Stats()
	if scan, err = s.Scan(ctx, head+2, 100, watching(func(string) bool { return true })); err != nil || scan.To != 0 {
		t.Fatalf("a scan past the head: %+v %v", scan, err)
	}
	if n := e.rpc.Stats().Requests - stats.Requests; n != 1 {
		t.Fatalf("%d requests when no block is new, want 1", n)
	}
}

// watching is a scan's watch that returns watched as it is (no read of open deposits).
func watching(watched func(string) bool) onchain.DepositWatch {
	return func(context.Context) (func(string) bool, error) { return watched, nil }
}
