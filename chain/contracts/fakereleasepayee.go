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

// FakeReleasePayeeMetaData contains all meta data concerning the FakeReleasePayee contract.
var FakeReleasePayeeMetaData = &bind.MetaData{
	ABI: "[{\"inputs\":[{\"internalType\":\"uint256\",\"name\":\"fake_\",\"type\":\"uint256\"}],\"stateMutability\":\"nonpayable\",\"type\":\"constructor\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":true,\"internalType\":\"address\",\"name\":\"token\",\"type\":\"address\"},{\"indexed\":false,\"internalType\":\"address\",\"name\":\"to\",\"type\":\"address\"},{\"indexed\":false,\"internalType\":\"uint256\",\"name\":\"amount\",\"type\":\"uint256\"}],\"name\":\"ERC20PaymentReleased\",\"type\":\"event\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":false,\"internalType\":\"address\",\"name\":\"to\",\"type\":\"address\"},{\"indexed\":false,\"internalType\":\"uint256\",\"name\":\"amount\",\"type\":\"uint256\"}],\"name\":\"PaymentReleased\",\"type\":\"event\"},{\"inputs\":[],\"name\":\"fake\",\"outputs\":[{\"internalType\":\"uint256\",\"name\":\"\",\"type\":\"uint256\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"stateMutability\":\"payable\",\"type\":\"receive\"}]",
	Bin: "0x608060405234801561000f575f80fd5b5060405161015338038061015383398101604081905261002e91610035565b5f5561004c565b5f60208284031215610045575f80fd5b5051919050565b60fb806100585f395ff3fe608060405260043610601e575f3560e01c8063bea293af1460a1575f80fd5b36609d575f546040805130815260208101929092527fdf20fd1e76bc69d672e4814fafb2c449bba3a5369d8359adf9e05e6fde87b056910160405180910390a15f80546040805130815260208101929092527f3be5b7a71e84ed12875d241991c70855ac5817d847039e17a9d895c1ceb0f18a910160405180910390a2005b5f80fd5b34801560ab575f80fd5b5060b35f5481565b60405190815260200160405180910390f3fea2646970667358221220842db137b24ab3578776946df9c75363fbb80c4f9e9daa5aa3653f01d1a1fad864736f6c63430008180033",
}

// FakeReleasePayeeABI is the input ABI used to generate the binding from.
// Deprecated: Use FakeReleasePayeeMetaData.ABI instead.
var FakeReleasePayeeABI = FakeReleasePayeeMetaData.ABI

// FakeReleasePayeeBin is the compiled bytecode used for deploying new contracts.
// Deprecated: Use FakeReleasePayeeMetaData.Bin instead.
var FakeReleasePayeeBin = FakeReleasePayeeMetaData.Bin

// DeployFakeReleasePayee deploys a new Ethereum contract, binding an instance of FakeReleasePayee to it.
func DeployFakeReleasePayee(auth *bind.TransactOpts, backend bind.ContractBackend, fake_ *big.Int) (common.Address, *types.Transaction, *FakeReleasePayee, error) {
	parsed, err := FakeReleasePayeeMetaData.GetAbi()
	if err != nil {
		return common.Address{}, nil, nil, err
	}
	if parsed == nil {
		return common.Address{}, nil, nil, errors.New("GetABI returned nil")
	}

	address, tx, contract, err := bind.DeployContract(auth, *parsed, common.FromHex(FakeReleasePayeeBin), backend, fake_)
	if err != nil {
		return common.Address{}, nil, nil, err
	}
	return address, tx, &FakeReleasePayee{FakeReleasePayeeCaller: FakeReleasePayeeCaller{contract: contract}, FakeReleasePayeeTransactor: FakeReleasePayeeTransactor{contract: contract}, FakeReleasePayeeFilterer: FakeReleasePayeeFilterer{contract: contract}}, nil
}

// FakeReleasePayee is an auto generated Go binding around an Ethereum contract.
type FakeReleasePayee struct {
	FakeReleasePayeeCaller     // Read-only binding to the contract
	FakeReleasePayeeTransactor // Write-only binding to the contract
	FakeReleasePayeeFilterer   // Log filterer for contract events
}

// FakeReleasePayeeCaller is an auto generated read-only Go binding around an Ethereum contract.
type FakeReleasePayeeCaller struct {
	contract *bind.BoundContract // Generic contract wrapper for the low level calls
}

// FakeReleasePayeeTransactor is an auto generated write-only Go binding around an Ethereum contract.
type FakeReleasePayeeTransactor struct {
	contract *bind.BoundContract // Generic contract wrapper for the low level calls
}

// FakeReleasePayeeFilterer is an auto generated log filtering Go binding around an Ethereum contract events.
type FakeReleasePayeeFilterer struct {
	contract *bind.BoundContract // Generic contract wrapper for the low level calls
}

// FakeReleasePayeeSession is an auto generated Go binding around an Ethereum contract,
// with pre-set call and transact options.
type FakeReleasePayeeSession struct {
	Contract     *FakeReleasePayee // Generic contract binding to set the session for
	CallOpts     bind.CallOpts     // Call options to use throughout this session
	TransactOpts bind.TransactOpts // Transaction auth options to use throughout this session
}

// FakeReleasePayeeCallerSession is an auto generated read-only Go binding around an Ethereum contract,
// with pre-set call options.
type FakeReleasePayeeCallerSession struct {
	Contract *FakeReleasePayeeCaller // Generic contract caller binding to set the session for
	CallOpts bind.CallOpts           // Call options to use throughout this session
}

// FakeReleasePayeeTransactorSession is an auto generated write-only Go binding around an Ethereum contract,
// with pre-set transact options.
type FakeReleasePayeeTransactorSession struct {
	Contract     *FakeReleasePayeeTransactor // Generic contract transactor binding to set the session for
	TransactOpts bind.TransactOpts           // Transaction auth options to use throughout this session
}

// FakeReleasePayeeRaw is an auto generated low-level Go binding around an Ethereum contract.
type FakeReleasePayeeRaw struct {
	Contract *FakeReleasePayee // Generic contract binding to access the raw methods on
}

// FakeReleasePayeeCallerRaw is an auto generated low-level read-only Go binding around an Ethereum contract.
type FakeReleasePayeeCallerRaw struct {
	Contract *FakeReleasePayeeCaller // Generic read-only contract binding to access the raw methods on
}

// FakeReleasePayeeTransactorRaw is an auto generated low-level write-only Go binding around an Ethereum contract.
type FakeReleasePayeeTransactorRaw struct {
	Contract *FakeReleasePayeeTransactor // Generic write-only contract binding to access the raw methods on
}

// NewFakeReleasePayee creates a new instance of FakeReleasePayee, bound to a specific deployed contract.
func NewFakeReleasePayee(address common.Address, backend bind.ContractBackend) (*FakeReleasePayee, error) {
	contract, err := bindFakeReleasePayee(address, backend, backend, backend)
	if err != nil {
		return nil, err
	}
	return &FakeReleasePayee{FakeReleasePayeeCaller: FakeReleasePayeeCaller{contract: contract}, FakeReleasePayeeTransactor: FakeReleasePayeeTransactor{contract: contract}, FakeReleasePayeeFilterer: FakeReleasePayeeFilterer{contract: contract}}, nil
}

// NewFakeReleasePayeeCaller creates a new read-only instance of FakeReleasePayee, bound to a specific deployed contract.
func NewFakeReleasePayeeCaller(address common.Address, caller bind.ContractCaller) (*FakeReleasePayeeCaller, error) {
	contract, err := bindFakeReleasePayee(address, caller, nil, nil)
	if err != nil {
		return nil, err
	}
	return &FakeReleasePayeeCaller{contract: contract}, nil
}

// NewFakeReleasePayeeTransactor creates a new write-only instance of FakeReleasePayee, bound to a specific deployed contract.
func NewFakeReleasePayeeTransactor(address common.Address, transactor bind.ContractTransactor) (*FakeReleasePayeeTransactor, error) {
	contract, err := bindFakeReleasePayee(address, nil, transactor, nil)
	if err != nil {
		return nil, err
	}
	return &FakeReleasePayeeTransactor{contract: contract}, nil
}

// NewFakeReleasePayeeFilterer creates a new log filterer instance of FakeReleasePayee, bound to a specific deployed contract.
func NewFakeReleasePayeeFilterer(address common.Address, filterer bind.ContractFilterer) (*FakeReleasePayeeFilterer, error) {
	contract, err := bindFakeReleasePayee(address, nil, nil, filterer)
	if err != nil {
		return nil, err
	}
	return &FakeReleasePayeeFilterer{contract: contract}, nil
}

// bindFakeReleasePayee binds a generic wrapper to an already deployed contract.
func bindFakeReleasePayee(address common.Address, caller bind.ContractCaller, transactor bind.ContractTransactor, filterer bind.ContractFilterer) (*bind.BoundContract, error) {
	parsed, err := FakeReleasePayeeMetaData.GetAbi()
	if err != nil {
		return nil, err
	}
	return bind.NewBoundContract(address, *parsed, caller, transactor, filterer), nil
}

// Call invokes the (constant) contract method with params as input values and
// sets the output to result. The result type might be a single field for simple
// returns, a slice of interfaces for anonymous returns and a struct for named
// returns.
func (_FakeReleasePayee *FakeReleasePayeeRaw) Call(opts *bind.CallOpts, result *[]interface{}, method string, params ...interface{}) error {
	return _FakeReleasePayee.Contract.FakeReleasePayeeCaller.contract.Call(opts, result, method, params...)
}

// Transfer initiates a plain transaction to move funds to the contract, calling
// its default method if one is available.
func (_FakeReleasePayee *FakeReleasePayeeRaw) Transfer(opts *bind.TransactOpts) (*types.Transaction, error) {
	return _FakeReleasePayee.Contract.FakeReleasePayeeTransactor.contract.Transfer(opts)
}

// Transact invokes the (paid) contract method with params as input values.
func (_FakeReleasePayee *FakeReleasePayeeRaw) Transact(opts *bind.TransactOpts, method string, params ...interface{}) (*types.Transaction, error) {
	return _FakeReleasePayee.Contract.FakeReleasePayeeTransactor.contract.Transact(opts, method, params...)
}

// Call invokes the (constant) contract method with params as input values and
// sets the output to result. The result type might be a single field for simple
// returns, a slice of interfaces for anonymous returns and a struct for named
// returns.
func (_FakeReleasePayee *FakeReleasePayeeCallerRaw) Call(opts *bind.CallOpts, result *[]interface{}, method string, params ...interface{}) error {
	return _FakeReleasePayee.Contract.contract.Call(opts, result, method, params...)
}

// Transfer initiates a plain transaction to move funds to the contract, calling
// its default method if one is available.
func (_FakeReleasePayee *FakeReleasePayeeTransactorRaw) Transfer(opts *bind.TransactOpts) (*types.Transaction, error) {
	return _FakeReleasePayee.Contract.contract.Transfer(opts)
}

// Transact invokes the (paid) contract method with params as input values.
func (_FakeReleasePayee *FakeReleasePayeeTransactorRaw) Transact(opts *bind.TransactOpts, method string, params ...interface{}) (*types.Transaction, error) {
	return _FakeReleasePayee.Contract.contract.Transact(opts, method, params...)
}

// Fake is a free data retrieval call binding the contract method 0xbea293af.
//
// Solidity: function fake() view returns(uint256)
func (_FakeReleasePayee *FakeReleasePayeeCaller) Fake(opts *bind.CallOpts) (*big.Int, error) {
	var out []interface{}
	err := _FakeReleasePayee.contract.Call(opts, &out, "fake")

	if err != nil {
		return *new(*big.Int), err
	}

	out0 := *abi.ConvertType(out[0], new(*big.Int)).(**big.Int)

	return out0, err

}

// Fake is a free data retrieval call binding the contract method 0xbea293af.
//
// Solidity: function fake() view returns(uint256)
func (_FakeReleasePayee *FakeReleasePayeeSession) Fake() (*big.Int, error) {
	return _FakeReleasePayee.Contract.Fake(&_FakeReleasePayee.CallOpts)
}

// Fake is a free data retrieval call binding the contract method 0xbea293af.
//
// Solidity: function fake() view returns(uint256)
func (_FakeReleasePayee *FakeReleasePayeeCallerSession) Fake() (*big.Int, error) {
	return _FakeReleasePayee.Contract.Fake(&_FakeReleasePayee.CallOpts)
}

// Receive is a paid mutator transaction binding the contract receive function.
//
// Solidity: receive() payable returns()
func (_FakeReleasePayee *FakeReleasePayeeTransactor) Receive(opts *bind.TransactOpts) (*types.Transaction, error) {
	return _FakeReleasePayee.contract.RawTransact(opts, nil) // calldata is disallowed for receive function
}

// Receive is a paid mutator transaction binding the contract receive function.
//
// Solidity: receive() payable returns()
func (_FakeReleasePayee *FakeReleasePayeeSession) Receive() (*types.Transaction, error) {
	return _FakeReleasePayee.Contract.Receive(&_FakeReleasePayee.TransactOpts)
}

// Receive is a paid mutator transaction binding the contract receive function.
//
// Solidity: receive() payable returns()
func (_FakeReleasePayee *FakeReleasePayeeTransactorSession) Receive() (*types.Transaction, error) {
	return _FakeReleasePayee.Contract.Receive(&_FakeReleasePayee.TransactOpts)
}

// FakeReleasePayeeERC20PaymentReleasedIterator is returned from FilterERC20PaymentReleased and is used to iterate over the raw logs and unpacked data for ERC20PaymentReleased events raised by the FakeReleasePayee contract.
type FakeReleasePayeeERC20PaymentReleasedIterator struct {
	Event *FakeReleasePayeeERC20PaymentReleased // Event containing the contract specifics and raw log

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
func (it *FakeReleasePayeeERC20PaymentReleasedIterator) Next() bool {
	// If the iterator failed, stop iterating
	if it.fail != nil {
		return false
	}
	// If the iterator completed, deliver directly whatever's available
	if it.done {
		select {
		case log := <-it.logs:
			it.Event = new(FakeReleasePayeeERC20PaymentReleased)
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
		it.Event = new(FakeReleasePayeeERC20PaymentReleased)
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
func (it *FakeReleasePayeeERC20PaymentReleasedIterator) Error() error {
	return it.fail
}

// Close terminates the iteration process, releasing any pending underlying
// resources.
func (it *FakeReleasePayeeERC20PaymentReleasedIterator) Close() error {
	it.sub.Unsubscribe()
	return nil
}

// FakeReleasePayeeERC20PaymentReleased represents a ERC20PaymentReleased event raised by the FakeReleasePayee contract.
type FakeReleasePayeeERC20PaymentReleased struct {
	Token  common.Address
	To     common.Address
	Amount *big.Int
	Raw    types.Log // Blockchain specific contextual infos
}

// FilterERC20PaymentReleased is a free log retrieval operation binding the contract event 0x3be5b7a71e84ed12875d241991c70855ac5817d847039e17a9d895c1ceb0f18a.
//
// Solidity: event ERC20PaymentReleased(address indexed token, address to, uint256 amount)
func (_FakeReleasePayee *FakeReleasePayeeFilterer) FilterERC20PaymentReleased(opts *bind.FilterOpts, token []common.Address) (*FakeReleasePayeeERC20PaymentReleasedIterator, error) {

	var tokenRule []interface{}
	for _, tokenItem := range token {
		tokenRule = append(tokenRule, tokenItem)
	}

	logs, sub, err := _FakeReleasePayee.contract.FilterLogs(opts, "ERC20PaymentReleased", tokenRule)
	if err != nil {
		return nil, err
	}
	return &FakeReleasePayeeERC20PaymentReleasedIterator{contract: _FakeReleasePayee.contract, event: "ERC20PaymentReleased", logs: logs, sub: sub}, nil
}

// WatchERC20PaymentReleased is a free log subscription operation binding the contract event 0x3be5b7a71e84ed12875d241991c70855ac5817d847039e17a9d895c1ceb0f18a.
//
// Solidity: event ERC20PaymentReleased(address indexed token, address to, uint256 amount)
func (_FakeReleasePayee *FakeReleasePayeeFilterer) WatchERC20PaymentReleased(opts *bind.WatchOpts, sink chan<- *FakeReleasePayeeERC20PaymentReleased, token []common.Address) (event.Subscription, error) {

	var tokenRule []interface{}
	for _, tokenItem := range token {
		tokenRule = append(tokenRule, tokenItem)
	}

	logs, sub, err := _FakeReleasePayee.contract.WatchLogs(opts, "ERC20PaymentReleased", tokenRule)
	if err != nil {
		return nil, err
	}
	return event.NewSubscription(func(quit <-chan struct{}) error {
		defer sub.Unsubscribe()
		for {
			select {
			case log := <-logs:
				// New log arrived, parse the event and forward to the user
				event := new(FakeReleasePayeeERC20PaymentReleased)
				if err := _FakeReleasePayee.contract.UnpackLog(event, "ERC20PaymentReleased", log); err != nil {
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

// ParseERC20PaymentReleased is a log parse operation binding the contract event 0x3be5b7a71e84ed12875d241991c70855ac5817d847039e17a9d895c1ceb0f18a.
//
// Solidity: event ERC20PaymentReleased(address indexed token, address to, uint256 amount)
func (_FakeReleasePayee *FakeReleasePayeeFilterer) ParseERC20PaymentReleased(log types.Log) (*FakeReleasePayeeERC20PaymentReleased, error) {
	event := new(FakeReleasePayeeERC20PaymentReleased)
	if err := _FakeReleasePayee.contract.UnpackLog(event, "ERC20PaymentReleased", log); err != nil {
		return nil, err
	}
	event.Raw = log
	return event, nil
}

// FakeReleasePayeePaymentReleasedIterator is returned from FilterPaymentReleased and is used to iterate over the raw logs and unpacked data for PaymentReleased events raised by the FakeReleasePayee contract.
type FakeReleasePayeePaymentReleasedIterator struct {
	Event *FakeReleasePayeePaymentReleased // Event containing the contract specifics and raw log

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
func (it *FakeReleasePayeePaymentReleasedIterator) Next() bool {
	// If the iterator failed, stop iterating
	if it.fail != nil {
		return false
	}
	// If the iterator completed, deliver directly whatever's available
	if it.done {
		select {
		case log := <-it.logs:
			it.Event = new(FakeReleasePayeePaymentReleased)
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
		it.Event = new(FakeReleasePayeePaymentReleased)
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
func (it *FakeReleasePayeePaymentReleasedIterator) Error() error {
	return it.fail
}

// Close terminates the iteration process, releasing any pending underlying
// resources.
func (it *FakeReleasePayeePaymentReleasedIterator) Close() error {
	it.sub.Unsubscribe()
	return nil
}

// FakeReleasePayeePaymentReleased represents a PaymentReleased event raised by the FakeReleasePayee contract.
type FakeReleasePayeePaymentReleased struct {
	To     common.Address
	Amount *big.Int
	Raw    types.Log // Blockchain specific contextual infos
}

// FilterPaymentReleased is a free log retrieval operation binding the contract event 0xdf20fd1e76bc69d672e4814fafb2c449bba3a5369d8359adf9e05e6fde87b056.
//
// Solidity: event PaymentReleased(address to, uint256 amount)
func (_FakeReleasePayee *FakeReleasePayeeFilterer) FilterPaymentReleased(opts *bind.FilterOpts) (*FakeReleasePayeePaymentReleasedIterator, error) {

	logs, sub, err := _FakeReleasePayee.contract.FilterLogs(opts, "PaymentReleased")
	if err != nil {
		return nil, err
	}
	return &FakeReleasePayeePaymentReleasedIterator{contract: _FakeReleasePayee.contract, event: "PaymentReleased", logs: logs, sub: sub}, nil
}

// WatchPaymentReleased is a free log subscription operation binding the contract event 0xdf20fd1e76bc69d672e4814fafb2c449bba3a5369d8359adf9e05e6fde87b056.
//
// Solidity: event PaymentReleased(address to, uint256 amount)
func (_FakeReleasePayee *FakeReleasePayeeFilterer) WatchPaymentReleased(opts *bind.WatchOpts, sink chan<- *FakeReleasePayeePaymentReleased) (event.Subscription, error) {

	logs, sub, err := _FakeReleasePayee.contract.WatchLogs(opts, "PaymentReleased")
	if err != nil {
		return nil, err
	}
	return event.NewSubscription(func(quit <-chan struct{}) error {
		defer sub.Unsubscribe()
		for {
			select {
			case log := <-logs:
				// New log arrived, parse the event and forward to the user
				event := new(FakeReleasePayeePaymentReleased)
				if err := _FakeReleasePayee.contract.UnpackLog(event, "PaymentReleased", log); err != nil {
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

// ParsePaymentReleased is a log parse operation binding the contract event 0xdf20fd1e76bc69d672e4814fafb2c449bba3a5369d8359adf9e05e6fde87b056.
//
// Solidity: event PaymentReleased(address to, uint256 amount)
func (_FakeReleasePayee *FakeReleasePayeeFilterer) ParsePaymentReleased(log types.Log) (*FakeReleasePayeePaymentReleased, error) {
	event := new(FakeReleasePayeePaymentReleased)
	if err := _FakeReleasePayee.contract.UnpackLog(event, "PaymentReleased", log); err != nil {
		return nil, err
	}
	event.Raw = log
	return event, nil
}
