package main

import (
	"bytes"
	"context"
	"fmt"
	"math/big"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/accounts/abi/bind"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/ethclient"

	"github.com/payledger/payledger/chain"
	"github.com/payledger/payledger/chain/contracts"
	"github.com/payledger/payledger/internal/wait"
	"github.com/payledger/payledger/migrations/pgtest"
)

// TestDevchainPayTwiceWhilePendingPaysOnce: `devchain pay <receiptId>` run a second time while
// the first run's transfer is seen but not yet deep enough to count (CHAIN_CONFIRMATIONS=1000
// here, so the receipt stays pending) sends nothing, exits 1 and says the receipt is pending;
// the deposit holds one payment. --again sends another. The second run paid the whole amount
// again: the request asks for what confirmed transfers leave, and an unconfirmed one leaves all.
func TestDevchainPayTwiceWhilePendingPaysOnce(t *testing.T) {
	d := pendingDepositServe(t)
	pay := func(extra ...string) (int, string) {
		var out, errOut bytes.Buffer
		code := run(d.ctx, append([]string{"devchain", "pay", d.id, "--base-url", d.c.base}, extra...), noEnv, &out, &errOut)
		return code, out.String() + errOut.String()
	}
	if code, out := pay(); code != 0 {
		t.Fatalf("first devchain pay: exit %d\n%s", code, out)
	}
	wait.Until(t, "the receipt pending", 60*time.Second, func() bool {
		_, m := d.c.call(http.MethodGet, "/api/portal/"+d.id, "", nil)
		return findString(m["receipt"], "status") == "pending"
	})
	code, out := pay()
	if code != 1 || !strings.Contains(out, "is pending: a payment to it is being confirmed") || !strings.Contains(out, "--again") {
		t.Fatalf("second devchain pay while pending: exit %d (want 1, saying the receipt is pending)\n%s", code, out)
	}
	if got := usdcAt(t, d.vars, d.deposit); got.Int64() != 12_500_000 {
		t.Fatalf("the deposit holds %s USDC base units, want 12500000 (paid once)", got)
	}
	if code, out := pay("--again"); code != 0 {
		t.Fatalf("devchain pay --again: exit %d\n%s", code, out)
	}
	if got := usdcAt(t, d.vars, d.deposit); got.Int64() != 25_000_000 {
		t.Fatalf("after --again the deposit holds %s, want 25000000", got)
	}
}

// pendingDepositServe is newDepositServe with CHAIN_CONFIRMATIONS=1000: a transfer seen stays
// unconfirmed (the receipt pending) for the test's life.
func pendingDepositServe(t *testing.T) *depositServe {
	t.Setenv("DEVCHAIN_ENV_FILE", filepath.Join(t.TempDir(), "devchain.env"))
	d := &depositServe{}
	d.ctx, d.cancel = context.WithCancel(context.Background())
	var chainOut, chainErr devchainOut
	chainExit := make(chan int, 1)
	go func() {
		chainExit <- run(d.ctx, []string{"devchain", "--port", "0", "--block-interval", "500ms"}, noEnv, &chainOut, &chainErr)
	}()
	// The devchain removes DEVCHAIN_ENV_FILE as it stops: waited for before the variable is restored.
	t.Cleanup(func() { d.cancel(); <-chainExit })
	d.vars, d.accounts = readDevchainBanner(t, &chainOut, &chainErr)
	d.serveVars = map[string]string{"DATABASE_URL": pgtest.URL(t), "EMBEDDED_POSTGRES": "off", "CHAIN_CONFIRMATIONS": "1000",
		"PLATFORM_RECIPIENT": strings.ToLower(crypto.PubkeyToAddress(mustKey(t).PublicKey).Hex())}
	for _, k := range []string{"ETH_RPC_URL", "CHAIN_ID", "CHAIN_TOKENS", "CHAIN_OPERATOR_KEY", "SPEND_PERMISSION_MANAGER", "DEPOSIT_FACTORY"} {
		d.serveVars[k] = d.vars[k]
	}
	var base string
	base, d.out, d.stop = startServeStoppable(t, d.serveVars)
	t.Cleanup(d.stop)
	d.c = &e2eClient{t: t, base: base}
	d.merchantWithSplit(t)
	d.generate(t, "")
	return d
}

// usdcAt is what deposit holds of the development chain's USDC.
func usdcAt(t *testing.T, vars map[string]string, deposit string) *big.Int {
	t.Helper()
	tokens, err := chain.ParseTokens(vars["CHAIN_TOKENS"])
	if err != nil {
		t.Fatal(err)
	}
	usdc, _ := chain.FindToken(tokens, "USDC")
	return tokenBalance(t, vars["ETH_RPC_URL"], usdc.Address, common.HexToAddress(deposit))
}

func tokenBalance(t *testing.T, rpcURL string, token, holder common.Address) *big.Int {
	t.Helper()
	ec, err := ethclient.Dial(rpcURL)
	if err != nil {
		t.Fatal(err)
	}
	defer ec.Close()
	tok, err := contracts.NewTestToken(token, ec)
	if err != nil {
		t.Fatal(err)
	}
	b, err := tok.BalanceOf(&bind.CallOpts{}, holder)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestDevchainPayRefusesWhatTheDepositAlreadyHolds: a service that has not seen the first run's
// transfer yet (its receipt still generated: a stand-in here that always says so, on the real
// development chain) does not make a second run pay again: the deposit address already holds
// more than the service counts received, so nothing is sent (exit 1); --again pays.
func TestDevchainPayRefusesWhatTheDepositAlreadyHolds(t *testing.T) {
	t.Parallel()
	dev, envFile := devChainWithEnvFile(t)
	ctx := context.Background()
	usdc, _ := dev.Token("USDC")
	deposit := crypto.PubkeyToAddress(mustKey(t).PublicKey)
	api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		switch r.URL.Path {
		case "/api/portal/rcpt_late":
			fmt.Fprint(w, `{"receipt":{"receiptId":"rcpt_late","totalUsd":12.31,"currency":"USD","status":"generated","amountReceived":null}}`)
		case "/api/portal/rcpt_late/quote":
			fmt.Fprint(w, `{"ok":true,"token":"USDC","amount":"12.31"}`)
		case "/api/portal/rcpt_late/request":
			fmt.Fprintf(w, `{"token":"USDC","amount":"12.31","amountUnits":"12310000","amountRequired":"12.31","decimals":6,"recipient":%q,"tokenAddress":%q}`,
				deposit.Hex(), usdc.Address.Hex())
		default:
			http.NotFound(w, r)
		}
	}))
	defer api.Close()
	pay := func(extra ...string) (int, string) {
		var out, errOut bytes.Buffer
		args := append([]string{"devchain", "pay", "rcpt_late", "--base-url", api.URL, "--env-file", envFile}, extra...)
		code := run(ctx, args, noEnv, &out, &errOut)
		return code, out.String() + errOut.String()
	}
	if code, out := pay(); code != 0 {
		t.Fatalf("first devchain pay: exit %d\n%s", code, out)
	}
	code, out := pay()
	if code != 1 || !strings.Contains(out, "already holds 12310000 base units of USDC the service does not count yet") {
		t.Fatalf("second devchain pay: exit %d (want 1, saying what the deposit holds)\n%s", code, out)
	}
	if got := tokenBalance(t, dev.URL, usdc.Address, deposit); got.Int64() != 12_310_000 {
		t.Fatalf("the deposit holds %s, want 12310000 (paid once)", got)
	}
	if code, out := pay("--again"); code != 0 {
		t.Fatalf("devchain pay --again: exit %d\n%s", code, out)
	}
	if got := tokenBalance(t, dev.URL, usdc.Address, deposit); got.Int64() != 24_620_000 {
		t.Fatalf("after --again the deposit holds %s, want 24620000", got)
	}
}
