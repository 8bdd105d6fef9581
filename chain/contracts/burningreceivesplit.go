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

// BurningReceiveSplitMetaData contains all meta data concerning the BurningReceiveSplit contract.
var BurningReceiveSplitMetaData = &bind.MetaData{
	ABI: "[{\"inputs\":[{\"internalType\":\"address[]\",\"name\":\"payees\",\"type\":\"address[]\"},{\"internalType\":\"uint256[]\",\"name\":\"shares_\",\"type\":\"uint256[]\"}],\"stateMutability\":\"nonpayable\",\"type\":\"constructor\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":true,\"internalType\":\"contractIERC20\",\"name\":\"token\",\"type\":\"address\"},{\"indexed\":false,\"internalType\":\"address\",\"name\":\"to\",\"type\":\"address\"},{\"indexed\":false,\"internalType\":\"uint256\",\"name\":\"amount\",\"type\":\"uint256\"}],\"name\":\"ERC20PaymentReleased\",\"type\":\"event\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":false,\"internalType\":\"address\",\"name\":\"account\",\"type\":\"address\"},{\"indexed\":false,\"internalType\":\"uint256\",\"name\":\"shares\",\"type\":\"uint256\"}],\"name\":\"PayeeAdded\",\"type\":\"event\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":false,\"internalType\":\"address\",\"name\":\"from\",\"type\":\"address\"},{\"indexed\":false,\"internalType\":\"uint256\",\"name\":\"amount\",\"type\":\"uint256\"}],\"name\":\"PaymentReceived\",\"type\":\"event\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":false,\"internalType\":\"address\",\"name\":\"to\",\"type\":\"address\"},{\"indexed\":false,\"internalType\":\"uint256\",\"name\":\"amount\",\"type\":\"uint256\"}],\"name\":\"PaymentReleased\",\"type\":\"event\"},{\"inputs\":[{\"internalType\":\"uint256\",\"name\":\"index\",\"type\":\"uint256\"}],\"name\":\"payee\",\"outputs\":[{\"internalType\":\"address\",\"name\":\"\",\"type\":\"address\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"account\",\"type\":\"address\"}],\"name\":\"releasable\",\"outputs\":[{\"internalType\":\"uint256\",\"name\":\"\",\"type\":\"uint256\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"contractIERC20\",\"name\":\"token\",\"type\":\"address\"},{\"internalType\":\"address\",\"name\":\"account\",\"type\":\"address\"}],\"name\":\"releasable\",\"outputs\":[{\"internalType\":\"uint256\",\"name\":\"\",\"type\":\"uint256\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"addresspayable\",\"name\":\"account\",\"type\":\"address\"}],\"name\":\"release\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"contractIERC20\",\"name\":\"token\",\"type\":\"address\"},{\"internalType\":\"address\",\"name\":\"account\",\"type\":\"address\"}],\"name\":\"release\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"contractIERC20\",\"name\":\"token\",\"type\":\"address\"},{\"internalType\":\"address\",\"name\":\"account\",\"type\":\"address\"}],\"name\":\"released\",\"outputs\":[{\"internalType\":\"uint256\",\"name\":\"\",\"type\":\"uint256\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"account\",\"type\":\"address\"}],\"name\":\"released\",\"outputs\":[{\"internalType\":\"uint256\",\"name\":\"\",\"type\":\"uint256\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"rounds\",\"outputs\":[{\"internalType\":\"uint256\",\"name\":\"\",\"type\":\"uint256\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"uint256\",\"name\":\"n\",\"type\":\"uint256\"}],\"name\":\"setRounds\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"account\",\"type\":\"address\"}],\"name\":\"shares\",\"outputs\":[{\"internalType\":\"uint256\",\"name\":\"\",\"type\":\"uint256\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"sink\",\"outputs\":[{\"internalType\":\"bytes32\",\"name\":\"\",\"type\":\"bytes32\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"contractIERC20\",\"name\":\"token\",\"type\":\"address\"}],\"name\":\"totalReleased\",\"outputs\":[{\"internalType\":\"uint256\",\"name\":\"\",\"type\":\"uint256\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"totalReleased\",\"outputs\":[{\"internalType\":\"uint256\",\"name\":\"\",\"type\":\"uint256\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"totalShares\",\"outputs\":[{\"internalType\":\"uint256\",\"name\":\"\",\"type\":\"uint256\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"stateMutability\":\"payable\",\"type\":\"receive\"}]",
	Bin: "0x608060405234801562000010575f80fd5b50604051620011ed380380620011ed83398101604081905262000033916200042b565b81818051825114620000a75760405162461bcd60e51b815260206004820152603260248201527f5061796d656e7453706c69747465723a2070617965657320616e6420736861726044820152710cae640d8cadccee8d040dad2e6dac2e8c6d60731b60648201526084015b60405180910390fd5b5f825111620000f95760405162461bcd60e51b815260206004820152601a60248201527f5061796d656e7453706c69747465723a206e6f2070617965657300000000000060448201526064016200009e565b5f5b825181101562000158576200014f8382815181106200011e576200011e62000501565b60200260200101518383815181106200013b576200013b62000501565b60200260200101516200016360201b60201c565b600101620000fb565b50505050506200053b565b6001600160a01b038216620001d05760405162461bcd60e51b815260206004820152602c60248201527f5061796d656e7453706c69747465723a206163636f756e74206973207468652060448201526b7a65726f206164647265737360a01b60648201526084016200009e565b5f8111620002215760405162461bcd60e51b815260206004820152601d60248201527f5061796d656e7453706c69747465723a2073686172657320617265203000000060448201526064016200009e565b6001600160a01b0382165f90815260026020526040902054156200029c5760405162461bcd60e51b815260206004820152602b60248201527f5061796d656e7453706c69747465723a206163636f756e7420616c726561647960448201526a206861732073686172657360a81b60648201526084016200009e565b60048054600181019091557f8a35acfbc15ff81a39ae7d344fd709f28e8600b4aa8c65c6b64bfe7fe36bd19b0180546001600160a01b0319166001600160a01b0384169081179091555f908152600260205260408120829055546200030390829062000515565b5f55604080516001600160a01b0384168152602081018390527f40c340f65e17194d14ddddb073d3c9f888e3cb52b5aae0c6c7706b4fbc905fac910160405180910390a15050565b634e487b7160e01b5f52604160045260245ffd5b604051601f8201601f191681016001600160401b03811182821017156200038a576200038a6200034b565b604052919050565b5f6001600160401b03821115620003ad57620003ad6200034b565b5060051b60200190565b5f82601f830112620003c7575f80fd5b81516020620003e0620003da8362000392565b6200035f565b8083825260208201915060208460051b87010193508684111562000402575f80fd5b602086015b8481101562000420578051835291830191830162000407565b509695505050505050565b5f80604083850312156200043d575f80fd5b82516001600160401b038082111562000454575f80fd5b818501915085601f83011262000468575f80fd5b815160206200047b620003da8362000392565b82815260059290921b840181019181810190898411156200049a575f80fd5b948201945b83861015620004cf5785516001600160a01b0381168114620004bf575f80fd5b825294820194908201906200049f565b91880151919650909350505080821115620004e8575f80fd5b50620004f785828601620003b7565b9150509250929050565b634e487b7160e01b5f52603260045260245ffd5b808201808211156200053557634e487b7160e01b5f52601160045260245ffd5b92915050565b610ca480620005495f395ff3fe6080604052600436106100dc575f3560e01c8063a3f8eace1161007c578063ce7c2ac211610057578063ce7c2ac2146102c9578063d5c5d6b9146102fd578063d79779b21461031c578063e33b7de314610350575f80fd5b8063a3f8eace14610276578063c45ac05014610295578063c74e820e146102b4575f80fd5b806348b75044116100b757806348b75044146101d75780638b83209b146101f65780639852595c1461022d578063a2e800ad14610261575f80fd5b806319165587146101755780633a98ef3914610196578063406072a9146101b8575f80fd5b36610171576008546007545f5b8181101561012757604080516020810185905290810182905260600160408051601f19818403018152919052805160209091012092506001016100e9565b5060088290557f6ef95f06320e7a25a04a175ca677b7052bdd97131872c2192525a629f51be77033604080516001600160a01b0390921682523460208301520160405180910390a1005b5f80fd5b348015610180575f80fd5b5061019461018f366004610a4b565b610364565b005b3480156101a1575f80fd5b505f545b6040519081526020015b60405180910390f35b3480156101c3575f80fd5b506101a56101d2366004610a66565b61044f565b3480156101e2575f80fd5b506101946101f1366004610a66565b61047b565b348015610201575f80fd5b50610215610210366004610a9d565b610587565b6040516001600160a01b0390911681526020016101af565b348015610238575f80fd5b506101a5610247366004610a4b565b6001600160a01b03165f9081526003602052604090205490565b34801561026c575f80fd5b506101a560075481565b348015610281575f80fd5b506101a5610290366004610a4b565b6105b5565b3480156102a0575f80fd5b506101a56102af366004610a66565b6105fb565b3480156102bf575f80fd5b506101a560085481565b3480156102d4575f80fd5b506101a56102e3366004610a4b565b6001600160a01b03165f9081526002602052604090205490565b348015610308575f80fd5b50610194610317366004610a9d565b600755565b348015610327575f80fd5b506101a5610336366004610a4b565b6001600160a01b03165f9081526005602052604090205490565b34801561035b575f80fd5b506001546101a5565b6001600160a01b0381165f908152600260205260409020546103a15760405162461bcd60e51b815260040161039890610ab4565b60405180910390fd5b5f6103ab826105b5565b9050805f036103cc5760405162461bcd60e51b815260040161039890610afa565b8060015f8282546103dd9190610b59565b90915550506001600160a01b0382165f908152600360205260409020805482019055610409828261069e565b604080516001600160a01b0384168152602081018390527fdf20fd1e76bc69d672e4814fafb2c449bba3a5369d8359adf9e05e6fde87b056910160405180910390a15050565b6001600160a01b038083165f908152600660209081526040808320938516835292905220545b92915050565b6001600160a01b0381165f908152600260205260409020546104af5760405162461bcd60e51b815260040161039890610ab4565b5f6104ba83836105fb565b9050805f036104db5760405162461bcd60e51b815260040161039890610afa565b6001600160a01b0383165f9081526005602052604081208054839290610502908490610b59565b90915550506001600160a01b038084165f90815260066020908152604080832093861683529290522080548201905561053c8383836107b8565b604080516001600160a01b038481168252602082018490528516917f3be5b7a71e84ed12875d241991c70855ac5817d847039e17a9d895c1ceb0f18a910160405180910390a2505050565b5f6004828154811061059b5761059b610b6c565b5f918252602090912001546001600160a01b031692915050565b5f806105c060015490565b6105ca9047610b59565b90506105f483826105ef866001600160a01b03165f9081526003602052604090205490565b61080a565b9392505050565b6001600160a01b0382165f9081526005602052604081205481906040516370a0823160e01b81523060048201526001600160a01b038616906370a0823190602401602060405180830381865afa158015610657573d5f803e3d5ffd5b505050506040513d601f19601f8201168201806040525081019061067b9190610b80565b6106859190610b59565b905061069683826105ef878761044f565b949350505050565b804710156106ee5760405162461bcd60e51b815260206004820152601d60248201527f416464726573733a20696e73756666696369656e742062616c616e63650000006044820152606401610398565b5f826001600160a01b0316826040515f6040518083038185875af1925050503d805f8114610737576040519150601f19603f3d011682016040523d82523d5f602084013e61073c565b606091505b50509050806107b35760405162461bcd60e51b815260206004820152603a60248201527f416464726573733a20756e61626c6520746f2073656e642076616c75652c207260448201527f6563697069656e74206d617920686176652072657665727465640000000000006064820152608401610398565b505050565b604080516001600160a01b038416602482015260448082018490528251808303909101815260649091019091526020810180516001600160e01b031663a9059cbb60e01b1790526107b3908490610844565b5f80546001600160a01b0385168252600260205260408220548391906108309086610b97565b61083a9190610bae565b6106969190610bcd565b5f610898826040518060400160405280602081526020017f5361666545524332303a206c6f772d6c6576656c2063616c6c206661696c6564815250856001600160a01b03166109179092919063ffffffff16565b905080515f14806108b85750808060200190518101906108b89190610be0565b6107b35760405162461bcd60e51b815260206004820152602a60248201527f5361666545524332303a204552433230206f7065726174696f6e20646964206e6044820152691bdd081cdd58d8d9595960b21b6064820152608401610398565b606061069684845f85855f80866001600160a01b0316858760405161093c9190610c21565b5f6040518083038185875af1925050503d805f8114610976576040519150601f19603f3d011682016040523d82523d5f602084013e61097b565b606091505b509150915061098c87838387610997565b979650505050505050565b60608315610a055782515f036109fe576001600160a01b0385163b6109fe5760405162461bcd60e51b815260206004820152601d60248201527f416464726573733a2063616c6c20746f206e6f6e2d636f6e74726163740000006044820152606401610398565b5081610696565b6106968383815115610a1a5781518083602001fd5b8060405162461bcd60e51b81526004016103989190610c3c565b6001600160a01b0381168114610a48575f80fd5b50565b5f60208284031215610a5b575f80fd5b81356105f481610a34565b5f8060408385031215610a77575f80fd5b8235610a8281610a34565b91506020830135610a9281610a34565b809150509250929050565b5f60208284031215610aad575f80fd5b5035919050565b60208082526026908201527f5061796d656e7453706c69747465723a206163636f756e7420686173206e6f2060408201526573686172657360d01b606082015260800190565b6020808252602b908201527f5061796d656e7453706c69747465723a206163636f756e74206973206e6f742060408201526a191d59481c185e5b595b9d60aa1b606082015260800190565b634e487b7160e01b5f52601160045260245ffd5b8082018082111561047557610475610b45565b634e487b7160e01b5f52603260045260245ffd5b5f60208284031215610b90575f80fd5b5051919050565b808202811582820484141761047557610475610b45565b5f82610bc857634e487b7160e01b5f52601260045260245ffd5b500490565b8181038181111561047557610475610b45565b5f60208284031215610bf0575f80fd5b815180151581146105f4575f80fd5b5f5b83811015610c19578181015183820152602001610c01565b50505f910152565b5f8251610c32818460208701610bff565b9190910192915050565b602081525f8251806020840152610c5a816040850160208701610bff565b601f01601f1916919091016040019291505056fea2646970667358221220de383a80186c5e7c6f448eb3f97d7599ad03db755ef519fc9e3d364b7b7af88e64736f6c63430008180033",
}

// BurningReceiveSplitABI is the input ABI used to generate the binding from.
// Deprecated: Use BurningReceiveSplitMetaData.ABI instead.
var BurningReceiveSplitABI = BurningReceiveSplitMetaData.ABI

// BurningReceiveSplitBin is the compiled bytecode used for deploying new contracts.
// Deprecated: Use BurningReceiveSplitMetaData.Bin instead.
var BurningReceiveSplitBin = BurningReceiveSplitMetaData.Bin

// DeployBurningReceiveSplit deploys a new Ethereum contract, binding an instance of BurningReceiveSplit to it.
func DeployBurningReceiveSplit(auth *bind.TransactOpts, backend bind.ContractBackend, payees []common.Address, shares_ []*big.Int) (common.Address, *types.Transaction, *BurningReceiveSplit, error) {
	parsed, err := BurningReceiveSplitMetaData.GetAbi()
	if err != nil {
		return common.Address{}, nil, nil, err
	}
	if parsed == nil {
		return common.Address{}, nil, nil, errors.New("GetABI returned nil")
	}

	address, tx, contract, err := bind.DeployContract(auth, *parsed, common.FromHex(BurningReceiveSplitBin), backend, payees, shares_)
	if err != nil {
		return common.Address{}, nil, nil, err
	}
	return address, tx, &BurningReceiveSplit{BurningReceiveSplitCaller: BurningReceiveSplitCaller{contract: contract}, BurningReceiveSplitTransactor: BurningReceiveSplitTransactor{contract: contract}, BurningReceiveSplitFilterer: BurningReceiveSplitFilterer{contract: contract}}, nil
}

// BurningReceiveSplit is an auto generated Go binding around an Ethereum contract.
type BurningReceiveSplit struct {
	BurningReceiveSplitCaller     // Read-only binding to the contract
	BurningReceiveSplitTransactor // Write-only binding to the contract
	BurningReceiveSplitFilterer   // Log filterer for contract events
}

// BurningReceiveSplitCaller is an auto generated read-only Go binding around an Ethereum contract.
type BurningReceiveSplitCaller struct {
	contract *bind.BoundContract // Generic contract wrapper for the low level calls
}

// BurningReceiveSplitTransactor is an auto generated write-only Go binding around an Ethereum contract.
type BurningReceiveSplitTransactor struct {
	contract *bind.BoundContract // Generic contract wrapper for the low level calls
}

// BurningReceiveSplitFilterer is an auto generated log filtering Go binding around an Ethereum contract events.
type BurningReceiveSplitFilterer struct {
	contract *bind.BoundContract // Generic contract wrapper for the low level calls
}

// BurningReceiveSplitSession is an auto generated Go binding around an Ethereum contract,
// with pre-set call and transact options.
type BurningReceiveSplitSession struct {
	Contract     *BurningReceiveSplit // Generic contract binding to set the session for
	CallOpts     bind.CallOpts        // Call options to use throughout this session
	TransactOpts bind.TransactOpts    // Transaction auth options to use throughout this session
}

// BurningReceiveSplitCallerSession is an auto generated read-only Go binding around an Ethereum contract,
// with pre-set call options.
type BurningReceiveSplitCallerSession struct {
	Contract *BurningReceiveSplitCaller // Generic contract caller binding to set the session for
	CallOpts bind.CallOpts              // Call options to use throughout this session
}

// BurningReceiveSplitTransactorSession is an auto generated write-only Go binding around an Ethereum contract,
// with pre-set transact options.
type BurningReceiveSplitTransactorSession struct {
	Contract     *BurningReceiveSplitTransactor // Generic contract transactor binding to set the session for
	TransactOpts bind.TransactOpts              // Transaction auth options to use throughout this session
}

// BurningReceiveSplitRaw is an auto generated low-level Go binding around an Ethereum contract.
type BurningReceiveSplitRaw struct {
	Contract *BurningReceiveSplit // Generic contract binding to access the raw methods on
}

// BurningReceiveSplitCallerRaw is an auto generated low-level read-only Go binding around an Ethereum contract.
type BurningReceiveSplitCallerRaw struct {
	Contract *BurningReceiveSplitCaller // Generic read-only contract binding to access the raw methods on
}

// BurningReceiveSplitTransactorRaw is an auto generated low-level write-only Go binding around an Ethereum contract.
type BurningReceiveSplitTransactorRaw struct {
	Contract *BurningReceiveSplitTransactor // Generic write-only contract binding to access the raw methods on
}

// NewBurningReceiveSplit creates a new instance of BurningReceiveSplit, bound to a specific deployed contract.
func NewBurningReceiveSplit(address common.Address, backend bind.ContractBackend) (*BurningReceiveSplit, error) {
	contract, err := bindBurningReceiveSplit(address, backend, backend, backend)
	if err != nil {
		return nil, err
	}
	return &BurningReceiveSplit{BurningReceiveSplitCaller: BurningReceiveSplitCaller{contract: contract}, BurningReceiveSplitTransactor: BurningReceiveSplitTransactor{contract: contract}, BurningReceiveSplitFilterer: BurningReceiveSplitFilterer{contract: contract}}, nil
}

// NewBurningReceiveSplitCaller creates a new read-only instance of BurningReceiveSplit, bound to a specific deployed contract.
func NewBurningReceiveSplitCaller(address common.Address, caller bind.ContractCaller) (*BurningReceiveSplitCaller, error) {
	contract, err := bindBurningReceiveSplit(address, caller, nil, nil)
	if err != nil {
		return nil, err
	}
	return &BurningReceiveSplitCaller{contract: contract}, nil
}

// NewBurningReceiveSplitTransactor creates a new write-only instance of BurningReceiveSplit, bound to a specific deployed contract.
func NewBurningReceiveSplitTransactor(address common.Address, transactor bind.ContractTransactor) (*BurningReceiveSplitTransactor, error) {
	contract, err := bindBurningReceiveSplit(address, nil, transactor, nil)
	if err != nil {
		return nil, err
	}
	return &BurningReceiveSplitTransactor{contract: contract}, nil
}

// NewBurningReceiveSplitFilterer creates a new log filterer instance of BurningReceiveSplit, bound to a specific deployed contract.
func NewBurningReceiveSplitFilterer(address common.Address, filterer bind.ContractFilterer) (*BurningReceiveSplitFilterer, error) {
	contract, err := bindBurningReceiveSplit(address, nil, nil, filterer)
	if err != nil {
		return nil, err
	}
	return &BurningReceiveSplitFilterer{contract: contract}, nil
}

// bindBurningReceiveSplit binds a generic wrapper to an already deployed contract.
func bindBurningReceiveSplit(address common.Address, caller bind.ContractCaller, transactor bind.ContractTransactor, filterer bind.ContractFilterer) (*bind.BoundContract, error) {
	parsed, err := BurningReceiveSplitMetaData.GetAbi()
	if err != nil {
		return nil, err
	}
	return bind.NewBoundContract(address, *parsed, caller, transactor, filterer), nil
}

// Call invokes the (constant) contract method with params as input values and
// sets the output to result. The result type might be a single field for simple
// returns, a slice of interfaces for anonymous returns and a struct for named
// returns.
func (_BurningReceiveSplit *BurningReceiveSplitRaw) Call(opts *bind.CallOpts, result *[]interface{}, method string, params ...interface{}) error {
	return _BurningReceiveSplit.Contract.BurningReceiveSplitCaller.contract.Call(opts, result, method, params...)
}

// Transfer initiates a plain transaction to move funds to the contract, calling
// its default method if one is available.
func (_BurningReceiveSplit *BurningReceiveSplitRaw) Transfer(opts *bind.TransactOpts) (*types.Transaction, error) {
	return _BurningReceiveSplit.Contract.BurningReceiveSplitTransactor.contract.Transfer(opts)
}

// Transact invokes the (paid) contract method with params as input values.
func (_BurningReceiveSplit *BurningReceiveSplitRaw) Transact(opts *bind.TransactOpts, method string, params ...interface{}) (*types.Transaction, error) {
	return _BurningReceiveSplit.Contract.BurningReceiveSplitTransactor.contract.Transact(opts, method, params...)
}

// Call invokes the (constant) contract method with params as input values and
// sets the output to result. The result type might be a single field for simple
// returns, a slice of interfaces for anonymous returns and a struct for named
// returns.
func (_BurningReceiveSplit *BurningReceiveSplitCallerRaw) Call(opts *bind.CallOpts, result *[]interface{}, method string, params ...interface{}) error {
	return _BurningReceiveSplit.Contract.contract.Call(opts, result, method, params...)
}

// Transfer initiates a plain transaction to move funds to the contract, calling
// its default method if one is available.
func (_BurningReceiveSplit *BurningReceiveSplitTransactorRaw) Transfer(opts *bind.TransactOpts) (*types.Transaction, error) {
	return _BurningReceiveSplit.Contract.contract.Transfer(opts)
}

// Transact invokes the (paid) contract method with params as input values.
func (_BurningReceiveSplit *BurningReceiveSplitTransactorRaw) Transact(opts *bind.TransactOpts, method string, params ...interface{}) (*types.Transaction, error) {
	return _BurningReceiveSplit.Contract.contract.Transact(opts, method, params...)
}

// Payee is a free data retrieval call binding the contract method 0x8b83209b.
//
// Solidity: function payee(uint256 index) view returns(address)
func (_BurningReceiveSplit *BurningReceiveSplitCaller) Payee(opts *bind.CallOpts, index *big.Int) (common.Address, error) {
	var out []interface{}
	err := _BurningReceiveSplit.contract.Call(opts, &out, "payee", index)

	if err != nil {
		return *new(common.Address), err
	}

	out0 := *abi.ConvertType(out[0], new(common.Address)).(*common.Address)

	return out0, err

}

// Payee is a free data retrieval call binding the contract method 0x8b83209b.
//
// Solidity: function payee(uint256 index) view returns(address)
func (_BurningReceiveSplit *BurningReceiveSplitSession) Payee(index *big.Int) (common.Address, error) {
	return _BurningReceiveSplit.Contract.Payee(&_BurningReceiveSplit.CallOpts, index)
}

// Payee is a free data retrieval call binding the contract method 0x8b83209b.
//
// Solidity: function payee(uint256 index) view returns(address)
func (_BurningReceiveSplit *BurningReceiveSplitCallerSession) Payee(index *big.Int) (common.Address, error) {
	return _BurningReceiveSplit.Contract.Payee(&_BurningReceiveSplit.CallOpts, index)
}

// Releasable is a free data retrieval call binding the contract method 0xa3f8eace.
//
// Solidity: function releasable(address account) view returns(uint256)
func (_BurningReceiveSplit *BurningReceiveSplitCaller) Releasable(opts *bind.CallOpts, account common.Address) (*big.Int, error) {
	var out []interface{}
	err := _BurningReceiveSplit.contract.Call(opts, &out, "releasable", account)

	if err != nil {
		return *new(*big.Int), err
	}

	out0 := *abi.ConvertType(out[0], new(*big.Int)).(**big.Int)

	return out0, err

}

// Releasable is a free data retrieval call binding the contract method 0xa3f8eace.
//
// Solidity: function releasable(address account) view returns(uint256)
func (_BurningReceiveSplit *BurningReceiveSplitSession) Releasable(account common.Address) (*big.Int, error) {
	return _BurningReceiveSplit.Contract.Releasable(&_BurningReceiveSplit.CallOpts, account)
}

// Releasable is a free data retrieval call binding the contract method 0xa3f8eace.
//
// Solidity: function releasable(address account) view returns(uint256)
func (_BurningReceiveSplit *BurningReceiveSplitCallerSession) Releasable(account common.Address) (*big.Int, error) {
	return _BurningReceiveSplit.Contract.Releasable(&_BurningReceiveSplit.CallOpts, account)
}

// Releasable0 is a free data retrieval call binding the contract method 0xc45ac050.
//
// Solidity: function releasable(address token, address account) view returns(uint256)
func (_BurningReceiveSplit *BurningReceiveSplitCaller) Releasable0(opts *bind.CallOpts, token common.Address, account common.Address) (*big.Int, error) {
	var out []interface{}
	err := _BurningReceiveSplit.contract.Call(opts, &out, "releasable0", token, account)

	if err != nil {
		return *new(*big.Int), err
	}

	out0 := *abi.ConvertType(out[0], new(*big.Int)).(**big.Int)

	return out0, err

}

// Releasable0 is a free data retrieval call binding the contract method 0xc45ac050.
//
// Solidity: function releasable(address token, address account) view returns(uint256)
func (_BurningReceiveSplit *BurningReceiveSplitSession) Releasable0(token common.Address, account common.Address) (*big.Int, error) {
	return _BurningReceiveSplit.Contract.Releasable0(&_BurningReceiveSplit.CallOpts, token, account)
}

// Releasable0 is a free data retrieval call binding the contract method 0xc45ac050.
//
// Solidity: function releasable(address token, address account) view returns(uint256)
func (_BurningReceiveSplit *BurningReceiveSplitCallerSession) Releasable0(token common.Address, account common.Address) (*big.Int, error) {
	return _BurningReceiveSplit.Contract.Releasable0(&_BurningReceiveSplit.CallOpts, token, account)
}

// Released is a free data retrieval call binding the contract method 0x406072a9.
//
// Solidity: function released(address token, address account) view returns(uint256)
func (_BurningReceiveSplit *BurningReceiveSplitCaller) Released(opts *bind.CallOpts, token common.Address, account common.Address) (*big.Int, error) {
	var out []interface{}
	err := _BurningReceiveSplit.contract.Call(opts, &out, "released", token, account)

	if err != nil {
		return *new(*big.Int), err
	}

	out0 := *abi.ConvertType(out[0], new(*big.Int)).(**big.Int)

	return out0, err

}

// Released is a free data retrieval call binding the contract method 0x406072a9.
//
// Solidity: function released(address token, address account) view returns(uint256)
func (_BurningReceiveSplit *BurningReceiveSplitSession) Released(token common.Address, account common.Address) (*big.Int, error) {
	return _BurningReceiveSplit.Contract.Released(&_BurningReceiveSplit.CallOpts, token, account)
}

// Released is a free data retrieval call binding the contract method 0x406072a9.
//
// Solidity: function released(address token, address account) view returns(uint256)
func (_BurningReceiveSplit *BurningReceiveSplitCallerSession) Released(token common.Address, account common.Address) (*big.Int, error) {
	return _BurningReceiveSplit.Contract.Released(&_BurningReceiveSplit.CallOpts, token, account)
}

// Released0 is a free data retrieval call binding the contract method 0x9852595c.
//
// Solidity: function released(address account) view returns(uint256)
func (_BurningReceiveSplit *BurningReceiveSplitCaller) Released0(opts *bind.CallOpts, account common.Address) (*big.Int, error) {
	var out []interface{}
	err := _BurningReceiveSplit.contract.Call(opts, &out, "released0", account)

	if err != nil {
		return *new(*big.Int), err
	}

	out0 := *abi.ConvertType(out[0], new(*big.Int)).(**big.Int)

	return out0, err

}

// Released0 is a free data retrieval call binding the contract method 0x9852595c.
//
// Solidity: function released(address account) view returns(uint256)
func (_BurningReceiveSplit *BurningReceiveSplitSession) Released0(account common.Address) (*big.Int, error) {
	return _BurningReceiveSplit.Contract.Released0(&_BurningReceiveSplit.CallOpts, account)
}

// Released0 is a free data retrieval call binding the contract method 0x9852595c.
//
// Solidity: function released(address account) view returns(uint256)
func (_BurningReceiveSplit *BurningReceiveSplitCallerSession) Released0(account common.Address) (*big.Int, error) {
	return _BurningReceiveSplit.Contract.Released0(&_BurningReceiveSplit.CallOpts, account)
}

// Rounds is a free data retrieval call binding the contract method 0xa2e800ad.
//
// Solidity: function rounds() view returns(uint256)
func (_BurningReceiveSplit *BurningReceiveSplitCaller) Rounds(opts *bind.CallOpts) (*big.Int, error) {
	var out []interface{}
	err := _BurningReceiveSplit.contract.Call(opts, &out, "rounds")

	if err != nil {
		return *new(*big.Int), err
	}

	out0 := *abi.ConvertType(out[0], new(*big.Int)).(**big.Int)

	return out0, err

}

// Rounds is a free data retrieval call binding the contract method 0xa2e800ad.
//
// Solidity: function rounds() view returns(uint256)
func (_BurningReceiveSplit *BurningReceiveSplitSession) Rounds() (*big.Int, error) {
	return _BurningReceiveSplit.Contract.Rounds(&_BurningReceiveSplit.CallOpts)
}

// Rounds is a free data retrieval call binding the contract method 0xa2e800ad.
//
// Solidity: function rounds() view returns(uint256)
func (_BurningReceiveSplit *BurningReceiveSplitCallerSession) Rounds() (*big.Int, error) {
	return _BurningReceiveSplit.Contract.Rounds(&_BurningReceiveSplit.CallOpts)
}

// Shares is a free data retrieval call binding the contract method 0xce7c2ac2.
//
// Solidity: function shares(address account) view returns(uint256)
func (_BurningReceiveSplit *BurningReceiveSplitCaller) Shares(opts *bind.CallOpts, account common.Address) (*big.Int, error) {
	var out []interface{}
	err := _BurningReceiveSplit.contract.Call(opts, &out, "shares", account)

	if err != nil {
		return *new(*big.Int), err
	}

	out0 := *abi.ConvertType(out[0], new(*big.Int)).(**big.Int)

	return out0, err

}

// Shares is a free data retrieval call binding the contract method 0xce7c2ac2.
//
// Solidity: function shares(address account) view returns(uint256)
func (_BurningReceiveSplit *BurningReceiveSplitSession) Shares(account common.Address) (*big.Int, error) {
	return _BurningReceiveSplit.Contract.Shares(&_BurningReceiveSplit.CallOpts, account)
}

// Shares is a free data retrieval call binding the contract method 0xce7c2ac2.
//
// Solidity: function shares(address account) view returns(uint256)
func (_BurningReceiveSplit *BurningReceiveSplitCallerSession) Shares(account common.Address) (*big.Int, error) {
	return _BurningReceiveSplit.Contract.Shares(&_BurningReceiveSplit.CallOpts, account)
}

// Sink is a free data retrieval call binding the contract method 0xc74e820e.
//
// Solidity: function sink() view returns(bytes32)
func (_BurningReceiveSplit *BurningReceiveSplitCaller) Sink(opts *bind.CallOpts) ([32]byte, error) {
	var out []interface{}
	err := _BurningReceiveSplit.contract.Call(opts, &out, "sink")

	if err != nil {
		return *new([32]byte), err
	}

	out0 := *abi.ConvertType(out[0], new([32]byte)).(*[32]byte)

	return out0, err

}

// Sink is a free data retrieval call binding the contract method 0xc74e820e.
//
// Solidity: function sink() view returns(bytes32)
func (_BurningReceiveSplit *BurningReceiveSplitSession) Sink() ([32]byte, error) {
	return _BurningReceiveSplit.Contract.Sink(&_BurningReceiveSplit.CallOpts)
}

// Sink is a free data retrieval call binding the contract method 0xc74e820e.
//
// Solidity: function sink() view returns(bytes32)
func (_BurningReceiveSplit *BurningReceiveSplitCallerSession) Sink() ([32]byte, error) {
	return _BurningReceiveSplit.Contract.Sink(&_BurningReceiveSplit.CallOpts)
}

// TotalReleased is a free data retrieval call binding the contract method 0xd79779b2.
//
// Solidity: function totalReleased(address token) view returns(uint256)
func (_BurningReceiveSplit *BurningReceiveSplitCaller) TotalReleased(opts *bind.CallOpts, token common.Address) (*big.Int, error) {
	var out []interface{}
	err := _BurningReceiveSplit.contract.Call(opts, &out, "totalReleased", token)

	if err != nil {
		return *new(*big.Int), err
	}

	out0 := *abi.ConvertType(out[0], new(*big.Int)).(**big.Int)

	return out0, err

}

// TotalReleased is a free data retrieval call binding the contract method 0xd79779b2.
//
// Solidity: function totalReleased(address token) view returns(uint256)
func (_BurningReceiveSplit *BurningReceiveSplitSession) TotalReleased(token common.Address) (*big.Int, error) {
	return _BurningReceiveSplit.Contract.TotalReleased(&_BurningReceiveSplit.CallOpts, token)
}

// TotalReleased is a free data retrieval call binding the contract method 0xd79779b2.
//
// Solidity: function totalReleased(address token) view returns(uint256)
func (_BurningReceiveSplit *BurningReceiveSplitCallerSession) TotalReleased(token common.Address) (*big.Int, error) {
	return _BurningReceiveSplit.Contract.TotalReleased(&_BurningReceiveSplit.CallOpts, token)
}

// TotalReleased0 is a free data retrieval call binding the contract method 0xe33b7de3.
//
// Solidity: function totalReleased() view returns(uint256)
func (_BurningReceiveSplit *BurningReceiveSplitCaller) TotalReleased0(opts *bind.CallOpts) (*big.Int, error) {
	var out []interface{}
	err := _BurningReceiveSplit.contract.Call(opts, &out, "totalReleased0")

	if err != nil {
		return *new(*big.Int), err
	}

	out0 := *abi.ConvertType(out[0], new(*big.Int)).(**big.Int)

	return out0, err

}

// TotalReleased0 is a free data retrieval call binding the contract method 0xe33b7de3.
//
// Solidity: function totalReleased() view returns(uint256)
func (_BurningReceiveSplit *BurningReceiveSplitSession) TotalReleased0() (*big.Int, error) {
	return _BurningReceiveSplit.Contract.TotalReleased0(&_BurningReceiveSplit.CallOpts)
}

// TotalReleased0 is a free data retrieval call binding the contract method 0xe33b7de3.
//
// Solidity: function totalReleased() view returns(uint256)
func (_BurningReceiveSplit *BurningReceiveSplitCallerSession) TotalReleased0() (*big.Int, error) {
	return _BurningReceiveSplit.Contract.TotalReleased0(&_BurningReceiveSplit.CallOpts)
}

// TotalShares is a free data retrieval call binding the contract method 0x3a98ef39.
//
// Solidity: function totalShares() view returns(uint256)
func (_BurningReceiveSplit *BurningReceiveSplitCaller) TotalShares(opts *bind.CallOpts) (*big.Int, error) {
	var out []interface{}
	err := _BurningReceiveSplit.contract.Call(opts, &out, "totalShares")

	if err != nil {
		return *new(*big.Int), err
	}

	out0 := *abi.ConvertType(out[0], new(*big.Int)).(**big.Int)

	return out0, err

}

// TotalShares is a free data retrieval call binding the contract method 0x3a98ef39.
//
// Solidity: function totalShares() view returns(uint256)
func (_BurningReceiveSplit *BurningReceiveSplitSession) TotalShares() (*big.Int, error) {
	return _BurningReceiveSplit.Contract.TotalShares(&_BurningReceiveSplit.CallOpts)
}

// TotalShares is a free data retrieval call binding the contract method 0x3a98ef39.
//
// Solidity: function totalShares() view returns(uint256)
func (_BurningReceiveSplit *BurningReceiveSplitCallerSession) TotalShares() (*big.Int, error) {
	return _BurningReceiveSplit.Contract.TotalShares(&_BurningReceiveSplit.CallOpts)
}

// Release is a paid mutator transaction binding the contract method 0x19165587.
//
// Solidity: function release(address account) returns()
func (_BurningReceiveSplit *BurningReceiveSplitTransactor) Release(opts *bind.TransactOpts, account common.Address) (*types.Transaction, error) {
	return _BurningReceiveSplit.contract.Transact(opts, "release", account)
}

// Release is a paid mutator transaction binding the contract method 0x19165587.
//
// Solidity: function release(address account) returns()
func (_BurningReceiveSplit *BurningReceiveSplitSession) Release(account common.Address) (*types.Transaction, error) {
	return _BurningReceiveSplit.Contract.Release(&_BurningReceiveSplit.TransactOpts, account)
}

// Release is a paid mutator transaction binding the contract method 0x19165587.
//
// Solidity: function release(address account) returns()
func (_BurningReceiveSplit *BurningReceiveSplitTransactorSession) Release(account common.Address) (*types.Transaction, error) {
	return _BurningReceiveSplit.Contract.Release(&_BurningReceiveSplit.TransactOpts, account)
}

// Release0 is a paid mutator transaction binding the contract method 0x48b75044.
//
// Solidity: function release(address token, address account) returns()
func (_BurningReceiveSplit *BurningReceiveSplitTransactor) Release0(opts *bind.TransactOpts, token common.Address, account common.Address) (*types.Transaction, error) {
	return _BurningReceiveSplit.contract.Transact(opts, "release0", token, account)
}

// Release0 is a paid mutator transaction binding the contract method 0x48b75044.
//
// Solidity: function release(address token, address account) returns()
func (_BurningReceiveSplit *BurningReceiveSplitSession) Release0(token common.Address, account common.Address) (*types.Transaction, error) {
	return _BurningReceiveSplit.Contract.Release0(&_BurningReceiveSplit.TransactOpts, token, account)
}

// Release0 is a paid mutator transaction binding the contract method 0x48b75044.
//
// Solidity: function release(address token, address account) returns()
func (_BurningReceiveSplit *BurningReceiveSplitTransactorSession) Release0(token common.Address, account common.Address) (*types.Transaction, error) {
	return _BurningReceiveSplit.Contract.Release0(&_BurningReceiveSplit.TransactOpts, token, account)
}

// SetRounds is a paid mutator transaction binding the contract method 0xd5c5d6b9.
//
// Solidity: function setRounds(uint256 n) returns()
func (_BurningReceiveSplit *BurningReceiveSplitTransactor) SetRounds(opts *bind.TransactOpts, n *big.Int) (*types.Transaction, error) {
	return _BurningReceiveSplit.contract.Transact(opts, "setRounds", n)
}

// SetRounds is a paid mutator transaction binding the contract method 0xd5c5d6b9.
//
// Solidity: function setRounds(uint256 n) returns()
func (_BurningReceiveSplit *BurningReceiveSplitSession) SetRounds(n *big.Int) (*types.Transaction, error) {
	return _BurningReceiveSplit.Contract.SetRounds(&_BurningReceiveSplit.TransactOpts, n)
}

// SetRounds is a paid mutator transaction binding the contract method 0xd5c5d6b9.
//
// Solidity: function setRounds(uint256 n) returns()
func (_BurningReceiveSplit *BurningReceiveSplitTransactorSession) SetRounds(n *big.Int) (*types.Transaction, error) {
	return _BurningReceiveSplit.Contract.SetRounds(&_BurningReceiveSplit.TransactOpts, n)
}

// Receive is a paid mutator transaction binding the contract receive function.
//
// Solidity: receive() payable returns()
func (_BurningReceiveSplit *BurningReceiveSplitTransactor) Receive(opts *bind.TransactOpts) (*types.Transaction, error) {
	return _BurningReceiveSplit.contract.RawTransact(opts, nil) // calldata is disallowed for receive function
}

// Receive is a paid mutator transaction binding the contract receive function.
//
// Solidity: receive() payable returns()
func (_BurningReceiveSplit *BurningReceiveSplitSession) Receive() (*types.Transaction, error) {
	return _BurningReceiveSplit.Contract.Receive(&_BurningReceiveSplit.TransactOpts)
}

// Receive is a paid mutator transaction binding the contract receive function.
//
// Solidity: receive() payable returns()
func (_BurningReceiveSplit *BurningReceiveSplitTransactorSession) Receive() (*types.Transaction, error) {
	return _BurningReceiveSplit.Contract.Receive(&_BurningReceiveSplit.TransactOpts)
}

// BurningReceiveSplitERC20PaymentReleasedIterator is returned from FilterERC20PaymentReleased and is used to iterate over the raw logs and unpacked data for ERC20PaymentReleased events raised by the BurningReceiveSplit contract.
type BurningReceiveSplitERC20PaymentReleasedIterator struct {
	Event *BurningReceiveSplitERC20PaymentReleased // Event containing the contract specifics and raw log

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
func (it *BurningReceiveSplitERC20PaymentReleasedIterator) Next() bool {
	// If the iterator failed, stop iterating
	if it.fail != nil {
		return false
	}
	// If the iterator completed, deliver directly whatever's available
	if it.done {
		select {
		case log := <-it.logs:
			it.Event = new(BurningReceiveSplitERC20PaymentReleased)
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
		it.Event = new(BurningReceiveSplitERC20PaymentReleased)
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
func (it *BurningReceiveSplitERC20PaymentReleasedIterator) Error() error {
	return it.fail
}

// Close terminates the iteration process, releasing any pending underlying
// resources.
func (it *BurningReceiveSplitERC20PaymentReleasedIterator) Close() error {
	it.sub.Unsubscribe()
	return nil
}

// BurningReceiveSplitERC20PaymentReleased represents a ERC20PaymentReleased event raised by the BurningReceiveSplit contract.
type BurningReceiveSplitERC20PaymentReleased struct {
	Token  common.Address
	To     common.Address
	Amount *big.Int
	Raw    types.Log // Blockchain specific contextual infos
}

// FilterERC20PaymentReleased is a free log retrieval operation binding the contract event 0x3be5b7a71e84ed12875d241991c70855ac5817d847039e17a9d895c1ceb0f18a.
//
// Solidity: event ERC20PaymentReleased(address indexed token, address to, uint256 amount)
func (_BurningReceiveSplit *BurningReceiveSplitFilterer) FilterERC20PaymentReleased(opts *bind.FilterOpts, token []common.Address) (*BurningReceiveSplitERC20PaymentReleasedIterator, error) {

	var tokenRule []interface{}
	for _, tokenItem := range token {
		tokenRule = append(tokenRule, tokenItem)
	}

	logs, sub, err := _BurningReceiveSplit.contract.FilterLogs(opts, "ERC20PaymentReleased", tokenRule)
	if err != nil {
		return nil, err
	}
	return &BurningReceiveSplitERC20PaymentReleasedIterator{contract: _BurningReceiveSplit.contract, event: "ERC20PaymentReleased", logs: logs, sub: sub}, nil
}

// WatchERC20PaymentReleased is a free log subscription operation binding the contract event 0x3be5b7a71e84ed12875d241991c70855ac5817d847039e17a9d895c1ceb0f18a.
//
// Solidity: event ERC20PaymentReleased(address indexed token, address to, uint256 amount)
func (_BurningReceiveSplit *BurningReceiveSplitFilterer) WatchERC20PaymentReleased(opts *bind.WatchOpts, sink chan<- *BurningReceiveSplitERC20PaymentReleased, token []common.Address) (event.Subscription, error) {

	var tokenRule []interface{}
	for _, tokenItem := range token {
		tokenRule = append(tokenRule, tokenItem)
	}

	logs, sub, err := _BurningReceiveSplit.contract.WatchLogs(opts, "ERC20PaymentReleased", tokenRule)
	if err != nil {
		return nil, err
	}
	return event.NewSubscription(func(quit <-chan struct{}) error {
		defer sub.Unsubscribe()
		for {
			select {
			case log := <-logs:
				// New log arrived, parse the event and forward to the user
				event := new(BurningReceiveSplitERC20PaymentReleased)
				if err := _BurningReceiveSplit.contract.UnpackLog(event, "ERC20PaymentReleased", log); err != nil {
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
func (_BurningReceiveSplit *BurningReceiveSplitFilterer) ParseERC20PaymentReleased(log types.Log) (*BurningReceiveSplitERC20PaymentReleased, error) {
	event := new(BurningReceiveSplitERC20PaymentReleased)
	if err := _BurningReceiveSplit.contract.UnpackLog(event, "ERC20PaymentReleased", log); err != nil {
		return nil, err
	}
	event.Raw = log
	return event, nil
}

// BurningReceiveSplitPayeeAddedIterator is returned from FilterPayeeAdded and is used to iterate over the raw logs and unpacked data for PayeeAdded events raised by the BurningReceiveSplit contract.
type BurningReceiveSplitPayeeAddedIterator struct {
	Event *BurningReceiveSplitPayeeAdded // Event containing the contract specifics and raw log

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
func (it *BurningReceiveSplitPayeeAddedIterator) Next() bool {
	// If the iterator failed, stop iterating
	if it.fail != nil {
		return false
	}
	// If the iterator completed, deliver directly whatever's available
	if it.done {
		select {
		case log := <-it.logs:
			it.Event = new(BurningReceiveSplitPayeeAdded)
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
		it.Event = new(BurningReceiveSplitPayeeAdded)
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
func (it *BurningReceiveSplitPayeeAddedIterator) Error() error {
	return it.fail
}

// Close terminates the iteration process, releasing any pending underlying
// resources.
func (it *BurningReceiveSplitPayeeAddedIterator) Close() error {
	it.sub.Unsubscribe()
	return nil
}

// BurningReceiveSplitPayeeAdded represents a PayeeAdded event raised by the BurningReceiveSplit contract.
type BurningReceiveSplitPayeeAdded struct {
	Account common.Address
	Shares  *big.Int
	Raw     types.Log // Blockchain specific contextual infos
}

// FilterPayeeAdded is a free log retrieval operation binding the contract event 0x40c340f65e17194d14ddddb073d3c9f888e3cb52b5aae0c6c7706b4fbc905fac.
//
// Solidity: event PayeeAdded(address account, uint256 shares)
func (_BurningReceiveSplit *BurningReceiveSplitFilterer) FilterPayeeAdded(opts *bind.FilterOpts) (*BurningReceiveSplitPayeeAddedIterator, error) {

	logs, sub, err := _BurningReceiveSplit.contract.FilterLogs(opts, "PayeeAdded")
	if err != nil {
		return nil, err
	}
	return &BurningReceiveSplitPayeeAddedIterator{contract: _BurningReceiveSplit.contract, event: "PayeeAdded", logs: logs, sub: sub}, nil
}

// WatchPayeeAdded is a free log subscription operation binding the contract event 0x40c340f65e17194d14ddddb073d3c9f888e3cb52b5aae0c6c7706b4fbc905fac.
//
// Solidity: event PayeeAdded(address account, uint256 shares)
func (_BurningReceiveSplit *BurningReceiveSplitFilterer) WatchPayeeAdded(opts *bind.WatchOpts, sink chan<- *BurningReceiveSplitPayeeAdded) (event.Subscription, error) {

	logs, sub, err := _BurningReceiveSplit.contract.WatchLogs(opts, "PayeeAdded")
	if err != nil {
		return nil, err
	}
	return event.NewSubscription(func(quit <-chan struct{}) error {
		defer sub.Unsubscribe()
		for {
			select {
			case log := <-logs:
				// New log arrived, parse the event and forward to the user
				event := new(BurningReceiveSplitPayeeAdded)
				if err := _BurningReceiveSplit.contract.UnpackLog(event, "PayeeAdded", log); err != nil {
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

// ParsePayeeAdded is a log parse operation binding the contract event 0x40c340f65e17194d14ddddb073d3c9f888e3cb52b5aae0c6c7706b4fbc905fac.
//
// Solidity: event PayeeAdded(address account, uint256 shares)
func (_BurningReceiveSplit *BurningReceiveSplitFilterer) ParsePayeeAdded(log types.Log) (*BurningReceiveSplitPayeeAdded, error) {
	event := new(BurningReceiveSplitPayeeAdded)
	if err := _BurningReceiveSplit.contract.UnpackLog(event, "PayeeAdded", log); err != nil {
		return nil, err
	}
	event.Raw = log
	return event, nil
}

// BurningReceiveSplitPaymentReceivedIterator is returned from FilterPaymentReceived and is used to iterate over the raw logs and unpacked data for PaymentReceived events raised by the BurningReceiveSplit contract.
type BurningReceiveSplitPaymentReceivedIterator struct {
	Event *BurningReceiveSplitPaymentReceived // Event containing the contract specifics and raw log

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
func (it *BurningReceiveSplitPaymentReceivedIterator) Next() bool {
	// If the iterator failed, stop iterating
	if it.fail != nil {
		return false
	}
	// If the iterator completed, deliver directly whatever's available
	if it.done {
		select {
		case log := <-it.logs:
			it.Event = new(BurningReceiveSplitPaymentReceived)
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
		it.Event = new(BurningReceiveSplitPaymentReceived)
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
func (it *BurningReceiveSplitPaymentReceivedIterator) Error() error {
	return it.fail
}

// Close terminates the iteration process, releasing any pending underlying
// resources.
func (it *BurningReceiveSplitPaymentReceivedIterator) Close() error {
	it.sub.Unsubscribe()
	return nil
}

// BurningReceiveSplitPaymentReceived represents a PaymentReceived event raised by the BurningReceiveSplit contract.
type BurningReceiveSplitPaymentReceived struct {
	From   common.Address
	Amount *big.Int
	Raw    types.Log // Blockchain specific contextual infos
}

// FilterPaymentReceived is a free log retrieval operation binding the contract event 0x6ef95f06320e7a25a04a175ca677b7052bdd97131872c2192525a629f51be770.
//
// Solidity: event PaymentReceived(address from, uint256 amount)
func (_BurningReceiveSplit *BurningReceiveSplitFilterer) FilterPaymentReceived(opts *bind.FilterOpts) (*BurningReceiveSplitPaymentReceivedIterator, error) {

	logs, sub, err := _BurningReceiveSplit.contract.FilterLogs(opts, "PaymentReceived")
	if err != nil {
		return nil, err
	}
	return &BurningReceiveSplitPaymentReceivedIterator{contract: _BurningReceiveSplit.contract, event: "PaymentReceived", logs: logs, sub: sub}, nil
}

// WatchPaymentReceived is a free log subscription operation binding the contract event 0x6ef95f06320e7a25a04a175ca677b7052bdd97131872c2192525a629f51be770.
//
// Solidity: event PaymentReceived(address from, uint256 amount)
func (_BurningReceiveSplit *BurningReceiveSplitFilterer) WatchPaymentReceived(opts *bind.WatchOpts, sink chan<- *BurningReceiveSplitPaymentReceived) (event.Subscription, error) {

	logs, sub, err := _BurningReceiveSplit.contract.WatchLogs(opts, "PaymentReceived")
	if err != nil {
		return nil, err
	}
	return event.NewSubscription(func(quit <-chan struct{}) error {
		defer sub.Unsubscribe()
		for {
			select {
			case log := <-logs:
				// New log arrived, parse the event and forward to the user
				event := new(BurningReceiveSplitPaymentReceived)
				if err := _BurningReceiveSplit.contract.UnpackLog(event, "PaymentReceived", log); err != nil {
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

// ParsePaymentReceived is a log parse operation binding the contract event 0x6ef95f06320e7a25a04a175ca677b7052bdd97131872c2192525a629f51be770.
//
// Solidity: event PaymentReceived(address from, uint256 amount)
func (_BurningReceiveSplit *BurningReceiveSplitFilterer) ParsePaymentReceived(log types.Log) (*BurningReceiveSplitPaymentReceived, error) {
	event := new(BurningReceiveSplitPaymentReceived)
	if err := _BurningReceiveSplit.contract.UnpackLog(event, "PaymentReceived", log); err != nil {
		return nil, err
	}
	event.Raw = log
	return event, nil
}

// BurningReceiveSplitPaymentReleasedIterator is returned from FilterPaymentReleased and is used to iterate over the raw logs and unpacked data for PaymentReleased events raised by the BurningReceiveSplit contract.
type BurningReceiveSplitPaymentReleasedIterator struct {
	Event *BurningReceiveSplitPaymentReleased // Event containing the contract specifics and raw log

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
func (it *BurningReceiveSplitPaymentReleasedIterator) Next() bool {
	// If the iterator failed, stop iterating
	if it.fail != nil {
		return false
	}
	// If the iterator completed, deliver directly whatever's available
	if it.done {
		select {
		case log := <-it.logs:
			it.Event = new(BurningReceiveSplitPaymentReleased)
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
		it.Event = new(BurningReceiveSplitPaymentReleased)
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
func (it *BurningReceiveSplitPaymentReleasedIterator) Error() error {
	return it.fail
}

// Close terminates the iteration process, releasing any pending underlying
// resources.
func (it *BurningReceiveSplitPaymentReleasedIterator) Close() error {
	it.sub.Unsubscribe()
	return nil
}

// BurningReceiveSplitPaymentReleased represents a PaymentReleased event raised by the BurningReceiveSplit contract.
type BurningReceiveSplitPaymentReleased struct {
	To     common.Address
	Amount *big.Int
	Raw    types.Log // Blockchain specific contextual infos
}

// FilterPaymentReleased is a free log retrieval operation binding the contract event 0xdf20fd1e76bc69d672e4814fafb2c449bba3a5369d8359adf9e05e6fde87b056.
//
// Solidity: event PaymentReleased(address to, uint256 amount)
func (_BurningReceiveSplit *BurningReceiveSplitFilterer) FilterPaymentReleased(opts *bind.FilterOpts) (*BurningReceiveSplitPaymentReleasedIterator, error) {

	logs, sub, err := _BurningReceiveSplit.contract.FilterLogs(opts, "PaymentReleased")
	if err != nil {
		return nil, err
	}
	return &BurningReceiveSplitPaymentReleasedIterator{contract: _BurningReceiveSplit.contract, event: "PaymentReleased", logs: logs, sub: sub}, nil
}

// WatchPaymentReleased is a free log subscription operation binding the contract event 0xdf20fd1e76bc69d672e4814fafb2c449bba3a5369d8359adf9e05e6fde87b056.
//
// Solidity: event PaymentReleased(address to, uint256 amount)
func (_BurningReceiveSplit *BurningReceiveSplitFilterer) WatchPaymentReleased(opts *bind.WatchOpts, sink chan<- *BurningReceiveSplitPaymentReleased) (event.Subscription, error) {

	logs, sub, err := _BurningReceiveSplit.contract.WatchLogs(opts, "PaymentReleased")
	if err != nil {
		return nil, err
	}
	return event.NewSubscription(func(quit <-chan struct{}) error {
		defer sub.Unsubscribe()
		for {
			select {
			case log := <-logs:
				// New log arrived, parse the event and forward to the user
				event := new(BurningReceiveSplitPaymentReleased)
				if err := _BurningReceiveSplit.contract.UnpackLog(event, "PaymentReleased", log); err != nil {
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
func (_BurningReceiveSplit *BurningReceiveSplitFilterer) ParsePaymentReleased(log types.Log) (*BurningReceiveSplitPaymentReleased, error) {
	event := new(BurningReceiveSplitPaymentReleased)
	if err := _BurningReceiveSplit.contract.UnpackLog(event, "PaymentReleased", log); err != nil {
		return nil, err
	}
	event.Raw = log
	return event, nil
}
