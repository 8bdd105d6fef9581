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
	"github.com/rs/zerolog"

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
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var out, errOut devchainOut
	exit := make(chan int, 1)
	go func() {
		exit <- run(ctx, []string{"devchain", "--port", "0", "--block-interval", "500ms"}, noEnv, &out, &errOut)
	}()
	vars, accounts := readDevchainBanner(t, &out, &errOut)
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
	if bal, err := tok.BalanceOf(nil, common.HexToAddress(accounts[0][1])); err != nil || bal.Cmp(chain.DevAccountUnits) != 0 {
		t.Errorf("dev account USDC %v, %v", bal, err)
	}
	payByCommand(t, ctx, ec, tok, vars, accounts)

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

func noEnv(string) string { return "" }

// readDevchainBanner waits for the devchain's printed variables and accounts.
func readDevchainBanner(t *testing.T, out, errOut *devchainOut) (map[string]string, [][]string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for len(accountRE.FindAllString(out.String(), -1)) < 3 && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
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
	return vars, accounts
}

// payByCommand pays USDC and ETH from the first printed account to the second with `payledger
// devchain pay`, checks the balances, and that bad arguments fail.
func payByCommand(t *testing.T, ctx context.Context, ec *ethclient.Client, tok *contracts.TestToken, vars map[string]string, accounts [][]string) {
	payer, payee := accounts[0][2], common.HexToAddress(accounts[1][1])
	base := []string{"devchain", "pay", "--rpc", vars["ETH_RPC_URL"], "--tokens", vars["CHAIN_TOKENS"], "--to", payee.Hex()}
	pay := func(args ...string) (string, int) {
		var o, e devchainOut
		code := run(ctx, append(append([]string{}, base...), args...), noEnv, &o, &e)
		return o.String() + e.String(), code
	}
	start := time.Now()
	out, code := pay("--key", payer, "--token", "USDC", "--amount", "1234567")
	// The hash is alone on a line of stdout (run may log a development warning before it).
	hash := regexp.MustCompile(`(?m)^0x[0-9a-f]{64}$`).FindString(out)
	if code != 0 || hash == "" {
		t.Fatalf("devchain pay: exit %d\n%s", code, out)
	}
	t.Logf("USDC payment %s mined after %v", hash, time.Since(start))
	if r, err := ec.TransactionReceipt(ctx, common.HexToHash(hash)); err != nil || r.Status != 1 {
		t.Fatalf("receipt %+v, %v", r, err)
	}
	want := new(big.Int).Add(chain.DevAccountUnits, big.NewInt(1234567))
	if bal, err := tok.BalanceOf(nil, payee); err != nil || bal.Cmp(want) != 0 {
		t.Errorf("payee USDC %v, %v; want %v", bal, err, want)
	}
	if out, code := pay("--key", payer, "--token", "ETH", "--amount", "10000000000000000"); code != 0 {
		t.Fatalf("devchain pay ETH: exit %d\n%s", code, out)
	}
	wantWei := new(big.Int).Add(chain.DevAccountWei, big.NewInt(1e16))
	if wei, err := ec.BalanceAt(ctx, payee, nil); err != nil || wei.Cmp(wantWei) != 0 {
		t.Errorf("payee wei %v, %v; want %v", wei, err, wantWei)
	}
	for _, bad := range [][]string{
		{"--amount", "1"}, // no key
		{"--key", payer, "--amount", "1", "--token", "DAI"},
		{"--key", payer, "--amount", "-5"},
	} {
		if out, code := pay(bad...); code == 0 {
			t.Errorf("devchain pay %v: exit 0\n%s", bad, out)
		}
	}
	var o, e devchainOut
	if code := run(ctx, []string{"devchain", "--frobnicate"}, noEnv, &o, &e); code == 0 {
		t.Error("devchain --frobnicate: exit 0")
	}
}

// TestDevchainAutoForServe: serve starts a chain only in development, without ETH_RPC_URL and
// unless DEVCHAIN=off, and points the configuration at it.
func TestDevchainAutoForServe(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	var out devchainOut
	log := zerolog.New(&out)
	for _, c := range []struct {
		name string
		cfg  config
		mode string
	}{
		{"production", config{AppEnv: "production"}, "auto"},
		{"ETH_RPC_URL set", config{AppEnv: "development", EthRPCURL: "http://node:8545"}, "auto"},
		{"DEVCHAIN=off", config{AppEnv: "development"}, "off"},
	} {
		cfg := c.cfg
		if d, err := autoDevChain(ctx, &cfg, c.mode, 0, log, &out); d != nil || err != nil || cfg.EthRPCURL != c.cfg.EthRPCURL {
			t.Errorf("%s: started %v, %v, url %q", c.name, d, err, cfg.EthRPCURL)
		}
	}
	cfg := config{AppEnv: "development", ChainID: 8453}
	d, err := autoDevChain(ctx, &cfg, "auto", 0, log, &out)
	if err != nil || d == nil {
		t.Fatalf("development without ETH_RPC_URL: %v, %v", d, err)
	}
	defer d.Close()
	if cfg.EthRPCURL != d.URL || cfg.ChainID != 1337 || !strings.Contains(out.String(), "ETH_RPC_URL="+d.URL) || cfg.DepositFactory != d.DepositFactory.Hex() {
		t.Errorf("cfg %q %d; printed:\n%s", cfg.EthRPCURL, cfg.ChainID, out.String())
	}
}
