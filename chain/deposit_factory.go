package chain

import (
	"context"
	"fmt"
	"math/big"
	"strings"

	"github.com/ethereum/go-ethereum/accounts/abi/bind"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/payledger/payledger/chain/contracts"
)

// DepositFactoryName is the deposit factory's name in chain_contracts.
const DepositFactoryName = "deposit_factory"

// DeployBackend is what deploying a contract and waiting for it needs of a connection.
type DeployBackend interface {
	bind.ContractBackend
	bind.DeployBackend
}

// DeployDepositFactory deploys a DepositFactory (and, in its constructor, the Deposit
// implementation) from the operator key and waits until it is mined; it returns the factory's
// address, EIP-55. serve calls it once per chain, under pgstore.ChainContract's lock.
func DeployDepositFactory(ctx context.Context, b DeployBackend, operatorKeyHex string, chainID uint64) (string, error) {
	key, err := crypto.HexToECDSA(strings.TrimPrefix(operatorKeyHex, "0x"))
	if err != nil {
		return "", fmt.Errorf("deposit factory: the operator key does not parse")
	}
	auth, err := bind.NewKeyedTransactorWithChainID(key, new(big.Int).SetUint64(chainID))
	if err != nil {
		return "", err
	}
	auth.Context = ctx
	_, tx, _, err := contracts.DeployDepositFactory(auth, b)
	if err != nil {
		return "", fmt.Errorf("deposit factory: deploying: %w", err)
	}
	addr, err := bind.WaitDeployed(ctx, b, tx)
	if err != nil {
		return "", fmt.Errorf("deposit factory: waiting for %s: %w", tx.Hash(), err)
	}
	return addr.Hex(), nil
}
