package subscription

import (
	"encoding/hex"
	"fmt"
	"math/big"
	"regexp"
	"strings"
	"time"

	"github.com/payledger/payledger/domain/address"
	"github.com/payledger/payledger/domain/money"
)

// Permission is Coinbase's SpendPermission as the customer signed it (EIP-712, DESIGN.md 8).
// Amounts are decimal strings of base units so that the stored JSON is exact.
type Permission struct {
	Account   string `json:"account"`
	Spender   string `json:"spender"`
	Token     string `json:"token"`
	Allowance string `json:"allowance"` // uint160, token base units per period
	Period    int64  `json:"period"`    // uint48, seconds
	Start     int64  `json:"start"`     // uint48, Unix seconds, inclusive
	End       int64  `json:"end"`       // uint48, Unix seconds, exclusive
	Salt      string `json:"salt"`      // uint256, decimal or 0x hex
	ExtraData string `json:"extraData"` // bytes, 0x hex
}

// Signed is a spend permission's signature as the manager reads it: the wallet that signed, the
// manager's hash of the permission (getHash, 0x hex: the key of its approval and of its
// allowance per period, the same for every spelling of the same values) and the signature in
// the form the manager's ECDSA accepts (65 bytes, low s, v 27 or 28).
type Signed struct {
	Signer    string
	Hash      string
	Signature string
}

// USDCDecimals is the number of decimals of USDC base units.
const USDCDecimals = 6

// MaxExtraDataBytes bounds a permission's extraData. The operator sends it in the calldata of
// the approval and of every spend, and pays for it: unbounded (up to the 1 MiB body), one
// subscription made each charge cost megagas, and past the nodes' 128 KiB transaction size its
// approval could never be sent, leaving a gap at its nonce that held every later operator
// transaction (all charges, deployments and releases) for ever.
const MaxExtraDataBytes = 1024

const maxUint48 = 1<<48 - 1

var (
	maxUint160 = new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), 160), big.NewInt(1))
	maxUint256 = new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), 256), big.NewInt(1))
	bytesRE    = regexp.MustCompile(`^0x([0-9a-fA-F]{2})*$`)
	txHashRE   = regexp.MustCompile(`^0x[0-9a-fA-F]{64}$`)
	digitsRE   = regexp.MustCompile(`^[0-9]+$`)
	hexIntRE   = regexp.MustCompile(`^0x[0-9a-fA-F]+$`)
)

// PlanBinding is the extraData a spend permission for plan planID must carry: the plan id's
// UTF-8 bytes, 0x hex lower-case (plan "plan_1" is 0x706c616e5f31; viem's toHex(planId), ethers'
// hexlify(toUtf8Bytes(planId))). The customer signs it with the rest of the permission, and plan
// ids are unique and never change merchant, so the signature names the merchant it pays: before,
// whoever held a signed permission (extraData 0x) could create it first on another merchant's
// plan of the same price and period, and that merchant was paid every period.
func PlanBinding(planID string) string { return "0x" + hex.EncodeToString([]byte(planID)) }

// SameAddress compares two wallet or contract addresses case-insensitively (EIP-55 checksums
// only differ in case).
func SameAddress(a, b string) bool { return strings.EqualFold(a, b) }

// MaxNumberChars bounds the text of a permission's integers (allowance, salt): a uint256 has 78
// decimal digits (64 hex). Parsing decimal text takes time quadratic in its length: a megabyte of
// digits (the body's bound) took seconds of CPU per request on a public route.
const MaxNumberChars = 80

// ParseUnits reads an amount of token base units: decimal digits only, no sign, no fraction (a
// float or "1e6" would not be exact), at most MaxNumberChars. Errors: ErrInvalid.
func ParseUnits(s string) (*big.Int, error) {
	if len(s) > MaxNumberChars {
		return nil, fmt.Errorf("%w: a number of base units has at most %d digits", ErrInvalid, MaxNumberChars)
	}
	if !digitsRE.MatchString(s) {
		return nil, fmt.Errorf("%w: %q is not a whole number of base units", ErrInvalid, s)
	}
	n, _ := new(big.Int).SetString(s, 10)
	return n, nil
}

// PriceUnits is a USD price in USDC base units: one cent is 10^(USDCDecimals-2) units.
func PriceUnits(c money.Cents) *big.Int {
	return new(big.Int).Mul(big.NewInt(int64(c)), big.NewInt(10_000))
}

// SaltInt is the permission's salt as the uint256 the typed data hashes (at most
// MaxNumberChars of text). Errors: ErrInvalid.
func (p Permission) SaltInt() (*big.Int, error) {
	var n *big.Int
	switch {
	case len(p.Salt) > MaxNumberChars:
		return nil, fmt.Errorf("%w: salt must be at most %d characters", ErrInvalid, MaxNumberChars)
	case digitsRE.MatchString(p.Salt):
		n, _ = new(big.Int).SetString(p.Salt, 10)
	case hexIntRE.MatchString(p.Salt):
		n, _ = new(big.Int).SetString(p.Salt[2:], 16)
	default:
		return nil, fmt.Errorf("%w: salt must be a decimal or 0x-hex integer", ErrInvalid)
	}
	if n.Cmp(maxUint256) > 0 {
		return nil, fmt.Errorf("%w: salt exceeds uint256", ErrInvalid)
	}
	return n, nil
}

// AllowanceInt is the permission's allowance in base units. Errors: ErrInvalid.
func (p Permission) AllowanceInt() (*big.Int, error) {
	n, err := ParseUnits(p.Allowance)
	if err != nil {
		return nil, fmt.Errorf("allowance: %w", err)
	}
	if n.Sign() == 0 || n.Cmp(maxUint160) > 0 {
		return nil, fmt.Errorf("%w: allowance must be between 1 and 2^160-1", ErrInvalid)
	}
	return n, nil
}

// Contains reports whether now lies in the permission's [start, end): the chain refuses a spend
// outside it. Unix() rounds down, which keeps both bounds exact for sub-second times.
func (p Permission) Contains(now time.Time) bool {
	u := now.Unix()
	return u >= p.Start && u < p.End
}

// CheckParties checks that the permission lets spender (the operator account) spend token (USDC),
// comparing addresses case-insensitively. An empty expectation never matches: without an
// operator or a USDC address nothing could be charged. Errors: ErrWrongSpender, ErrWrongToken.
func (p Permission) CheckParties(spender, token string) error {
	if spender == "" || !SameAddress(p.Spender, spender) {
		return fmt.Errorf("%w: got %s", ErrWrongSpender, p.Spender)
	}
	if token == "" || !SameAddress(p.Token, token) {
		return fmt.Errorf("%w: got %s", ErrWrongToken, p.Token)
	}
	return nil
}

// normalized checks the shape the contract enforces (non-zero allowance and period, start before
// end, field widths) and extraData's bound (MaxExtraDataBytes), and returns the permission in one spelling of the values the customer signed:
// lower-case addresses and extraData ("" is "0x"), allowance and salt as plain decimals ("0100"
// is "100", "0x7" and "007" are "7"). Errors: ErrInvalid.
func (p Permission) normalized() (Permission, error) {
	for _, f := range []struct{ name, v string }{{"account", p.Account}, {"spender", p.Spender}, {"token", p.Token}} {
		if !address.Valid(f.v) {
			return p, fmt.Errorf("%w: permissionData.%s must be a 0x-prefixed 40-hex-character address", ErrInvalid, f.name)
		}
	}
	allowance, err := p.AllowanceInt()
	if err != nil {
		return p, err
	}
	if p.Period <= 0 || p.Period > maxUint48 {
		return p, fmt.Errorf("%w: permissionData.period must be between 1 and 2^48-1 seconds", ErrInvalid)
	}
	if p.Start < 0 || p.End > maxUint48 || p.Start >= p.End {
		return p, fmt.Errorf("%w: permissionData.start must be before end, both uint48 Unix seconds", ErrInvalid)
	}
	salt, err := p.SaltInt()
	if err != nil {
		return p, err
	}
	if p.ExtraData == "" {
		p.ExtraData = "0x"
	}
	if !bytesRE.MatchString(p.ExtraData) {
		return p, fmt.Errorf("%w: permissionData.extraData must be 0x-prefixed hex bytes", ErrInvalid)
	}
	if (len(p.ExtraData)-2)/2 > MaxExtraDataBytes {
		return p, fmt.Errorf("%w: permissionData.extraData must be at most %d bytes", ErrInvalid, MaxExtraDataBytes)
	}
	p.Account, p.Spender, p.Token = strings.ToLower(p.Account), strings.ToLower(p.Spender), strings.ToLower(p.Token)
	p.Allowance, p.Salt, p.ExtraData = allowance.String(), salt.String(), strings.ToLower(p.ExtraData)
	return p, nil
}
