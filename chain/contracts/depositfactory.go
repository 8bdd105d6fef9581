// Code generated - DO NOT EDIT.
// This file is a generated binding and any manual changes will be lost.

package contracts

import (
	"context"
	"errors"
	"math/big"
	"strings"
	"time"

	ethereum "github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/accounts/abi/bind"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/event"
)

// Reference imports to suppress errors if they are not otherwise used.
var (
	_ = errors.New
	_ = big.NewInt
	_ = strings.NewReader
	_ = ethereum.NotFound
	_ = bind.Bind
	_ = common.Big1
	_ = types.BloomLookup
	_ = event.NewSubscription
	_ = abi.ConvertType
	_ = time.Tick
	_ = context.Background
)

// DepositFactoryDepositKey is an auto generated low-level Go binding around an user-defined struct.
type DepositFactoryDepositKey struct {
	ReceiptId [32]byte
	Split     common.Address
}

// DepositFactoryMetaData contains all meta data concerning the DepositFactory contract.
var DepositFactoryMetaData = &bind.MetaData{
	ABI: "[{\"inputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"constructor\"},{\"inputs\":[],\"name\":\"OutOfGas\",\"type\":\"error\"},{\"inputs\":[],\"name\":\"ZeroSplit\",\"type\":\"error\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":true,\"internalType\":\"bytes32\",\"name\":\"receiptId\",\"type\":\"bytes32\"},{\"indexed\":true,\"internalType\":\"address\",\"name\":\"split\",\"type\":\"address\"},{\"indexed\":true,\"internalType\":\"address\",\"name\":\"deposit\",\"type\":\"address\"}],\"name\":\"DepositDeployed\",\"type\":\"event\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":true,\"internalType\":\"bytes32\",\"name\":\"receiptId\",\"type\":\"bytes32\"},{\"indexed\":true,\"internalType\":\"address\",\"name\":\"deposit\",\"type\":\"address\"},{\"indexed\":true,\"internalType\":\"address\",\"name\":\"token\",\"type\":\"address\"},{\"indexed\":false,\"internalType\":\"bytes\",\"name\":\"reason\",\"type\":\"bytes\"}],\"name\":\"SweepFailed\",\"type\":\"event\"},{\"inputs\":[{\"internalType\":\"bytes32\",\"name\":\"receiptId\",\"type\":\"bytes32\"},{\"internalType\":\"address\",\"name\":\"split\",\"type\":\"address\"}],\"name\":\"depositAddress\",\"outputs\":[{\"internalType\":\"address\",\"name\":\"\",\"type\":\"address\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"implementation\",\"outputs\":[{\"internalType\":\"address\",\"name\":\"\",\"type\":\"address\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"components\":[{\"internalType\":\"bytes32\",\"name\":\"receiptId\",\"type\":\"bytes32\"},{\"internalType\":\"address\",\"name\":\"split\",\"type\":\"address\"}],\"internalType\":\"structDepositFactory.DepositKey[]\",\"name\":\"deposits\",\"type\":\"tuple[]\"},{\"internalType\":\"address[]\",\"name\":\"tokens\",\"type\":\"address[]\"}],\"name\":\"sweep\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"}]",
	Bin: "0x60a060405234801561000f575f80fd5b5060405161001c90610047565b604051809103905ff080158015610035573d5f803e3d5ffd5b506001600160a01b0316608052610054565b6105cf806108b483390190565b6080516108346100805f395f8181605d0152818161011c0152818161018d01526101ca01526108345ff3fe608060405234801561000f575f80fd5b506004361061003f575f3560e01c806308245c8a146100435780635c60da1b146100585780637b1603b01461009b575b5f80fd5b610056610051366004610616565b6100ae565b005b61007f7f000000000000000000000000000000000000000000000000000000000000000081565b6040516001600160a01b03909116815260200160405180910390f35b61007f6100a93660046106ee565b610116565b5f5b8381101561010f576101078585838181106100cd576100cd610718565b9050604002015f01358686848181106100e8576100e8610718565b9050604002016020016020810190610100919061072c565b8585610153565b6001016100b0565b5050505050565b5f61014a7f00000000000000000000000000000000000000000000000000000000000000006101458585610433565b610477565b90505b92915050565b6001600160a01b03831661017a576040516347a9c11160e01b815260040160405180910390fd5b5f6101858585610433565b90505f6101b27f000000000000000000000000000000000000000000000000000000000000000083610477565b9050806001600160a01b03163b5f03610232576101ef7f0000000000000000000000000000000000000000000000000000000000000000836104d6565b50806001600160a01b0316856001600160a01b0316877f88f33351f3c6e44bfd7440e4d811aec3f9841ceea33068f01dceb99e24ddb56d60405160405180910390a45b805f5b8481101561035f575f5a9050826001600160a01b03166336ce4af28a8a8a8a8781811061026457610264610718565b9050602002016020810190610279919061072c565b6040516001600160e01b031960e086901b16815260048101939093526001600160a01b0391821660248401521660448201526064016020604051808303815f875af19250505080156102e8575060408051601f3d908101601f191682019092526102e591810190610745565b60015b610354573d808015610315576040519150601f19603f3d011682016040523d82523d5f602084013e61031a565b606091505b5061034e828b878b8b8881811061033357610333610718565b9050602002016020810190610348919061072c565b85610574565b50610356565b505b50600101610235565b506001600160a01b038216311561042a575f5a604051637e0ad84b60e01b8152600481018a90526001600160a01b03898116602483015291925090831690637e0ad84b906044016020604051808303815f875af19250505080156103e0575060408051601f3d908101601f191682019092526103dd91810190610745565b60015b610426573d80801561040d576040519150601f19603f3d011682016040523d82523d5f602084013e610412565b606091505b50610420828a865f85610574565b50610428565b505b505b50505050505050565b5f82826040516020016104599291909182526001600160a01b0316602082015260400190565b60405160208183030381529060405280519060200120905092915050565b6040513060388201526f5af43d82803e903d91602b57fd5bf3ff602482015260148101839052733d602d80600a3d3981f3363d3d373d3d3d363d738152605881018290526037600c820120607882015260556043909101205f9061014a565b5f763d602d80600a3d3981f3363d3d373d3d3d363d730000008360601b60e81c175f526e5af43d82803e903d91602b57fd5bf38360781b1760205281603760095ff590506001600160a01b03811661014d5760405162461bcd60e51b815260206004820152601760248201527f455243313136373a2063726561746532206661696c6564000000000000000000604482015260640160405180910390fd5b61057f60408661075c565b5a1115806105a557506377ebef4d60e01b6105998261077b565b6001600160e01b031916145b156105c3576040516377ebef4d60e01b815260040160405180910390fd5b816001600160a01b0316836001600160a01b0316857f33b25da24761f5ff498de774775d1c4cb8fd6e28705e5a44de5e8abbe0b9e7608460405161060791906107b2565b60405180910390a45050505050565b5f805f8060408587031215610629575f80fd5b843567ffffffffffffffff80821115610640575f80fd5b818701915087601f830112610653575f80fd5b813581811115610661575f80fd5b8860208260061b8501011115610675575f80fd5b60209283019650945090860135908082111561068f575f80fd5b818701915087601f8301126106a2575f80fd5b8135818111156106b0575f80fd5b8860208260051b85010111156106c4575f80fd5b95989497505060200194505050565b80356001600160a01b03811681146106e9575f80fd5b919050565b5f80604083850312156106ff575f80fd5b8235915061070f602084016106d3565b90509250929050565b634e487b7160e01b5f52603260045260245ffd5b5f6020828403121561073c575f80fd5b61014a826106d3565b5f60208284031215610755575f80fd5b5051919050565b5f8261077657634e487b7160e01b5f52601260045260245ffd5b500490565b805160208201516001600160e01b031980821692919060048310156107aa5780818460040360031b1b83161693505b505050919050565b5f602080835283518060208501525f5b818110156107de578581018301518582016040015282016107c2565b505f604082860101526040601f19601f830116850101925050509291505056fea2646970667358221220d96068530c542b2b20927db90bb1768c755dbe4348692fd421ade57a3cce948764736f6c6343000818003360c060405234801561000f575f80fd5b50336080523060a05260805160a05161058a6100455f395f8181608f01526102a601525f818160f901526102d4015261058a5ff3fe608060405260043610610041575f3560e01c806336ce4af21461004c5780635c60da1b1461007e5780637e0ad84b146100c9578063c45a0155146100e8575f80fd5b3661004857005b5f80fd5b348015610057575f80fd5b5061006b6100663660046104d2565b61011b565b6040519081526020015b60405180910390f35b348015610089575f80fd5b506100b17f000000000000000000000000000000000000000000000000000000000000000081565b6040516001600160a01b039091168152602001610075565b3480156100d4575f80fd5b5061006b6100e336600461050b565b61019f565b3480156100f3575f80fd5b506100b17f000000000000000000000000000000000000000000000000000000000000000081565b5f6101268484610279565b61012f8261038b565b9050805f0361013f57505f610198565b816001600160a01b0316836001600160a01b0316857fb54a956efa2885f605a691ebaa631db09ff8be97e46f62d97806ce1e88940e298460405161018591815260200190565b60405180910390a46101988284836103c7565b9392505050565b5f6101aa8383610279565b479050805f036101bb57505f610273565b5f6001600160a01b0316826001600160a01b0316847fb54a956efa2885f605a691ebaa631db09ff8be97e46f62d97806ce1e88940e298460405161020191815260200190565b60405180910390a45f5a90505f805f805f86885af190508061027057610228604083610535565b5a11610247576040516377ebef4d60e01b815260040160405180910390fd5b604051635364281360e11b81526001600160a01b03851660048201526024015b60405180910390fd5b50505b92915050565b6001600160a01b0381166102a0576040516347a9c11160e01b815260040160405180910390fd5b5f6103497f00000000000000000000000000000000000000000000000000000000000000006102cf8585610425565b6040517f000000000000000000000000000000000000000000000000000000000000000060388201526f5af43d82803e903d91602b57fd5bf3ff60248201526014810192909252733d602d80600a3d3981f3363d3d373d3d3d363d73825260588201526037600c8201206078820152605560439091012090565b90506001600160a01b03811630146103865760405163694f8fdb60e11b8152600481018490526001600160a01b0383166024820152604401610267565b505050565b5f805a90505f6370a082315f523060205260205f6024601c875afa5f519350601f3d11169050806103c0576103c08285610469565b5050919050565b5f5a90505f60405163a9059cbb60e01b81528460048201528360248201525f805260205f6044835f8a5af191505060015f5114601f3d11165f863b113d15168082178316925050508061041e5761041e8286610469565b5050505050565b5f828260405160200161044b9291909182526001600160a01b0316602082015260400190565b60405160208183030381529060405280519060200120905092915050565b610474604083610535565b5a11610493576040516377ebef4d60e01b815260040160405180910390fd5b604051633fb2da6d60e21b81526001600160a01b0382166004820152602401610267565b80356001600160a01b03811681146104cd575f80fd5b919050565b5f805f606084860312156104e4575f80fd5b833592506104f4602085016104b7565b9150610502604085016104b7565b90509250925092565b5f806040838503121561051c575f80fd5b8235915061052c602084016104b7565b90509250929050565b5f8261054f57634e487b7160e01b5f52601260045260245ffd5b50049056fea2646970667358221220b726ab7a759af1200b7c38304815012867c95a7bd889f57df461fba256c18f9f64736f6c63430008180033",
}

// DepositFactoryABI is the input ABI used to generate the binding from.
// Deprecated: Use DepositFactoryMetaData.ABI instead.
var DepositFactoryABI = DepositFactoryMetaData.ABI

// DepositFactoryBin is the compiled bytecode used for deploying new contracts.
// Deprecated: Use DepositFactoryMetaData.Bin instead.
var DepositFactoryBin = DepositFactoryMetaData.Bin

// DeployDepositFactory deploys a new Ethereum contract, binding an instance of DepositFactory to it.
func DeployDepositFactory(auth *bind.TransactOpts, backend bind.ContractBackend) (common.Address, *types.Transaction, *DepositFactory, error) {
	parsed, err := DepositFactoryMetaData.GetAbi()
	if err != nil {
		return common.Address{}, nil, nil, err
	}
	if parsed == nil {
		return common.Address{}, nil, nil, errors.New("GetABI returned nil")
	}

	address, tx, contract, err := bind.DeployContract(auth, *parsed, common.FromHex(DepositFactoryBin), backend)
	if err != nil {
		return common.Address{}, nil, nil, err
	}
	return address, tx, &DepositFactory{DepositFactoryCaller: DepositFactoryCaller{contract: contract}, DepositFactoryTransactor: DepositFactoryTransactor{contract: contract}, DepositFactoryFilterer: DepositFactoryFilterer{contract: contract}}, nil
}

// DepositFactory is an auto generated Go binding around an Ethereum contract.
type DepositFactory struct {
	DepositFactoryCaller     // Read-only binding to the contract
	DepositFactoryTransactor // Write-only binding to the contract
	DepositFactoryFilterer   // Log filterer for contract events
}

// DepositFactoryCaller is an auto generated read-only Go binding around an Ethereum contract.
type DepositFactoryCaller struct {
	contract *bind.BoundContract // Generic contract wrapper for the low level calls
}

// DepositFactoryTransactor is an auto generated write-only Go binding around an Ethereum contract.
type DepositFactoryTransactor struct {
	contract *bind.BoundContract // Generic contract wrapper for the low level calls
}

// DepositFactoryFilterer is an auto generated log filtering Go binding around an Ethereum contract events.
type DepositFactoryFilterer struct {
	contract *bind.BoundContract // Generic contract wrapper for the low level calls
}

// DepositFactorySession is an auto generated Go binding around an Ethereum contract,
// with pre-set call and transact options.
type DepositFactorySession struct {
	Contract     *DepositFactory   // Generic contract binding to set the session for
	CallOpts     bind.CallOpts     // Call options to use throughout this session
	TransactOpts bind.TransactOpts // Transaction auth options to use throughout this session
}

// DepositFactoryCallerSession is an auto generated read-only Go binding around an Ethereum contract,
// with pre-set call options.
type DepositFactoryCallerSession struct {
	Contract *DepositFactoryCaller // Generic contract caller binding to set the session for
	CallOpts bind.CallOpts         // Call options to use throughout this session
}

// DepositFactoryTransactorSession is an auto generated write-only Go binding around an Ethereum contract,
// with pre-set transact options.
type DepositFactoryTransactorSession struct {
	Contract     *DepositFactoryTransactor // Generic contract transactor binding to set the session for
	TransactOpts bind.TransactOpts         // Transaction auth options to use throughout this session
}

// DepositFactoryRaw is an auto generated low-level Go binding around an Ethereum contract.
type DepositFactoryRaw struct {
	Contract *DepositFactory // Generic contract binding to access the raw methods on
}

// DepositFactoryCallerRaw is an auto generated low-level read-only Go binding around an Ethereum contract.
type DepositFactoryCallerRaw struct {
	Contract *DepositFactoryCaller // Generic read-only contract binding to access the raw methods on
}

// DepositFactoryTransactorRaw is an auto generated low-level write-only Go binding around an Ethereum contract.
type DepositFactoryTransactorRaw struct {
	Contract *DepositFactoryTransactor // Generic write-only contract binding to access the raw methods on
}

// NewDepositFactory creates a new instance of DepositFactory, bound to a specific deployed contract.
func NewDepositFactory(address common.Address, backend bind.ContractBackend) (*DepositFactory, error) {
	contract, err := bindDepositFactory(address, backend, backend, backend)
	if err != nil {
		return nil, err
	}
	return &DepositFactory{DepositFactoryCaller: DepositFactoryCaller{contract: contract}, DepositFactoryTransactor: DepositFactoryTransactor{contract: contract}, DepositFactoryFilterer: DepositFactoryFilterer{contract: contract}}, nil
}

// NewDepositFactoryCaller creates a new read-only instance of DepositFactory, bound to a specific deployed contract.
func NewDepositFactoryCaller(address common.Address, caller bind.ContractCaller) (*DepositFactoryCaller, error) {
	contract, err := bindDepositFactory(address, caller, nil, nil)
	if err != nil {
		return nil, err
	}
	return &DepositFactoryCaller{contract: contract}, nil
}

// NewDepositFactoryTransactor creates a new write-only instance of DepositFactory, bound to a specific deployed contract.
func NewDepositFactoryTransactor(address common.Address, transactor bind.ContractTransactor) (*DepositFactoryTransactor, error) {
	contract, err := bindDepositFactory(address, nil, transactor, nil)
	if err != nil {
		return nil, err
	}
	return &DepositFactoryTransactor{contract: contract}, nil
}

// NewDepositFactoryFilterer creates a new log filterer instance of DepositFactory, bound to a specific deployed contract.
func NewDepositFactoryFilterer(address common.Address, filterer bind.ContractFilterer) (*DepositFactoryFilterer, error) {
	contract, err := bindDepositFactory(address, nil, nil, filterer)
	if err != nil {
		return nil, err
	}
	return &DepositFactoryFilterer{contract: contract}, nil
}

// bindDepositFactory binds a generic wrapper to an already deployed contract.
func bindDepositFactory(address common.Address, caller bind.ContractCaller, transactor bind.ContractTransactor, filterer bind.ContractFilterer) (*bind.BoundContract, error) {
	parsed, err := DepositFactoryMetaData.GetAbi()
	if err != nil {
		return nil, err
	}
	return bind.NewBoundContract(address, *parsed, caller, transactor, filterer), nil
}

// Call invokes the (constant) contract method with params as input values and
// sets the output to result. The result type might be a single field for simple
// returns, a slice of interfaces for anonymous returns and a struct for named
// returns.
func (_DepositFactory *DepositFactoryRaw) Call(opts *bind.CallOpts, result *[]interface{}, method string, params ...interface{}) error {
	return _DepositFactory.Contract.DepositFactoryCaller.contract.Call(opts, result, method, params...)
}

// Transfer initiates a plain transaction to move funds to the contract, calling
// its default method if one is available.
func (_DepositFactory *DepositFactoryRaw) Transfer(opts *bind.TransactOpts) (*types.Transaction, error) {
	return _DepositFactory.Contract.DepositFactoryTransactor.contract.Transfer(opts)
}

// Transact invokes the (paid) contract method with params as input values.
func (_DepositFactory *DepositFactoryRaw) Transact(opts *bind.TransactOpts, method string, params ...interface{}) (*types.Transaction, error) {
	return _DepositFactory.Contract.DepositFactoryTransactor.contract.Transact(opts, method, params...)
}

// Call invokes the (constant) contract method with params as input values and
// sets the output to result. The result type might be a single field for simple
// returns, a slice of interfaces for anonymous returns and a struct for named
// returns.
func (_DepositFactory *DepositFactoryCallerRaw) Call(opts *bind.CallOpts, result *[]interface{}, method string, params ...interface{}) error {
	return _DepositFactory.Contract.contract.Call(opts, result, method, params...)
}

// Transfer initiates a plain transaction to move funds to the contract, calling
// its default method if one is available.
func (_DepositFactory *DepositFactoryTransactorRaw) Transfer(opts *bind.TransactOpts) (*types.Transaction, error) {
	return _DepositFactory.Contract.contract.Transfer(opts)
}

// Transact invokes the (paid) contract method with params as input values.
func (_DepositFactory *DepositFactoryTransactorRaw) Transact(opts *bind.TransactOpts, method string, params ...interface{}) (*types.Transaction, error) {
	return _DepositFactory.Contract.contract.Transact(opts, method, params...)
}

// DepositAddress is a free data retrieval call binding the contract method 0x7b1603b0.
//
// Solidity: function depositAddress(bytes32 receiptId, address split) view returns(address)
func (_DepositFactory *DepositFactoryCaller) DepositAddress(opts *bind.CallOpts, receiptId [32]byte, split common.Address) (common.Address, error) {
	var out []interface{}
	err := _DepositFactory.contract.Call(opts, &out, "depositAddress", receiptId, split)

	if err != nil {
		return *new(common.Address), err
	}

	out0 := *abi.ConvertType(out[0], new(common.Address)).(*common.Address)

	return out0, err

}

// DepositAddress is a free data retrieval call binding the contract method 0x7b1603b0.
//
// Solidity: function depositAddress(bytes32 receiptId, address split) view returns(address)
func (_DepositFactory *DepositFactorySession) DepositAddress(receiptId [32]byte, split common.Address) (common.Address, error) {
	return _DepositFactory.Contract.DepositAddress(&_DepositFactory.CallOpts, receiptId, split)
}

// DepositAddress is a free data retrieval call binding the contract method 0x7b1603b0.
//
// Solidity: function depositAddress(bytes32 receiptId, address split) view returns(address)
func (_DepositFactory *DepositFactoryCallerSession) DepositAddress(receiptId [32]byte, split common.Address) (common.Address, error) {
	return _DepositFactory.Contract.DepositAddress(&_DepositFactory.CallOpts, receiptId, split)
}

// Implementation is a free data retrieval call binding the contract method 0x5c60da1b.
//
// Solidity: function implementation() view returns(address)
func (_DepositFactory *DepositFactoryCaller) Implementation(opts *bind.CallOpts) (common.Address, error) {
	var out []interface{}
	err := _DepositFactory.contract.Call(opts, &out, "implementation")

	if err != nil {
		return *new(common.Address), err
	}

	out0 := *abi.ConvertType(out[0], new(common.Address)).(*common.Address)

	return out0, err

}

// Implementation is a free data retrieval call binding the contract method 0x5c60da1b.
//
// Solidity: function implementation() view returns(address)
func (_DepositFactory *DepositFactorySession) Implementation() (common.Address, error) {
	return _DepositFactory.Contract.Implementation(&_DepositFactory.CallOpts)
}

// Implementation is a free data retrieval call binding the contract method 0x5c60da1b.
//
// Solidity: function implementation() view returns(address)
func (_DepositFactory *DepositFactoryCallerSession) Implementation() (common.Address, error) {
	return _DepositFactory.Contract.Implementation(&_DepositFactory.CallOpts)
}

// Sweep is a paid mutator transaction binding the contract method 0x08245c8a.
//
// Solidity: function sweep((bytes32,address)[] deposits, address[] tokens) returns()
func (_DepositFactory *DepositFactoryTransactor) Sweep(opts *bind.TransactOpts, deposits []DepositFactoryDepositKey, tokens []common.Address) (*types.Transaction, error) {
	return _DepositFactory.contract.Transact(opts, "sweep", deposits, tokens)
}

// Sweep is a paid mutator transaction binding the contract method 0x08245c8a.
//
// Solidity: function sweep((bytes32,address)[] deposits, address[] tokens) returns()
func (_DepositFactory *DepositFactorySession) Sweep(deposits []DepositFactoryDepositKey, tokens []common.Address) (*types.Transaction, error) {
	return _DepositFactory.Contract.Sweep(&_DepositFactory.TransactOpts, deposits, tokens)
}

// Sweep is a paid mutator transaction binding the contract method 0x08245c8a.
//
// Solidity: function sweep((bytes32,address)[] deposits, address[] tokens) returns()
func (_DepositFactory *DepositFactoryTransactorSession) Sweep(deposits []DepositFactoryDepositKey, tokens []common.Address) (*types.Transaction, error) {
	return _DepositFactory.Contract.Sweep(&_DepositFactory.TransactOpts, deposits, tokens)
}

// DepositFactoryDepositDeployedIterator is returned from FilterDepositDeployed and is used to iterate over the raw logs and unpacked data for DepositDeployed events raised by the DepositFactory contract.
type DepositFactoryDepositDeployedIterator struct {
	Event *DepositFactoryDepositDeployed // Event containing the contract specifics and raw log

	contract *bind.BoundContract // Generic contract to use for unpacking event data
	event    string              // Event name to use for unpacking event data

	logs chan types.Log        // Log channel receiving the found contract events
	sub  ethereum.Subscription // Subscription for errors, completion and termination
	done bool                  // Whether the subscription completed delivering logs
	fail error                 // Occurred error to stop iteration
}

// Next advances the iterator to the subsequent event, returning whether there
// are any more events found. In case of a retrieval or parsing error, false is
// returned and Error() can be queried for the exact failure.
func (it *DepositFactoryDepositDeployedIterator) Next() bool {
	// If the iterator failed, stop iterating
	if it.fail != nil {
		return false
	}
	// If the iterator completed, deliver directly whatever's available
	if it.done {
		select {
		case log := <-it.logs:
			it.Event = new(DepositFactoryDepositDeployed)
			if err := it.contract.UnpackLog(it.Event, it.event, log); err != nil {
				it.fail = err
				return false
			}
			it.Event.Raw = log
			return true

		default:
			return false
		}
	}
	// Iterator still in progress, wait for either a data or an error event
	select {
	case log := <-it.logs:
		it.Event = new(DepositFactoryDepositDeployed)
		if err := it.contract.UnpackLog(it.Event, it.event, log); err != nil {
			it.fail = err
			return false
		}
		it.Event.Raw = log
		return true

	case err := <-it.sub.Err():
		it.done = true
		it.fail = err
		return it.Next()
	}
}

// Error returns any retrieval or parsing error occurred during filtering.
func (it *DepositFactoryDepositDeployedIterator) Error() error {
	return it.fail
}

// Close terminates the iteration process, releasing any pending underlying
// resources.
func (it *DepositFactoryDepositDeployedIterator) Close() error {
	it.sub.Unsubscribe()
	return nil
}

// DepositFactoryDepositDeployed represents a DepositDeployed event raised by the DepositFactory contract.
type DepositFactoryDepositDeployed struct {
	ReceiptId [32]byte
	Split     common.Address
	Deposit   common.Address
	Raw       types.Log // Blockchain specific contextual infos
}

// FilterDepositDeployed is a free log retrieval operation binding the contract event 0x88f33351f3c6e44bfd7440e4d811aec3f9841ceea33068f01dceb99e24ddb56d.
//
// Solidity: event DepositDeployed(bytes32 indexed receiptId, address indexed split, address indexed deposit)
func (_DepositFactory *DepositFactoryFilterer) FilterDepositDeployed(opts *bind.FilterOpts, receiptId [][32]byte, split []common.Address, deposit []common.Address) (*DepositFactoryDepositDeployedIterator, error) {

	var receiptIdRule []interface{}
	for _, receiptIdItem := range receiptId {
		receiptIdRule = append(receiptIdRule, receiptIdItem)
	}
	var splitRule []interface{}
	for _, splitItem := range split {
		splitRule = append(splitRule, splitItem)
	}
	var depositRule []interface{}
	for _, depositItem := range deposit {
		depositRule = append(depositRule, depositItem)
	}

	logs, sub, err := _DepositFactory.contract.FilterLogs(opts, "DepositDeployed", receiptIdRule, splitRule, depositRule)
	if err != nil {
		return nil, err
	}
	return &DepositFactoryDepositDeployedIterator{contract: _DepositFactory.contract, event: "DepositDeployed", logs: logs, sub: sub}, nil
}

// WatchDepositDeployed is a free log subscription operation binding the contract event 0x88f33351f3c6e44bfd7440e4d811aec3f9841ceea33068f01dceb99e24ddb56d.
//
// Solidity: event DepositDeployed(bytes32 indexed receiptId, address indexed split, address indexed deposit)
func (_DepositFactory *DepositFactoryFilterer) WatchDepositDeployed(opts *bind.WatchOpts, sink chan<- *DepositFactoryDepositDeployed, receiptId [][32]byte, split []common.Address, deposit []common.Address) (event.Subscription, error) {

	var receiptIdRule []interface{}
	for _, receiptIdItem := range receiptId {
		receiptIdRule = append(receiptIdRule, receiptIdItem)
	}
	var splitRule []interface{}
	for _, splitItem := range split {
		splitRule = append(splitRule, splitItem)
	}
	var depositRule []interface{}
	for _, depositItem := range deposit {
		depositRule = append(depositRule, depositItem)
	}

	logs, sub, err := _DepositFactory.contract.WatchLogs(opts, "DepositDeployed", receiptIdRule, splitRule, depositRule)
	if err != nil {
		return nil, err
	}
	return event.NewSubscription(func(quit <-chan struct{}) error {
		defer sub.Unsubscribe()
		for {
			select {
			case log := <-logs:
				// New log arrived, parse the event and forward to the user
				event := new(DepositFactoryDepositDeployed)
				if err := _DepositFactory.contract.UnpackLog(event, "DepositDeployed", log); err != nil {
					// If the signature doesn't match, skip this log.
					if errors.Is(err, bind.ErrEventSignatureMismatch) {
						continue
					}
					return err
				}
				event.Raw = log

				select {
				case sink <- event:
				case err := <-sub.Err():
					return err
				case <-quit:
					return nil
				}
			case err := <-sub.Err():
				return err
			case <-quit:
				return nil
			}
		}
	}), nil
}

// ParseDepositDeployed is a log parse operation binding the contract event 0x88f33351f3c6e44bfd7440e4d811aec3f9841ceea33068f01dceb99e24ddb56d.
//
// Solidity: event DepositDeployed(bytes32 indexed receiptId, address indexed split, address indexed deposit)
func (_DepositFactory *DepositFactoryFilterer) ParseDepositDeployed(log types.Log) (*DepositFactoryDepositDeployed, error) {
	event := new(DepositFactoryDepositDeployed)
	if err := _DepositFactory.contract.UnpackLog(event, "DepositDeployed", log); err != nil {
		return nil, err
	}
	event.Raw = log
	return event, nil
}

// DepositFactorySweepFailedIterator is returned from FilterSweepFailed and is used to iterate over the raw logs and unpacked data for SweepFailed events raised by the DepositFactory contract.
type DepositFactorySweepFailedIterator struct {
	Event *DepositFactorySweepFailed // Event containing the contract specifics and raw log

	contract *bind.BoundContract // Generic contract to use for unpacking event data
	event    string              // Event name to use for unpacking event data

	logs chan types.Log        // Log channel receiving the found contract events
	sub  ethereum.Subscription // Subscription for errors, completion and termination
	done bool                  // Whether the subscription completed delivering logs
	fail error                 // Occurred error to stop iteration
}

// Next advances the iterator to the subsequent event, returning whether there
// are any more events found. In case of a retrieval or parsing error, false is
// returned and Error() can be queried for the exact failure.
func (it *DepositFactorySweepFailedIterator) Next() bool {
	// If the iterator failed, stop iterating
	if it.fail != nil {
		return false
	}
	// If the iterator completed, deliver directly whatever's available
	if it.done {
		select {
		case log := <-it.logs:
			it.Event = new(DepositFactorySweepFailed)
			if err := it.contract.UnpackLog(it.Event, it.event, log); err != nil {
				it.fail = err
				return false
			}
			it.Event.Raw = log
			return true

		default:
			return false
		}
	}
	// Iterator still in progress, wait for either a data or an error event
	select {
	case log := <-it.logs:
		it.Event = new(DepositFactorySweepFailed)
		if err := it.contract.UnpackLog(it.Event, it.event, log); err != nil {
			it.fail = err
			return false
		}
		it.Event.Raw = log
		return true

	case err := <-it.sub.Err():
		it.done = true
		it.fail = err
		return it.Next()
	}
}

// Error returns any retrieval or parsing error occurred during filtering.
func (it *DepositFactorySweepFailedIterator) Error() error {
	return it.fail
}

// Close terminates the iteration process, releasing any pending underlying
// resources.
func (it *DepositFactorySweepFailedIterator) Close() error {
	it.sub.Unsubscribe()
	return nil
}

// DepositFactorySweepFailed represents a SweepFailed event raised by the DepositFactory contract.
type DepositFactorySweepFailed struct {
	ReceiptId [32]byte
	Deposit   common.Address
	Token     common.Address
	Reason    []byte
	Raw       types.Log // Blockchain specific contextual infos
}

// FilterSweepFailed is a free log retrieval operation binding the contract event 0x33b25da24761f5ff498de774775d1c4cb8fd6e28705e5a44de5e8abbe0b9e760.
//
// Solidity: event SweepFailed(bytes32 indexed receiptId, address indexed deposit, address indexed token, bytes reason)
func (_DepositFactory *DepositFactoryFilterer) FilterSweepFailed(opts *bind.FilterOpts, receiptId [][32]byte, deposit []common.Address, token []common.Address) (*DepositFactorySweepFailedIterator, error) {

	var receiptIdRule []interface{}
	for _, receiptIdItem := range receiptId {
		receiptIdRule = append(receiptIdRule, receiptIdItem)
	}
	var depositRule []interface{}
	for _, depositItem := range deposit {
		depositRule = append(depositRule, depositItem)
	}
	var tokenRule []interface{}
	for _, tokenItem := range token {
		tokenRule = append(tokenRule, tokenItem)
	}

	logs, sub, err := _DepositFactory.contract.FilterLogs(opts, "SweepFailed", receiptIdRule, depositRule, tokenRule)
	if err != nil {
		return nil, err
	}
	return &DepositFactorySweepFailedIterator{contract: _DepositFactory.contract, event: "SweepFailed", logs: logs, sub: sub}, nil
}

// WatchSweepFailed is a free log subscription operation binding the contract event 0x33b25da24761f5ff498de774775d1c4cb8fd6e28705e5a44de5e8abbe0b9e760.
//
// Solidity: event SweepFailed(bytes32 indexed receiptId, address indexed deposit, address indexed token, bytes reason)
func (_DepositFactory *DepositFactoryFilterer) WatchSweepFailed(opts *bind.WatchOpts, sink chan<- *DepositFactorySweepFailed, receiptId [][32]byte, deposit []common.Address, token []common.Address) (event.Subscription, error) {

	var receiptIdRule []interface{}
	for _, receiptIdItem := range receiptId {
		receiptIdRule = append(receiptIdRule, receiptIdItem)
	}
	var depositRule []interface{}
	for _, depositItem := range deposit {
		depositRule = append(depositRule, depositItem)
	}
	var tokenRule []interface{}
	for _, tokenItem := range token {
		tokenRule = append(tokenRule, tokenItem)
	}

	logs, sub, err := _DepositFactory.contract.WatchLogs(opts, "SweepFailed", receiptIdRule, depositRule, tokenRule)
	if err != nil {
		return nil, err
	}
	return event.NewSubscription(func(quit <-chan struct{}) error {
		defer sub.Unsubscribe()
		for {
			select {
			case log := <-logs:
				// New log arrived, parse the event and forward to the user
				event := new(DepositFactorySweepFailed)
				if err := _DepositFactory.contract.UnpackLog(event, "SweepFailed", log); err != nil {
					// If the signature doesn't match, skip this log.
					if errors.Is(err, bind.ErrEventSignatureMismatch) {
						continue
					}
					return err
				}
				event.Raw = log

				select {
				case sink <- event:
				case err := <-sub.Err():
					return err
				case <-quit:
					return nil
				}
			case err := <-sub.Err():
				return err
			case <-quit:
				return nil
			}
		}
	}), nil
}

// ParseSweepFailed is a log parse operation binding the contract event 0x33b25da24761f5ff498de774775d1c4cb8fd6e28705e5a44de5e8abbe0b9e760.
//
// Solidity: event SweepFailed(bytes32 indexed receiptId, address indexed deposit, address indexed token, bytes reason)
func (_DepositFactory *DepositFactoryFilterer) ParseSweepFailed(log types.Log) (*DepositFactorySweepFailed, error) {
	event := new(DepositFactorySweepFailed)
	if err := _DepositFactory.contract.UnpackLog(event, "SweepFailed", log); err != nil {
		return nil, err
	}
	event.Raw = log
	return event, nil
}
