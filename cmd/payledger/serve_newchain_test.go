package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/payledger/payledger/migrations/pgtest"
)

// Issue 40: a second `make run` takes payments like the first. serve is stopped, the development
// chain starts afresh (a new genesis, the same CHAIN_ID, its block numbers below the stored
// cursor), serve starts again on the same database: it says so, deploys the deposit factory
// again, the merchant's split is deployed again when asked (as `dev merchant` asks), and a new
// receipt is paid by a plain transfer through to reconciled.
func TestServeNewDevelopmentChainPaysToReconciled(t *testing.T) {
	t.Setenv("DEVCHAIN_ENV_FILE", filepath.Join(t.TempDir(), "devchain.env"))
	ctx := context.Background()
	first := startTestDevchain(t)
	platform := strings.ToLower(crypto.PubkeyToAddress(mustKey(t).PublicKey).Hex())
	serveVars := map[string]string{"DATABASE_URL": pgtest.URL(t), "EMBEDDED_POSTGRES": "off", "PLATFORM_RECIPIENT": platform}
	onChain(serveVars, first.vars)
	base, out, stop := startServeStoppable(t, serveVars)
	t.Cleanup(stop)
	merchantKey := mustKey(t)
	merchant := strings.ToLower(crypto.PubkeyToAddress(merchantKey.PublicKey).Hex())
	apiKey := createKey(t, ctx, serveVars, merchant, "receipts:write,receipts:read,split:read", "e2e")
	c := &e2eClient{t: t, base: base}
	c.login(merchantKey)
	oldSplit := deploySplit(t, c, out.String)
	id, deposit := newDepositReceipt(t, c, apiKey, out.String)
	unpaid, _ := newDepositReceipt(t, c, apiKey, out.String)
	payDepositAndWait(t, c, apiKey, id, deposit, first.vars, first.accounts[0], out.String)
	stop()
	first.stop()

	second := startTestDevchain(t)
	onChain(serveVars, second.vars)
	base, out, stop = startServeStoppable(t, serveVars)
	t.Cleanup(stop)
	if !strings.Contains(out.String(), "a new development chain") || factoryIn(out.String()) == "" {
		t.Fatalf("serve on the new chain did not start afresh:\n%s", out.String())
	}
	c = &e2eClient{t: t, base: base}
	wantChainGone(t, c, base, apiKey, unpaid)
	c.login(merchantKey)
	if newSplit := deploySplit(t, c, out.String); newSplit == oldSplit {
		t.Fatalf("the split %s was not deployed again on the new chain", newSplit)
	}
	id, deposit = newDepositReceipt(t, c, apiKey, out.String)
	payDepositAndWait(t, c, apiKey, id, deposit, second.vars, second.accounts[0], out.String)
	for deadline := time.Now().Add(90 * time.Second); ; time.Sleep(300 * time.Millisecond) {
		if _, m := c.call(http.MethodGet, "/api/receipts/status?receiptId="+id, apiKey, nil); m["status"] == "reconciled" {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("not reconciled on the new chain\n%s", out.String())
		}
	}
}

// testDevchain is a `payledger devchain` run by a test: its banner's variables and accounts.
type testDevchain struct {
	vars     map[string]string
	accounts [][]string
	stop     func() // stops it and waits for its exit
}

func startTestDevchain(t *testing.T) testDevchain {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	var chainOut, chainErr devchainOut
	exit := make(chan int, 1)
	go func() {
		exit <- run(ctx, []string{"devchain", "--port", "0", "--block-interval", "500ms"}, noEnv, &chainOut, &chainErr)
	}()
	stopped := false
	stop := func() {
		if !stopped {
			stopped = true
			cancel()
			<-exit
		}
	}
	t.Cleanup(stop)
	vars, accounts := readDevchainBanner(t, &chainOut, &chainErr)
	return testDevchain{vars: vars, accounts: accounts, stop: stop}
}

// onChain points serve's variables at the devchain's (serve deploys the deposit factory itself).
func onChain(serveVars, chainVars map[string]string) {
	for _, k := range []string{"ETH_RPC_URL", "CHAIN_ID", "CHAIN_TOKENS", "CHAIN_OPERATOR_KEY", "SPEND_PERMISSION_MANAGER"} {
		serveVars[k] = chainVars[k]
	}
}

// deploySplit has serve deploy the signed-in merchant's split (as `dev merchant` does) and
// returns its address.
func deploySplit(t *testing.T, c *e2eClient, logs func() string) string {
	t.Helper()
	code, m := c.call(http.MethodPost, "/api/split/deploy", "", map[string]any{})
	s, _ := m["split"].(map[string]any)
	addr, _ := s["address"].(string)
	if (code != http.StatusOK && code != http.StatusCreated) || !common.IsHexAddress(addr) {
		t.Fatalf("split deploy: %d %v\n%s", code, m, logs())
	}
	return strings.ToLower(addr)
}

// newDepositReceipt creates a 12.50 USD receipt and returns its id and deposit address.
func newDepositReceipt(t *testing.T, c *e2eClient, apiKey string, logs func() string) (string, string) {
	t.Helper()
	order := map[string]any{"lineItems": []map[string]any{{"label": "Coffee", "priceUsd": 12.5}}, "totalUsd": 12.5}
	code, m := c.call(http.MethodPost, "/api/receipts", apiKey, order)
	if code != http.StatusCreated {
		t.Fatalf("create receipt: %d %v", code, m)
	}
	id := findString(m, "receiptId")
	_, m = c.call(http.MethodGet, "/api/receipts/"+id, apiKey, nil)
	r, _ := m["receipt"].(map[string]any)
	deposit, _ := r["depositAddress"].(string)
	if !common.IsHexAddress(deposit) {
		t.Fatalf("receipt without a deposit address: %v\n%s", r, logs())
	}
	return id, deposit
}

// wantChainGone fails unless the receipt's history and payment page say that its deposit address
// is on a chain that is gone.
func wantChainGone(t *testing.T, c *e2eClient, base, apiKey, id string) {
	t.Helper()
	_, h := c.call(http.MethodGet, "/api/receipts/"+id+"/events", apiKey, nil)
	evs, _ := h["events"].([]any)
	var types []string
	for _, e := range evs {
		if m, ok := e.(map[string]any); ok {
			types = append(types, fmt.Sprint(m["type"]))
		}
	}
	if !inOrder(types, "ReceiptGenerated", "DepositChainGone") {
		t.Fatalf("history of a receipt of the old chain: %v", types)
	}
	var body []byte
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(200 * time.Millisecond) { // the page reads the projection
		resp, err := http.Get(base + "/pay/" + id)
		if err != nil {
			t.Fatal(err)
		}
		body, _ = io.ReadAll(resp.Body)
		resp.Body.Close()
		if strings.Contains(string(body), "no longer exists") && !strings.Contains(string(body), `id="pay-title"`) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the page of a receipt of the old chain does not say so:\n%s", body)
		}
	}
}
