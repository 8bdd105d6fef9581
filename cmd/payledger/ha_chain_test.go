package main

import (
	"context"
	"crypto/ecdsa"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/ethereum/go-ethereum/crypto"
)

// The cluster test's chain: one development chain (`payledger devchain`, as `make run` starts one
// inside serve, here shared by both instances), a merchant whose split the service deployed on
// it, and a webhook endpoint (an httptest server) that counts every delivery. A receipt paid on
// it after a fault goes through the background workers: the deposit detector, the receipts
// projector and listeners, the split distributor (the payment reaches `reconciled`), the event
// outbox and the webhook dispatcher.

// haChainVars starts the development chain until the test ends and returns what serve needs to
// use it (the variables `payledger devchain` prints). `payledger devchain pay` finds the chain
// and its funded account through DEVCHAIN_ENV_FILE.
func haChainVars(t *testing.T) []string {
	t.Helper()
	t.Setenv("DEVCHAIN_ENV_FILE", filepath.Join(t.TempDir(), "devchain.env"))
	ctx, cancel := context.WithCancel(context.Background())
	var out, errOut devchainOut
	exit := make(chan int, 1)
	go func() {
		exit <- run(ctx, []string{"devchain", "--port", "0", "--block-interval", "500ms"}, noEnv, &out, &errOut)
	}()
	t.Cleanup(func() { cancel(); <-exit })
	vars, _ := readDevchainBanner(t, &out, &errOut)
	var env []string
	for _, k := range []string{"ETH_RPC_URL", "CHAIN_ID", "CHAIN_TOKENS", "CHAIN_OPERATOR_KEY", "SPEND_PERMISSION_MANAGER", "DEPOSIT_FACTORY"} {
		env = append(env, k+"="+vars[k])
	}
	return env
}

// haOnChain signs the merchant of wallet key in through the proxy, has the service deploy its
// split on the chain and registers hooks as its endpoint for status changes.
func haOnChain(t *testing.T, base string, key *haMerchantKey, hooks *haHooks) {
	t.Helper()
	c := &e2eClient{t: t, base: base}
	c.login(key.wallet)
	if code, m := c.call(http.MethodPost, "/api/split/deploy", "", map[string]any{}); code != http.StatusOK && code != http.StatusCreated {
		t.Fatalf("split deploy: %d %v", code, m)
	}
	receiver := httptest.NewServer(hooks)
	t.Cleanup(receiver.Close)
	// Status changes only: the order load's receipts are created, never paid, and would otherwise
	// send thousands of receipt.created events.
	if code, m := c.call(http.MethodPost, "/api/webhooks/endpoints", "", map[string]any{
		"url": receiver.URL + "/hook", "events": []string{"receipt.status_updated"}}); code != http.StatusCreated {
		t.Fatalf("register the webhook endpoint: %d %v", code, m)
	}
}

// haMerchantKey is the test merchant's wallet: it signs in.
type haMerchantKey struct {
	wallet  *ecdsa.PrivateKey
	address string
}

// newHAMerchantKey makes a wallet for the merchant.
func newHAMerchantKey(t *testing.T) *haMerchantKey {
	k := mustKey(t)
	return &haMerchantKey{wallet: k, address: strings.ToLower(crypto.PubkeyToAddress(k.PublicKey).Hex())}
}

// haHooks is the merchant's webhook endpoint: it records each delivery's webhook-id under its
// receipt and status, and answers 200.
type haHooks struct {
	mu         sync.Mutex
	deliveries map[string]int      // webhook-id -> deliveries
	events     map[string][]string // "receiptId status" -> webhook-ids, one per delivery
}

func newHAHooks() *haHooks {
	return &haHooks{deliveries: map[string]int{}, events: map[string][]string{}}
}

func (h *haHooks) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var m struct {
		Data struct {
			ReceiptID string `json:"receiptId"`
			Status    string `json:"status"`
		} `json:"data"`
	}
	_ = json.NewDecoder(http.MaxBytesReader(w, r.Body, 1<<20)).Decode(&m)
	h.mu.Lock()
	defer h.mu.Unlock()
	id := r.Header.Get("webhook-id")
	h.deliveries[id]++
	k := m.Data.ReceiptID + " " + m.Data.Status
	h.events[k] = append(h.events[k], id)
	w.WriteHeader(http.StatusOK)
}

// of is the webhook-ids delivered for receipt's status, one per delivery.
func (h *haHooks) of(receipt, status string) []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return slices.Clone(h.events[receipt+" "+status])
}

// once checks that receipt's change to each status was delivered exactly once: one event, one
// delivery of it.
func (h *haHooks) once(receipt string, statuses ...string) error {
	for _, s := range statuses {
		if ids := h.of(receipt, s); len(ids) != 1 {
			return fmt.Errorf("receipt %s: %d deliveries of its %s event (webhook-ids %v), want 1", receipt, len(ids), s, ids)
		}
	}
	return nil
}

// duplicates lists the webhook-ids delivered more than once.
func (h *haHooks) duplicates() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	var out []string
	for id, n := range h.deliveries {
		if n > 1 {
			out = append(out, fmt.Sprintf("%s x%d", id, n))
		}
	}
	return out
}

// haPayOnChain pays receipt id through the proxy as a phone wallet does (`payledger devchain pay`).
func haPayOnChain(ctx context.Context, base, id string) error {
	var out, errOut syncBuffer
	if code := run(ctx, []string{"devchain", "pay", id, "--base-url", base}, noEnv, &out, &errOut); code != 0 {
		return fmt.Errorf("devchain pay %s: exit %d\n%s\n%s", id, code, out.String(), errOut.String())
	}
	return nil
}
