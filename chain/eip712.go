// Package chain holds everything that speaks Ethereum: EIP-712 typed data and signature
// recovery (go-ethereum), and later payment verification and spend-permission charging.
package chain

import (
	"crypto/ecdsa"
	"errors"
	"fmt"
	"math/big"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/common/math"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/signer/core/apitypes"
)

// ErrBadSignature is returned for a signature that is malformed or recovers no key.
var ErrBadSignature = errors.New("bad signature")

// LoginDomainName and LoginDomainVersion name the EIP-712 domain of admin login.
const (
	LoginDomainName    = "payledger"
	LoginDomainVersion = "1"
)

// LoginTypedData is the EIP-712 document a wallet signs to log in, ready for
// eth_signTypedData_v4. uri (LoginURI) names the deployment signed in to, among the fields the
// wallet shows and signs (Login.uri, as SIWE's uri; stop 67); "" leaves the field out.
func LoginTypedData(chainID int64, uri, wallet, nonce string, issuedAt, expiresAt time.Time) apitypes.TypedData {
	td := apitypes.TypedData{
		Types: apitypes.Types{
			"EIP712Domain": {{Name: "name", Type: "string"}, {Name: "version", Type: "string"}, {Name: "chainId", Type: "uint256"}},
			"Login": {
				{Name: "wallet", Type: "address"}, {Name: "nonce", Type: "string"},
				{Name: "issuedAt", Type: "uint256"}, {Name: "expiresAt", Type: "uint256"},
			},
		},
		PrimaryType: "Login",
		Domain: apitypes.TypedDataDomain{
			Name: LoginDomainName, Version: LoginDomainVersion,
			ChainId: (*math.HexOrDecimal256)(big.NewInt(chainID)),
		},
		Message: apitypes.TypedDataMessage{
			"wallet":    wallet,
			"nonce":     nonce,
			"issuedAt":  strconv.FormatInt(issuedAt.Unix(), 10),
			"expiresAt": strconv.FormatInt(expiresAt.Unix(), 10),
		},
	}
	if uri != "" {
		td.Types["Login"] = append(td.Types["Login"], apitypes.Type{Name: "uri", Type: "string"})
		td.Message["uri"] = uri
	}
	return td
}

// LoginURI is the deployment a login challenge signs in to: the public base URL's origin
// (scheme://host[:port], lower case), as SIWE's uri names it.
func LoginURI(publicBaseURL string) string {
	u, err := url.Parse(publicBaseURL)
	if err != nil || u.Host == "" {
		return strings.TrimRight(publicBaseURL, "/")
	}
	return strings.ToLower(u.Scheme) + "://" + strings.ToLower(u.Host)
}

// SignTypedData signs td with key as a browser wallet's eth_signTypedData_v4 does: 65 bytes of
// 0x-hex, r, s and v with v 27 or 28 (what RecoverTypedDataSigner reads). The development tools
// sign their logins with it, and tests their logins and spend permissions.
func SignTypedData(td apitypes.TypedData, key *ecdsa.PrivateKey) (string, error) {
	hash, _, err := apitypes.TypedDataAndHash(td)
	if err != nil {
		return "", fmt.Errorf("hash typed data: %w", err)
	}
	sig, err := crypto.Sign(hash, key)
	if err != nil {
		return "", fmt.Errorf("sign typed data: %w", err)
	}
	sig[64] += 27
	return hexutil.Encode(sig), nil
}

// RecoverTypedDataSigner returns the lower-case address that signed td. The signature is 65
// bytes hex (r, s, v) with v either 27/28 or 0/1.
func RecoverTypedDataSigner(td apitypes.TypedData, signatureHex string) (string, error) {
	sig, err := decodeSignature(signatureHex)
	if err != nil {
		return "", err
	}
	signer, _, err := recoverSigner(td, sig)
	return signer, err
}

// secp256k1HalfN is half the order of secp256k1: OpenZeppelin's ECDSA.recover (the spend
// permission manager's signature check) refuses a signature whose s is above it (EIP-2).
var secp256k1HalfN = new(big.Int).Rsh(crypto.S256().Params().N, 1)

// decodeSignature reads 65 bytes of 0x hex (r, s, v) and returns them with v as 0 or 1 (what
// go-ethereum recovers from). Errors: ErrBadSignature (malformed, v not 0, 1, 27 or 28).
func decodeSignature(signatureHex string) ([]byte, error) {
	sig, err := hexutil.Decode(strings.TrimSpace(signatureHex))
	if err != nil || len(sig) != 65 {
		return nil, fmt.Errorf("%w: want 65 bytes of 0x-prefixed hex", ErrBadSignature)
	}
	if sig[64] >= 27 {
		sig[64] -= 27
	}
	if sig[64] > 1 {
		return nil, fmt.Errorf("%w: recovery id must be 0, 1, 27 or 28", ErrBadSignature)
	}
	return sig, nil
}

// recoverSigner returns the lower-case address that made sig (v 0 or 1) over td, and td's hash.
// Errors: ErrBadSignature.
func recoverSigner(td apitypes.TypedData, sig []byte) (string, []byte, error) {
	hash, _, err := apitypes.TypedDataAndHash(td)
	if err != nil {
		return "", nil, fmt.Errorf("hash typed data: %w", err)
	}
	pub, err := crypto.SigToPub(hash, sig)
	if err != nil {
		return "", nil, fmt.Errorf("%w: %v", ErrBadSignature, err)
	}
	return strings.ToLower(crypto.PubkeyToAddress(*pub).Hex()), hash, nil
}

// contractSignature reads a signature an OpenZeppelin ECDSA check must accept and returns it as
// that check reads it: 65 bytes, v 27 or 28 (0 and 1 are rewritten), s in the lower half of the
// curve order. Errors: ErrBadSignature (malformed, v not 0, 1, 27 or 28, s in the upper half).
func contractSignature(signatureHex string) ([]byte, error) {
	sig, err := decodeSignature(signatureHex)
	if err != nil {
		return nil, err
	}
	if new(big.Int).SetBytes(sig[32:64]).Cmp(secp256k1HalfN) > 0 {
		return nil, fmt.Errorf("%w: s is in the upper half of the curve order, which the spend permission manager refuses (EIP-2); sign again with a wallet that makes low-s signatures", ErrBadSignature)
	}
	return sig, nil
}

// Login builds and checks admin-login challenges on one chain, for one deployment: URI
// (LoginURI of the public base URL) is in every challenge, so a signature over a challenge
// without it, or with another deployment's, signs nobody in here. Without it the challenge named
// no deployment (name "payledger", version, chain id): a page elsewhere could fetch a nonce from
// this deployment and have a wallet sign it, and the signature signed the wallet in here.
type Login struct {
	ChainID int64
	URI     string
}

// Challenge returns the EIP-712 document for a login nonce.
func (l Login) Challenge(wallet, nonce string, issuedAt, expiresAt time.Time) any {
	return LoginTypedData(l.ChainID, l.URI, wallet, nonce, issuedAt, expiresAt)
}

// Signer returns the address that signed the challenge of a login nonce.
func (l Login) Signer(wallet, nonce string, issuedAt, expiresAt time.Time, signature string) (string, error) {
	return RecoverTypedDataSigner(LoginTypedData(l.ChainID, l.URI, wallet, nonce, issuedAt, expiresAt), signature)
}
