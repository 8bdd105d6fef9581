package chain

import (
	"context"
	"crypto/ecdsa"
	"errors"
	"fmt"
	"math/big"
	"strings"

	"github.com/ethereum/go-ethereum/accounts/abi/bind"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/payledger/payledger/chain/contracts"
	"github.com/payledger/payledger/domain/subscription"
)

// ErrChargeReverted is returned when a transaction of a charge was mined but reverted (the
// customer's balance or ERC-20 approval too low, the permission revoked or spent): the charge
// failed and may be recorded as such.
var ErrChargeReverted = errors.New("charge transaction reverted")

// ChargeBackend is what charging needs of a node: contract calls and transactions, and receipts.
type ChargeBackend interface {
	bind.ContractBackend
	bind.DeployBackend
}

// SpendCharger charges spend permissions from the operator account (DESIGN 8):
// approveWithSignature on first use, spend(permission, amount) to the operator, then the amount
// to the merchant's split contract. Transactions are sent one after the other and each awaited.
type SpendCharger struct {
	key     *ecdsa.PrivateKey
	chainID *big.Int
	backend ChargeBackend
	manager *contracts.SpendPermissionManager
	usdc    *contracts.TestToken // any ERC-20: only transfer is used
}

// NewSpendCharger returns a charger for the operator keyHex (CHAIN_OPERATOR_KEY) on chainID,
// with the manager (SPEND_PERMISSION_MANAGER) and the USDC token.
func NewSpendCharger(keyHex string, chainID int64, b ChargeBackend, manager, usdc string) (*SpendCharger, error) {
	key, err := crypto.HexToECDSA(strings.TrimPrefix(keyHex, "0x"))
	if err != nil {
		return nil, errors.New("chain: the operator key is not a secp256k1 key") // never repeat the key
	}
	if !common.IsHexAddress(manager) || !common.IsHexAddress(usdc) {
		return nil, fmt.Errorf("chain: manager %q and USDC %q must be addresses", manager, usdc)
	}
	m, err := contracts.NewSpendPermissionManager(common.HexToAddress(manager), b)
	if err != nil {
		return nil, err
	}
	t, err := contracts.NewTestToken(common.HexToAddress(usdc), b)
	if err != nil {
		return nil, err
	}
	return &SpendCharger{key: key, chainID: big.NewInt(chainID), backend: b, manager: m, usdc: t}, nil
}

// Operator is the charging account's lower-case address.
func (c *SpendCharger) Operator() string {
	return strings.ToLower(crypto.PubkeyToAddress(c.key.PublicKey).Hex())
}

// Charge moves amount base units from the permission's account to split and returns the
// transaction hashes in the order sent. Errors: ErrChargeReverted (wrapped with the step), the
// permission's ErrInvalid, wrapped node errors (nothing is known to have happened).
func (c *SpendCharger) Charge(ctx context.Context, p subscription.Permission, signature, split string, amount *big.Int) ([]string, error) {
	perm, err := SpendPermissionContract(p)
	if err != nil {
		return nil, err
	}
	sig, err := hexutil.Decode(signature)
	if err != nil {
		return nil, fmt.Errorf("%w: permission signature: %v", subscription.ErrInvalid, err)
	}
	if !common.IsHexAddress(split) {
		return nil, fmt.Errorf("%w: split %q is not an address", subscription.ErrInvalid, split)
	}
	var hashes []string
	approved, err := c.manager.IsApproved(&bind.CallOpts{Context: ctx}, perm)
	if err != nil {
		return nil, fmt.Errorf("isApproved: %w", err)
	}
	steps := []struct {
		name string
		send func(*bind.TransactOpts) (*types.Transaction, error)
	}{
		{"spend", func(o *bind.TransactOpts) (*types.Transaction, error) { return c.manager.Spend(o, perm, amount) }},
		{"transfer to the split", func(o *bind.TransactOpts) (*types.Transaction, error) {
			return c.usdc.Transfer(o, common.HexToAddress(split), amount)
		}},
	}
	if !approved {
		steps = append([]struct {
			name string
			send func(*bind.TransactOpts) (*types.Transaction, error)
		}{{"approveWithSignature", func(o *bind.TransactOpts) (*types.Transaction, error) {
			return c.manager.ApproveWithSignature(o, perm, sig)
		}}}, steps...)
	}
	for _, s := range steps {
		h, err := c.send(ctx, s.name, s.send)
		if h != "" {
			hashes = append(hashes, h)
		}
		if err != nil {
			return hashes, err
		}
	}
	return hashes, nil
}

// send signs and sends one transaction and waits for its receipt. A transaction the node refuses
// in gas estimation would revert: that is ErrChargeReverted too.
func (c *SpendCharger) send(ctx context.Context, name string, f func(*bind.TransactOpts) (*types.Transaction, error)) (string, error) {
	opts, err := bind.NewKeyedTransactorWithChainID(c.key, c.chainID)
	if err != nil {
		return "", err
	}
	opts.Context = ctx
	tx, err := f(opts)
	if err != nil {
		if strings.Contains(err.Error(), "revert") {
			return "", fmt.Errorf("%w: %s: %v", ErrChargeReverted, name, err)
		}
		return "", fmt.Errorf("%s: %w", name, err)
	}
	hash := strings.ToLower(tx.Hash().Hex())
	r, err := bind.WaitMined(ctx, c.backend, tx)
	if err != nil {
		return hash, fmt.Errorf("%s %s: %w", name, hash, err)
	}
	if r.Status != types.ReceiptStatusSuccessful {
		return hash, fmt.Errorf("%w: %s %s", ErrChargeReverted, name, hash)
	}
	return hash, nil
}
