package chain_test

import (
	"context"
	"math/big"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/accounts/abi/bind"
	"github.com/ethereum/go-ethereum/common"

	"github.com/payledger/payledger/chain"
	"github.com/payledger/payledger/chain/contracts"
)

// TestDevChain starts the development chain and uses it only over its HTTP JSON-RPC, as a wallet
// or the service would: chain id, tokens, funded accounts, a payment mined without anyone
// committing, and the follower seeing it paid.
func TestDevChain(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	d, err := chain.StartDevChain(ctx, chain.DevChainOptions{BlockInterval: 500 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := d.Close(); err != nil {
			t.Error(err)
		}
	}()
	if !strings.HasPrefix(d.URL, "http://127.0.0.1:") || len(d.Accounts) != 3 || len(d.Tokens) != 2 {
		t.Fatalf("dev chain %s, %d accounts, %d tokens", d.URL, len(d.Accounts), len(d.Tokens))
	}
	env := strings.Join(d.Env(), "\n")
	for _, want := range []string{"ETH_RPC_URL=" + d.URL, "CHAIN_ID=1337", "CHAIN_TOKENS=USDC=0x", ":6,USDT=0x", "CHAIN_OPERATOR_KEY=", "SPEND_PERMISSION_MANAGER=0x", "DEPOSIT_FACTORY=" + d.DepositFactory.Hex()} {
		if !strings.Contains(env, want) {
			t.Errorf("Env() lacks %q:\n%s", want, env)
		}
	}
	rc, err := chain.Dial(ctx, d.URL, 1337)
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	checkDevFunds(t, rc.Backend(), d, d.Accounts[0].Address)
	if code, err := rc.Backend().CodeAt(ctx, d.SpendPermissionManager, nil); err != nil || len(code) == 0 {
		t.Errorf("no spend-permission manager code at %s: %v", d.SpendPermissionManager, err)
	}
	if code, err := rc.Backend().CodeAt(ctx, d.DepositFactory, nil); err != nil || len(code) == 0 {
		t.Errorf("no deposit factory code at %s: %v", d.DepositFactory, err)
	}
	devPayAndFollow(t, ctx, d, rc)
}

// devPayAndFollow sends a USDC payment over HTTP, sees it mined by the chain itself within a
// few seconds, and finds it at depth 2 as the deposit detector does.
func devPayAndFollow(t *testing.T, ctx context.Context, d *chain.DevChain, rc *chain.RPC) {
	ec := rc.Backend()
	usdc, _ := d.Token("USDC")
	buyer, split := d.Accounts[0], d.Accounts[1].Address // any address receives an ERC-20
	start := time.Now()
	opts, err := bind.NewKeyedTransactorWithChainID(buyer.Key, big.NewInt(chain.DevChainID))
	if err != nil {
		t.Fatal(err)
	}
	tx, err := chain.SendToken(opts, ec, usdc.Address, split, big.NewInt(25_000_000))
	if err != nil {
		t.Fatal(err)
	}
	r, err := ec.TransactionReceipt(ctx, tx.Hash())
	for err != nil && time.Since(start) < 5*time.Second { // bind.WaitMined would poll every second
		time.Sleep(20 * time.Millisecond)
		r, err = ec.TransactionReceipt(ctx, tx.Hash())
	}
	if err != nil || r.Status != 1 {
		t.Fatalf("transfer: %+v, %v", r, err)
	}
	if took := time.Since(start); took > 2*time.Second {
		t.Errorf("mined after %v, want within a few seconds", took)
	}
	t.Logf("transfer mined in block %d after %v", r.BlockNumber, time.Since(start))

	// Followed to its depth as the deposit detector does: the scanner finds the transfer to the
	// watched address, and the chain grows past it on its own.
	scan := chain.DepositScanner{RPC: rc, Tokens: d.Tokens}
	to := strings.ToLower(split.Hex())
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		head, err := scan.Head(ctx)
		if err == nil && head >= r.BlockNumber.Uint64()+1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the chain did not reach depth 2 within 10 s")
		}
	}
	got, err := scan.Scan(ctx, r.BlockNumber.Uint64(), r.BlockNumber.Uint64(), watching(func(a string) bool { return a == to }))
	if err != nil || len(got.Transfers) != 1 || got.Transfers[0].AmountUnits != "25000000" || got.Transfers[0].Token != "USDC" {
		t.Fatalf("scan: %+v, %v", got, err)
	}
	t.Logf("found at depth 2, %v after sending", time.Since(start))
}

func checkDevFunds(t *testing.T, ec *chain.Backend, d *chain.DevChain, a common.Address) {
	t.Helper()
	ctx := context.Background()
	wei, err := ec.BalanceAt(ctx, a, nil)
	if err != nil || wei.Cmp(chain.DevAccountWei) != 0 {
		t.Errorf("ETH balance %v, %v; want %v", wei, err, chain.DevAccountWei)
	}
	for _, tk := range d.Tokens {
		tok, err := contracts.NewTestToken(tk.Address, ec)
		if err != nil {
			t.Fatal(err)
		}
		dec, err := tok.Decimals(nil)
		if err != nil || dec != 6 {
			t.Errorf("%s decimals %d, %v", tk.Symbol, dec, err)
		}
		sym, err := tok.Symbol(nil)
		if err != nil || sym != tk.Symbol {
			t.Errorf("symbol %q, %v; want %s", sym, err, tk.Symbol)
		}
		units, err := tok.BalanceOf(nil, a)
		if err != nil || units.Cmp(chain.DevAccountUnits) != 0 {
			t.Errorf("%s balance %v, %v; want %v", tk.Symbol, units, err, chain.DevAccountUnits)
		}
	}
}

// TestDevChainPortInUse: a busy port is an error, not a panic.
func TestDevChainPortInUse(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	d, err := chain.StartDevChain(ctx, chain.DevChainOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	p, err := strconv.Atoi(d.URL[strings.LastIndex(d.URL, ":")+1:])
	if err != nil {
		t.Fatal(err)
	}
	if d2, err := chain.StartDevChain(ctx, chain.DevChainOptions{Port: p}); err == nil {
		d2.Close()
		t.Fatal("a second chain on the same port started")
	} else {
		t.Logf("second chain on port %d: %v", p, err)
	}
}
