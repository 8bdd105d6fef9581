package transport

import (
	"encoding/json"
	"net/http"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/signer/core/apitypes"

	"github.com/payledger/payledger/chain"
)

// TestLoginChallengeNamesTheDeployment: the login challenge named no deployment (name
// "payledger", version, chain id), so a signature over it signed the wallet in wherever its nonce
// was issued: a page elsewhere could fetch a nonce here and have the wallet sign a challenge that
// told the wallet's owner nothing of where it signs in. The challenge carries the deployment's
// uri (the public base URL's origin), the wallet signs it, and a login verifies the signature over
// this deployment's uri only.
func TestLoginChallengeNamesTheDeployment(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	key, _ := crypto.GenerateKey()
	wallet := walletOf(key)
	challenge := func() (apitypes.TypedData, string) {
		rec := e.do(req{method: http.MethodPost, path: "/api/auth/nonce", body: `{"wallet":"` + wallet + `"}`})
		if rec.Code != http.StatusOK {
			t.Fatalf("nonce: %d %s", rec.Code, rec.Body)
		}
		var resp struct {
			TypedData apitypes.TypedData `json:"typedData"`
			Nonce     string             `json:"nonce"`
		}
		if err := json.Unmarshal(rec.Body.Bytes(), &resp); err != nil {
			t.Fatal(err)
		}
		return resp.TypedData, resp.Nonce
	}
	login := func(td apitypes.TypedData, nonce string) int {
		sig, err := chain.SignTypedData(td, key)
		if err != nil {
			t.Fatal(err)
		}
		return e.do(req{method: http.MethodPost, path: "/api/auth/login",
			body: `{"wallet":"` + wallet + `","signature":"` + sig + `","nonce":"` + nonce + `"}`}).Code
	}

	td, nonce := challenge()
	if got := td.Message["uri"]; got != "https://pay.example" {
		t.Fatalf("the challenge's uri: %v, want the public base URL's origin https://pay.example", got)
	}
	if !slices.Contains(td.Types["Login"], apitypes.Type{Name: "uri", Type: "string"}) {
		t.Fatalf("Login's types do not sign the uri: %v", td.Types["Login"])
	}
	// The same nonce, signed in a challenge that names no deployment (what a page could present).
	unbound := chain.LoginTypedData(8453, "", wallet, nonce, unix(t, td.Message["issuedAt"]), unix(t, td.Message["expiresAt"]))
	if code := login(unbound, nonce); code != http.StatusUnauthorized {
		t.Fatalf("a signature over the challenge without the deployment: %d, want 401", code)
	}
	other := td
	other.Message = apitypes.TypedDataMessage{}
	for k, v := range td.Message {
		other.Message[k] = v
	}
	other.Message["uri"] = "https://pay.elsewhere.example"
	if code := login(other, nonce); code != http.StatusUnauthorized {
		t.Fatalf("a signature over another deployment's uri: %d, want 401", code)
	}
	if code := login(td, nonce); code != http.StatusOK {
		t.Fatalf("the challenge as served, signed: %d, want 200", code)
	}
}

// unix reads a challenge's time field (decimal Unix seconds).
func unix(t *testing.T, v any) time.Time {
	t.Helper()
	s, _ := v.(string)
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		t.Fatalf("time field %v: %v", v, err)
	}
	return time.Unix(n, 0)
}
