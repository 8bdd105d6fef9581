package main

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/payledger/payledger/chain"
	"github.com/payledger/payledger/internal/syncbuf"
)

// A chain node that did not answer at start is dialed again in the background (dialUntilAnswered);
// the dial that then succeeds checks CHAIN_TOKENS' decimals as the start does. Before stop 68 it
// did not: a USDC configured with 18 decimals went unnoticed when the node was down at start, and
// every amount in USDC was asked 10^12 times too large. Now the wrong entry is logged as an
// error, named, and the chain is not used; with the right decimals the dial returns the node.
func TestTheLateChainDialChecksTokenDecimals(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	vars, usdc := devchainWithUSDC(t, ctx)
	id, err := strconv.ParseInt(vars["CHAIN_ID"], 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	cfgWith := func(tokens string) config {
		parsed, err := chain.ParseTokens(tokens)
		if err != nil {
			t.Fatal(err)
		}
		return config{EthRPCURL: vars["ETH_RPC_URL"], ChainID: id, ChainTokens: parsed}
	}

	var logs syncbuf.Buffer
	wrong := cfgWith(strings.Replace(vars["CHAIN_TOKENS"], usdc[0], "USDC="+usdc[1]+":18", 1))
	dctx, stop := context.WithTimeout(ctx, redialFirst+10*time.Second)
	defer stop()
	rpc, err := dialUntilAnswered(dctx, wrong, zerolog.New(&logs), "deposit detection")
	if rpc != nil || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("the late dial with USDC's decimals wrong returned %v, %v: want no chain until the context ends", rpc, err)
	}
	if !strings.Contains(logs.String(), "USDC at "+usdc[1]+" has 6 decimals, CHAIN_TOKENS says 18") || !strings.Contains(logs.String(), `"level":"error"`) {
		t.Fatalf("no error naming the wrong entry:\n%s", logs.String())
	}

	right, stop2 := context.WithTimeout(ctx, redialFirst+10*time.Second)
	defer stop2()
	rpc, err = dialUntilAnswered(right, cfgWith(vars["CHAIN_TOKENS"]), zerolog.Nop(), "deposit detection")
	if err != nil || rpc == nil {
		t.Fatalf("the late dial with the right decimals: %v", err)
	}
	rpc.Close()
}
