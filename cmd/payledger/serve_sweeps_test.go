package main

import (
	"context"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/accounts/abi/bind"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/ethclient"

	"github.com/payledger/payledger/chain/contracts"
	"github.com/payledger/payledger/migrations/pgtest"
)

// Issue 26 through the real binary, to the end: a receipt paid by a plain transfer to its deposit
// address is swept by serve's sweeper and distributed: reconciled, the deposit empty.
func TestServeDepositSweptToReconciled(t *testing.T) {
	t.Setenv("DEVCHAIN_ENV_FILE", filepath.Join(t.TempDir(), "devchain.env"))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var chainOut, chainErr devchainOut
	go func() {
		run(ctx, []string{"devchain", "--port", "0", "--block-interval", "500ms"}, noEnv, &chainOut, &chainErr)
	}()
	vars, accounts := readDevchainBanner(t, &chainOut, &chainErr)
	platform := strings.ToLower(crypto.PubkeyToAddress(mustKey(t).PublicKey).Hex())
	serveVars := map[string]string{"DATABASE_URL": pgtest.URL(t), "EMBEDDED_POSTGRES": "off", "PLATFORM_RECIPIENT": platform}
	for _, k := range []string{"ETH_RPC_URL", "CHAIN_ID", "CHAIN_TOKENS", "CHAIN_OPERATOR_KEY", "SPEND_PERMISSION_MANAGER", "DEPOSIT_FACTORY"} {
		serveVars[k] = vars[k]
	}
	base, serveOut, stopServe := startServeStoppable(t, serveVars)
	t.Cleanup(stopServe)
	c := &e2eClient{t: t, base: base}
	merchantKey := mustKey(t)
	merchant := strings.ToLower(crypto.PubkeyToAddress(merchantKey.PublicKey).Hex())
	apiKey := createKey(t, ctx, serveVars, merchant, "receipts:write,receipts:read,split:read", "e2e")
	c.login(merchantKey)
	if code, m := c.call(http.MethodPost, "/api/split/deploy", "", map[string]any{}); code != http.StatusOK && code != http.StatusCreated {
		t.Fatalf("split deploy: %d %v\n%s", code, m, serveOut.String())
	}
	code, m := c.call(http.MethodPost, "/api/receipts", apiKey, map[string]any{"lineItems": []map[string]any{{"label": "Coffee", "priceUsd": 12.5}}, "totalUsd": 12.5})
	if code != http.StatusCreated {
		t.Fatalf("create receipt: %d %v", code, m)
	}
	id := findString(m, "receiptId")
	_, m = c.call(http.MethodGet, "/api/receipts/"+id, apiKey, nil)
	r, _ := m["receipt"].(map[string]any)
	deposit, _ := r["depositAddress"].(string)
	payDepositAndWait(t, c, apiKey, id, deposit, vars, accounts[0], serveOut.String)
	for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(300 * time.Millisecond) {
		if _, m := c.call(http.MethodGet, "/api/receipts/status?receiptId="+id, apiKey, nil); m["status"] == "reconciled" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("not reconciled\n%s", serveOut.String())
		}
	}
	ec, err := ethclient.Dial(vars["ETH_RPC_URL"])
	if err != nil {
		t.Fatal(err)
	}
	defer ec.Close()
	usdc := common.HexToAddress(strings.Split(strings.Split(vars["CHAIN_TOKENS"], "USDC=")[1], ":")[0])
	tok, err := contracts.NewTestToken(usdc, ec)
	if err != nil {
		t.Fatal(err)
	}
	if b, err := tok.BalanceOf(&bind.CallOpts{Context: ctx}, common.HexToAddress(deposit)); err != nil || b.Sign() != 0 {
		t.Fatalf("the deposit holds %v USDC after reconciliation (%v)", b, err)
	}
}
