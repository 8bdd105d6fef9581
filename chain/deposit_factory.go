package chain

import (
	"context"
	"fmt"
	"math/big"
	"strings"

	"github.com/ethereum/go-ethereum/accounts/abi/bind"
	"github.com/ethereum/go-ethereum/common"
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

// CheckDepositFactory reports whether factory is a deposit factory that hands out the addresses
// this service computes off-chain (DepositAddress): a DEPOSIT_FACTORY that names anything else
// (a typo, another chain's factory, a token) would give receipts addresses that no contract can
// ever be deployed to, and whatever a customer paid there could never be swept. It asks the
// factory's own view for one address and compares.
func CheckDepositFactory(ctx context.Context, caller bind.ContractCaller, factory common.Address) error {
	f, err := contracts.NewDepositFactoryCaller(factory, caller)
	if err != nil {
		return err
	}
	const probe = "payledger-deposit-factory-check"
	split := common.HexToAddress("0x000000000000000000000000000000000000dEaD")
	got, err := f.DepositAddress(&bind.CallOpts{Context: ctx}, DepositReceiptKey(probe), split)
	if err != nil {
		return fmt.Errorf("%s is not a deposit factory on this chain: %w", factory.Hex(), err)
	}
	if want := DepositAddress(factory, probe, split); got != want {
		return fmt.Errorf("%s is not this service's deposit factory: it gives %s where this service computes %s", factory.Hex(), got.Hex(), want.Hex())
	}
	return nil
}
