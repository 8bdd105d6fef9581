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

// DepositMetaData contains all meta data concerning the Deposit contract.
var DepositMetaData = &bind.MetaData{
	ABI: "[{\"inputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"constructor\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"split\",\"type\":\"address\"}],\"name\":\"ETHRejected\",\"type\":\"error\"},{\"inputs\":[{\"internalType\":\"bytes32\",\"name\":\"receiptId\",\"type\":\"bytes32\"},{\"internalType\":\"address\",\"name\":\"split\",\"type\":\"address\"}],\"name\":\"NotThisDeposit\",\"type\":\"error\"},{\"inputs\":[],\"name\":\"OutOfGas\",\"type\":\"error\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"token\",\"type\":\"address\"}],\"name\":\"TokenCallFailed\",\"type\":\"error\"},{\"inputs\":[],\"name\":\"ZeroSplit\",\"type\":\"error\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":true,\"internalType\":\"bytes32\",\"name\":\"receiptId\",\"type\":\"bytes32\"},{\"indexed\":true,\"internalType\":\"address\",\"name\":\"split\",\"type\":\"address\"},{\"indexed\":true,\"internalType\":\"address\",\"name\":\"token\",\"type\":\"address\"},{\"indexed\":false,\"internalType\":\"uint256\",\"name\":\"amount\",\"type\":\"uint256\"}],\"name\":\"Swept\",\"type\":\"event\"},{\"inputs\":[],\"name\":\"factory\",\"outputs\":[{\"internalType\":\"address\",\"name\":\"\",\"type\":\"address\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"bytes32\",\"name\":\"receiptId\",\"type\":\"bytes32\"},{\"internalType\":\"address\",\"name\":\"split\",\"type\":\"address\"}],\"name\":\"flushETH\",\"outputs\":[{\"internalType\":\"uint256\",\"name\":\"amount\",\"type\":\"uint256\"}],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"bytes32\",\"name\":\"receiptId\",\"type\":\"bytes32\"},{\"internalType\":\"address\",\"name\":\"split\",\"type\":\"address\"},{\"internalType\":\"address\",\"name\":\"token\",\"type\":\"address\"}],\"name\":\"flushToken\",\"outputs\":[{\"internalType\":\"uint256\",\"name\":\"amount\",\"type\":\"uint256\"}],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"implementation\",\"outputs\":[{\"internalType\":\"address\",\"name\":\"\",\"type\":\"address\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"stateMutability\":\"payable\",\"type\":\"receive\"}]",
	Bin: "0x60c060405234801561000f575f80fd5b50336080523060a05260805160a05161058a6100455f395f8181608f01526102a601525f818160f901526102d4015261058a5ff3fe608060405260043610610041575f3560e01c806336ce4af21461004c5780635c60da1b1461007e5780637e0ad84b146100c9578063c45a0155146100e8575f80fd5b3661004857005b5f80fd5b348015610057575f80fd5b5061006b6100663660046104d2565b61011b565b6040519081526020015b60405180910390f35b348015610089575f80fd5b506100b17f000000000000000000000000000000000000000000000000000000000000000081565b6040516001600160a01b039091168152602001610075565b3480156100d4575f80fd5b5061006b6100e336600461050b565b61019f565b3480156100f3575f80fd5b506100b17f000000000000000000000000000000000000000000000000000000000000000081565b5f6101268484610279565b61012f8261038b565b9050805f0361013f57505f610198565b816001600160a01b0316836001600160a01b0316857fb54a956efa2885f605a691ebaa631db09ff8be97e46f62d97806ce1e88940e298460405161018591815260200190565b60405180910390a46101988284836103c7565b9392505050565b5f6101aa8383610279565b479050805f036101bb57505f610273565b5f6001600160a01b0316826001600160a01b0316847fb54a956efa2885f605a691ebaa631db09ff8be97e46f62d97806ce1e88940e298460405161020191815260200190565b60405180910390a45f5a90505f805f805f86885af190508061027057610228604083610535565b5a11610247576040516377ebef4d60e01b815260040160405180910390fd5b604051635364281360e11b81526001600160a01b03851660048201526024015b60405180910390fd5b50505b92915050565b6001600160a01b0381166102a0576040516347a9c11160e01b815260040160405180910390fd5b5f6103497f00000000000000000000000000000000000000000000000000000000000000006102cf8585610425565b6040517f000000000000000000000000000000000000000000000000000000000000000060388201526f5af43d82803e903d91602b57fd5bf3ff60248201526014810192909252733d602d80600a3d3981f3363d3d373d3d3d363d73825260588201526037600c8201206078820152605560439091012090565b90506001600160a01b03811630146103865760405163694f8fdb60e11b8152600481018490526001600160a01b0383166024820152604401610267565b505050565b5f805a90505f6370a082315f523060205260205f6024601c875afa5f519350601f3d11169050806103c0576103c08285610469565b5050919050565b5f5a90505f60405163a9059cbb60e01b81528460048201528360248201525f805260205f6044835f8a5af191505060015f5114601f3d11165f863b113d15168082178316925050508061041e5761041e8286610469565b5050505050565b5f828260405160200161044b9291909182526001600160a01b0316602082015260400190565b60405160208183030381529060405280519060200120905092915050565b610474604083610535565b5a11610493576040516377ebef4d60e01b815260040160405180910390fd5b604051633fb2da6d60e21b81526001600160a01b0382166004820152602401610267565b80356001600160a01b03811681146104cd575f80fd5b919050565b5f805f606084860312156104e4575f80fd5b833592506104f4602085016104b7565b9150610502604085016104b7565b90509250925092565b5f806040838503121561051c575f80fd5b8235915061052c602084016104b7565b90509250929050565b5f8261054f57634e487b7160e01b5f52601260045260245ffd5b50049056fea2646970667358221220b726ab7a759af1200b7c38304815012867c95a7bd889f57df461fba256c18f9f64736f6c63430008180033",
}

// DepositABI is the input ABI used to generate the binding from.
// Deprecated: Use DepositMetaData.ABI instead.
var DepositABI = DepositMetaData.ABI

// DepositBin is the compiled bytecode used for deploying new contracts.
// Deprecated: Use DepositMetaData.Bin instead.
var DepositBin = DepositMetaData.Bin

// DeployDeposit deploys a new Ethereum contract, binding an instance of Deposit to it.
func DeployDeposit(auth *bind.TransactOpts, backend bind.ContractBackend) (common.Address, *types.Transaction, *Deposit, error) {
	parsed, err := DepositMetaData.GetAbi()
	if err != nil {
		return common.Address{}, nil, nil, err
	}
	if parsed == nil {
		return common.Address{}, nil, nil, errors.New("GetABI returned nil")
	}

	address, tx, contract, err := bind.DeployContract(auth, *parsed, common.FromHex(DepositBin), backend)
	if err != nil {
		return common.Address{}, nil, nil, err
	}
	return address, tx, &Deposit{DepositCaller: DepositCaller{contract: contract}, DepositTransactor: DepositTransactor{contract: contract}, DepositFilterer: DepositFilterer{contract: contract}}, nil
}

// Deposit is an auto generated Go binding around an Ethereum contract.
type Deposit struct {
	DepositCaller     // Read-only binding to the contract
	DepositTransactor // Write-only binding to the contract
	DepositFilterer   // Log filterer for contract events
}

// DepositCaller is an auto generated read-only Go binding around an Ethereum contract.
type DepositCaller struct {
	contract *bind.BoundContract // Generic contract wrapper for the low level calls
}

// DepositTransactor is an auto generated write-only Go binding around an Ethereum contract.
type DepositTransactor struct {
	contract *bind.BoundContract // Generic contract wrapper for the low level calls
}

// DepositFilterer is an auto generated log filtering Go binding around an Ethereum contract events.
type DepositFilterer struct {
	contract *bind.BoundContract // Generic contract wrapper for the low level calls
}

// DepositSession is an auto generated Go binding around an Ethereum contract,
// with pre-set call and transact options.
type DepositSession struct {
	Contract     *Deposit          // Generic contract binding to set the session for
	CallOpts     bind.CallOpts     // Call options to use throughout this session
	TransactOpts bind.TransactOpts // Transaction auth options to use throughout this session
}

// DepositCallerSession is an auto generated read-only Go binding around an Ethereum contract,
// with pre-set call options.
type DepositCallerSession struct {
	Contract *DepositCaller // Generic contract caller binding to set the session for
	CallOpts bind.CallOpts  // Call options to use throughout this session
}

// DepositTransactorSession is an auto generated write-only Go binding around an Ethereum contract,
// with pre-set transact options.
type DepositTransactorSession struct {
	Contract     *DepositTransactor // Generic contract transactor binding to set the session for
	TransactOpts bind.TransactOpts  // Transaction auth options to use throughout this session
}

// DepositRaw is an auto generated low-level Go binding around an Ethereum contract.
type DepositRaw struct {
	Contract *Deposit // Generic contract binding to access the raw methods on
}

// DepositCallerRaw is an auto generated low-level read-only Go binding around an Ethereum contract.
type DepositCallerRaw struct {
	Contract *DepositCaller // Generic read-only contract binding to access the raw methods on
}

// DepositTransactorRaw is an auto generated low-level write-only Go binding around an Ethereum contract.
type DepositTransactorRaw struct {
	Contract *DepositTransactor // Generic write-only contract binding to access the raw methods on
}

// NewDeposit creates a new instance of Deposit, bound to a specific deployed contract.
func NewDeposit(address common.Address, backend bind.ContractBackend) (*Deposit, error) {
	contract, err := bindDeposit(address, backend, backend, backend)
	if err != nil {
		return nil, err
	}
	return &Deposit{DepositCaller: DepositCaller{contract: contract}, DepositTransactor: DepositTransactor{contract: contract}, DepositFilterer: DepositFilterer{contract: contract}}, nil
}

// NewDepositCaller creates a new read-only instance of Deposit, bound to a specific deployed contract.
func NewDepositCaller(address common.Address, caller bind.ContractCaller) (*DepositCaller, error) {
	contract, err := bindDeposit(address, caller, nil, nil)
	if err != nil {
		return nil, err
	}
	return &DepositCaller{contract: contract}, nil
}

// NewDepositTransactor creates a new write-only instance of Deposit, bound to a specific deployed contract.
func NewDepositTransactor(address common.Address, transactor bind.ContractTransactor) (*DepositTransactor, error) {
	contract, err := bindDeposit(address, nil, transactor, nil)
	if err != nil {
		return nil, err
	}
	return &DepositTransactor{contract: contract}, nil
}

// NewDepositFilterer creates a new log filterer instance of Deposit, bound to a specific deployed contract.
func NewDepositFilterer(address common.Address, filterer bind.ContractFilterer) (*DepositFilterer, error) {
	contract, err := bindDeposit(address, nil, nil, filterer)
	if err != nil {
		return nil, err
	}
	return &DepositFilterer{contract: contract}, nil
}

// bindDeposit binds a generic wrapper to an already deployed contract.
func bindDeposit(address common.Address, caller bind.ContractCaller, transactor bind.ContractTransactor, filterer bind.ContractFilterer) (*bind.BoundContract, error) {
	parsed, err := DepositMetaData.GetAbi()
	if err != nil {
		return nil, err
	}
	return bind.NewBoundContract(address, *parsed, caller, transactor, filterer), nil
}

// Call invokes the (constant) contract method with params as input values and
// sets the output to result. The result type might be a single field for simple
// returns, a slice of interfaces for anonymous returns and a struct for named
// returns.
func (_Deposit *DepositRaw) Call(opts *bind.CallOpts, result *[]interface{}, method string, params ...interface{}) error {
	return _Deposit.Contract.DepositCaller.contract.Call(opts, result, method, params...)
}

// Transfer initiates a plain transaction to move funds to the contract, calling
// its default method if one is available.
func (_Deposit *DepositRaw) Transfer(opts *bind.TransactOpts) (*types.Transaction, error) {
	return _Deposit.Contract.DepositTransactor.contract.Transfer(opts)
}

// Transact invokes the (paid) contract method with params as input values.
func (_Deposit *DepositRaw) Transact(opts *bind.TransactOpts, method string, params ...interface{}) (*types.Transaction, error) {
	return _Deposit.Contract.DepositTransactor.contract.Transact(opts, method, params...)
}

// Call invokes the (constant) contract method with params as input values and
// sets the output to result. The result type might be a single field for simple
// returns, a slice of interfaces for anonymous returns and a struct for named
// returns.
func (_Deposit *DepositCallerRaw) Call(opts *bind.CallOpts, result *[]interface{}, method string, params ...interface{}) error {
	return _Deposit.Contract.contract.Call(opts, result, method, params...)
}

// Transfer initiates a plain transaction to move funds to the contract, calling
// its default method if one is available.
func (_Deposit *DepositTransactorRaw) Transfer(opts *bind.TransactOpts) (*types.Transaction, error) {
	return _Deposit.Contract.contract.Transfer(opts)
}

// Transact invokes the (paid) contract method with params as input values.
func (_Deposit *DepositTransactorRaw) Transact(opts *bind.TransactOpts, method string, params ...interface{}) (*types.Transaction, error) {
	return _Deposit.Contract.contract.Transact(opts, method, params...)
}

// Factory is a free data retrieval call binding the contract method 0xc45a0155.
//
// Solidity: function factory() view returns(address)
func (_Deposit *DepositCaller) Factory(opts *bind.CallOpts) (common.Address, error) {
	var out []interface{}
	err := _Deposit.contract.Call(opts, &out, "factory")

	if err != nil {
		return *new(common.Address), err
	}

	out0 := *abi.ConvertType(out[0], new(common.Address)).(*common.Address)

	return out0, err

}

// Factory is a free data retrieval call binding the contract method 0xc45a0155.
//
// Solidity: function factory() view returns(address)
func (_Deposit *DepositSession) Factory() (common.Address, error) {
	return _Deposit.Contract.Factory(&_Deposit.CallOpts)
}

// Factory is a free data retrieval call binding the contract method 0xc45a0155.
//
// Solidity: function factory() view returns(address)
func (_Deposit *DepositCallerSession) Factory() (common.Address, error) {
	return _Deposit.Contract.Factory(&_Deposit.CallOpts)
}

// Implementation is a free data retrieval call binding the contract method 0x5c60da1b.
//
// Solidity: function implementation() view returns(address)
func (_Deposit *DepositCaller) Implementation(opts *bind.CallOpts) (common.Address, error) {
	var out []interface{}
	err := _Deposit.contract.Call(opts, &out, "implementation")

	if err != nil {
		return *new(common.Address), err
	}

	out0 := *abi.ConvertType(out[0], new(common.Address)).(*common.Address)

	return out0, err

}

// Implementation is a free data retrieval call binding the contract method 0x5c60da1b.
//
// Solidity: function implementation() view returns(address)
func (_Deposit *DepositSession) Implementation() (common.Address, error) {
	return _Deposit.Contract.Implementation(&_Deposit.CallOpts)
}

// Implementation is a free data retrieval call binding the contract method 0x5c60da1b.
//
// Solidity: function implementation() view returns(address)
func (_Deposit *DepositCallerSession) Implementation() (common.Address, error) {
	return _Deposit.Contract.Implementation(&_Deposit.CallOpts)
}

// FlushETH is a paid mutator transaction binding the contract method 0x7e0ad84b.
//
// Solidity: function flushETH(bytes32 receiptId, address split) returns(uint256 amount)
func (_Deposit *DepositTransactor) FlushETH(opts *bind.TransactOpts, receiptId [32]byte, split common.Address) (*types.Transaction, error) {
	return _Deposit.contract.Transact(opts, "flushETH", receiptId, split)
}

// FlushETH is a paid mutator transaction binding the contract method 0x7e0ad84b.
//
// Solidity: function flushETH(bytes32 receiptId, address split) returns(uint256 amount)
func (_Deposit *DepositSession) FlushETH(receiptId [32]byte, split common.Address) (*types.Transaction, error) {
	return _Deposit.Contract.FlushETH(&_Deposit.TransactOpts, receiptId, split)
}

// FlushETH is a paid mutator transaction binding the contract method 0x7e0ad84b.
//
// Solidity: function flushETH(bytes32 receiptId, address split) returns(uint256 amount)
func (_Deposit *DepositTransactorSession) FlushETH(receiptId [32]byte, split common.Address) (*types.Transaction, error) {
	return _Deposit.Contract.FlushETH(&_Deposit.TransactOpts, receiptId, split)
}

// FlushToken is a paid mutator transaction binding the contract method 0x36ce4af2.
//
// Solidity: function flushToken(bytes32 receiptId, address split, address token) returns(uint256 amount)
func (_Deposit *DepositTransactor) FlushToken(opts *bind.TransactOpts, receiptId [32]byte, split common.Address, token common.Address) (*types.Transaction, error) {
	return _Deposit.contract.Transact(opts, "flushToken", receiptId, split, token)
}

// FlushToken is a paid mutator transaction binding the contract method 0x36ce4af2.
//
// Solidity: function flushToken(bytes32 receiptId, address split, address token) returns(uint256 amount)
func (_Deposit *DepositSession) FlushToken(receiptId [32]byte, split common.Address, token common.Address) (*types.Transaction, error) {
	return _Deposit.Contract.FlushToken(&_Deposit.TransactOpts, receiptId, split, token)
}

// FlushToken is a paid mutator transaction binding the contract method 0x36ce4af2.
//
// Solidity: function flushToken(bytes32 receiptId, address split, address token) returns(uint256 amount)
func (_Deposit *DepositTransactorSession) FlushToken(receiptId [32]byte, split common.Address, token common.Address) (*types.Transaction, error) {
	return _Deposit.Contract.FlushToken(&_Deposit.TransactOpts, receiptId, split, token)
}

// Receive is a paid mutator transaction binding the contract receive function.
//
// Solidity: receive() payable returns()
func (_Deposit *DepositTransactor) Receive(opts *bind.TransactOpts) (*types.Transaction, error) {
	return _Deposit.contract.RawTransact(opts, nil) // calldata is disallowed for receive function
}

// Receive is a paid mutator transaction binding the contract receive function.
//
// Solidity: receive() payable returns()
func (_Deposit *DepositSession) Receive() (*types.Transaction, error) {
	return _Deposit.Contract.Receive(&_Deposit.TransactOpts)
}

// Receive is a paid mutator transaction binding the contract receive function.
//
// Solidity: receive() payable returns()
func (_Deposit *DepositTransactorSession) Receive() (*types.Transaction, error) {
	return _Deposit.Contract.Receive(&_Deposit.TransactOpts)
}

// DepositSweptIterator is returned from FilterSwept and is used to iterate over the raw logs and unpacked data for Swept events raised by the Deposit contract.
type DepositSweptIterator struct {
	Event *DepositSwept // Event containing the contract specifics and raw log

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
func (it *DepositSweptIterator) Next() bool {
	// If the iterator failed, stop iterating
	if it.fail != nil {
		return false
	}
	// If the iterator completed, deliver directly whatever's available
	if it.done {
		select {
		case log := <-it.logs:
			it.Event = new(DepositSwept)
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
		it.Event = new(DepositSwept)
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
func (it *DepositSweptIterator) Error() error {
	return it.fail
}

// Close terminates the iteration process, releasing any pending underlying
// resources.
func (it *DepositSweptIterator) Close() error {
	it.sub.Unsubscribe()
	return nil
}

// DepositSwept represents a Swept event raised by the Deposit contract.
type DepositSwept struct {
	ReceiptId [32]byte
	Split     common.Address
	Token     common.Address
	Amount    *big.Int
	Raw       types.Log // Blockchain specific contextual infos
}

// FilterSwept is a free log retrieval operation binding the contract event 0xb54a956efa2885f605a691ebaa631db09ff8be97e46f62d97806ce1e88940e29.
//
// Solidity: event Swept(bytes32 indexed receiptId, address indexed split, address indexed token, uint256 amount)
func (_Deposit *DepositFilterer) FilterSwept(opts *bind.FilterOpts, receiptId [][32]byte, split []common.Address, token []common.Address) (*DepositSweptIterator, error) {

	var receiptIdRule []interface{}
	for _, receiptIdItem := range receiptId {
		receiptIdRule = append(receiptIdRule, receiptIdItem)
	}
	var splitRule []interface{}
	for _, splitItem := range split {
		splitRule = append(splitRule, splitItem)
	}
	var tokenRule []interface{}
	for _, tokenItem := range token {
		tokenRule = append(tokenRule, tokenItem)
	}

	logs, sub, err := _Deposit.contract.FilterLogs(opts, "Swept", receiptIdRule, splitRule, tokenRule)
	if err != nil {
		return nil, err
	}
	return &DepositSweptIterator{contract: _Deposit.contract, event: "Swept", logs: logs, sub: sub}, nil
}

// WatchSwept is a free log subscription operation binding the contract event 0xb54a956efa2885f605a691ebaa631db09ff8be97e46f62d97806ce1e88940e29.
//
// Solidity: event Swept(bytes32 indexed receiptId, address indexed split, address indexed token, uint256 amount)
func (_Deposit *DepositFilterer) WatchSwept(opts *bind.WatchOpts, sink chan<- *DepositSwept, receiptId [][32]byte, split []common.Address, token []common.Address) (event.Subscription, error) {

	var receiptIdRule []interface{}
	for _, receiptIdItem := range receiptId {
		receiptIdRule = append(receiptIdRule, receiptIdItem)
	}
	var splitRule []interface{}
	for _, splitItem := range split {
		splitRule = append(splitRule, splitItem)
	}
	var tokenRule []interface{}
	for _, tokenItem := range token {
		tokenRule = append(tokenRule, tokenItem)
	}

	logs, sub, err := _Deposit.contract.WatchLogs(opts, "Swept", receiptIdRule, splitRule, tokenRule)
	if err != nil {
		return nil, err
	}
	return event.NewSubscription(func(quit <-chan struct{}) error {
		defer sub.Unsubscribe()
		for {
			select {
			case log := <-logs:
				// New log arrived, parse the event and forward to the user
				event := new(DepositSwept)
				if err := _Deposit.contract.UnpackLog(event, "Swept", log); err != nil {
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

// ParseSwept is a log parse operation binding the contract event 0xb54a956efa2885f605a691ebaa631db09ff8be97e46f62d97806ce1e88940e29.
//
// Solidity: event Swept(bytes32 indexed receiptId, address indexed split, address indexed token, uint256 amount)
func (_Deposit *DepositFilterer) ParseSwept(log types.Log) (*DepositSwept, error) {
	event := new(DepositSwept)
	if err := _Deposit.contract.UnpackLog(event, "Swept", log); err != nil {
		return nil, err
	}
	event.Raw = log
	return event, nil
}
