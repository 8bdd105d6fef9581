package transport

import (
	"encoding/json"
	"net/http"
	"testing"

	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/signer/core/apitypes"

	"github.com/payledger/payledger/chain"
)

// TestLoginWithoutANonceIsNotShadowedByOthersNonces: a login without a nonce tried the wallet's
// 10 newest unused nonces, and anyone may ask for nonces for any wallet, so issuing 10 for a
// victim's wallet between its nonce and its login made that login fail. The nonce a client was
// issued comes back with it (an HttpOnly cookie, as its session will); a login without a nonce
// tries that one first.
func TestLoginWithoutANonceIsNotShadowedByOthersNonces(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	key, _ := crypto.GenerateKey()
	wallet := walletOf(key)
	rec := e.do(req{method: http.MethodPost, path: "/api/auth/nonce", body: `{"wallet":"` + wallet + `"}`})
	if rec.Code != http.StatusOK {
		t.Fatalf("nonce: %d %s", rec.Code, rec.Body)
	}
	var resp struct {
		TypedData apitypes.TypedData `json:"typedData"`
	}
	if err := json.Unmarshal(rec.Body.Bytes(), &resp); err != nil {
		t.Fatal(err)
	}
	var issued []*http.Cookie
	for _, c := range rec.Result().Cookies() {
		if c.Name == "cb_login_nonce" && c.HttpOnly {
			issued = append(issued, c)
		}
	}
	sig, err := chain.SignTypedData(resp.TypedData, key)
	if err != nil {
		t.Fatal(err)
	}
	for range loginCandidates { // someone else asks for nonces for the same wallet meanwhile
		if rec := e.do(req{method: http.MethodPost, path: "/api/auth/nonce", body: `{"wallet":"` + wallet + `"}`,
			remote: "203.0.113.50:4000"}); rec.Code != http.StatusOK {
			t.Fatalf("someone's nonce: %d", rec.Code)
		}
	}
	rec = e.do(req{method: http.MethodPost, path: "/api/auth/login", body: loginBody(wallet, sig), cookies: issued})
	if rec.Code != http.StatusOK {
		t.Fatalf("the wallet's login without a nonce, after %d nonces issued by someone else: %d %s", loginCandidates, rec.Code, rec.Body)
	}
}
