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

// HostileTokenMetaData contains all meta data concerning the HostileToken contract.
var HostileTokenMetaData = &bind.MetaData{
	ABI: "[{\"inputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"constructor\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":true,\"internalType\":\"address\",\"name\":\"owner\",\"type\":\"address\"},{\"indexed\":true,\"internalType\":\"address\",\"name\":\"spender\",\"type\":\"address\"},{\"indexed\":false,\"internalType\":\"uint256\",\"name\":\"value\",\"type\":\"uint256\"}],\"name\":\"Approval\",\"type\":\"event\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":true,\"internalType\":\"address\",\"name\":\"from\",\"type\":\"address\"},{\"indexed\":true,\"internalType\":\"address\",\"name\":\"to\",\"type\":\"address\"},{\"indexed\":false,\"internalType\":\"uint256\",\"name\":\"value\",\"type\":\"uint256\"}],\"name\":\"Transfer\",\"type\":\"event\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"owner\",\"type\":\"address\"},{\"internalType\":\"address\",\"name\":\"spender\",\"type\":\"address\"}],\"name\":\"allowance\",\"outputs\":[{\"internalType\":\"uint256\",\"name\":\"\",\"type\":\"uint256\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"spender\",\"type\":\"address\"},{\"internalType\":\"uint256\",\"name\":\"amount\",\"type\":\"uint256\"}],\"name\":\"approve\",\"outputs\":[{\"internalType\":\"bool\",\"name\":\"\",\"type\":\"bool\"}],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"account\",\"type\":\"address\"}],\"name\":\"balanceOf\",\"outputs\":[{\"internalType\":\"uint256\",\"name\":\"\",\"type\":\"uint256\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"decimals\",\"outputs\":[{\"internalType\":\"uint8\",\"name\":\"\",\"type\":\"uint8\"}],\"stateMutability\":\"pure\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"spender\",\"type\":\"address\"},{\"internalType\":\"uint256\",\"name\":\"subtractedValue\",\"type\":\"uint256\"}],\"name\":\"decreaseAllowance\",\"outputs\":[{\"internalType\":\"bool\",\"name\":\"\",\"type\":\"bool\"}],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"hookData\",\"outputs\":[{\"internalType\":\"bytes\",\"name\":\"\",\"type\":\"bytes\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"hookOk\",\"outputs\":[{\"internalType\":\"bool\",\"name\":\"\",\"type\":\"bool\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"hookResult\",\"outputs\":[{\"internalType\":\"bytes\",\"name\":\"\",\"type\":\"bytes\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"hookTarget\",\"outputs\":[{\"internalType\":\"address\",\"name\":\"\",\"type\":\"address\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"spender\",\"type\":\"address\"},{\"internalType\":\"uint256\",\"name\":\"addedValue\",\"type\":\"uint256\"}],\"name\":\"increaseAllowance\",\"outputs\":[{\"internalType\":\"bool\",\"name\":\"\",\"type\":\"bool\"}],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"to\",\"type\":\"address\"},{\"internalType\":\"uint256\",\"name\":\"amount\",\"type\":\"uint256\"}],\"name\":\"mint\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"mode\",\"outputs\":[{\"internalType\":\"enumHostileToken.Mode\",\"name\":\"\",\"type\":\"uint8\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"name\",\"outputs\":[{\"internalType\":\"string\",\"name\":\"\",\"type\":\"string\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"target\",\"type\":\"address\"},{\"internalType\":\"bytes\",\"name\":\"data\",\"type\":\"bytes\"}],\"name\":\"setHook\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"enumHostileToken.Mode\",\"name\":\"m\",\"type\":\"uint8\"}],\"name\":\"setMode\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"symbol\",\"outputs\":[{\"internalType\":\"string\",\"name\":\"\",\"type\":\"string\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"totalSupply\",\"outputs\":[{\"internalType\":\"uint256\",\"name\":\"\",\"type\":\"uint256\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"to\",\"type\":\"address\"},{\"internalType\":\"uint256\",\"name\":\"amount\",\"type\":\"uint256\"}],\"name\":\"transfer\",\"outputs\":[{\"internalType\":\"bool\",\"name\":\"\",\"type\":\"bool\"}],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"from\",\"type\":\"address\"},{\"internalType\":\"address\",\"name\":\"to\",\"type\":\"address\"},{\"internalType\":\"uint256\",\"name\":\"amount\",\"type\":\"uint256\"}],\"name\":\"transferFrom\",\"outputs\":[{\"internalType\":\"bool\",\"name\":\"\",\"type\":\"bool\"}],\"stateMutability\":\"nonpayable\",\"type\":\"function\"}]",
	Bin: "0x608060405234801562000010575f80fd5b5060405180604001604052806007815260200166486f7374696c6560c81b815250604051806040016040528060048152602001631213d4d560e21b81525081600390816200005f919062000115565b5060046200006e828262000115565b505050620001e1565b634e487b7160e01b5f52604160045260245ffd5b600181811c90821680620000a057607f821691505b602082108103620000bf57634e487b7160e01b5f52602260045260245ffd5b50919050565b601f8211156200011057805f5260205f20601f840160051c81016020851015620000ec5750805b601f840160051c820191505b818110156200010d575f8155600101620000f8565b50505b505050565b81516001600160401b0381111562000131576200013162000077565b62000149816200014284546200008b565b84620000c5565b602080601f8311600181146200017f575f8415620001675750858301515b5f19600386901b1c1916600185901b178555620001d9565b5f85815260208120601f198616915b82811015620001af578886015182559484019460019091019084016200018e565b5085821015620001cd57878501515f19600388901b60f8161c191681555b505060018460011b0185555b505050505050565b610f8f80620001ef5f395ff3fe608060405234801561000f575f80fd5b506004361061011c575f3560e01c806340c10f19116100a957806395d89b411161006e57806395d89b4114610265578063a457c2d71461026d578063a9059cbb14610280578063bcde292714610293578063dd62ed3e146102a0575f80fd5b806340c10f191461020757806343072d2e1461021a5780635dff6a3c1461022d5780636e22da191461023557806370a082311461023d575f80fd5b806323b872dd116100ef57806323b872dd14610188578063295a52121461019b578063313ce567146101b5578063353ac5f9146101c457806339509351146101f4575f80fd5b806306fdde0314610120578063095ea7b31461013e57806318160ddd1461016157806321175b4a14610173575b5f80fd5b6101286102b3565b6040516101359190610b0b565b60405180910390f35b61015161014c366004610b38565b610343565b6040519015158152602001610135565b6002545b604051908152602001610135565b610186610181366004610b60565b61035c565b005b610151610196366004610b7e565b610383565b6005546101a89060ff1681565b6040516101359190610bcb565b60405160068152602001610135565b6005546101dc9061010090046001600160a01b031681565b6040516001600160a01b039091168152602001610135565b610151610202366004610b38565b6103a6565b610186610215366004610b38565b6103c7565b610186610228366004610bf1565b6103d5565b610128610408565b610128610494565b61016561024b366004610c6d565b6001600160a01b03165f9081526020819052604090205490565b6101286104a1565b61015161027b366004610b38565b6104b0565b61015161028e366004610b38565b61052f565b6007546101519060ff1681565b6101656102ae366004610c86565b610698565b6060600380546102c290610cb7565b80601f01602080910402602001604051908101604052809291908181526020018280546102ee90610cb7565b80156103395780601f1061031057610100808354040283529160200191610339565b820191905f5260205f20905b81548152906001019060200180831161031c57829003601f168201915b5050505050905090565b5f336103508185856106c2565b60019150505b92915050565b6005805482919060ff1916600183600381111561037b5761037b610bb7565b021790555050565b5f336103908582856107e5565b61039b858585610857565b506001949350505050565b5f336103508185856103b88383610698565b6103c29190610cef565b6106c2565b6103d182826109f9565b5050565b60058054610100600160a81b0319166101006001600160a01b038616021790556006610402828483610d6d565b50505050565b6008805461041590610cb7565b80601f016020809104026020016040519081016040528092919081815260200182805461044190610cb7565b801561048c5780601f106104635761010080835404028352916020019161048c565b820191905f5260205f20905b81548152906001019060200180831161046f57829003601f168201915b505050505081565b6006805461041590610cb7565b6060600480546102c290610cb7565b5f33816104bd8286610698565b9050838110156105225760405162461bcd60e51b815260206004820152602560248201527f45524332303a2064656372656173656420616c6c6f77616e63652062656c6f77604482015264207a65726f60d81b60648201526084015b60405180910390fd5b61039b82868684036106c2565b5f600160055460ff16600381111561054957610549610bb7565b036105965760405162461bcd60e51b815260206004820152601e60248201527f486f7374696c65546f6b656e3a207472616e73666572207265667573656400006044820152606401610519565b600260055460ff1660038111156105af576105af610bb7565b036105bb57505f610356565b600360055460ff1660038111156105d4576105d4610bb7565b03610687575f80600560019054906101000a90046001600160a01b03166001600160a01b031660066040516106099190610e27565b5f604051808303815f865af19150503d805f8114610642576040519150601f19603f3d011682016040523d82523d5f602084013e610647565b606091505b506007805460ff19168315151790559092509050816106665780610676565b60405180602001604052805f8152505b6008906106839082610e99565b5050505b6106918383610ab6565b9392505050565b6001600160a01b039182165f90815260016020908152604080832093909416825291909152205490565b6001600160a01b0383166107245760405162461bcd60e51b8152602060048201526024808201527f45524332303a20617070726f76652066726f6d20746865207a65726f206164646044820152637265737360e01b6064820152608401610519565b6001600160a01b0382166107855760405162461bcd60e51b815260206004820152602260248201527f45524332303a20617070726f766520746f20746865207a65726f206164647265604482015261737360f01b6064820152608401610519565b6001600160a01b038381165f8181526001602090815260408083209487168084529482529182902085905590518481527f8c5be1e5ebec7d5bd14f71427d1e84f3dd0314c0f7b2291e5b200ac8c7c3b925910160405180910390a3505050565b5f6107f08484610698565b90505f198114610402578181101561084a5760405162461bcd60e51b815260206004820152601d60248201527f45524332303a20696e73756666696369656e7420616c6c6f77616e63650000006044820152606401610519565b61040284848484036106c2565b6001600160a01b0383166108bb5760405162461bcd60e51b815260206004820152602560248201527f45524332303a207472616e736665722066726f6d20746865207a65726f206164604482015264647265737360d81b6064820152608401610519565b6001600160a01b03821661091d5760405162461bcd60e51b815260206004820152602360248201527f45524332303a207472616e7366657220746f20746865207a65726f206164647260448201526265737360e81b6064820152608401610519565b6001600160a01b0383165f90815260208190526040902054818110156109945760405162461bcd60e51b815260206004820152602660248201527f45524332303a207472616e7366657220616d6f756e7420657863656564732062604482015265616c616e636560d01b6064820152608401610519565b6001600160a01b038481165f81815260208181526040808320878703905593871680835291849020805487019055925185815290927fddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef910160405180910390a3610402565b6001600160a01b038216610a4f5760405162461bcd60e51b815260206004820152601f60248201527f45524332303a206d696e7420746f20746865207a65726f2061646472657373006044820152606401610519565b8060025f828254610a609190610cef565b90915550506001600160a01b0382165f81815260208181526040808320805486019055518481527fddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef910160405180910390a35050565b5f33610350818585610857565b505050565b5f81518084525f5b81811015610aec57602081850181015186830182015201610ad0565b505f602082860101526020601f19601f83011685010191505092915050565b602081525f6106916020830184610ac8565b80356001600160a01b0381168114610b33575f80fd5b919050565b5f8060408385031215610b49575f80fd5b610b5283610b1d565b946020939093013593505050565b5f60208284031215610b70575f80fd5b813560048110610691575f80fd5b5f805f60608486031215610b90575f80fd5b610b9984610b1d565b9250610ba760208501610b1d565b9150604084013590509250925092565b634e487b7160e01b5f52602160045260245ffd5b6020810160048310610beb57634e487b7160e01b5f52602160045260245ffd5b91905290565b5f805f60408486031215610c03575f80fd5b610c0c84610b1d565b9250602084013567ffffffffffffffff80821115610c28575f80fd5b818601915086601f830112610c3b575f80fd5b813581811115610c49575f80fd5b876020828501011115610c5a575f80fd5b6020830194508093505050509250925092565b5f60208284031215610c7d575f80fd5b61069182610b1d565b5f8060408385031215610c97575f80fd5b610ca083610b1d565b9150610cae60208401610b1d565b90509250929050565b600181811c90821680610ccb57607f821691505b602082108103610ce957634e487b7160e01b5f52602260045260245ffd5b50919050565b8082018082111561035657634e487b7160e01b5f52601160045260245ffd5b634e487b7160e01b5f52604160045260245ffd5b601f821115610ac357805f5260205f20601f840160051c81016020851015610d475750805b601f840160051c820191505b81811015610d66575f8155600101610d53565b5050505050565b67ffffffffffffffff831115610d8557610d85610d0e565b610d9983610d938354610cb7565b83610d22565b5f601f841160018114610dca575f8515610db35750838201355b5f19600387901b1c1916600186901b178355610d66565b5f83815260208120601f198716915b82811015610df95786850135825560209485019460019092019101610dd9565b5086821015610e15575f1960f88860031b161c19848701351681555b505060018560011b0183555050505050565b5f808354610e3481610cb7565b60018281168015610e4c5760018114610e6157610e8d565b60ff1984168752821515830287019450610e8d565b875f526020805f205f5b85811015610e845781548a820152908401908201610e6b565b50505082870194505b50929695505050505050565b815167ffffffffffffffff811115610eb357610eb3610d0e565b610ec781610ec18454610cb7565b84610d22565b602080601f831160018114610efa575f8415610ee35750858301515b5f19600386901b1c1916600185901b178555610f51565b5f85815260208120601f198616915b82811015610f2857888601518255948401946001909101908401610f09565b5085821015610f4557878501515f19600388901b60f8161c191681555b505060018460011b0185555b50505050505056fea2646970667358221220d3d902f3aef1f6a7b2c0f4c4937f6c382178a2d1514cb15dd27770d92929048864736f6c63430008180033",
}

// HostileTokenABI is the input ABI used to generate the binding from.
// Deprecated: Use HostileTokenMetaData.ABI instead.
var HostileTokenABI = HostileTokenMetaData.ABI

// HostileTokenBin is the compiled bytecode used for deploying new contracts.
// Deprecated: Use HostileTokenMetaData.Bin instead.
var HostileTokenBin = HostileTokenMetaData.Bin

// DeployHostileToken deploys a new Ethereum contract, binding an instance of HostileToken to it.
func DeployHostileToken(auth *bind.TransactOpts, backend bind.ContractBackend) (common.Address, *types.Transaction, *HostileToken, error) {
	parsed, err := HostileTokenMetaData.GetAbi()
	if err != nil {
		return common.Address{}, nil, nil, err
	}
	if parsed == nil {
		return common.Address{}, nil, nil, errors.New("GetABI returned nil")
	}

	address, tx, contract, err := bind.DeployContract(auth, *parsed, common.FromHex(HostileTokenBin), backend)
	if err != nil {
		return common.Address{}, nil, nil, err
	}
	return address, tx, &HostileToken{HostileTokenCaller: HostileTokenCaller{contract: contract}, HostileTokenTransactor: HostileTokenTransactor{contract: contract}, HostileTokenFilterer: HostileTokenFilterer{contract: contract}}, nil
}

// HostileToken is an auto generated Go binding around an Ethereum contract.
type HostileToken struct {
	HostileTokenCaller     // Read-only binding to the contract
	HostileTokenTransactor // Write-only binding to the contract
	HostileTokenFilterer   // Log filterer for contract events
}

// HostileTokenCaller is an auto generated read-only Go binding around an Ethereum contract.
type HostileTokenCaller struct {
	contract *bind.BoundContract // Generic contract wrapper for the low level calls
}

// HostileTokenTransactor is an auto generated write-only Go binding around an Ethereum contract.
type HostileTokenTransactor struct {
	contract *bind.BoundContract // Generic contract wrapper for the low level calls
}

// HostileTokenFilterer is an auto generated log filtering Go binding around an Ethereum contract events.
type HostileTokenFilterer struct {
	contract *bind.BoundContract // Generic contract wrapper for the low level calls
}

// HostileTokenSession is an auto generated Go binding around an Ethereum contract,
// with pre-set call and transact options.
type HostileTokenSession struct {
	Contract     *HostileToken     // Generic contract binding to set the session for
	CallOpts     bind.CallOpts     // Call options to use throughout this session
	TransactOpts bind.TransactOpts // Transaction auth options to use throughout this session
}

// HostileTokenCallerSession is an auto generated read-only Go binding around an Ethereum contract,
// with pre-set call options.
type HostileTokenCallerSession struct {
	Contract *HostileTokenCaller // Generic contract caller binding to set the session for
	CallOpts bind.CallOpts       // Call options to use throughout this session
}

// HostileTokenTransactorSession is an auto generated write-only Go binding around an Ethereum contract,
// with pre-set transact options.
type HostileTokenTransactorSession struct {
	Contract     *HostileTokenTransactor // Generic contract transactor binding to set the session for
	TransactOpts bind.TransactOpts       // Transaction auth options to use throughout this session
}

// HostileTokenRaw is an auto generated low-level Go binding around an Ethereum contract.
type HostileTokenRaw struct {
	Contract *HostileToken // Generic contract binding to access the raw methods on
}

// HostileTokenCallerRaw is an auto generated low-level read-only Go binding around an Ethereum contract.
type HostileTokenCallerRaw struct {
	Contract *HostileTokenCaller // Generic read-only contract binding to access the raw methods on
}

// HostileTokenTransactorRaw is an auto generated low-level write-only Go binding around an Ethereum contract.
type HostileTokenTransactorRaw struct {
	Contract *HostileTokenTransactor // Generic write-only contract binding to access the raw methods on
}

// NewHostileToken creates a new instance of HostileToken, bound to a specific deployed contract.
func NewHostileToken(address common.Address, backend bind.ContractBackend) (*HostileToken, error) {
	contract, err := bindHostileToken(address, backend, backend, backend)
	if err != nil {
		return nil, err
	}
	return &HostileToken{HostileTokenCaller: HostileTokenCaller{contract: contract}, HostileTokenTransactor: HostileTokenTransactor{contract: contract}, HostileTokenFilterer: HostileTokenFilterer{contract: contract}}, nil
}

// NewHostileTokenCaller creates a new read-only instance of HostileToken, bound to a specific deployed contract.
func NewHostileTokenCaller(address common.Address, caller bind.ContractCaller) (*HostileTokenCaller, error) {
	contract, err := bindHostileToken(address, caller, nil, nil)
	if err != nil {
		return nil, err
	}
	return &HostileTokenCaller{contract: contract}, nil
}

// NewHostileTokenTransactor creates a new write-only instance of HostileToken, bound to a specific deployed contract.
func NewHostileTokenTransactor(address common.Address, transactor bind.ContractTransactor) (*HostileTokenTransactor, error) {
	contract, err := bindHostileToken(address, nil, transactor, nil)
	if err != nil {
		return nil, err
	}
	return &HostileTokenTransactor{contract: contract}, nil
}

// NewHostileTokenFilterer creates a new log filterer instance of HostileToken, bound to a specific deployed contract.
func NewHostileTokenFilterer(address common.Address, filterer bind.ContractFilterer) (*HostileTokenFilterer, error) {
	contract, err := bindHostileToken(address, nil, nil, filterer)
	if err != nil {
		return nil, err
	}
	return &HostileTokenFilterer{contract: contract}, nil
}

// bindHostileToken binds a generic wrapper to an already deployed contract.
func bindHostileToken(address common.Address, caller bind.ContractCaller, transactor bind.ContractTransactor, filterer bind.ContractFilterer) (*bind.BoundContract, error) {
	parsed, err := HostileTokenMetaData.GetAbi()
	if err != nil {
		return nil, err
	}
	return bind.NewBoundContract(address, *parsed, caller, transactor, filterer), nil
}

// Call invokes the (constant) contract method with params as input values and
// sets the output to result. The result type might be a single field for simple
// returns, a slice of interfaces for anonymous returns and a struct for named
// returns.
func (_HostileToken *HostileTokenRaw) Call(opts *bind.CallOpts, result *[]interface{}, method string, params ...interface{}) error {
	return _HostileToken.Contract.HostileTokenCaller.contract.Call(opts, result, method, params...)
}

// Transfer initiates a plain transaction to move funds to the contract, calling
// its default method if one is available.
func (_HostileToken *HostileTokenRaw) Transfer(opts *bind.TransactOpts) (*types.Transaction, error) {
	return _HostileToken.Contract.HostileTokenTransactor.contract.Transfer(opts)
}

// Transact invokes the (paid) contract method with params as input values.
func (_HostileToken *HostileTokenRaw) Transact(opts *bind.TransactOpts, method string, params ...interface{}) (*types.Transaction, error) {
	return _HostileToken.Contract.HostileTokenTransactor.contract.Transact(opts, method, params...)
}

// Call invokes the (constant) contract method with params as input values and
// sets the output to result. The result type might be a single field for simple
// returns, a slice of interfaces for anonymous returns and a struct for named
// returns.
func (_HostileToken *HostileTokenCallerRaw) Call(opts *bind.CallOpts, result *[]interface{}, method string, params ...interface{}) error {
	return _HostileToken.Contract.contract.Call(opts, result, method, params...)
}

// Transfer initiates a plain transaction to move funds to the contract, calling
// its default method if one is available.
func (_HostileToken *HostileTokenTransactorRaw) Transfer(opts *bind.TransactOpts) (*types.Transaction, error) {
	return _HostileToken.Contract.contract.Transfer(opts)
}

// Transact invokes the (paid) contract method with params as input values.
func (_HostileToken *HostileTokenTransactorRaw) Transact(opts *bind.TransactOpts, method string, params ...interface{}) (*types.Transaction, error) {
	return _HostileToken.Contract.contract.Transact(opts, method, params...)
}

// Allowance is a free data retrieval call binding the contract method 0xdd62ed3e.
//
// Solidity: function allowance(address owner, address spender) view returns(uint256)
func (_HostileToken *HostileTokenCaller) Allowance(opts *bind.CallOpts, owner common.Address, spender common.Address) (*big.Int, error) {
	var out []interface{}
	err := _HostileToken.contract.Call(opts, &out, "allowance", owner, spender)

	if err != nil {
		return *new(*big.Int), err
	}

	out0 := *abi.ConvertType(out[0], new(*big.Int)).(**big.Int)

	return out0, err

}

// Allowance is a free data retrieval call binding the contract method 0xdd62ed3e.
//
// Solidity: function allowance(address owner, address spender) view returns(uint256)
func (_HostileToken *HostileTokenSession) Allowance(owner common.Address, spender common.Address) (*big.Int, error) {
	return _HostileToken.Contract.Allowance(&_HostileToken.CallOpts, owner, spender)
}

// Allowance is a free data retrieval call binding the contract method 0xdd62ed3e.
//
// Solidity: function allowance(address owner, address spender) view returns(uint256)
func (_HostileToken *HostileTokenCallerSession) Allowance(owner common.Address, spender common.Address) (*big.Int, error) {
	return _HostileToken.Contract.Allowance(&_HostileToken.CallOpts, owner, spender)
}

// BalanceOf is a free data retrieval call binding the contract method 0x70a08231.
//
// Solidity: function balanceOf(address account) view returns(uint256)
func (_HostileToken *HostileTokenCaller) BalanceOf(opts *bind.CallOpts, account common.Address) (*big.Int, error) {
	var out []interface{}
	err := _HostileToken.contract.Call(opts, &out, "balanceOf", account)

	if err != nil {
		return *new(*big.Int), err
	}

	out0 := *abi.ConvertType(out[0], new(*big.Int)).(**big.Int)

	return out0, err

}

// BalanceOf is a free data retrieval call binding the contract method 0x70a08231.
//
// Solidity: function balanceOf(address account) view returns(uint256)
func (_HostileToken *HostileTokenSession) BalanceOf(account common.Address) (*big.Int, error) {
	return _HostileToken.Contract.BalanceOf(&_HostileToken.CallOpts, account)
}

// BalanceOf is a free data retrieval call binding the contract method 0x70a08231.
//
// Solidity: function balanceOf(address account) view returns(uint256)
func (_HostileToken *HostileTokenCallerSession) BalanceOf(account common.Address) (*big.Int, error) {
	return _HostileToken.Contract.BalanceOf(&_HostileToken.CallOpts, account)
}

// Decimals is a free data retrieval call binding the contract method 0x313ce567.
//
// Solidity: function decimals() pure returns(uint8)
func (_HostileToken *HostileTokenCaller) Decimals(opts *bind.CallOpts) (uint8, error) {
	var out []interface{}
	err := _HostileToken.contract.Call(opts, &out, "decimals")

	if err != nil {
		return *new(uint8), err
	}

	out0 := *abi.ConvertType(out[0], new(uint8)).(*uint8)

	return out0, err

}

// Decimals is a free data retrieval call binding the contract method 0x313ce567.
//
// Solidity: function decimals() pure returns(uint8)
func (_HostileToken *HostileTokenSession) Decimals() (uint8, error) {
	return _HostileToken.Contract.Decimals(&_HostileToken.CallOpts)
}

// Decimals is a free data retrieval call binding the contract method 0x313ce567.
//
// Solidity: function decimals() pure returns(uint8)
func (_HostileToken *HostileTokenCallerSession) Decimals() (uint8, error) {
	return _HostileToken.Contract.Decimals(&_HostileToken.CallOpts)
}

// HookData is a free data retrieval call binding the contract method 0x6e22da19.
//
// Solidity: function hookData() view returns(bytes)
func (_HostileToken *HostileTokenCaller) HookData(opts *bind.CallOpts) ([]byte, error) {
	var out []interface{}
	err := _HostileToken.contract.Call(opts, &out, "hookData")

	if err != nil {
		return *new([]byte), err
	}

	out0 := *abi.ConvertType(out[0], new([]byte)).(*[]byte)

	return out0, err

}

// HookData is a free data retrieval call binding the contract method 0x6e22da19.
//
// Solidity: function hookData() view returns(bytes)
func (_HostileToken *HostileTokenSession) HookData() ([]byte, error) {
	return _HostileToken.Contract.HookData(&_HostileToken.CallOpts)
}

// HookData is a free data retrieval call binding the contract method 0x6e22da19.
//
// Solidity: function hookData() view returns(bytes)
func (_HostileToken *HostileTokenCallerSession) HookData() ([]byte, error) {
	return _HostileToken.Contract.HookData(&_HostileToken.CallOpts)
}

// HookOk is a free data retrieval call binding the contract method 0xbcde2927.
//
// Solidity: function hookOk() view returns(bool)
func (_HostileToken *HostileTokenCaller) HookOk(opts *bind.CallOpts) (bool, error) {
	var out []interface{}
	err := _HostileToken.contract.Call(opts, &out, "hookOk")

	if err != nil {
		return *new(bool), err
	}

	out0 := *abi.ConvertType(out[0], new(bool)).(*bool)

	return out0, err

}

// HookOk is a free data retrieval call binding the contract method 0xbcde2927.
//
// Solidity: function hookOk() view returns(bool)
func (_HostileToken *HostileTokenSession) HookOk() (bool, error) {
	return _HostileToken.Contract.HookOk(&_HostileToken.CallOpts)
}

// HookOk is a free data retrieval call binding the contract method 0xbcde2927.
//
// Solidity: function hookOk() view returns(bool)
func (_HostileToken *HostileTokenCallerSession) HookOk() (bool, error) {
	return _HostileToken.Contract.HookOk(&_HostileToken.CallOpts)
}

// HookResult is a free data retrieval call binding the contract method 0x5dff6a3c.
//
// Solidity: function hookResult() view returns(bytes)
func (_HostileToken *HostileTokenCaller) HookResult(opts *bind.CallOpts) ([]byte, error) {
	var out []interface{}
	err := _HostileToken.contract.Call(opts, &out, "hookResult")

	if err != nil {
		return *new([]byte), err
	}

	out0 := *abi.ConvertType(out[0], new([]byte)).(*[]byte)

	return out0, err

}

// HookResult is a free data retrieval call binding the contract method 0x5dff6a3c.
//
// Solidity: function hookResult() view returns(bytes)
func (_HostileToken *HostileTokenSession) HookResult() ([]byte, error) {
	return _HostileToken.Contract.HookResult(&_HostileToken.CallOpts)
}

// HookResult is a free data retrieval call binding the contract method 0x5dff6a3c.
//
// Solidity: function hookResult() view returns(bytes)
func (_HostileToken *HostileTokenCallerSession) HookResult() ([]byte, error) {
	return _HostileToken.Contract.HookResult(&_HostileToken.CallOpts)
}

// HookTarget is a free data retrieval call binding the contract method 0x353ac5f9.
//
// Solidity: function hookTarget() view returns(address)
func (_HostileToken *HostileTokenCaller) HookTarget(opts *bind.CallOpts) (common.Address, error) {
	var out []interface{}
	err := _HostileToken.contract.Call(opts, &out, "hookTarget")

	if err != nil {
		return *new(common.Address), err
	}

	out0 := *abi.ConvertType(out[0], new(common.Address)).(*common.Address)

	return out0, err

}

// HookTarget is a free data retrieval call binding the contract method 0x353ac5f9.
//
// Solidity: function hookTarget() view returns(address)
func (_HostileToken *HostileTokenSession) HookTarget() (common.Address, error) {
	return _HostileToken.Contract.HookTarget(&_HostileToken.CallOpts)
}

// HookTarget is a free data retrieval call binding the contract method 0x353ac5f9.
//
// Solidity: function hookTarget() view returns(address)
func (_HostileToken *HostileTokenCallerSession) HookTarget() (common.Address, error) {
	return _HostileToken.Contract.HookTarget(&_HostileToken.CallOpts)
}

// Mode is a free data retrieval call binding the contract method 0x295a5212.
//
// Solidity: function mode() view returns(uint8)
func (_HostileToken *HostileTokenCaller) Mode(opts *bind.CallOpts) (uint8, error) {
	var out []interface{}
	err := _HostileToken.contract.Call(opts, &out, "mode")

	if err != nil {
		return *new(uint8), err
	}

	out0 := *abi.ConvertType(out[0], new(uint8)).(*uint8)

	return out0, err

}

// Mode is a free data retrieval call binding the contract method 0x295a5212.
//
// Solidity: function mode() view returns(uint8)
func (_HostileToken *HostileTokenSession) Mode() (uint8, error) {
	return _HostileToken.Contract.Mode(&_HostileToken.CallOpts)
}

// Mode is a free data retrieval call binding the contract method 0x295a5212.
//
// Solidity: function mode() view returns(uint8)
func (_HostileToken *HostileTokenCallerSession) Mode() (uint8, error) {
	return _HostileToken.Contract.Mode(&_HostileToken.CallOpts)
}

// Name is a free data retrieval call binding the contract method 0x06fdde03.
//
// Solidity: function name() view returns(string)
func (_HostileToken *HostileTokenCaller) Name(opts *bind.CallOpts) (string, error) {
	var out []interface{}
	err := _HostileToken.contract.Call(opts, &out, "name")

	if err != nil {
		return *new(string), err
	}

	out0 := *abi.ConvertType(out[0], new(string)).(*string)

	return out0, err

}

// Name is a free data retrieval call binding the contract method 0x06fdde03.
//
// Solidity: function name() view returns(string)
func (_HostileToken *HostileTokenSession) Name() (string, error) {
	return _HostileToken.Contract.Name(&_HostileToken.CallOpts)
}

// Name is a free data retrieval call binding the contract method 0x06fdde03.
//
// Solidity: function name() view returns(string)
func (_HostileToken *HostileTokenCallerSession) Name() (string, error) {
	return _HostileToken.Contract.Name(&_HostileToken.CallOpts)
}

// Symbol is a free data retrieval call binding the contract method 0x95d89b41.
//
// Solidity: function symbol() view returns(string)
func (_HostileToken *HostileTokenCaller) Symbol(opts *bind.CallOpts) (string, error) {
	var out []interface{}
	err := _HostileToken.contract.Call(opts, &out, "symbol")

	if err != nil {
		return *new(string), err
	}

	out0 := *abi.ConvertType(out[0], new(string)).(*string)

	return out0, err

}

// Symbol is a free data retrieval call binding the contract method 0x95d89b41.
//
// Solidity: function symbol() view returns(string)
func (_HostileToken *HostileTokenSession) Symbol() (string, error) {
	return _HostileToken.Contract.Symbol(&_HostileToken.CallOpts)
}

// Symbol is a free data retrieval call binding the contract method 0x95d89b41.
//
// Solidity: function symbol() view returns(string)
func (_HostileToken *HostileTokenCallerSession) Symbol() (string, error) {
	return _HostileToken.Contract.Symbol(&_HostileToken.CallOpts)
}

// TotalSupply is a free data retrieval call binding the contract method 0x18160ddd.
//
// Solidity: function totalSupply() view returns(uint256)
func (_HostileToken *HostileTokenCaller) TotalSupply(opts *bind.CallOpts) (*big.Int, error) {
	var out []interface{}
	err := _HostileToken.contract.Call(opts, &out, "totalSupply")

	if err != nil {
		return *new(*big.Int), err
	}

	out0 := *abi.ConvertType(out[0], new(*big.Int)).(**big.Int)

	return out0, err

}

// TotalSupply is a free data retrieval call binding the contract method 0x18160ddd.
//
// Solidity: function totalSupply() view returns(uint256)
func (_HostileToken *HostileTokenSession) TotalSupply() (*big.Int, error) {
	return _HostileToken.Contract.TotalSupply(&_HostileToken.CallOpts)
}

// TotalSupply is a free data retrieval call binding the contract method 0x18160ddd.
//
// Solidity: function totalSupply() view returns(uint256)
func (_HostileToken *HostileTokenCallerSession) TotalSupply() (*big.Int, error) {
	return _HostileToken.Contract.TotalSupply(&_HostileToken.CallOpts)
}

// Approve is a paid mutator transaction binding the contract method 0x095ea7b3.
//
// Solidity: function approve(address spender, uint256 amount) returns(bool)
func (_HostileToken *HostileTokenTransactor) Approve(opts *bind.TransactOpts, spender common.Address, amount *big.Int) (*types.Transaction, error) {
	return _HostileToken.contract.Transact(opts, "approve", spender, amount)
}

// Approve is a paid mutator transaction binding the contract method 0x095ea7b3.
//
// Solidity: function approve(address spender, uint256 amount) returns(bool)
func (_HostileToken *HostileTokenSession) Approve(spender common.Address, amount *big.Int) (*types.Transaction, error) {
	return _HostileToken.Contract.Approve(&_HostileToken.TransactOpts, spender, amount)
}

// Approve is a paid mutator transaction binding the contract method 0x095ea7b3.
//
// Solidity: function approve(address spender, uint256 amount) returns(bool)
func (_HostileToken *HostileTokenTransactorSession) Approve(spender common.Address, amount *big.Int) (*types.Transaction, error) {
	return _HostileToken.Contract.Approve(&_HostileToken.TransactOpts, spender, amount)
}

// DecreaseAllowance is a paid mutator transaction binding the contract method 0xa457c2d7.
//
// Solidity: function decreaseAllowance(address spender, uint256 subtractedValue) returns(bool)
func (_HostileToken *HostileTokenTransactor) DecreaseAllowance(opts *bind.TransactOpts, spender common.Address, subtractedValue *big.Int) (*types.Transaction, error) {
	return _HostileToken.contract.Transact(opts, "decreaseAllowance", spender, subtractedValue)
}

// DecreaseAllowance is a paid mutator transaction binding the contract method 0xa457c2d7.
//
// Solidity: function decreaseAllowance(address spender, uint256 subtractedValue) returns(bool)
func (_HostileToken *HostileTokenSession) DecreaseAllowance(spender common.Address, subtractedValue *big.Int) (*types.Transaction, error) {
	return _HostileToken.Contract.DecreaseAllowance(&_HostileToken.TransactOpts, spender, subtractedValue)
}

// DecreaseAllowance is a paid mutator transaction binding the contract method 0xa457c2d7.
//
// Solidity: function decreaseAllowance(address spender, uint256 subtractedValue) returns(bool)
func (_HostileToken *HostileTokenTransactorSession) DecreaseAllowance(spender common.Address, subtractedValue *big.Int) (*types.Transaction, error) {
	return _HostileToken.Contract.DecreaseAllowance(&_HostileToken.TransactOpts, spender, subtractedValue)
}

// IncreaseAllowance is a paid mutator transaction binding the contract method 0x39509351.
//
// Solidity: function increaseAllowance(address spender, uint256 addedValue) returns(bool)
func (_HostileToken *HostileTokenTransactor) IncreaseAllowance(opts *bind.TransactOpts, spender common.Address, addedValue *big.Int) (*types.Transaction, error) {
	return _HostileToken.contract.Transact(opts, "increaseAllowance", spender, addedValue)
}

// IncreaseAllowance is a paid mutator transaction binding the contract method 0x39509351.
//
// Solidity: function increaseAllowance(address spender, uint256 addedValue) returns(bool)
func (_HostileToken *HostileTokenSession) IncreaseAllowance(spender common.Address, addedValue *big.Int) (*types.Transaction, error) {
	return _HostileToken.Contract.IncreaseAllowance(&_HostileToken.TransactOpts, spender, addedValue)
}

// IncreaseAllowance is a paid mutator transaction binding the contract method 0x39509351.
//
// Solidity: function increaseAllowance(address spender, uint256 addedValue) returns(bool)
func (_HostileToken *HostileTokenTransactorSession) IncreaseAllowance(spender common.Address, addedValue *big.Int) (*types.Transaction, error) {
	return _HostileToken.Contract.IncreaseAllowance(&_HostileToken.TransactOpts, spender, addedValue)
}

// Mint is a paid mutator transaction binding the contract method 0x40c10f19.
//
// Solidity: function mint(address to, uint256 amount) returns()
func (_HostileToken *HostileTokenTransactor) Mint(opts *bind.TransactOpts, to common.Address, amount *big.Int) (*types.Transaction, error) {
	return _HostileToken.contract.Transact(opts, "mint", to, amount)
}

// Mint is a paid mutator transaction binding the contract method 0x40c10f19.
//
// Solidity: function mint(address to, uint256 amount) returns()
func (_HostileToken *HostileTokenSession) Mint(to common.Address, amount *big.Int) (*types.Transaction, error) {
	return _HostileToken.Contract.Mint(&_HostileToken.TransactOpts, to, amount)
}

// Mint is a paid mutator transaction binding the contract method 0x40c10f19.
//
// Solidity: function mint(address to, uint256 amount) returns()
func (_HostileToken *HostileTokenTransactorSession) Mint(to common.Address, amount *big.Int) (*types.Transaction, error) {
	return _HostileToken.Contract.Mint(&_HostileToken.TransactOpts, to, amount)
}

// SetHook is a paid mutator transaction binding the contract method 0x43072d2e.
//
// Solidity: function setHook(address target, bytes data) returns()
func (_HostileToken *HostileTokenTransactor) SetHook(opts *bind.TransactOpts, target common.Address, data []byte) (*types.Transaction, error) {
	return _HostileToken.contract.Transact(opts, "setHook", target, data)
}

// SetHook is a paid mutator transaction binding the contract method 0x43072d2e.
//
// Solidity: function setHook(address target, bytes data) returns()
func (_HostileToken *HostileTokenSession) SetHook(target common.Address, data []byte) (*types.Transaction, error) {
	return _HostileToken.Contract.SetHook(&_HostileToken.TransactOpts, target, data)
}

// SetHook is a paid mutator transaction binding the contract method 0x43072d2e.
//
// Solidity: function setHook(address target, bytes data) returns()
func (_HostileToken *HostileTokenTransactorSession) SetHook(target common.Address, data []byte) (*types.Transaction, error) {
	return _HostileToken.Contract.SetHook(&_HostileToken.TransactOpts, target, data)
}

// SetMode is a paid mutator transaction binding the contract method 0x21175b4a.
//
// Solidity: function setMode(uint8 m) returns()
func (_HostileToken *HostileTokenTransactor) SetMode(opts *bind.TransactOpts, m uint8) (*types.Transaction, error) {
	return _HostileToken.contract.Transact(opts, "setMode", m)
}

// SetMode is a paid mutator transaction binding the contract method 0x21175b4a.
//
// Solidity: function setMode(uint8 m) returns()
func (_HostileToken *HostileTokenSession) SetMode(m uint8) (*types.Transaction, error) {
	return _HostileToken.Contract.SetMode(&_HostileToken.TransactOpts, m)
}

// SetMode is a paid mutator transaction binding the contract method 0x21175b4a.
//
// Solidity: function setMode(uint8 m) returns()
func (_HostileToken *HostileTokenTransactorSession) SetMode(m uint8) (*types.Transaction, error) {
	return _HostileToken.Contract.SetMode(&_HostileToken.TransactOpts, m)
}

// Transfer is a paid mutator transaction binding the contract method 0xa9059cbb.
//
// Solidity: function transfer(address to, uint256 amount) returns(bool)
func (_HostileToken *HostileTokenTransactor) Transfer(opts *bind.TransactOpts, to common.Address, amount *big.Int) (*types.Transaction, error) {
	return _HostileToken.contract.Transact(opts, "transfer", to, amount)
}

// Transfer is a paid mutator transaction binding the contract method 0xa9059cbb.
//
// Solidity: function transfer(address to, uint256 amount) returns(bool)
func (_HostileToken *HostileTokenSession) Transfer(to common.Address, amount *big.Int) (*types.Transaction, error) {
	return _HostileToken.Contract.Transfer(&_HostileToken.TransactOpts, to, amount)
}

// Transfer is a paid mutator transaction binding the contract method 0xa9059cbb.
//
// Solidity: function transfer(address to, uint256 amount) returns(bool)
func (_HostileToken *HostileTokenTransactorSession) Transfer(to common.Address, amount *big.Int) (*types.Transaction, error) {
	return _HostileToken.Contract.Transfer(&_HostileToken.TransactOpts, to, amount)
}

// TransferFrom is a paid mutator transaction binding the contract method 0x23b872dd.
//
// Solidity: function transferFrom(address from, address to, uint256 amount) returns(bool)
func (_HostileToken *HostileTokenTransactor) TransferFrom(opts *bind.TransactOpts, from common.Address, to common.Address, amount *big.Int) (*types.Transaction, error) {
	return _HostileToken.contract.Transact(opts, "transferFrom", from, to, amount)
}

// TransferFrom is a paid mutator transaction binding the contract method 0x23b872dd.
//
// Solidity: function transferFrom(address from, address to, uint256 amount) returns(bool)
func (_HostileToken *HostileTokenSession) TransferFrom(from common.Address, to common.Address, amount *big.Int) (*types.Transaction, error) {
	return _HostileToken.Contract.TransferFrom(&_HostileToken.TransactOpts, from, to, amount)
}

// TransferFrom is a paid mutator transaction binding the contract method 0x23b872dd.
//
// Solidity: function transferFrom(address from, address to, uint256 amount) returns(bool)
func (_HostileToken *HostileTokenTransactorSession) TransferFrom(from common.Address, to common.Address, amount *big.Int) (*types.Transaction, error) {
	return _HostileToken.Contract.TransferFrom(&_HostileToken.TransactOpts, from, to, amount)
}

// HostileTokenApprovalIterator is returned from FilterApproval and is used to iterate over the raw logs and unpacked data for Approval events raised by the HostileToken contract.
type HostileTokenApprovalIterator struct {
	Event *HostileTokenApproval // Event containing the contract specifics and raw log

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
func (it *HostileTokenApprovalIterator) Next() bool {
	// If the iterator failed, stop iterating
	if it.fail != nil {
		return false
	}
	// If the iterator completed, deliver directly whatever's available
	if it.done {
		select {
		case log := <-it.logs:
			it.Event = new(HostileTokenApproval)
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
		it.Event = new(HostileTokenApproval)
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
func (it *HostileTokenApprovalIterator) Error() error {
	return it.fail
}

// Close terminates the iteration process, releasing any pending underlying
// resources.
func (it *HostileTokenApprovalIterator) Close() error {
	it.sub.Unsubscribe()
	return nil
}

// HostileTokenApproval represents a Approval event raised by the HostileToken contract.
type HostileTokenApproval struct {
	Owner   common.Address
	Spender common.Address
	Value   *big.Int
	Raw     types.Log // Blockchain specific contextual infos
}

// FilterApproval is a free log retrieval operation binding the contract event 0x8c5be1e5ebec7d5bd14f71427d1e84f3dd0314c0f7b2291e5b200ac8c7c3b925.
//
// Solidity: event Approval(address indexed owner, address indexed spender, uint256 value)
func (_HostileToken *HostileTokenFilterer) FilterApproval(opts *bind.FilterOpts, owner []common.Address, spender []common.Address) (*HostileTokenApprovalIterator, error) {

	var ownerRule []interface{}
	for _, ownerItem := range owner {
		ownerRule = append(ownerRule, ownerItem)
	}
	var spenderRule []interface{}
	for _, spenderItem := range spender {
		spenderRule = append(spenderRule, spenderItem)
	}

	logs, sub, err := _HostileToken.contract.FilterLogs(opts, "Approval", ownerRule, spenderRule)
	if err != nil {
		return nil, err
	}
	return &HostileTokenApprovalIterator{contract: _HostileToken.contract, event: "Approval", logs: logs, sub: sub}, nil
}

// WatchApproval is a free log subscription operation binding the contract event 0x8c5be1e5ebec7d5bd14f71427d1e84f3dd0314c0f7b2291e5b200ac8c7c3b925.
//
// Solidity: event Approval(address indexed owner, address indexed spender, uint256 value)
func (_HostileToken *HostileTokenFilterer) WatchApproval(opts *bind.WatchOpts, sink chan<- *HostileTokenApproval, owner []common.Address, spender []common.Address) (event.Subscription, error) {

	var ownerRule []interface{}
	for _, ownerItem := range owner {
		ownerRule = append(ownerRule, ownerItem)
	}
	var spenderRule []interface{}
	for _, spenderItem := range spender {
		spenderRule = append(spenderRule, spenderItem)
	}

	logs, sub, err := _HostileToken.contract.WatchLogs(opts, "Approval", ownerRule, spenderRule)
	if err != nil {
		return nil, err
	}
	return event.NewSubscription(func(quit <-chan struct{}) error {
		defer sub.Unsubscribe()
		for {
			select {
			case log := <-logs:
				// New log arrived, parse the event and forward to the user
				event := new(HostileTokenApproval)
				if err := _HostileToken.contract.UnpackLog(event, "Approval", log); err != nil {
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

// ParseApproval is a log parse operation binding the contract event 0x8c5be1e5ebec7d5bd14f71427d1e84f3dd0314c0f7b2291e5b200ac8c7c3b925.
//
// Solidity: event Approval(address indexed owner, address indexed spender, uint256 value)
func (_HostileToken *HostileTokenFilterer) ParseApproval(log types.Log) (*HostileTokenApproval, error) {
	event := new(HostileTokenApproval)
	if err := _HostileToken.contract.UnpackLog(event, "Approval", log); err != nil {
		return nil, err
	}
	event.Raw = log
	return event, nil
}

// HostileTokenTransferIterator is returned from FilterTransfer and is used to iterate over the raw logs and unpacked data for Transfer events raised by the HostileToken contract.
type HostileTokenTransferIterator struct {
	Event *HostileTokenTransfer // Event containing the contract specifics and raw log

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
func (it *HostileTokenTransferIterator) Next() bool {
	// If the iterator failed, stop iterating
	if it.fail != nil {
		return false
	}
	// If the iterator completed, deliver directly whatever's available
	if it.done {
		select {
		case log := <-it.logs:
			it.Event = new(HostileTokenTransfer)
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
		it.Event = new(HostileTokenTransfer)
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
func (it *HostileTokenTransferIterator) Error() error {
	return it.fail
}

// Close terminates the iteration process, releasing any pending underlying
// resources.
func (it *HostileTokenTransferIterator) Close() error {
	it.sub.Unsubscribe()
	return nil
}

// HostileTokenTransfer represents a Transfer event raised by the HostileToken contract.
type HostileTokenTransfer struct {
	From  common.Address
	To    common.Address
	Value *big.Int
	Raw   types.Log // Blockchain specific contextual infos
}

// FilterTransfer is a free log retrieval operation binding the contract event 0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef.
//
// Solidity: event Transfer(address indexed from, address indexed to, uint256 value)
func (_HostileToken *HostileTokenFilterer) FilterTransfer(opts *bind.FilterOpts, from []common.Address, to []common.Address) (*HostileTokenTransferIterator, error) {

	var fromRule []interface{}
	for _, fromItem := range from {
		fromRule = append(fromRule, fromItem)
	}
	var toRule []interface{}
	for _, toItem := range to {
		toRule = append(toRule, toItem)
	}

	logs, sub, err := _HostileToken.contract.FilterLogs(opts, "Transfer", fromRule, toRule)
	if err != nil {
		return nil, err
	}
	return &HostileTokenTransferIterator{contract: _HostileToken.contract, event: "Transfer", logs: logs, sub: sub}, nil
}

// WatchTransfer is a free log subscription operation binding the contract event 0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef.
//
// Solidity: event Transfer(address indexed from, address indexed to, uint256 value)
func (_HostileToken *HostileTokenFilterer) WatchTransfer(opts *bind.WatchOpts, sink chan<- *HostileTokenTransfer, from []common.Address, to []common.Address) (event.Subscription, error) {

	var fromRule []interface{}
	for _, fromItem := range from {
		fromRule = append(fromRule, fromItem)
	}
	var toRule []interface{}
	for _, toItem := range to {
		toRule = append(toRule, toItem)
	}

	logs, sub, err := _HostileToken.contract.WatchLogs(opts, "Transfer", fromRule, toRule)
	if err != nil {
		return nil, err
	}
	return event.NewSubscription(func(quit <-chan struct{}) error {
		defer sub.Unsubscribe()
		for {
			select {
			case log := <-logs:
				// New log arrived, parse the event and forward to the user
				event := new(HostileTokenTransfer)
				if err := _HostileToken.contract.UnpackLog(event, "Transfer", log); err != nil {
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

// ParseTransfer is a log parse operation binding the contract event 0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef.
//
// Solidity: event Transfer(address indexed from, address indexed to, uint256 value)
func (_HostileToken *HostileTokenFilterer) ParseTransfer(log types.Log) (*HostileTokenTransfer, error) {
	event := new(HostileTokenTransfer)
	if err := _HostileToken.contract.UnpackLog(event, "Transfer", log); err != nil {
		return nil, err
	}
	event.Raw = log
	return event, nil
}
