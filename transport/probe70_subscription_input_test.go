package transport

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/crypto"

	"github.com/payledger/payledger/chain"
)

// TestProbe70SubscriptionPermissionOfAnotherDomainOrStreamIsRefused: a spend permission signed in
// another EIP-712 domain (another chain id, another manager) recovers another signer and is 400
// invalid_input, creating nothing; a cancellation naming an unknown or absurdly long subscription
// id is a 4xx in the envelope that does not echo the id back.
func TestProbe70SubscriptionPermissionOfAnotherDomainOrStreamIsRefused(t *testing.T) {
	t.Parallel()
	e := newSubEnv(t)
	customerKey, _ := crypto.GenerateKey()
	merchantKey, _ := crypto.GenerateKey()
	customer := walletOf(customerKey)
	planID := e.plan(walletOf(merchantKey), 1000, "MONTHLY", true)
	p := permission(customer, planID)
	cp, err := chain.SpendPermissionContract(p)
	if err != nil {
		t.Fatal(err)
	}
	for name, domain := range map[string]struct {
		chainID int64
		manager string
	}{"another chain": {1, testManager}, "another manager": {8453, testOperator}} {
		sig, err := chain.SignTypedData(chain.SpendPermissionTypedData(domain.chainID, domain.manager, cp), customerKey)
		if err != nil {
			t.Fatal(err)
		}
		code, body := e.create(planID, customer, sig, p)
		if msg, _ := body["message"].(string); code != http.StatusBadRequest || body["error"] != "invalid_input" || !strings.Contains(msg, "not by customerWallet") {
			t.Errorf("%s: %d %v, want 400 invalid_input naming the signer", name, code, body)
		}
	}
	cookies, csrf := e.login(customerKey)
	for name, id := range map[string]string{"unknown": "sub_nope", "a megabyte": strings.Repeat("s", 1<<20-100)} {
		rec := e.do(req{method: http.MethodPost, path: "/api/subscriptions/cancel", cookies: cookies,
			header: map[string]string{CSRFHeader: csrf}, body: fmt.Sprintf(`{"subscriptionId":%q}`, id)})
		body := decode(t, rec)
		msg, _ := body["message"].(string)
		if rec.Code < 400 || rec.Code >= 500 || body["error"] == nil || len(msg) > 1000 {
			t.Errorf("cancel of %s id: %d (message of %d bytes) %.200v", name, rec.Code, len(msg), body)
		}
	}
}
