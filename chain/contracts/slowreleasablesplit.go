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

// SlowReleasableSplitMetaData contains all meta data concerning the SlowReleasableSplit contract.
var SlowReleasableSplitMetaData = &bind.MetaData{
	ABI: "[{\"inputs\":[{\"internalType\":\"address[]\",\"name\":\"payees\",\"type\":\"address[]\"},{\"internalType\":\"uint256[]\",\"name\":\"shares_\",\"type\":\"uint256[]\"}],\"stateMutability\":\"nonpayable\",\"type\":\"constructor\"},{\"inputs\":[{\"internalType\":\"uint256\",\"name\":\"index\",\"type\":\"uint256\"}],\"name\":\"payee\",\"outputs\":[{\"internalType\":\"address\",\"name\":\"\",\"type\":\"address\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"\",\"type\":\"address\"}],\"name\":\"releasable\",\"outputs\":[{\"internalType\":\"uint256\",\"name\":\"\",\"type\":\"uint256\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"\",\"type\":\"address\"},{\"internalType\":\"address\",\"name\":\"\",\"type\":\"address\"}],\"name\":\"releasable\",\"outputs\":[{\"internalType\":\"uint256\",\"name\":\"\",\"type\":\"uint256\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"addresspayable\",\"name\":\"\",\"type\":\"address\"}],\"name\":\"release\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"\",\"type\":\"address\"},{\"internalType\":\"address\",\"name\":\"\",\"type\":\"address\"}],\"name\":\"release\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"rounds\",\"outputs\":[{\"internalType\":\"uint256\",\"name\":\"\",\"type\":\"uint256\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"uint256\",\"name\":\"n\",\"type\":\"uint256\"}],\"name\":\"setRounds\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"account\",\"type\":\"address\"}],\"name\":\"shares\",\"outputs\":[{\"internalType\":\"uint256\",\"name\":\"\",\"type\":\"uint256\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"totalShares\",\"outputs\":[{\"internalType\":\"uint256\",\"name\":\"\",\"type\":\"uint256\"}],\"stateMutability\":\"view\",\"type\":\"function\"}]",
	Bin: "0x608060405234801561000f575f80fd5b506040516105d03803806105d083398101604081905261002e916101f3565b5f5b825181101561011957600283828151811061004d5761004d6102bc565b60209081029190910181015182546001810184555f938452919092200180546001600160a01b0319166001600160a01b03909216919091179055815182908290811061009b5761009b6102bc565b602002602001015160035f8584815181106100b8576100b86102bc565b60200260200101516001600160a01b03166001600160a01b031681526020019081526020015f20819055508181815181106100f5576100f56102bc565b60200260200101515f8082825461010c91906102d0565b9091555050600101610030565b5050506102f5565b634e487b7160e01b5f52604160045260245ffd5b604051601f8201601f191681016001600160401b038111828210171561015d5761015d610121565b604052919050565b5f6001600160401b0382111561017d5761017d610121565b5060051b60200190565b5f82601f830112610196575f80fd5b815160206101ab6101a683610165565b610135565b8083825260208201915060208460051b8701019350868411156101cc575f80fd5b602086015b848110156101e857805183529183019183016101d1565b509695505050505050565b5f8060408385031215610204575f80fd5b82516001600160401b038082111561021a575f80fd5b818501915085601f83011261022d575f80fd5b8151602061023d6101a683610165565b82815260059290921b8401810191818101908984111561025b575f80fd5b948201945b8386101561028d5785516001600160a01b038116811461027e575f80fd5b82529482019490820190610260565b918801519196509093505050808211156102a5575f80fd5b506102b285828601610187565b9150509250929050565b634e487b7160e01b5f52603260045260245ffd5b808201808211156102ef57634e487b7160e01b5f52601160045260245ffd5b92915050565b6102ce806103025f395ff3fe608060405234801561000f575f80fd5b5060043610610090575f3560e01c8063a2e800ad11610063578063a2e800ad146100ff578063a3f8eace14610108578063c45ac0501461011b578063ce7c2ac21461012e578063d5c5d6b914610156575f80fd5b806319165587146100945780633a98ef39146100a757806348b75044146100c25780638b83209b146100d4575b5f80fd5b6100a56100a236600461021b565b50565b005b6100af5f5481565b6040519081526020015b60405180910390f35b6100a56100d0366004610236565b5050565b6100e76100e236600461026d565b610169565b6040516001600160a01b0390911681526020016100b9565b6100af60015481565b6100af61011636600461021b565b610197565b6100af610129366004610236565b6101a6565b6100af61013c36600461021b565b6001600160a01b03165f9081526003602052604090205490565b6100a561016436600461026d565b600155565b5f6002828154811061017d5761017d610284565b5f918252602090912001546001600160a01b031692915050565b5f6101a06101b6565b92915050565b5f6101af6101b6565b9392505050565b6001545f908190815b818110156101fd57604080516020810185905290810182905260600160408051601f19818403018152919052805160209091012092506001016101bf565b5050600117919050565b6001600160a01b03811681146100a2575f80fd5b5f6020828403121561022b575f80fd5b81356101af81610207565b5f8060408385031215610247575f80fd5b823561025281610207565b9150602083013561026281610207565b809150509250929050565b5f6020828403121561027d575f80fd5b5035919050565b634e487b7160e01b5f52603260045260245ffdfea2646970667358221220730683c6c0da2dfe10beb6c23de13c4cfc261a7d83cccc511c22343e3c64719464736f6c63430008180033",
}

// SlowReleasableSplitABI is the input ABI used to generate the binding from.
// Deprecated: Use SlowReleasableSplitMetaData.ABI instead.
var SlowReleasableSplitABI = SlowReleasableSplitMetaData.ABI

// SlowReleasableSplitBin is the compiled bytecode used for deploying new contracts.
// Deprecated: Use SlowReleasableSplitMetaData.Bin instead.
var SlowReleasableSplitBin = SlowReleasableSplitMetaData.Bin

// DeploySlowReleasableSplit deploys a new Ethereum contract, binding an instance of SlowReleasableSplit to it.
func DeploySlowReleasableSplit(auth *bind.TransactOpts, backend bind.ContractBackend, payees []common.Address, shares_ []*big.Int) (common.Address, *types.Transaction, *SlowReleasableSplit, error) {
	parsed, err := SlowReleasableSplitMetaData.GetAbi()
	if err != nil {
		return common.Address{}, nil, nil, err
	}
	if parsed == nil {
		return common.Address{}, nil, nil, errors.New("GetABI returned nil")
	}

	address, tx, contract, err := bind.DeployContract(auth, *parsed, common.FromHex(SlowReleasableSplitBin), backend, payees, shares_)
	if err != nil {
		return common.Address{}, nil, nil, err
	}
	return address, tx, &SlowReleasableSplit{SlowReleasableSplitCaller: SlowReleasableSplitCaller{contract: contract}, SlowReleasableSplitTransactor: SlowReleasableSplitTransactor{contract: contract}, SlowReleasableSplitFilterer: SlowReleasableSplitFilterer{contract: contract}}, nil
}

// SlowReleasableSplit is an auto generated Go binding around an Ethereum contract.
type SlowReleasableSplit struct {
	SlowReleasableSplitCaller     // Read-only binding to the contract
	SlowReleasableSplitTransactor // Write-only binding to the contract
	SlowReleasableSplitFilterer   // Log filterer for contract events
}

// SlowReleasableSplitCaller is an auto generated read-only Go binding around an Ethereum contract.
type SlowReleasableSplitCaller struct {
	contract *bind.BoundContract // Generic contract wrapper for the low level calls
}

// SlowReleasableSplitTransactor is an auto generated write-only Go binding around an Ethereum contract.
type SlowReleasableSplitTransactor struct {
	contract *bind.BoundContract // Generic contract wrapper for the low level calls
}

// SlowReleasableSplitFilterer is an auto generated log filtering Go binding around an Ethereum contract events.
type SlowReleasableSplitFilterer struct {
	contract *bind.BoundContract // Generic contract wrapper for the low level calls
}

// SlowReleasableSplitSession is an auto generated Go binding around an Ethereum contract,
// with pre-set call and transact options.
type SlowReleasableSplitSession struct {
	Contract     *SlowReleasableSplit // Generic contract binding to set the session for
	CallOpts     bind.CallOpts        // Call options to use throughout this session
	TransactOpts bind.TransactOpts    // Transaction auth options to use throughout this session
}

// SlowReleasableSplitCallerSession is an auto generated read-only Go binding around an Ethereum contract,
// with pre-set call options.
type SlowReleasableSplitCallerSession struct {
	Contract *SlowReleasableSplitCaller // Generic contract caller binding to set the session for
	CallOpts bind.CallOpts              // Call options to use throughout this session
}

// SlowReleasableSplitTransactorSession is an auto generated write-only Go binding around an Ethereum contract,
// with pre-set transact options.
type SlowReleasableSplitTransactorSession struct {
	Contract     *SlowReleasableSplitTransactor // Generic contract transactor binding to set the session for
	TransactOpts bind.TransactOpts              // Transaction auth options to use throughout this session
}

// SlowReleasableSplitRaw is an auto generated low-level Go binding around an Ethereum contract.
type SlowReleasableSplitRaw struct {
	Contract *SlowReleasableSplit // Generic contract binding to access the raw methods on
}

// SlowReleasableSplitCallerRaw is an auto generated low-level read-only Go binding around an Ethereum contract.
type SlowReleasableSplitCallerRaw struct {
	Contract *SlowReleasableSplitCaller // Generic read-only contract binding to access the raw methods on
}

// SlowReleasableSplitTransactorRaw is an auto generated low-level write-only Go binding around an Ethereum contract.
type SlowReleasableSplitTransactorRaw struct {
	Contract *SlowReleasableSplitTransactor // Generic write-only contract binding to access the raw methods on
}

// NewSlowReleasableSplit creates a new instance of SlowReleasableSplit, bound to a specific deployed contract.
func NewSlowReleasableSplit(address common.Address, backend bind.ContractBackend) (*SlowReleasableSplit, error) {
	contract, err := bindSlowReleasableSplit(address, backend, backend, backend)
	if err != nil {
		return nil, err
	}
	return &SlowReleasableSplit{SlowReleasableSplitCaller: SlowReleasableSplitCaller{contract: contract}, SlowReleasableSplitTransactor: SlowReleasableSplitTransactor{contract: contract}, SlowReleasableSplitFilterer: SlowReleasableSplitFilterer{contract: contract}}, nil
}

// NewSlowReleasableSplitCaller creates a new read-only instance of SlowReleasableSplit, bound to a specific deployed contract.
func NewSlowReleasableSplitCaller(address common.Address, caller bind.ContractCaller) (*SlowReleasableSplitCaller, error) {
	contract, err := bindSlowReleasableSplit(address, caller, nil, nil)
	if err != nil {
		return nil, err
	}
	return &SlowReleasableSplitCaller{contract: contract}, nil
}

// NewSlowReleasableSplitTransactor creates a new write-only instance of SlowReleasableSplit, bound to a specific deployed contract.
func NewSlowReleasableSplitTransactor(address common.Address, transactor bind.ContractTransactor) (*SlowReleasableSplitTransactor, error) {
	contract, err := bindSlowReleasableSplit(address, nil, transactor, nil)
	if err != nil {
		return nil, err
	}
	return &SlowReleasableSplitTransactor{contract: contract}, nil
}

// NewSlowReleasableSplitFilterer creates a new log filterer instance of SlowReleasableSplit, bound to a specific deployed contract.
func NewSlowReleasableSplitFilterer(address common.Address, filterer bind.ContractFilterer) (*SlowReleasableSplitFilterer, error) {
	contract, err := bindSlowReleasableSplit(address, nil, nil, filterer)
	if err != nil {
		return nil, err
	}
	return &SlowReleasableSplitFilterer{contract: contract}, nil
}

// bindSlowReleasableSplit binds a generic wrapper to an already deployed contract.
func bindSlowReleasableSplit(address common.Address, caller bind.ContractCaller, transactor bind.ContractTransactor, filterer bind.ContractFilterer) (*bind.BoundContract, error) {
	parsed, err := SlowReleasableSplitMetaData.GetAbi()
	if err != nil {
		return nil, err
	}
	return bind.NewBoundContract(address, *parsed, caller, transactor, filterer), nil
}

// Call invokes the (constant) contract method with params as input values and
// sets the output to result. The result type might be a single field for simple
// returns, a slice of interfaces for anonymous returns and a struct for named
// returns.
func (_SlowReleasableSplit *SlowReleasableSplitRaw) Call(opts *bind.CallOpts, result *[]interface{}, method string, params ...interface{}) error {
	return _SlowReleasableSplit.Contract.SlowReleasableSplitCaller.contract.Call(opts, result, method, params...)
}

// Transfer initiates a plain transaction to move funds to the contract, calling
// its default method if one is available.
func (_SlowReleasableSplit *SlowReleasableSplitRaw) Transfer(opts *bind.TransactOpts) (*types.Transaction, error) {
	return _SlowReleasableSplit.Contract.SlowReleasableSplitTransactor.contract.Transfer(opts)
}

// Transact invokes the (paid) contract method with params as input values.
func (_SlowReleasableSplit *SlowReleasableSplitRaw) Transact(opts *bind.TransactOpts, method string, params ...interface{}) (*types.Transaction, error) {
	return _SlowReleasableSplit.Contract.SlowReleasableSplitTransactor.contract.Transact(opts, method, params...)
}

// Call invokes the (constant) contract method with params as input values and
// sets the output to result. The result type might be a single field for simple
// returns, a slice of interfaces for anonymous returns and a struct for named
// returns.
func (_SlowReleasableSplit *SlowReleasableSplitCallerRaw) Call(opts *bind.CallOpts, result *[]interface{}, method string, params ...interface{}) error {
	return _SlowReleasableSplit.Contract.contract.Call(opts, result, method, params...)
}

// Transfer initiates a plain transaction to move funds to the contract, calling
// its default method if one is available.
func (_SlowReleasableSplit *SlowReleasableSplitTransactorRaw) Transfer(opts *bind.TransactOpts) (*types.Transaction, error) {
	return _SlowReleasableSplit.Contract.contract.Transfer(opts)
}

// Transact invokes the (paid) contract method with params as input values.
func (_SlowReleasableSplit *SlowReleasableSplitTransactorRaw) Transact(opts *bind.TransactOpts, method string, params ...interface{}) (*types.Transaction, error) {
	return _SlowReleasableSplit.Contract.contract.Transact(opts, method, params...)
}

// Payee is a free data retrieval call binding the contract method 0x8b83209b.
//
// Solidity: function payee(uint256 index) view returns(address)
func (_SlowReleasableSplit *SlowReleasableSplitCaller) Payee(opts *bind.CallOpts, index *big.Int) (common.Address, error) {
	var out []interface{}
	err := _SlowReleasableSplit.contract.Call(opts, &out, "payee", index)

	if err != nil {
		return *new(common.Address), err
	}

	out0 := *abi.ConvertType(out[0], new(common.Address)).(*common.Address)

	return out0, err

}

// Payee is a free data retrieval call binding the contract method 0x8b83209b.
//
// Solidity: function payee(uint256 index) view returns(address)
func (_SlowReleasableSplit *SlowReleasableSplitSession) Payee(index *big.Int) (common.Address, error) {
	return _SlowReleasableSplit.Contract.Payee(&_SlowReleasableSplit.CallOpts, index)
}

// Payee is a free data retrieval call binding the contract method 0x8b83209b.
//
// Solidity: function payee(uint256 index) view returns(address)
func (_SlowReleasableSplit *SlowReleasableSplitCallerSession) Payee(index *big.Int) (common.Address, error) {
	return _SlowReleasableSplit.Contract.Payee(&_SlowReleasableSplit.CallOpts, index)
}

// Releasable is a free data retrieval call binding the contract method 0xa3f8eace.
//
// Solidity: function releasable(address ) view returns(uint256)
func (_SlowReleasableSplit *SlowReleasableSplitCaller) Releasable(opts *bind.CallOpts, arg0 common.Address) (*big.Int, error) {
	var out []interface{}
	err := _SlowReleasableSplit.contract.Call(opts, &out, "releasable", arg0)

	if err != nil {
		return *new(*big.Int), err
	}

	out0 := *abi.ConvertType(out[0], new(*big.Int)).(**big.Int)

	return out0, err

}

// Releasable is a free data retrieval call binding the contract method 0xa3f8eace.
//
// Solidity: function releasable(address ) view returns(uint256)
func (_SlowReleasableSplit *SlowReleasableSplitSession) Releasable(arg0 common.Address) (*big.Int, error) {
	return _SlowReleasableSplit.Contract.Releasable(&_SlowReleasableSplit.CallOpts, arg0)
}

// Releasable is a free data retrieval call binding the contract method 0xa3f8eace.
//
// Solidity: function releasable(address ) view returns(uint256)
func (_SlowReleasableSplit *SlowReleasableSplitCallerSession) Releasable(arg0 common.Address) (*big.Int, error) {
	return _SlowReleasableSplit.Contract.Releasable(&_SlowReleasableSplit.CallOpts, arg0)
}

// Releasable0 is a free data retrieval call binding the contract method 0xc45ac050.
//
// Solidity: function releasable(address , address ) view returns(uint256)
func (_SlowReleasableSplit *SlowReleasableSplitCaller) Releasable0(opts *bind.CallOpts, arg0 common.Address, arg1 common.Address) (*big.Int, error) {
	var out []interface{}
	err := _SlowReleasableSplit.contract.Call(opts, &out, "releasable0", arg0, arg1)

	if err != nil {
		return *new(*big.Int), err
	}

	out0 := *abi.ConvertType(out[0], new(*big.Int)).(**big.Int)

	return out0, err

}

// Releasable0 is a free data retrieval call binding the contract method 0xc45ac050.
//
// Solidity: function releasable(address , address ) view returns(uint256)
func (_SlowReleasableSplit *SlowReleasableSplitSession) Releasable0(arg0 common.Address, arg1 common.Address) (*big.Int, error) {
	return _SlowReleasableSplit.Contract.Releasable0(&_SlowReleasableSplit.CallOpts, arg0, arg1)
}

// Releasable0 is a free data retrieval call binding the contract method 0xc45ac050.
//
// Solidity: function releasable(address , address ) view returns(uint256)
func (_SlowReleasableSplit *SlowReleasableSplitCallerSession) Releasable0(arg0 common.Address, arg1 common.Address) (*big.Int, error) {
	return _SlowReleasableSplit.Contract.Releasable0(&_SlowReleasableSplit.CallOpts, arg0, arg1)
}

// Rounds is a free data retrieval call binding the contract method 0xa2e800ad.
//
// Solidity: function rounds() view returns(uint256)
func (_SlowReleasableSplit *SlowReleasableSplitCaller) Rounds(opts *bind.CallOpts) (*big.Int, error) {
	var out []interface{}
	err := _SlowReleasableSplit.contract.Call(opts, &out, "rounds")

	if err != nil {
		return *new(*big.Int), err
	}

	out0 := *abi.ConvertType(out[0], new(*big.Int)).(**big.Int)

	return out0, err

}

// Rounds is a free data retrieval call binding the contract method 0xa2e800ad.
//
// Solidity: function rounds() view returns(uint256)
func (_SlowReleasableSplit *SlowReleasableSplitSession) Rounds() (*big.Int, error) {
	return _SlowReleasableSplit.Contract.Rounds(&_SlowReleasableSplit.CallOpts)
}

// Rounds is a free data retrieval call binding the contract method 0xa2e800ad.
//
// Solidity: function rounds() view returns(uint256)
func (_SlowReleasableSplit *SlowReleasableSplitCallerSession) Rounds() (*big.Int, error) {
	return _SlowReleasableSplit.Contract.Rounds(&_SlowReleasableSplit.CallOpts)
}

// Shares is a free data retrieval call binding the contract method 0xce7c2ac2.
//
// Solidity: function shares(address account) view returns(uint256)
func (_SlowReleasableSplit *SlowReleasableSplitCaller) Shares(opts *bind.CallOpts, account common.Address) (*big.Int, error) {
	var out []interface{}
	err := _SlowReleasableSplit.contract.Call(opts, &out, "shares", account)

	if err != nil {
		return *new(*big.Int), err
	}

	out0 := *abi.ConvertType(out[0], new(*big.Int)).(**big.Int)

	return out0, err

}

// Shares is a free data retrieval call binding the contract method 0xce7c2ac2.
//
// Solidity: function shares(address account) view returns(uint256)
func (_SlowReleasableSplit *SlowReleasableSplitSession) Shares(account common.Address) (*big.Int, error) {
	return _SlowReleasableSplit.Contract.Shares(&_SlowReleasableSplit.CallOpts, account)
}

// Shares is a free data retrieval call binding the contract method 0xce7c2ac2.
//
// Solidity: function shares(address account) view returns(uint256)
func (_SlowReleasableSplit *SlowReleasableSplitCallerSession) Shares(account common.Address) (*big.Int, error) {
	return _SlowReleasableSplit.Contract.Shares(&_SlowReleasableSplit.CallOpts, account)
}

// TotalShares is a free data retrieval call binding the contract method 0x3a98ef39.
//
// Solidity: function totalShares() view returns(uint256)
func (_SlowReleasableSplit *SlowReleasableSplitCaller) TotalShares(opts *bind.CallOpts) (*big.Int, error) {
	var out []interface{}
	err := _SlowReleasableSplit.contract.Call(opts, &out, "totalShares")

	if err != nil {
		return *new(*big.Int), err
	}

	out0 := *abi.ConvertType(out[0], new(*big.Int)).(**big.Int)

	return out0, err

}

// TotalShares is a free data retrieval call binding the contract method 0x3a98ef39.
//
// Solidity: function totalShares() view returns(uint256)
func (_SlowReleasableSplit *SlowReleasableSplitSession) TotalShares() (*big.Int, error) {
	return _SlowReleasableSplit.Contract.TotalShares(&_SlowReleasableSplit.CallOpts)
}

// TotalShares is a free data retrieval call binding the contract method 0x3a98ef39.
//
// Solidity: function totalShares() view returns(uint256)
func (_SlowReleasableSplit *SlowReleasableSplitCallerSession) TotalShares() (*big.Int, error) {
	return _SlowReleasableSplit.Contract.TotalShares(&_SlowReleasableSplit.CallOpts)
}

// Release is a paid mutator transaction binding the contract method 0x19165587.
//
// Solidity: function release(address ) returns()
func (_SlowReleasableSplit *SlowReleasableSplitTransactor) Release(opts *bind.TransactOpts, arg0 common.Address) (*types.Transaction, error) {
	return _SlowReleasableSplit.contract.Transact(opts, "release", arg0)
}

// Release is a paid mutator transaction binding the contract method 0x19165587.
//
// Solidity: function release(address ) returns()
func (_SlowReleasableSplit *SlowReleasableSplitSession) Release(arg0 common.Address) (*types.Transaction, error) {
	return _SlowReleasableSplit.Contract.Release(&_SlowReleasableSplit.TransactOpts, arg0)
}

// Release is a paid mutator transaction binding the contract method 0x19165587.
//
// Solidity: function release(address ) returns()
func (_SlowReleasableSplit *SlowReleasableSplitTransactorSession) Release(arg0 common.Address) (*types.Transaction, error) {
	return _SlowReleasableSplit.Contract.Release(&_SlowReleasableSplit.TransactOpts, arg0)
}

// Release0 is a paid mutator transaction binding the contract method 0x48b75044.
//
// Solidity: function release(address , address ) returns()
func (_SlowReleasableSplit *SlowReleasableSplitTransactor) Release0(opts *bind.TransactOpts, arg0 common.Address, arg1 common.Address) (*types.Transaction, error) {
	return _SlowReleasableSplit.contract.Transact(opts, "release0", arg0, arg1)
}

// Release0 is a paid mutator transaction binding the contract method 0x48b75044.
//
// Solidity: function release(address , address ) returns()
func (_SlowReleasableSplit *SlowReleasableSplitSession) Release0(arg0 common.Address, arg1 common.Address) (*types.Transaction, error) {
	return _SlowReleasableSplit.Contract.Release0(&_SlowReleasableSplit.TransactOpts, arg0, arg1)
}

// Release0 is a paid mutator transaction binding the contract method 0x48b75044.
//
// Solidity: function release(address , address ) returns()
func (_SlowReleasableSplit *SlowReleasableSplitTransactorSession) Release0(arg0 common.Address, arg1 common.Address) (*types.Transaction, error) {
	return _SlowReleasableSplit.Contract.Release0(&_SlowReleasableSplit.TransactOpts, arg0, arg1)
}

// SetRounds is a paid mutator transaction binding the contract method 0xd5c5d6b9.
//
// Solidity: function setRounds(uint256 n) returns()
func (_SlowReleasableSplit *SlowReleasableSplitTransactor) SetRounds(opts *bind.TransactOpts, n *big.Int) (*types.Transaction, error) {
	return _SlowReleasableSplit.contract.Transact(opts, "setRounds", n)
}

// SetRounds is a paid mutator transaction binding the contract method 0xd5c5d6b9.
//
// Solidity: function setRounds(uint256 n) returns()
func (_SlowReleasableSplit *SlowReleasableSplitSession) SetRounds(n *big.Int) (*types.Transaction, error) {
	return _SlowReleasableSplit.Contract.SetRounds(&_SlowReleasableSplit.TransactOpts, n)
}

// SetRounds is a paid mutator transaction binding the contract method 0xd5c5d6b9.
//
// Solidity: function setRounds(uint256 n) returns()
func (_SlowReleasableSplit *SlowReleasableSplitTransactorSession) SetRounds(n *big.Int) (*types.Transaction, error) {
	return _SlowReleasableSplit.Contract.SetRounds(&_SlowReleasableSplit.TransactOpts, n)
}
