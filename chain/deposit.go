package chain

import (
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
)

// Deposit addresses (DESIGN 9) are computed here off-chain, before anything is deployed, exactly
// as the DepositFactory contract (chain/contracts/DepositFactory.sol) deploys them:
//
//	key            = keccak256(UTF-8 bytes of the receipt id)             DepositReceiptKey
//	salt           = keccak256(abi.encode(key, split))                     (key || 12 zero bytes || split)
//	implementation = CREATE(factory, nonce 1)                              DepositImplementation
//	deposit        = CREATE2(factory, salt, keccak256(EIP-1167 init code of implementation))
//
// The split is part of the salt, so a deposit address admits exactly one split: the contracts
// refuse to move its funds anywhere else.

// eip1167Prefix and eip1167Suffix surround the implementation's address in the 55-byte init code
// of an EIP-1167 minimal proxy, the bytes OpenZeppelin 4.9.6 Clones.cloneDeterministic deploys.
var (
	eip1167Prefix = common.FromHex("0x3d602d80600a3d3981f3363d3d373d3d3d363d73")
	eip1167Suffix = common.FromHex("0x5af43d82803e903d91602b57fd5bf3")
)

// DepositReceiptKey is the bytes32 by which the deposit contracts know a receipt: keccak256 of the
// UTF-8 bytes of its id as the service stores it (e.g. "rcpt_0193..."). Hashing makes any id
// string, of any length, one fixed-size key; the id is unique, so the key is too.
func DepositReceiptKey(receiptID string) common.Hash {
	return crypto.Keccak256Hash([]byte(receiptID))
}

// DepositImplementation is the address of the Deposit contract that the factory at factory
// deployed in its constructor: the factory's first CREATE, at nonce 1 (a contract's nonce starts
// at 1, EIP-161). Every deposit is a clone of it.
func DepositImplementation(factory common.Address) common.Address {
	return crypto.CreateAddress(factory, 1)
}

// DepositSalt is the CREATE2 salt of the deposit of (key, split): keccak256(abi.encode(key, split)),
// as the contracts' depositSalt computes it.
func DepositSalt(key common.Hash, split common.Address) common.Hash {
	return crypto.Keccak256Hash(key.Bytes(), common.LeftPadBytes(split.Bytes(), 32))
}

// DepositAddress is the deposit address of the receipt receiptID paying split, under the factory
// at factory: where the receipt's payer sends funds, deployed or not.
func DepositAddress(factory common.Address, receiptID string, split common.Address) common.Address {
	return DepositAddressOfKey(factory, DepositReceiptKey(receiptID), split)
}

// DepositAddressOfKey is DepositAddress for a receipt key already hashed (DepositReceiptKey).
func DepositAddressOfKey(factory common.Address, key common.Hash, split common.Address) common.Address {
	initCodeHash := crypto.Keccak256(eip1167Prefix, DepositImplementation(factory).Bytes(), eip1167Suffix)
	return crypto.CreateAddress2(factory, DepositSalt(key, split), initCodeHash)
}
