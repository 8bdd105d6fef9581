package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/big"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/rs/zerolog"

	"github.com/payledger/payledger/chain"
	"github.com/payledger/payledger/commands"
	"github.com/payledger/payledger/settlement"
)

// TestSplitsEnabledWhenTheNodeAnswersLate: ETH_RPC_URL does not answer at serve's start; split
// deployment answers chain_unavailable meanwhile (never "no chain": the address is not required),
// and once the node comes up the background dial enables deployment (and distribution) without
// a restart.
func TestSplitsEnabledWhenTheNodeAnswersLate(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	port := freePort(t)
	opKey, err := crypto.GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	cfg := testServiceConfig(t, map[string]string{"ETH_RPC_URL": fmt.Sprintf("http://127.0.0.1:%d", port), "CHAIN_ID": fmt.Sprint(chain.DevChainID),
		"CHAIN_OPERATOR_KEY": fmt.Sprintf("%x", crypto.FromECDSA(opKey)), "PLATFORM_RECIPIENT": newWalletAddr(t)})
	svc := buildService(t, ctx, cfg, nil, nil) // the node did not answer at start
	ops, deploy := svc.Config.Chain.Operator, svc.Commands.ConfigureSplit
	if ops == nil || svc.Processes.SplitDistributor == nil {
		t.Fatalf("no split chain or distributor without the node: %v %v", ops, svc.Processes.SplitDistributor)
	}
	merchant := newWalletAddr(t)
	if _, err := deploy.Handle(ctx, commands.ConfigureMerchantSplit{Merchant: merchant}); !errors.Is(err, settlement.ErrChainUnavailable) {
		t.Fatalf("deploy before the node answers: %v; want chain_unavailable", err)
	}
	var wg sync.WaitGroup
	defer func() { cancel(); wg.Wait() }()
	wg.Go(func() { _ = svc.Processes.SplitDistributor.Run(ctx) })

	// The node comes up late; the operator is funded there.
	dev, err := chain.StartDevChain(ctx, chain.DevChainOptions{Port: port, BlockInterval: 300 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer dev.Close()
	fund(t, ctx, dev, crypto.PubkeyToAddress(opKey.PublicKey).Hex())
	var st commands.SplitResult
	deadline := time.Now().Add(30 * time.Second)
	for {
		st, err = deploy.Handle(ctx, commands.ConfigureMerchantSplit{Merchant: merchant})
		if err == nil {
			break
		}
		if !errors.Is(err, settlement.ErrChainUnavailable) || time.Now().After(deadline) {
			t.Fatalf("deploy after the node came up: %v", err)
		}
		time.Sleep(200 * time.Millisecond)
	}
	if ok, err := ops.HasCode(ctx, st.State.Address); err != nil || !ok {
		t.Fatalf("no contract at %s: %v", st.State.Address, err)
	}
}

func newWalletAddr(t *testing.T) string {
	t.Helper()
	return strings.ToLower(crypto.PubkeyToAddress(mustKey(t).PublicKey).Hex())
}

// fund sends 10 ETH from the development chain's first account to addr and waits for it.
func fund(t *testing.T, ctx context.Context, dev *chain.DevChain, addr string) {
	t.Helper()
	tr := transfer{key: dev.Accounts[0].Key, to: common.HexToAddress(addr), amount: new(big.Int).Mul(big.NewInt(10), big.NewInt(1e18))}
	if _, err := sendTransfer(ctx, zerolog.Nop(), dev.URL, tr, true, io.Discard); err != nil {
		t.Fatal(err)
	}
}
