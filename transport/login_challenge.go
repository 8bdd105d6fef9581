package transport

import (
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/ethereum/go-ethereum/signer/core/apitypes"

	"github.com/payledger/payledger/chain"
)

// loginURIField is the field of the login challenge that names the deployment signed in to.
const loginURIField = "uri"

// loginURI is the deployment a login challenge signs in to: the public base URL's origin
// (scheme://host[:port]), as SIWE's uri names it.
func loginURI(publicBaseURL string) string {
	u, err := url.Parse(publicBaseURL)
	if err != nil || u.Host == "" {
		return strings.TrimRight(publicBaseURL, "/")
	}
	return strings.ToLower(u.Scheme) + "://" + strings.ToLower(u.Host)
}

// bindDeployment returns the login document td with the deployment's uri among the fields the
// wallet shows and signs (Login.uri). Without it the challenge named no deployment (name
// "payledger", version, chain id): a page elsewhere could fetch a nonce from this deployment and
// have a wallet sign it, and the signature signed the wallet in here. With it the wallet shows
// which deployment the signature is for, and the login verifies the signature over this
// deployment's uri only: a signature over any other uri (another deployment's challenge, a page's
// own) signs nobody in. A document that is not typed data is returned as it is.
func bindDeployment(doc any, uri string) (apitypes.TypedData, bool) {
	td, ok := doc.(apitypes.TypedData)
	if !ok || len(td.Types[td.PrimaryType]) == 0 {
		return apitypes.TypedData{}, false
	}
	types := make(apitypes.Types, len(td.Types))
	for k, v := range td.Types {
		types[k] = slices.Clone(v)
	}
	types[td.PrimaryType] = append(types[td.PrimaryType], apitypes.Type{Name: loginURIField, Type: "string"})
	msg := make(apitypes.TypedDataMessage, len(td.Message)+1)
	for k, v := range td.Message {
		msg[k] = v
	}
	msg[loginURIField] = uri
	td.Types, td.Message = types, msg
	return td, true
}

// loginChallenge is the document a wallet signs to sign in with nonce n: the signer's EIP-712
// Login bound to this deployment (bindDeployment).
func (s *Server) loginChallenge(wallet, nonce string, issuedAt, expiresAt time.Time) any {
	doc := s.signer.Challenge(wallet, nonce, issuedAt, expiresAt)
	if td, ok := bindDeployment(doc, loginURI(s.cfg.PublicBaseURL)); ok {
		return td
	}
	return doc
}

// loginSigner is the address that signed the login challenge of nonce (loginChallenge).
func (s *Server) loginSigner(wallet, nonce string, issuedAt, expiresAt time.Time, signature string) (string, error) {
	doc := s.signer.Challenge(wallet, nonce, issuedAt, expiresAt)
	if td, ok := bindDeployment(doc, loginURI(s.cfg.PublicBaseURL)); ok {
		return chain.RecoverTypedDataSigner(td, signature)
	}
	return s.signer.Signer(wallet, nonce, issuedAt, expiresAt, signature)
}
