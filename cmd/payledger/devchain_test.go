package main

import (
	"bytes"
	"context"
	"math/big"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/ethclient"

	"github.com/payledger/payledger/chain"
	"github.com/payledger/payledger/chain/contracts"
)

// devchainOut is a buffer the command writes to while the test reads it.
type devchainOut struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (o *devchainOut) Write(p []byte) (int, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.b.Write(p)
}

func (o *devchainOut) String() string {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.b.String()
}

var (
	envLineRE = regexp.MustCompile(`(?m)^([A-Z_]+)=(\S+)$`)
	accountRE = regexp.MustCompile(`(?m)^#\s+(0x[0-9a-fA-F]{40})\s+key (0x[0-9a-f]{64})$`)
)

// TestDevchainCommandAndPay runs `payledger devchain` on a free port, reads the variables and
// accounts it prints, pays USDC and ETH with `payledger devchain pay`, checks the balances over
// JSON-RPC, and stops the chain as a signal would.
func TestDevchainCommandAndPay(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	getenv := func(string) string { return "" }
	var out, errOut devchainOut
	exit := make(chan int, 1)
	go func() {
		exit <- run(ctx, []string{"devchain", "--port", "0", "--block-interval", "500ms"}, getenv, &out, &errOut)
	}()

	deadline := time.Now().Add(30 * time.Second)
	for !strings.Contains(out.String(), " key 0x") && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	time.Sleep(50 * time.Millisecond) // the last account lines
	vars := map[string]string{}
	for _, m := range envLineRE.FindAllStringSubmatch(out.String(), -1) {
		vars[m[1]] = m[2]
	}
	accounts := accountRE.FindAllStringSubmatch(out.String(), -1)
	if vars["ETH_RPC_URL"] == "" || vars["CHAIN_ID"] != "1337" || len(accounts) != 3 {
		t.Fatalf("devchain printed:\n%s\nstderr:\n%s", out.String(), errOut.String())
	}
	if !strings.Contains(errOut.String(), "state (payments, splits, balances) is lost when it stops") {
		t.Errorf("no warning that state is lost:\n%s", errOut.String())
	}
	for _, name := range []string{"CHAIN_TOKENS", "CHAIN_OPERATOR_KEY", "SPEND_PERMISSION_MANAGER"} {
		if vars[name] == "" {
			t.Errorf("%s not printed", name)
		}
	}
	ec, err := ethclient.DialContext(ctx, vars["ETH_RPC_URL"])
	if err != nil {
		t.Fatal(err)
	}
	defer ec.Close()
	if id, err := ec.ChainID(ctx); err != nil || id.Int64() != 1337 {
		t.Fatalf("chain id %v, %v", id, err)
	}
	tokens, err := chain.ParseTokens(vars["CHAIN_TOKENS"])
	if err != nil {
		t.Fatal(err)
	}
	usdc, _ := chain.FindToken(tokens, "USDC")
	tok, err := contracts.NewTestToken(usdc.Address, ec)
	if err != nil {
		t.Fatal(err)
	}
	if dec, err := tok.Decimals(nil); err != nil || dec != 6 {
		t.Errorf("USDC decimals %d, %v", dec, err)
	}
	payer, payee := accounts[0], common.HexToAddress(accounts[1][1])
	if bal, err := tok.BalanceOf(nil, common.HexToAddress(payer[1])); err != nil || bal.Cmp(chain.DevAccountUnits) != 0 {
		t.Errorf("dev account USDC %v, %v", bal, err)
	}

	pay := func(args ...string) string {
		t.Helper()
		var o, e devchainOut
		base := []string{"devchain", "pay", "--rpc", vars["ETH_RPC_URL"], "--tokens", vars["CHAIN_TOKENS"], "--key", payer[2], "--to", payee.Hex()}
		if code := run(ctx, append(base, args...), getenv, &o, &e); code != 0 {
			t.Fatalf("devchain pay %v: exit %d\n%s%s", args, code, o.String(), e.String())
		}
		return o.String()
	}
	start := time.Now()
	// The hash is stdout's last line (run may log a development warning before it).
	lines := strings.Split(strings.TrimSpace(pay("--token", "USDC", "--amount", "1234567")), "\n")
	hash := lines[len(lines)-1]
	if !regexp.MustCompile(`^0x[0-9a-f]{64}$`).MatchString(hash) {
		t.Fatalf("pay printed %q, want the hash", hash)
	}
	t.Logf("USDC payment %s mined after %v", hash, time.Since(start))
	r, err := ec.TransactionReceipt(ctx, common.HexToHash(hash))
	if err != nil || r.Status != 1 {
		t.Fatalf("receipt %+v, %v", r, err)
	}
	want := new(big.Int).Add(chain.DevAccountUnits, big.NewInt(1234567))
	if bal, err := tok.BalanceOf(nil, payee); err != nil || bal.Cmp(want) != 0 {
		t.Errorf("payee USDC %v, %v; want %v", bal, err, want)
	}
	pay("--token", "ETH", "--amount", "10000000000000000")
	wantWei := new(big.Int).Add(chain.DevAccountWei, big.NewInt(1e16))
	if wei, err := ec.BalanceAt(ctx, payee, nil); err != nil || wei.Cmp(wantWei) != 0 {
		t.Errorf("payee wei %v, %v; want %v", wei, err, wantWei)
	}

	for _, bad := range [][]string{
		{"devchain", "pay", "--rpc", vars["ETH_RPC_URL"], "--to", payee.Hex(), "--amount", "1"},
		{"devchain", "pay", "--rpc", vars["ETH_RPC_URL"], "--key", payer[2], "--to", payee.Hex(), "--amount", "1", "--token", "DAI", "--tokens", vars["CHAIN_TOKENS"]},
		{"devchain", "pay", "--rpc", vars["ETH_RPC_URL"], "--key", payer[2], "--to", payee.Hex(), "--amount", "-5", "--tokens", vars["CHAIN_TOKENS"]},
		{"devchain", "--frobnicate"},
	} {
		var o, e devchainOut
		if code := run(ctx, bad, getenv, &o, &e); code == 0 {
			t.Errorf("%v: exit 0", bad)
		}
	}

	cancel()
	select {
	case code := <-exit:
		if code != 0 {
			t.Errorf("devchain exit %d:\n%s", code, errOut.String())
		}
	case <-time.After(10 * time.Second):
		t.Fatal("devchain did not stop")
	}
}
