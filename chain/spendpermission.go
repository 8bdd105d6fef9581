package chain

import (
	"fmt"
	"math/big"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/common/math"
	"github.com/ethereum/go-ethereum/signer/core/apitypes"

	"github.com/payledger/payledger/chain/contracts"
	"github.com/payledger/payledger/domain/subscription"
)

// The EIP-712 domain of Coinbase's spend-permission manager (DESIGN.md 8).
const (
	SpendPermissionDomainName    = "Spend Permission Manager"
	SpendPermissionDomainVersion = "1"
)

// SpendPermissionContract converts a permission as the API receives it into the manager's
// struct. Errors: subscription.ErrInvalid (malformed field, wrapped with which).
func SpendPermissionContract(p subscription.Permission) (contracts.SpendPermissionManagerSpendPermission, error) {
	var out contracts.SpendPermissionManagerSpendPermission
	for _, f := range [...]struct{ name, a string }{{"account", p.Account}, {"spender", p.Spender}, {"token", p.Token}} {
		if !common.IsHexAddress(f.a) {
			return out, fmt.Errorf("%w: %s %q is not an address", subscription.ErrInvalid, f.name, f.a)
		}
	}
	allowance, err := p.AllowanceInt()
	if err != nil {
		return out, err
	}
	salt, err := p.SaltInt()
	if err != nil {
		return out, err
	}
	extra := []byte{}
	if p.ExtraData != "" && p.ExtraData != "0x" {
		if extra, err = hexutil.Decode(p.ExtraData); err != nil {
			return out, fmt.Errorf("%w: extraData: %v", subscription.ErrInvalid, err)
		}
	}
	return contracts.SpendPermissionManagerSpendPermission{
		Account: common.HexToAddress(p.Account), Spender: common.HexToAddress(p.Spender), Token: common.HexToAddress(p.Token),
		Allowance: allowance, Period: big.NewInt(p.Period), Start: big.NewInt(p.Start), End: big.NewInt(p.End),
		Salt: salt, ExtraData: extra,
	}, nil
}

// SpendPermissionTypedData is the EIP-712 document a wallet signs to approve p
// (eth_signTypedData_v4): SpendPermission in the manager's domain on chainID.
func SpendPermissionTypedData(chainID int64, manager string, p contracts.SpendPermissionManagerSpendPermission) apitypes.TypedData {
	dec := func(n *big.Int) *math.HexOrDecimal256 { return (*math.HexOrDecimal256)(new(big.Int).Set(n)) }
	return apitypes.TypedData{
		Types: apitypes.Types{
			"EIP712Domain": {
				{Name: "name", Type: "string"}, {Name: "version", Type: "string"},
				{Name: "chainId", Type: "uint256"}, {Name: "verifyingContract", Type: "address"},
			},
			"SpendPermission": {
				{Name: "account", Type: "address"}, {Name: "spender", Type: "address"},
				{Name: "token", Type: "address"}, {Name: "allowance", Type: "uint160"},
				{Name: "period", Type: "uint48"}, {Name: "start", Type: "uint48"},
				{Name: "end", Type: "uint48"}, {Name: "salt", Type: "uint256"},
				{Name: "extraData", Type: "bytes"},
			},
		},
		PrimaryType: "SpendPermission",
		Domain: apitypes.TypedDataDomain{
			Name: SpendPermissionDomainName, Version: SpendPermissionDomainVersion,
			ChainId: dec(big.NewInt(chainID)), VerifyingContract: common.HexToAddress(manager).Hex(),
		},
		Message: apitypes.TypedDataMessage{
			"account": p.Account.Hex(), "spender": p.Spender.Hex(), "token": p.Token.Hex(),
			"allowance": dec(p.Allowance), "period": dec(p.Period), "start": dec(p.Start), "end": dec(p.End),
			"salt": dec(p.Salt), "extraData": hexutil.Encode(p.ExtraData),
		},
	}
}

// SpendPermissions recovers who signed a spend permission on one chain and manager.
type SpendPermissions struct {
	ChainID int64
	Manager string // SPEND_PERMISSION_MANAGER
}

// Verify recovers the lower-case address that signed p and returns it with the manager's hash
// of p (getHash: the same for every spelling of the same values) and the signature as the
// manager's ECDSA check reads it (v 0 or 1 rewritten to 27 or 28). A signature that check would
// refuse is refused here, so that nothing is accepted that can never be charged. Errors:
// subscription.ErrInvalid (malformed permission), ErrBadSignature (malformed, v not 0, 1, 27 or
// 28, s in the upper half of the curve order).
func (s SpendPermissions) Verify(p subscription.Permission, signature string) (subscription.Signed, error) {
	cp, err := SpendPermissionContract(p)
	if err != nil { // the error names the request's field that is wrong
		return subscription.Signed{}, fmt.Errorf("permissionData: %w", err)
	}
	sig, err := contractSignature(signature)
	if err != nil {
		return subscription.Signed{}, fmt.Errorf("permissionSignature: %w", err)
	}
	signer, hash, err := recoverSigner(SpendPermissionTypedData(s.ChainID, s.Manager, cp), sig)
	if err != nil {
		return subscription.Signed{}, fmt.Errorf("permissionSignature: %w", err)
	}
	sig[64] += 27
	return subscription.Signed{Signer: signer, Hash: hexutil.Encode(hash), Signature: hexutil.Encode(sig)}, nil
}
