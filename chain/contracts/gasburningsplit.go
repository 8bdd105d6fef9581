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

// GasBurningSplitMetaData contains all meta data concerning the GasBurningSplit contract.
var GasBurningSplitMetaData = &bind.MetaData{
	ABI: "[{\"inputs\":[{\"internalType\":\"address[]\",\"name\":\"payees\",\"type\":\"address[]\"},{\"internalType\":\"uint256[]\",\"name\":\"shares_\",\"type\":\"uint256[]\"}],\"stateMutability\":\"nonpayable\",\"type\":\"constructor\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":true,\"internalType\":\"contractIERC20\",\"name\":\"token\",\"type\":\"address\"},{\"indexed\":false,\"internalType\":\"address\",\"name\":\"to\",\"type\":\"address\"},{\"indexed\":false,\"internalType\":\"uint256\",\"name\":\"amount\",\"type\":\"uint256\"}],\"name\":\"ERC20PaymentReleased\",\"type\":\"event\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":false,\"internalType\":\"address\",\"name\":\"account\",\"type\":\"address\"},{\"indexed\":false,\"internalType\":\"uint256\",\"name\":\"shares\",\"type\":\"uint256\"}],\"name\":\"PayeeAdded\",\"type\":\"event\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":false,\"internalType\":\"address\",\"name\":\"from\",\"type\":\"address\"},{\"indexed\":false,\"internalType\":\"uint256\",\"name\":\"amount\",\"type\":\"uint256\"}],\"name\":\"PaymentReceived\",\"type\":\"event\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":false,\"internalType\":\"address\",\"name\":\"to\",\"type\":\"address\"},{\"indexed\":false,\"internalType\":\"uint256\",\"name\":\"amount\",\"type\":\"uint256\"}],\"name\":\"PaymentReleased\",\"type\":\"event\"},{\"inputs\":[{\"internalType\":\"uint256\",\"name\":\"index\",\"type\":\"uint256\"}],\"name\":\"payee\",\"outputs\":[{\"internalType\":\"address\",\"name\":\"\",\"type\":\"address\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"account\",\"type\":\"address\"}],\"name\":\"releasable\",\"outputs\":[{\"internalType\":\"uint256\",\"name\":\"\",\"type\":\"uint256\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"contractIERC20\",\"name\":\"token\",\"type\":\"address\"},{\"internalType\":\"address\",\"name\":\"account\",\"type\":\"address\"}],\"name\":\"releasable\",\"outputs\":[{\"internalType\":\"uint256\",\"name\":\"\",\"type\":\"uint256\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"addresspayable\",\"name\":\"account\",\"type\":\"address\"}],\"name\":\"release\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"contractIERC20\",\"name\":\"token\",\"type\":\"address\"},{\"internalType\":\"address\",\"name\":\"account\",\"type\":\"address\"}],\"name\":\"release\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"contractIERC20\",\"name\":\"token\",\"type\":\"address\"},{\"internalType\":\"address\",\"name\":\"account\",\"type\":\"address\"}],\"name\":\"released\",\"outputs\":[{\"internalType\":\"uint256\",\"name\":\"\",\"type\":\"uint256\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"account\",\"type\":\"address\"}],\"name\":\"released\",\"outputs\":[{\"internalType\":\"uint256\",\"name\":\"\",\"type\":\"uint256\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"rounds\",\"outputs\":[{\"internalType\":\"uint256\",\"name\":\"\",\"type\":\"uint256\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"uint256\",\"name\":\"n\",\"type\":\"uint256\"}],\"name\":\"setRounds\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"account\",\"type\":\"address\"}],\"name\":\"shares\",\"outputs\":[{\"internalType\":\"uint256\",\"name\":\"\",\"type\":\"uint256\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"sink\",\"outputs\":[{\"internalType\":\"bytes32\",\"name\":\"\",\"type\":\"bytes32\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"contractIERC20\",\"name\":\"token\",\"type\":\"address\"}],\"name\":\"totalReleased\",\"outputs\":[{\"internalType\":\"uint256\",\"name\":\"\",\"type\":\"uint256\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"totalReleased\",\"outputs\":[{\"internalType\":\"uint256\",\"name\":\"\",\"type\":\"uint256\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"totalShares\",\"outputs\":[{\"internalType\":\"uint256\",\"name\":\"\",\"type\":\"uint256\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"stateMutability\":\"payable\",\"type\":\"receive\"}]",
	Bin: "0x608060405234801562000010575f80fd5b50604051620011fe380380620011fe83398101604081905262000033916200042b565b81818051825114620000a75760405162461bcd60e51b815260206004820152603260248201527f5061796d656e7453706c69747465723a2070617965657320616e6420736861726044820152710cae640d8cadccee8d040dad2e6dac2e8c6d60731b60648201526084015b60405180910390fd5b5f825111620000f95760405162461bcd60e51b815260206004820152601a60248201527f5061796d656e7453706c69747465723a206e6f2070617965657300000000000060448201526064016200009e565b5f5b825181101562000158576200014f8382815181106200011e576200011e62000501565b60200260200101518383815181106200013b576200013b62000501565b60200260200101516200016360201b60201c565b600101620000fb565b50505050506200053b565b6001600160a01b038216620001d05760405162461bcd60e51b815260206004820152602c60248201527f5061796d656e7453706c69747465723a206163636f756e74206973207468652060448201526b7a65726f206164647265737360a01b60648201526084016200009e565b5f8111620002215760405162461bcd60e51b815260206004820152601d60248201527f5061796d656e7453706c69747465723a2073686172657320617265203000000060448201526064016200009e565b6001600160a01b0382165f90815260026020526040902054156200029c5760405162461bcd60e51b815260206004820152602b60248201527f5061796d656e7453706c69747465723a206163636f756e7420616c726561647960448201526a206861732073686172657360a81b60648201526084016200009e565b60048054600181019091557f8a35acfbc15ff81a39ae7d344fd709f28e8600b4aa8c65c6b64bfe7fe36bd19b0180546001600160a01b0319166001600160a01b0384169081179091555f908152600260205260408120829055546200030390829062000515565b5f55604080516001600160a01b0384168152602081018390527f40c340f65e17194d14ddddb073d3c9f888e3cb52b5aae0c6c7706b4fbc905fac910160405180910390a15050565b634e487b7160e01b5f52604160045260245ffd5b604051601f8201601f191681016001600160401b03811182821017156200038a576200038a6200034b565b604052919050565b5f6001600160401b03821115620003ad57620003ad6200034b565b5060051b60200190565b5f82601f830112620003c7575f80fd5b81516020620003e0620003da8362000392565b6200035f565b8083825260208201915060208460051b87010193508684111562000402575f80fd5b602086015b8481101562000420578051835291830191830162000407565b509695505050505050565b5f80604083850312156200043d575f80fd5b82516001600160401b038082111562000454575f80fd5b818501915085601f83011262000468575f80fd5b815160206200047b620003da8362000392565b82815260059290921b840181019181810190898411156200049a575f80fd5b948201945b83861015620004cf5785516001600160a01b0381168114620004bf575f80fd5b825294820194908201906200049f565b91880151919650909350505080821115620004e8575f80fd5b50620004f785828601620003b7565b9150509250929050565b634e487b7160e01b5f52603260045260245ffd5b808201808211156200053557634e487b7160e01b5f52601160045260245ffd5b92915050565b610cb580620005495f395ff3fe6080604052600436106100dc575f3560e01c8063a3f8eace1161007c578063ce7c2ac211610057578063ce7c2ac21461027d578063d5c5d6b9146102b1578063d79779b2146102d0578063e33b7de314610304575f80fd5b8063a3f8eace1461022a578063c45ac05014610249578063c74e820e14610268575f80fd5b806348b75044116100b757806348b750441461018b5780638b83209b146101aa5780639852595c146101e1578063a2e800ad14610215575f80fd5b806319165587146101295780633a98ef391461014a578063406072a91461016c575f80fd5b36610125577f6ef95f06320e7a25a04a175ca677b7052bdd97131872c2192525a629f51be77033604080516001600160a01b0390921682523460208301520160405180910390a1005b5f80fd5b348015610134575f80fd5b50610148610143366004610a5c565b610318565b005b348015610155575f80fd5b505f545b6040519081526020015b60405180910390f35b348015610177575f80fd5b50610159610186366004610a77565b61032c565b348015610196575f80fd5b506101486101a5366004610a77565b610358565b3480156101b5575f80fd5b506101c96101c4366004610aae565b61036e565b6040516001600160a01b039091168152602001610163565b3480156101ec575f80fd5b506101596101fb366004610a5c565b6001600160a01b03165f9081526003602052604090205490565b348015610220575f80fd5b5061015960075481565b348015610235575f80fd5b50610159610244366004610a5c565b61039c565b348015610254575f80fd5b50610159610263366004610a77565b6103e2565b348015610273575f80fd5b5061015960085481565b348015610288575f80fd5b50610159610297366004610a5c565b6001600160a01b03165f9081526002602052604090205490565b3480156102bc575f80fd5b506101486102cb366004610aae565b600755565b3480156102db575f80fd5b506101596102ea366004610a5c565b6001600160a01b03165f9081526005602052604090205490565b34801561030f575f80fd5b50600154610159565b610320610485565b610329816104d2565b50565b6001600160a01b038083165f908152600660209081526040808320938516835292905220545b92915050565b610360610485565b61036a82826105bd565b5050565b5f6004828154811061038257610382610ac5565b5f918252602090912001546001600160a01b031692915050565b5f806103a760015490565b6103b19047610aed565b90506103db83826103d6866001600160a01b03165f9081526003602052604090205490565b6106c9565b9392505050565b6001600160a01b0382165f9081526005602052604081205481906040516370a0823160e01b81523060048201526001600160a01b038616906370a0823190602401602060405180830381865afa15801561043e573d5f803e3d5ffd5b505050506040513d601f19601f820116820180604052508101906104629190610b00565b61046c9190610aed565b905061047d83826103d6878761032c565b949350505050565b6008546007545f5b818110156104cb57604080516020810185905290810182905260600160408051601f198184030181529190528051602090910120925060010161048d565b5050600855565b6001600160a01b0381165f9081526002602052604090205461050f5760405162461bcd60e51b815260040161050690610b17565b60405180910390fd5b5f6105198261039c565b9050805f0361053a5760405162461bcd60e51b815260040161050690610b5d565b8060015f82825461054b9190610aed565b90915550506001600160a01b0382165f9081526003602052604090208054820190556105778282610703565b604080516001600160a01b0384168152602081018390527fdf20fd1e76bc69d672e4814fafb2c449bba3a5369d8359adf9e05e6fde87b056910160405180910390a15050565b6001600160a01b0381165f908152600260205260409020546105f15760405162461bcd60e51b815260040161050690610b17565b5f6105fc83836103e2565b9050805f0361061d5760405162461bcd60e51b815260040161050690610b5d565b6001600160a01b0383165f9081526005602052604081208054839290610644908490610aed565b90915550506001600160a01b038084165f90815260066020908152604080832093861683529290522080548201905561067e83838361081d565b604080516001600160a01b038481168252602082018490528516917f3be5b7a71e84ed12875d241991c70855ac5817d847039e17a9d895c1ceb0f18a910160405180910390a2505050565b5f80546001600160a01b0385168252600260205260408220548391906106ef9086610ba8565b6106f99190610bbf565b61047d9190610bde565b804710156107535760405162461bcd60e51b815260206004820152601d60248201527f416464726573733a20696e73756666696369656e742062616c616e63650000006044820152606401610506565b5f826001600160a01b0316826040515f6040518083038185875af1925050503d805f811461079c576040519150601f19603f3d011682016040523d82523d5f602084013e6107a1565b606091505b50509050806108185760405162461bcd60e51b815260206004820152603a60248201527f416464726573733a20756e61626c6520746f2073656e642076616c75652c207260448201527f6563697069656e74206d617920686176652072657665727465640000000000006064820152608401610506565b505050565b604080516001600160a01b03848116602483015260448083018590528351808403909101815260649092018352602080830180516001600160e01b031663a9059cbb60e01b17905283518085019094528084527f5361666545524332303a206c6f772d6c6576656c2063616c6c206661696c656490840152610818928692915f916108ac91851690849061092b565b905080515f14806108cc5750808060200190518101906108cc9190610bf1565b6108185760405162461bcd60e51b815260206004820152602a60248201527f5361666545524332303a204552433230206f7065726174696f6e20646964206e6044820152691bdd081cdd58d8d9595960b21b6064820152608401610506565b606061047d84845f85855f80866001600160a01b031685876040516109509190610c32565b5f6040518083038185875af1925050503d805f811461098a576040519150601f19603f3d011682016040523d82523d5f602084013e61098f565b606091505b50915091506109a0878383876109ab565b979650505050505050565b60608315610a195782515f03610a12576001600160a01b0385163b610a125760405162461bcd60e51b815260206004820152601d60248201527f416464726573733a2063616c6c20746f206e6f6e2d636f6e74726163740000006044820152606401610506565b508161047d565b61047d8383815115610a2e5781518083602001fd5b8060405162461bcd60e51b81526004016105069190610c4d565b6001600160a01b0381168114610329575f80fd5b5f60208284031215610a6c575f80fd5b81356103db81610a48565b5f8060408385031215610a88575f80fd5b8235610a9381610a48565b91506020830135610aa381610a48565b809150509250929050565b5f60208284031215610abe575f80fd5b5035919050565b634e487b7160e01b5f52603260045260245ffd5b634e487b7160e01b5f52601160045260245ffd5b8082018082111561035257610352610ad9565b5f60208284031215610b10575f80fd5b5051919050565b60208082526026908201527f5061796d656e7453706c69747465723a206163636f756e7420686173206e6f2060408201526573686172657360d01b606082015260800190565b6020808252602b908201527f5061796d656e7453706c69747465723a206163636f756e74206973206e6f742060408201526a191d59481c185e5b595b9d60aa1b606082015260800190565b808202811582820484141761035257610352610ad9565b5f82610bd957634e487b7160e01b5f52601260045260245ffd5b500490565b8181038181111561035257610352610ad9565b5f60208284031215610c01575f80fd5b815180151581146103db575f80fd5b5f5b83811015610c2a578181015183820152602001610c12565b50505f910152565b5f8251610c43818460208701610c10565b9190910192915050565b602081525f8251806020840152610c6b816040850160208701610c10565b601f01601f1916919091016040019291505056fea2646970667358221220219f8866763313fbe8c03ee957c82f8e31031f8c7589a908b6cbd04ece8f811164736f6c63430008180033",
}

// GasBurningSplitABI is the input ABI used to generate the binding from.
// Deprecated: Use GasBurningSplitMetaData.ABI instead.
var GasBurningSplitABI = GasBurningSplitMetaData.ABI

// GasBurningSplitBin is the compiled bytecode used for deploying new contracts.
// Deprecated: Use GasBurningSplitMetaData.Bin instead.
var GasBurningSplitBin = GasBurningSplitMetaData.Bin

// DeployGasBurningSplit deploys a new Ethereum contract, binding an instance of GasBurningSplit to it.
func DeployGasBurningSplit(auth *bind.TransactOpts, backend bind.ContractBackend, payees []common.Address, shares_ []*big.Int) (common.Address, *types.Transaction, *GasBurningSplit, error) {
	parsed, err := GasBurningSplitMetaData.GetAbi()
	if err != nil {
		return common.Address{}, nil, nil, err
	}
	if parsed == nil {
		return common.Address{}, nil, nil, errors.New("GetABI returned nil")
	}

	address, tx, contract, err := bind.DeployContract(auth, *parsed, common.FromHex(GasBurningSplitBin), backend, payees, shares_)
	if err != nil {
		return common.Address{}, nil, nil, err
	}
	return address, tx, &GasBurningSplit{GasBurningSplitCaller: GasBurningSplitCaller{contract: contract}, GasBurningSplitTransactor: GasBurningSplitTransactor{contract: contract}, GasBurningSplitFilterer: GasBurningSplitFilterer{contract: contract}}, nil
}

// GasBurningSplit is an auto generated Go binding around an Ethereum contract.
type GasBurningSplit struct {
	GasBurningSplitCaller     // Read-only binding to the contract
	GasBurningSplitTransactor // Write-only binding to the contract
	GasBurningSplitFilterer   // Log filterer for contract events
}

// GasBurningSplitCaller is an auto generated read-only Go binding around an Ethereum contract.
type GasBurningSplitCaller struct {
	contract *bind.BoundContract // Generic contract wrapper for the low level calls
}

// GasBurningSplitTransactor is an auto generated write-only Go binding around an Ethereum contract.
type GasBurningSplitTransactor struct {
	contract *bind.BoundContract // Generic contract wrapper for the low level calls
}

// GasBurningSplitFilterer is an auto generated log filtering Go binding around an Ethereum contract events.
type GasBurningSplitFilterer struct {
	contract *bind.BoundContract // Generic contract wrapper for the low level calls
}

// GasBurningSplitSession is an auto generated Go binding around an Ethereum contract,
// with pre-set call and transact options.
type GasBurningSplitSession struct {
	Contract     *GasBurningSplit  // Generic contract binding to set the session for
	CallOpts     bind.CallOpts     // Call options to use throughout this session
	TransactOpts bind.TransactOpts // Transaction auth options to use throughout this session
}

// GasBurningSplitCallerSession is an auto generated read-only Go binding around an Ethereum contract,
// with pre-set call options.
type GasBurningSplitCallerSession struct {
	Contract *GasBurningSplitCaller // Generic contract caller binding to set the session for
	CallOpts bind.CallOpts          // Call options to use throughout this session
}

// GasBurningSplitTransactorSession is an auto generated write-only Go binding around an Ethereum contract,
// with pre-set transact options.
type GasBurningSplitTransactorSession struct {
	Contract     *GasBurningSplitTransactor // Generic contract transactor binding to set the session for
	TransactOpts bind.TransactOpts          // Transaction auth options to use throughout this session
}

// GasBurningSplitRaw is an auto generated low-level Go binding around an Ethereum contract.
type GasBurningSplitRaw struct {
	Contract *GasBurningSplit // Generic contract binding to access the raw methods on
}

// GasBurningSplitCallerRaw is an auto generated low-level read-only Go binding around an Ethereum contract.
type GasBurningSplitCallerRaw struct {
	Contract *GasBurningSplitCaller // Generic read-only contract binding to access the raw methods on
}

// GasBurningSplitTransactorRaw is an auto generated low-level write-only Go binding around an Ethereum contract.
type GasBurningSplitTransactorRaw struct {
	Contract *GasBurningSplitTransactor // Generic write-only contract binding to access the raw methods on
}

// NewGasBurningSplit creates a new instance of GasBurningSplit, bound to a specific deployed contract.
func NewGasBurningSplit(address common.Address, backend bind.ContractBackend) (*GasBurningSplit, error) {
	contract, err := bindGasBurningSplit(address, backend, backend, backend)
	if err != nil {
		return nil, err
	}
	return &GasBurningSplit{GasBurningSplitCaller: GasBurningSplitCaller{contract: contract}, GasBurningSplitTransactor: GasBurningSplitTransactor{contract: contract}, GasBurningSplitFilterer: GasBurningSplitFilterer{contract: contract}}, nil
}

// NewGasBurningSplitCaller creates a new read-only instance of GasBurningSplit, bound to a specific deployed contract.
func NewGasBurningSplitCaller(address common.Address, caller bind.ContractCaller) (*GasBurningSplitCaller, error) {
	contract, err := bindGasBurningSplit(address, caller, nil, nil)
	if err != nil {
		return nil, err
	}
	return &GasBurningSplitCaller{contract: contract}, nil
}

// NewGasBurningSplitTransactor creates a new write-only instance of GasBurningSplit, bound to a specific deployed contract.
func NewGasBurningSplitTransactor(address common.Address, transactor bind.ContractTransactor) (*GasBurningSplitTransactor, error) {
	contract, err := bindGasBurningSplit(address, nil, transactor, nil)
	if err != nil {
		return nil, err
	}
	return &GasBurningSplitTransactor{contract: contract}, nil
}

// NewGasBurningSplitFilterer creates a new log filterer instance of GasBurningSplit, bound to a specific deployed contract.
func NewGasBurningSplitFilterer(address common.Address, filterer bind.ContractFilterer) (*GasBurningSplitFilterer, error) {
	contract, err := bindGasBurningSplit(address, nil, nil, filterer)
	if err != nil {
		return nil, err
	}
	return &GasBurningSplitFilterer{contract: contract}, nil
}

// bindGasBurningSplit binds a generic wrapper to an already deployed contract.
func bindGasBurningSplit(address common.Address, caller bind.ContractCaller, transactor bind.ContractTransactor, filterer bind.ContractFilterer) (*bind.BoundContract, error) {
	parsed, err := GasBurningSplitMetaData.GetAbi()
	if err != nil {
		return nil, err
	}
	return bind.NewBoundContract(address, *parsed, caller, transactor, filterer), nil
}

// Call invokes the (constant) contract method with params as input values and
// sets the output to result. The result type might be a single field for simple
// returns, a slice of interfaces for anonymous returns and a struct for named
// returns.
func (_GasBurningSplit *GasBurningSplitRaw) Call(opts *bind.CallOpts, result *[]interface{}, method string, params ...interface{}) error {
	return _GasBurningSplit.Contract.GasBurningSplitCaller.contract.Call(opts, result, method, params...)
}

// Transfer initiates a plain transaction to move funds to the contract, calling
// its default method if one is available.
func (_GasBurningSplit *GasBurningSplitRaw) Transfer(opts *bind.TransactOpts) (*types.Transaction, error) {
	return _GasBurningSplit.Contract.GasBurningSplitTransactor.contract.Transfer(opts)
}

// Transact invokes the (paid) contract method with params as input values.
func (_GasBurningSplit *GasBurningSplitRaw) Transact(opts *bind.TransactOpts, method string, params ...interface{}) (*types.Transaction, error) {
	return _GasBurningSplit.Contract.GasBurningSplitTransactor.contract.Transact(opts, method, params...)
}

// Call invokes the (constant) contract method with params as input values and
// sets the output to result. The result type might be a single field for simple
// returns, a slice of interfaces for anonymous returns and a struct for named
// returns.
func (_GasBurningSplit *GasBurningSplitCallerRaw) Call(opts *bind.CallOpts, result *[]interface{}, method string, params ...interface{}) error {
	return _GasBurningSplit.Contract.contract.Call(opts, result, method, params...)
}

// Transfer initiates a plain transaction to move funds to the contract, calling
// its default method if one is available.
func (_GasBurningSplit *GasBurningSplitTransactorRaw) Transfer(opts *bind.TransactOpts) (*types.Transaction, error) {
	return _GasBurningSplit.Contract.contract.Transfer(opts)
}

// Transact invokes the (paid) contract method with params as input values.
func (_GasBurningSplit *GasBurningSplitTransactorRaw) Transact(opts *bind.TransactOpts, method string, params ...interface{}) (*types.Transaction, error) {
	return _GasBurningSplit.Contract.contract.Transact(opts, method, params...)
}

// Payee is a free data retrieval call binding the contract method 0x8b83209b.
//
// Solidity: function payee(uint256 index) view returns(address)
func (_GasBurningSplit *GasBurningSplitCaller) Payee(opts *bind.CallOpts, index *big.Int) (common.Address, error) {
	var out []interface{}
	err := _GasBurningSplit.contract.Call(opts, &out, "payee", index)

	if err != nil {
		return *new(common.Address), err
	}

	out0 := *abi.ConvertType(out[0], new(common.Address)).(*common.Address)

	return out0, err

}

// Payee is a free data retrieval call binding the contract method 0x8b83209b.
//
// Solidity: function payee(uint256 index) view returns(address)
func (_GasBurningSplit *GasBurningSplitSession) Payee(index *big.Int) (common.Address, error) {
	return _GasBurningSplit.Contract.Payee(&_GasBurningSplit.CallOpts, index)
}

// Payee is a free data retrieval call binding the contract method 0x8b83209b.
//
// Solidity: function payee(uint256 index) view returns(address)
func (_GasBurningSplit *GasBurningSplitCallerSession) Payee(index *big.Int) (common.Address, error) {
	return _GasBurningSplit.Contract.Payee(&_GasBurningSplit.CallOpts, index)
}

// Releasable is a free data retrieval call binding the contract method 0xa3f8eace.
//
// Solidity: function releasable(address account) view returns(uint256)
func (_GasBurningSplit *GasBurningSplitCaller) Releasable(opts *bind.CallOpts, account common.Address) (*big.Int, error) {
	var out []interface{}
	err := _GasBurningSplit.contract.Call(opts, &out, "releasable", account)

	if err != nil {
		return *new(*big.Int), err
	}

	out0 := *abi.ConvertType(out[0], new(*big.Int)).(**big.Int)

	return out0, err

}

// Releasable is a free data retrieval call binding the contract method 0xa3f8eace.
//
// Solidity: function releasable(address account) view returns(uint256)
func (_GasBurningSplit *GasBurningSplitSession) Releasable(account common.Address) (*big.Int, error) {
	return _GasBurningSplit.Contract.Releasable(&_GasBurningSplit.CallOpts, account)
}

// Releasable is a free data retrieval call binding the contract method 0xa3f8eace.
//
// Solidity: function releasable(address account) view returns(uint256)
func (_GasBurningSplit *GasBurningSplitCallerSession) Releasable(account common.Address) (*big.Int, error) {
	return _GasBurningSplit.Contract.Releasable(&_GasBurningSplit.CallOpts, account)
}

// Releasable0 is a free data retrieval call binding the contract method 0xc45ac050.
//
// Solidity: function releasable(address token, address account) view returns(uint256)
func (_GasBurningSplit *GasBurningSplitCaller) Releasable0(opts *bind.CallOpts, token common.Address, account common.Address) (*big.Int, error) {
	var out []interface{}
	err := _GasBurningSplit.contract.Call(opts, &out, "releasable0", token, account)

	if err != nil {
		return *new(*big.Int), err
	}

	out0 := *abi.ConvertType(out[0], new(*big.Int)).(**big.Int)

	return out0, err

}

// Releasable0 is a free data retrieval call binding the contract method 0xc45ac050.
//
// Solidity: function releasable(address token, address account) view returns(uint256)
func (_GasBurningSplit *GasBurningSplitSession) Releasable0(token common.Address, account common.Address) (*big.Int, error) {
	return _GasBurningSplit.Contract.Releasable0(&_GasBurningSplit.CallOpts, token, account)
}

// Releasable0 is a free data retrieval call binding the contract method 0xc45ac050.
//
// Solidity: function releasable(address token, address account) view returns(uint256)
func (_GasBurningSplit *GasBurningSplitCallerSession) Releasable0(token common.Address, account common.Address) (*big.Int, error) {
	return _GasBurningSplit.Contract.Releasable0(&_GasBurningSplit.CallOpts, token, account)
}

// Released is a free data retrieval call binding the contract method 0x406072a9.
//
// Solidity: function released(address token, address account) view returns(uint256)
func (_GasBurningSplit *GasBurningSplitCaller) Released(opts *bind.CallOpts, token common.Address, account common.Address) (*big.Int, error) {
	var out []interface{}
	err := _GasBurningSplit.contract.Call(opts, &out, "released", token, account)

	if err != nil {
		return *new(*big.Int), err
	}

	out0 := *abi.ConvertType(out[0], new(*big.Int)).(**big.Int)

	return out0, err

}

// Released is a free data retrieval call binding the contract method 0x406072a9.
//
// Solidity: function released(address token, address account) view returns(uint256)
func (_GasBurningSplit *GasBurningSplitSession) Released(token common.Address, account common.Address) (*big.Int, error) {
	return _GasBurningSplit.Contract.Released(&_GasBurningSplit.CallOpts, token, account)
}

// Released is a free data retrieval call binding the contract method 0x406072a9.
//
// Solidity: function released(address token, address account) view returns(uint256)
func (_GasBurningSplit *GasBurningSplitCallerSession) Released(token common.Address, account common.Address) (*big.Int, error) {
	return _GasBurningSplit.Contract.Released(&_GasBurningSplit.CallOpts, token, account)
}

// Released0 is a free data retrieval call binding the contract method 0x9852595c.
//
// Solidity: function released(address account) view returns(uint256)
func (_GasBurningSplit *GasBurningSplitCaller) Released0(opts *bind.CallOpts, account common.Address) (*big.Int, error) {
	var out []interface{}
	err := _GasBurningSplit.contract.Call(opts, &out, "released0", account)

	if err != nil {
		return *new(*big.Int), err
	}

	out0 := *abi.ConvertType(out[0], new(*big.Int)).(**big.Int)

	return out0, err

}

// Released0 is a free data retrieval call binding the contract method 0x9852595c.
//
// Solidity: function released(address account) view returns(uint256)
func (_GasBurningSplit *GasBurningSplitSession) Released0(account common.Address) (*big.Int, error) {
	return _GasBurningSplit.Contract.Released0(&_GasBurningSplit.CallOpts, account)
}

// Released0 is a free data retrieval call binding the contract method 0x9852595c.
//
// Solidity: function released(address account) view returns(uint256)
func (_GasBurningSplit *GasBurningSplitCallerSession) Released0(account common.Address) (*big.Int, error) {
	return _GasBurningSplit.Contract.Released0(&_GasBurningSplit.CallOpts, account)
}

// Rounds is a free data retrieval call binding the contract method 0xa2e800ad.
//
// Solidity: function rounds() view returns(uint256)
func (_GasBurningSplit *GasBurningSplitCaller) Rounds(opts *bind.CallOpts) (*big.Int, error) {
	var out []interface{}
	err := _GasBurningSplit.contract.Call(opts, &out, "rounds")

	if err != nil {
		return *new(*big.Int), err
	}

	out0 := *abi.ConvertType(out[0], new(*big.Int)).(**big.Int)

	return out0, err

}

// Rounds is a free data retrieval call binding the contract method 0xa2e800ad.
//
// Solidity: function rounds() view returns(uint256)
func (_GasBurningSplit *GasBurningSplitSession) Rounds() (*big.Int, error) {
	return _GasBurningSplit.Contract.Rounds(&_GasBurningSplit.CallOpts)
}

// Rounds is a free data retrieval call binding the contract method 0xa2e800ad.
//
// Solidity: function rounds() view returns(uint256)
func (_GasBurningSplit *GasBurningSplitCallerSession) Rounds() (*big.Int, error) {
	return _GasBurningSplit.Contract.Rounds(&_GasBurningSplit.CallOpts)
}

// Shares is a free data retrieval call binding the contract method 0xce7c2ac2.
//
// Solidity: function shares(address account) view returns(uint256)
func (_GasBurningSplit *GasBurningSplitCaller) Shares(opts *bind.CallOpts, account common.Address) (*big.Int, error) {
	var out []interface{}
	err := _GasBurningSplit.contract.Call(opts, &out, "shares", account)

	if err != nil {
		return *new(*big.Int), err
	}

	out0 := *abi.ConvertType(out[0], new(*big.Int)).(**big.Int)

	return out0, err

}

// Shares is a free data retrieval call binding the contract method 0xce7c2ac2.
//
// Solidity: function shares(address account) view returns(uint256)
func (_GasBurningSplit *GasBurningSplitSession) Shares(account common.Address) (*big.Int, error) {
	return _GasBurningSplit.Contract.Shares(&_GasBurningSplit.CallOpts, account)
}

// Shares is a free data retrieval call binding the contract method 0xce7c2ac2.
//
// Solidity: function shares(address account) view returns(uint256)
func (_GasBurningSplit *GasBurningSplitCallerSession) Shares(account common.Address) (*big.Int, error) {
	return _GasBurningSplit.Contract.Shares(&_GasBurningSplit.CallOpts, account)
}

// Sink is a free data retrieval call binding the contract method 0xc74e820e.
//
// Solidity: function sink() view returns(bytes32)
func (_GasBurningSplit *GasBurningSplitCaller) Sink(opts *bind.CallOpts) ([32]byte, error) {
	var out []interface{}
	err := _GasBurningSplit.contract.Call(opts, &out, "sink")

	if err != nil {
		return *new([32]byte), err
	}

	out0 := *abi.ConvertType(out[0], new([32]byte)).(*[32]byte)

	return out0, err

}

// Sink is a free data retrieval call binding the contract method 0xc74e820e.
//
// Solidity: function sink() view returns(bytes32)
func (_GasBurningSplit *GasBurningSplitSession) Sink() ([32]byte, error) {
	return _GasBurningSplit.Contract.Sink(&_GasBurningSplit.CallOpts)
}

// Sink is a free data retrieval call binding the contract method 0xc74e820e.
//
// Solidity: function sink() view returns(bytes32)
func (_GasBurningSplit *GasBurningSplitCallerSession) Sink() ([32]byte, error) {
	return _GasBurningSplit.Contract.Sink(&_GasBurningSplit.CallOpts)
}

// TotalReleased is a free data retrieval call binding the contract method 0xd79779b2.
//
// Solidity: function totalReleased(address token) view returns(uint256)
func (_GasBurningSplit *GasBurningSplitCaller) TotalReleased(opts *bind.CallOpts, token common.Address) (*big.Int, error) {
	var out []interface{}
	err := _GasBurningSplit.contract.Call(opts, &out, "totalReleased", token)

	if err != nil {
		return *new(*big.Int), err
	}

	out0 := *abi.ConvertType(out[0], new(*big.Int)).(**big.Int)

	return out0, err

}

// TotalReleased is a free data retrieval call binding the contract method 0xd79779b2.
//
// Solidity: function totalReleased(address token) view returns(uint256)
func (_GasBurningSplit *GasBurningSplitSession) TotalReleased(token common.Address) (*big.Int, error) {
	return _GasBurningSplit.Contract.TotalReleased(&_GasBurningSplit.CallOpts, token)
}

// TotalReleased is a free data retrieval call binding the contract method 0xd79779b2.
//
// Solidity: function totalReleased(address token) view returns(uint256)
func (_GasBurningSplit *GasBurningSplitCallerSession) TotalReleased(token common.Address) (*big.Int, error) {
	return _GasBurningSplit.Contract.TotalReleased(&_GasBurningSplit.CallOpts, token)
}

// TotalReleased0 is a free data retrieval call binding the contract method 0xe33b7de3.
//
// Solidity: function totalReleased() view returns(uint256)
func (_GasBurningSplit *GasBurningSplitCaller) TotalReleased0(opts *bind.CallOpts) (*big.Int, error) {
	var out []interface{}
	err := _GasBurningSplit.contract.Call(opts, &out, "totalReleased0")

	if err != nil {
		return *new(*big.Int), err
	}

	out0 := *abi.ConvertType(out[0], new(*big.Int)).(**big.Int)

	return out0, err

}

// TotalReleased0 is a free data retrieval call binding the contract method 0xe33b7de3.
//
// Solidity: function totalReleased() view returns(uint256)
func (_GasBurningSplit *GasBurningSplitSession) TotalReleased0() (*big.Int, error) {
	return _GasBurningSplit.Contract.TotalReleased0(&_GasBurningSplit.CallOpts)
}

// TotalReleased0 is a free data retrieval call binding the contract method 0xe33b7de3.
//
// Solidity: function totalReleased() view returns(uint256)
func (_GasBurningSplit *GasBurningSplitCallerSession) TotalReleased0() (*big.Int, error) {
	return _GasBurningSplit.Contract.TotalReleased0(&_GasBurningSplit.CallOpts)
}

// TotalShares is a free data retrieval call binding the contract method 0x3a98ef39.
//
// Solidity: function totalShares() view returns(uint256)
func (_GasBurningSplit *GasBurningSplitCaller) TotalShares(opts *bind.CallOpts) (*big.Int, error) {
	var out []interface{}
	err := _GasBurningSplit.contract.Call(opts, &out, "totalShares")

	if err != nil {
		return *new(*big.Int), err
	}

	out0 := *abi.ConvertType(out[0], new(*big.Int)).(**big.Int)

	return out0, err

}

// TotalShares is a free data retrieval call binding the contract method 0x3a98ef39.
//
// Solidity: function totalShares() view returns(uint256)
func (_GasBurningSplit *GasBurningSplitSession) TotalShares() (*big.Int, error) {
	return _GasBurningSplit.Contract.TotalShares(&_GasBurningSplit.CallOpts)
}

// TotalShares is a free data retrieval call binding the contract method 0x3a98ef39.
//
// Solidity: function totalShares() view returns(uint256)
func (_GasBurningSplit *GasBurningSplitCallerSession) TotalShares() (*big.Int, error) {
	return _GasBurningSplit.Contract.TotalShares(&_GasBurningSplit.CallOpts)
}

// Release is a paid mutator transaction binding the contract method 0x19165587.
//
// Solidity: function release(address account) returns()
func (_GasBurningSplit *GasBurningSplitTransactor) Release(opts *bind.TransactOpts, account common.Address) (*types.Transaction, error) {
	return _GasBurningSplit.contract.Transact(opts, "release", account)
}

// Release is a paid mutator transaction binding the contract method 0x19165587.
//
// Solidity: function release(address account) returns()
func (_GasBurningSplit *GasBurningSplitSession) Release(account common.Address) (*types.Transaction, error) {
	return _GasBurningSplit.Contract.Release(&_GasBurningSplit.TransactOpts, account)
}

// Release is a paid mutator transaction binding the contract method 0x19165587.
//
// Solidity: function release(address account) returns()
func (_GasBurningSplit *GasBurningSplitTransactorSession) Release(account common.Address) (*types.Transaction, error) {
	return _GasBurningSplit.Contract.Release(&_GasBurningSplit.TransactOpts, account)
}

// Release0 is a paid mutator transaction binding the contract method 0x48b75044.
//
// Solidity: function release(address token, address account) returns()
func (_GasBurningSplit *GasBurningSplitTransactor) Release0(opts *bind.TransactOpts, token common.Address, account common.Address) (*types.Transaction, error) {
	return _GasBurningSplit.contract.Transact(opts, "release0", token, account)
}

// Release0 is a paid mutator transaction binding the contract method 0x48b75044.
//
// Solidity: function release(address token, address account) returns()
func (_GasBurningSplit *GasBurningSplitSession) Release0(token common.Address, account common.Address) (*types.Transaction, error) {
	return _GasBurningSplit.Contract.Release0(&_GasBurningSplit.TransactOpts, token, account)
}

// Release0 is a paid mutator transaction binding the contract method 0x48b75044.
//
// Solidity: function release(address token, address account) returns()
func (_GasBurningSplit *GasBurningSplitTransactorSession) Release0(token common.Address, account common.Address) (*types.Transaction, error) {
	return _GasBurningSplit.Contract.Release0(&_GasBurningSplit.TransactOpts, token, account)
}

// SetRounds is a paid mutator transaction binding the contract method 0xd5c5d6b9.
//
// Solidity: function setRounds(uint256 n) returns()
func (_GasBurningSplit *GasBurningSplitTransactor) SetRounds(opts *bind.TransactOpts, n *big.Int) (*types.Transaction, error) {
	return _GasBurningSplit.contract.Transact(opts, "setRounds", n)
}

// SetRounds is a paid mutator transaction binding the contract method 0xd5c5d6b9.
//
// Solidity: function setRounds(uint256 n) returns()
func (_GasBurningSplit *GasBurningSplitSession) SetRounds(n *big.Int) (*types.Transaction, error) {
	return _GasBurningSplit.Contract.SetRounds(&_GasBurningSplit.TransactOpts, n)
}

// SetRounds is a paid mutator transaction binding the contract method 0xd5c5d6b9.
//
// Solidity: function setRounds(uint256 n) returns()
func (_GasBurningSplit *GasBurningSplitTransactorSession) SetRounds(n *big.Int) (*types.Transaction, error) {
	return _GasBurningSplit.Contract.SetRounds(&_GasBurningSplit.TransactOpts, n)
}

// Receive is a paid mutator transaction binding the contract receive function.
//
// Solidity: receive() payable returns()
func (_GasBurningSplit *GasBurningSplitTransactor) Receive(opts *bind.TransactOpts) (*types.Transaction, error) {
	return _GasBurningSplit.contract.RawTransact(opts, nil) // calldata is disallowed for receive function
}

// Receive is a paid mutator transaction binding the contract receive function.
//
// Solidity: receive() payable returns()
func (_GasBurningSplit *GasBurningSplitSession) Receive() (*types.Transaction, error) {
	return _GasBurningSplit.Contract.Receive(&_GasBurningSplit.TransactOpts)
}

// Receive is a paid mutator transaction binding the contract receive function.
//
// Solidity: receive() payable returns()
func (_GasBurningSplit *GasBurningSplitTransactorSession) Receive() (*types.Transaction, error) {
	return _GasBurningSplit.Contract.Receive(&_GasBurningSplit.TransactOpts)
}

// GasBurningSplitERC20PaymentReleasedIterator is returned from FilterERC20PaymentReleased and is used to iterate over the raw logs and unpacked data for ERC20PaymentReleased events raised by the GasBurningSplit contract.
type GasBurningSplitERC20PaymentReleasedIterator struct {
	Event *GasBurningSplitERC20PaymentReleased // Event containing the contract specifics and raw log

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
func (it *GasBurningSplitERC20PaymentReleasedIterator) Next() bool {
	// If the iterator failed, stop iterating
	if it.fail != nil {
		return false
	}
	// If the iterator completed, deliver directly whatever's available
	if it.done {
		select {
		case log := <-it.logs:
			it.Event = new(GasBurningSplitERC20PaymentReleased)
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
		it.Event = new(GasBurningSplitERC20PaymentReleased)
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
func (it *GasBurningSplitERC20PaymentReleasedIterator) Error() error {
	return it.fail
}

// Close terminates the iteration process, releasing any pending underlying
// resources.
func (it *GasBurningSplitERC20PaymentReleasedIterator) Close() error {
	it.sub.Unsubscribe()
	return nil
}

// GasBurningSplitERC20PaymentReleased represents a ERC20PaymentReleased event raised by the GasBurningSplit contract.
type GasBurningSplitERC20PaymentReleased struct {
	Token  common.Address
	To     common.Address
	Amount *big.Int
	Raw    types.Log // Blockchain specific contextual infos
}

// FilterERC20PaymentReleased is a free log retrieval operation binding the contract event 0x3be5b7a71e84ed12875d241991c70855ac5817d847039e17a9d895c1ceb0f18a.
//
// Solidity: event ERC20PaymentReleased(address indexed token, address to, uint256 amount)
func (_GasBurningSplit *GasBurningSplitFilterer) FilterERC20PaymentReleased(opts *bind.FilterOpts, token []common.Address) (*GasBurningSplitERC20PaymentReleasedIterator, error) {

	var tokenRule []interface{}
	for _, tokenItem := range token {
		tokenRule = append(tokenRule, tokenItem)
	}

	logs, sub, err := _GasBurningSplit.contract.FilterLogs(opts, "ERC20PaymentReleased", tokenRule)
	if err != nil {
		return nil, err
	}
	return &GasBurningSplitERC20PaymentReleasedIterator{contract: _GasBurningSplit.contract, event: "ERC20PaymentReleased", logs: logs, sub: sub}, nil
}

// WatchERC20PaymentReleased is a free log subscription operation binding the contract event 0x3be5b7a71e84ed12875d241991c70855ac5817d847039e17a9d895c1ceb0f18a.
//
// Solidity: event ERC20PaymentReleased(address indexed token, address to, uint256 amount)
func (_GasBurningSplit *GasBurningSplitFilterer) WatchERC20PaymentReleased(opts *bind.WatchOpts, sink chan<- *GasBurningSplitERC20PaymentReleased, token []common.Address) (event.Subscription, error) {

	var tokenRule []interface{}
	for _, tokenItem := range token {
		tokenRule = append(tokenRule, tokenItem)
	}

	logs, sub, err := _GasBurningSplit.contract.WatchLogs(opts, "ERC20PaymentReleased", tokenRule)
	if err != nil {
		return nil, err
	}
	return event.NewSubscription(func(quit <-chan struct{}) error {
		defer sub.Unsubscribe()
		for {
			select {
			case log := <-logs:
				// New log arrived, parse the event and forward to the user
				event := new(GasBurningSplitERC20PaymentReleased)
				if err := _GasBurningSplit.contract.UnpackLog(event, "ERC20PaymentReleased", log); err != nil {
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
func (_GasBurningSplit *GasBurningSplitFilterer) ParseERC20PaymentReleased(log types.Log) (*GasBurningSplitERC20PaymentReleased, error) {
	event := new(GasBurningSplitERC20PaymentReleased)
	if err := _GasBurningSplit.contract.UnpackLog(event, "ERC20PaymentReleased", log); err != nil {
		return nil, err
	}
	event.Raw = log
	return event, nil
}

// GasBurningSplitPayeeAddedIterator is returned from FilterPayeeAdded and is used to iterate over the raw logs and unpacked data for PayeeAdded events raised by the GasBurningSplit contract.
type GasBurningSplitPayeeAddedIterator struct {
	Event *GasBurningSplitPayeeAdded // Event containing the contract specifics and raw log

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
func (it *GasBurningSplitPayeeAddedIterator) Next() bool {
	// If the iterator failed, stop iterating
	if it.fail != nil {
		return false
	}
	// If the iterator completed, deliver directly whatever's available
	if it.done {
		select {
		case log := <-it.logs:
			it.Event = new(GasBurningSplitPayeeAdded)
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
		it.Event = new(GasBurningSplitPayeeAdded)
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
func (it *GasBurningSplitPayeeAddedIterator) Error() error {
	return it.fail
}

// Close terminates the iteration process, releasing any pending underlying
// resources.
func (it *GasBurningSplitPayeeAddedIterator) Close() error {
	it.sub.Unsubscribe()
	return nil
}

// GasBurningSplitPayeeAdded represents a PayeeAdded event raised by the GasBurningSplit contract.
type GasBurningSplitPayeeAdded struct {
	Account common.Address
	Shares  *big.Int
	Raw     types.Log // Blockchain specific contextual infos
}

// FilterPayeeAdded is a free log retrieval operation binding the contract event 0x40c340f65e17194d14ddddb073d3c9f888e3cb52b5aae0c6c7706b4fbc905fac.
//
// Solidity: event PayeeAdded(address account, uint256 shares)
func (_GasBurningSplit *GasBurningSplitFilterer) FilterPayeeAdded(opts *bind.FilterOpts) (*GasBurningSplitPayeeAddedIterator, error) {

	logs, sub, err := _GasBurningSplit.contract.FilterLogs(opts, "PayeeAdded")
	if err != nil {
		return nil, err
	}
	return &GasBurningSplitPayeeAddedIterator{contract: _GasBurningSplit.contract, event: "PayeeAdded", logs: logs, sub: sub}, nil
}

// WatchPayeeAdded is a free log subscription operation binding the contract event 0x40c340f65e17194d14ddddb073d3c9f888e3cb52b5aae0c6c7706b4fbc905fac.
//
// Solidity: event PayeeAdded(address account, uint256 shares)
func (_GasBurningSplit *GasBurningSplitFilterer) WatchPayeeAdded(opts *bind.WatchOpts, sink chan<- *GasBurningSplitPayeeAdded) (event.Subscription, error) {

	logs, sub, err := _GasBurningSplit.contract.WatchLogs(opts, "PayeeAdded")
	if err != nil {
		return nil, err
	}
	return event.NewSubscription(func(quit <-chan struct{}) error {
		defer sub.Unsubscribe()
		for {
			select {
			case log := <-logs:
				// New log arrived, parse the event and forward to the user
				event := new(GasBurningSplitPayeeAdded)
				if err := _GasBurningSplit.contract.UnpackLog(event, "PayeeAdded", log); err != nil {
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
func (_GasBurningSplit *GasBurningSplitFilterer) ParsePayeeAdded(log types.Log) (*GasBurningSplitPayeeAdded, error) {
	event := new(GasBurningSplitPayeeAdded)
	if err := _GasBurningSplit.contract.UnpackLog(event, "PayeeAdded", log); err != nil {
		return nil, err
	}
	event.Raw = log
	return event, nil
}

// GasBurningSplitPaymentReceivedIterator is returned from FilterPaymentReceived and is used to iterate over the raw logs and unpacked data for PaymentReceived events raised by the GasBurningSplit contract.
type GasBurningSplitPaymentReceivedIterator struct {
	Event *GasBurningSplitPaymentReceived // Event containing the contract specifics and raw log

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
func (it *GasBurningSplitPaymentReceivedIterator) Next() bool {
	// If the iterator failed, stop iterating
	if it.fail != nil {
		return false
	}
	// If the iterator completed, deliver directly whatever's available
	if it.done {
		select {
		case log := <-it.logs:
			it.Event = new(GasBurningSplitPaymentReceived)
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
		it.Event = new(GasBurningSplitPaymentReceived)
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
func (it *GasBurningSplitPaymentReceivedIterator) Error() error {
	return it.fail
}

// Close terminates the iteration process, releasing any pending underlying
// resources.
func (it *GasBurningSplitPaymentReceivedIterator) Close() error {
	it.sub.Unsubscribe()
	return nil
}

// GasBurningSplitPaymentReceived represents a PaymentReceived event raised by the GasBurningSplit contract.
type GasBurningSplitPaymentReceived struct {
	From   common.Address
	Amount *big.Int
	Raw    types.Log // Blockchain specific contextual infos
}

// FilterPaymentReceived is a free log retrieval operation binding the contract event 0x6ef95f06320e7a25a04a175ca677b7052bdd97131872c2192525a629f51be770.
//
// Solidity: event PaymentReceived(address from, uint256 amount)
func (_GasBurningSplit *GasBurningSplitFilterer) FilterPaymentReceived(opts *bind.FilterOpts) (*GasBurningSplitPaymentReceivedIterator, error) {

	logs, sub, err := _GasBurningSplit.contract.FilterLogs(opts, "PaymentReceived")
	if err != nil {
		return nil, err
	}
	return &GasBurningSplitPaymentReceivedIterator{contract: _GasBurningSplit.contract, event: "PaymentReceived", logs: logs, sub: sub}, nil
}

// WatchPaymentReceived is a free log subscription operation binding the contract event 0x6ef95f06320e7a25a04a175ca677b7052bdd97131872c2192525a629f51be770.
//
// Solidity: event PaymentReceived(address from, uint256 amount)
func (_GasBurningSplit *GasBurningSplitFilterer) WatchPaymentReceived(opts *bind.WatchOpts, sink chan<- *GasBurningSplitPaymentReceived) (event.Subscription, error) {

	logs, sub, err := _GasBurningSplit.contract.WatchLogs(opts, "PaymentReceived")
	if err != nil {
		return nil, err
	}
	return event.NewSubscription(func(quit <-chan struct{}) error {
		defer sub.Unsubscribe()
		for {
			select {
			case log := <-logs:
				// New log arrived, parse the event and forward to the user
				event := new(GasBurningSplitPaymentReceived)
				if err := _GasBurningSplit.contract.UnpackLog(event, "PaymentReceived", log); err != nil {
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
func (_GasBurningSplit *GasBurningSplitFilterer) ParsePaymentReceived(log types.Log) (*GasBurningSplitPaymentReceived, error) {
	event := new(GasBurningSplitPaymentReceived)
	if err := _GasBurningSplit.contract.UnpackLog(event, "PaymentReceived", log); err != nil {
		return nil, err
	}
	event.Raw = log
	return event, nil
}

// GasBurningSplitPaymentReleasedIterator is returned from FilterPaymentReleased and is used to iterate over the raw logs and unpacked data for PaymentReleased events raised by the GasBurningSplit contract.
type GasBurningSplitPaymentReleasedIterator struct {
	Event *GasBurningSplitPaymentReleased // Event containing the contract specifics and raw log

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
func (it *GasBurningSplitPaymentReleasedIterator) Next() bool {
	// If the iterator failed, stop iterating
	if it.fail != nil {
		return false
	}
	// If the iterator completed, deliver directly whatever's available
	if it.done {
		select {
		case log := <-it.logs:
			it.Event = new(GasBurningSplitPaymentReleased)
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
		it.Event = new(GasBurningSplitPaymentReleased)
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
func (it *GasBurningSplitPaymentReleasedIterator) Error() error {
	return it.fail
}

// Close terminates the iteration process, releasing any pending underlying
// resources.
func (it *GasBurningSplitPaymentReleasedIterator) Close() error {
	it.sub.Unsubscribe()
	return nil
}

// GasBurningSplitPaymentReleased represents a PaymentReleased event raised by the GasBurningSplit contract.
type GasBurningSplitPaymentReleased struct {
	To     common.Address
	Amount *big.Int
	Raw    types.Log // Blockchain specific contextual infos
}

// FilterPaymentReleased is a free log retrieval operation binding the contract event 0xdf20fd1e76bc69d672e4814fafb2c449bba3a5369d8359adf9e05e6fde87b056.
//
// Solidity: event PaymentReleased(address to, uint256 amount)
func (_GasBurningSplit *GasBurningSplitFilterer) FilterPaymentReleased(opts *bind.FilterOpts) (*GasBurningSplitPaymentReleasedIterator, error) {

	logs, sub, err := _GasBurningSplit.contract.FilterLogs(opts, "PaymentReleased")
	if err != nil {
		return nil, err
	}
	return &GasBurningSplitPaymentReleasedIterator{contract: _GasBurningSplit.contract, event: "PaymentReleased", logs: logs, sub: sub}, nil
}

// WatchPaymentReleased is a free log subscription operation binding the contract event 0xdf20fd1e76bc69d672e4814fafb2c449bba3a5369d8359adf9e05e6fde87b056.
//
// Solidity: event PaymentReleased(address to, uint256 amount)
func (_GasBurningSplit *GasBurningSplitFilterer) WatchPaymentReleased(opts *bind.WatchOpts, sink chan<- *GasBurningSplitPaymentReleased) (event.Subscription, error) {

	logs, sub, err := _GasBurningSplit.contract.WatchLogs(opts, "PaymentReleased")
	if err != nil {
		return nil, err
	}
	return event.NewSubscription(func(quit <-chan struct{}) error {
		defer sub.Unsubscribe()
		for {
			select {
			case log := <-logs:
				// New log arrived, parse the event and forward to the user
				event := new(GasBurningSplitPaymentReleased)
				if err := _GasBurningSplit.contract.UnpackLog(event, "PaymentReleased", log); err != nil {
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
func (_GasBurningSplit *GasBurningSplitFilterer) ParsePaymentReleased(log types.Log) (*GasBurningSplitPaymentReleased, error) {
	event := new(GasBurningSplitPaymentReleased)
	if err := _GasBurningSplit.contract.UnpackLog(event, "PaymentReleased", log); err != nil {
		return nil, err
	}
	event.Raw = log
	return event, nil
}
