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

// PaymentSplitMetaData contains all meta data concerning the PaymentSplit contract.
var PaymentSplitMetaData = &bind.MetaData{
	ABI: "[{\"inputs\":[{\"internalType\":\"address[]\",\"name\":\"payees\",\"type\":\"address[]\"},{\"internalType\":\"uint256[]\",\"name\":\"shares_\",\"type\":\"uint256[]\"}],\"stateMutability\":\"nonpayable\",\"type\":\"constructor\"},{\"inputs\":[{\"internalType\":\"uint256\",\"name\":\"total\",\"type\":\"uint256\"}],\"name\":\"SharesNotBasisPoints\",\"type\":\"error\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":true,\"internalType\":\"contractIERC20\",\"name\":\"token\",\"type\":\"address\"},{\"indexed\":false,\"internalType\":\"address\",\"name\":\"to\",\"type\":\"address\"},{\"indexed\":false,\"internalType\":\"uint256\",\"name\":\"amount\",\"type\":\"uint256\"}],\"name\":\"ERC20PaymentReleased\",\"type\":\"event\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":false,\"internalType\":\"address\",\"name\":\"account\",\"type\":\"address\"},{\"indexed\":false,\"internalType\":\"uint256\",\"name\":\"shares\",\"type\":\"uint256\"}],\"name\":\"PayeeAdded\",\"type\":\"event\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":false,\"internalType\":\"address\",\"name\":\"from\",\"type\":\"address\"},{\"indexed\":false,\"internalType\":\"uint256\",\"name\":\"amount\",\"type\":\"uint256\"}],\"name\":\"PaymentReceived\",\"type\":\"event\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":false,\"internalType\":\"address\",\"name\":\"to\",\"type\":\"address\"},{\"indexed\":false,\"internalType\":\"uint256\",\"name\":\"amount\",\"type\":\"uint256\"}],\"name\":\"PaymentReleased\",\"type\":\"event\"},{\"inputs\":[],\"name\":\"TOTAL_BASIS_POINTS\",\"outputs\":[{\"internalType\":\"uint256\",\"name\":\"\",\"type\":\"uint256\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"uint256\",\"name\":\"index\",\"type\":\"uint256\"}],\"name\":\"payee\",\"outputs\":[{\"internalType\":\"address\",\"name\":\"\",\"type\":\"address\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"account\",\"type\":\"address\"}],\"name\":\"releasable\",\"outputs\":[{\"internalType\":\"uint256\",\"name\":\"\",\"type\":\"uint256\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"contractIERC20\",\"name\":\"token\",\"type\":\"address\"},{\"internalType\":\"address\",\"name\":\"account\",\"type\":\"address\"}],\"name\":\"releasable\",\"outputs\":[{\"internalType\":\"uint256\",\"name\":\"\",\"type\":\"uint256\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"addresspayable\",\"name\":\"account\",\"type\":\"address\"}],\"name\":\"release\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"contractIERC20\",\"name\":\"token\",\"type\":\"address\"},{\"internalType\":\"address\",\"name\":\"account\",\"type\":\"address\"}],\"name\":\"release\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"contractIERC20\",\"name\":\"token\",\"type\":\"address\"},{\"internalType\":\"address\",\"name\":\"account\",\"type\":\"address\"}],\"name\":\"released\",\"outputs\":[{\"internalType\":\"uint256\",\"name\":\"\",\"type\":\"uint256\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"account\",\"type\":\"address\"}],\"name\":\"released\",\"outputs\":[{\"internalType\":\"uint256\",\"name\":\"\",\"type\":\"uint256\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"account\",\"type\":\"address\"}],\"name\":\"shares\",\"outputs\":[{\"internalType\":\"uint256\",\"name\":\"\",\"type\":\"uint256\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"contractIERC20\",\"name\":\"token\",\"type\":\"address\"}],\"name\":\"totalReleased\",\"outputs\":[{\"internalType\":\"uint256\",\"name\":\"\",\"type\":\"uint256\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"totalReleased\",\"outputs\":[{\"internalType\":\"uint256\",\"name\":\"\",\"type\":\"uint256\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"totalShares\",\"outputs\":[{\"internalType\":\"uint256\",\"name\":\"\",\"type\":\"uint256\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"stateMutability\":\"payable\",\"type\":\"receive\"}]",
	Bin: "0x608060405234801562000010575f80fd5b506040516200117a3803806200117a833981016040819052620000339162000468565b81818051825114620000a75760405162461bcd60e51b815260206004820152603260248201527f5061796d656e7453706c69747465723a2070617965657320616e6420736861726044820152710cae640d8cadccee8d040dad2e6dac2e8c6d60731b60648201526084015b60405180910390fd5b5f825111620000f95760405162461bcd60e51b815260206004820152601a60248201527f5061796d656e7453706c69747465723a206e6f2070617965657300000000000060448201526064016200009e565b5f5b825181101562000158576200014f8382815181106200011e576200011e6200053e565b60200260200101518383815181106200013b576200013b6200053e565b60200260200101516200019b60201b60201c565b600101620000fb565b5050506127106200016e6200038360201b60201c565b1462000193575f546040516321671c7360e11b81526004016200009e91815260200190565b505062000578565b6001600160a01b038216620002085760405162461bcd60e51b815260206004820152602c60248201527f5061796d656e7453706c69747465723a206163636f756e74206973207468652060448201526b7a65726f206164647265737360a01b60648201526084016200009e565b5f8111620002595760405162461bcd60e51b815260206004820152601d60248201527f5061796d656e7453706c69747465723a2073686172657320617265203000000060448201526064016200009e565b6001600160a01b0382165f9081526002602052604090205415620002d45760405162461bcd60e51b815260206004820152602b60248201527f5061796d656e7453706c69747465723a206163636f756e7420616c726561647960448201526a206861732073686172657360a81b60648201526084016200009e565b60048054600181019091557f8a35acfbc15ff81a39ae7d344fd709f28e8600b4aa8c65c6b64bfe7fe36bd19b0180546001600160a01b0319166001600160a01b0384169081179091555f908152600260205260408120829055546200033b90829062000552565b5f55604080516001600160a01b0384168152602081018390527f40c340f65e17194d14ddddb073d3c9f888e3cb52b5aae0c6c7706b4fbc905fac910160405180910390a15050565b5f5490565b634e487b7160e01b5f52604160045260245ffd5b604051601f8201601f191681016001600160401b0381118282101715620003c757620003c762000388565b604052919050565b5f6001600160401b03821115620003ea57620003ea62000388565b5060051b60200190565b5f82601f83011262000404575f80fd5b815160206200041d6200041783620003cf565b6200039c565b8083825260208201915060208460051b8701019350868411156200043f575f80fd5b602086015b848110156200045d578051835291830191830162000444565b509695505050505050565b5f80604083850312156200047a575f80fd5b82516001600160401b038082111562000491575f80fd5b818501915085601f830112620004a5575f80fd5b81516020620004b86200041783620003cf565b82815260059290921b84018101918181019089841115620004d7575f80fd5b948201945b838610156200050c5785516001600160a01b0381168114620004fc575f80fd5b82529482019490820190620004dc565b9188015191965090935050508082111562000525575f80fd5b506200053485828601620003f4565b9150509250929050565b634e487b7160e01b5f52603260045260245ffd5b808201808211156200057257634e487b7160e01b5f52601160045260245ffd5b92915050565b610bf480620005865f395ff3fe6080604052600436106100a8575f3560e01c80639852595c116100625780639852595c146101c6578063a3f8eace146101fa578063c45ac05014610219578063ce7c2ac214610238578063d79779b21461026c578063e33b7de3146102a0575f80fd5b806319165587146100f5578063271662ec146101165780633a98ef391461013e578063406072a91461015157806348b75044146101705780638b83209b1461018f575f80fd5b366100f1577f6ef95f06320e7a25a04a175ca677b7052bdd97131872c2192525a629f51be77033604080516001600160a01b0390921682523460208301520160405180910390a1005b5f80fd5b348015610100575f80fd5b5061011461010f36600461099b565b6102b4565b005b348015610121575f80fd5b5061012b61271081565b6040519081526020015b60405180910390f35b348015610149575f80fd5b505f5461012b565b34801561015c575f80fd5b5061012b61016b3660046109b6565b61039f565b34801561017b575f80fd5b5061011461018a3660046109b6565b6103cb565b34801561019a575f80fd5b506101ae6101a93660046109ed565b6104d7565b6040516001600160a01b039091168152602001610135565b3480156101d1575f80fd5b5061012b6101e036600461099b565b6001600160a01b03165f9081526003602052604090205490565b348015610205575f80fd5b5061012b61021436600461099b565b610505565b348015610224575f80fd5b5061012b6102333660046109b6565b61054b565b348015610243575f80fd5b5061012b61025236600461099b565b6001600160a01b03165f9081526002602052604090205490565b348015610277575f80fd5b5061012b61028636600461099b565b6001600160a01b03165f9081526005602052604090205490565b3480156102ab575f80fd5b5060015461012b565b6001600160a01b0381165f908152600260205260409020546102f15760405162461bcd60e51b81526004016102e890610a04565b60405180910390fd5b5f6102fb82610505565b9050805f0361031c5760405162461bcd60e51b81526004016102e890610a4a565b8060015f82825461032d9190610aa9565b90915550506001600160a01b0382165f90815260036020526040902080548201905561035982826105ee565b604080516001600160a01b0384168152602081018390527fdf20fd1e76bc69d672e4814fafb2c449bba3a5369d8359adf9e05e6fde87b056910160405180910390a15050565b6001600160a01b038083165f908152600660209081526040808320938516835292905220545b92915050565b6001600160a01b0381165f908152600260205260409020546103ff5760405162461bcd60e51b81526004016102e890610a04565b5f61040a838361054b565b9050805f0361042b5760405162461bcd60e51b81526004016102e890610a4a565b6001600160a01b0383165f9081526005602052604081208054839290610452908490610aa9565b90915550506001600160a01b038084165f90815260066020908152604080832093861683529290522080548201905561048c838383610708565b604080516001600160a01b038481168252602082018490528516917f3be5b7a71e84ed12875d241991c70855ac5817d847039e17a9d895c1ceb0f18a910160405180910390a2505050565b5f600482815481106104eb576104eb610abc565b5f918252602090912001546001600160a01b031692915050565b5f8061051060015490565b61051a9047610aa9565b9050610544838261053f866001600160a01b03165f9081526003602052604090205490565b61075a565b9392505050565b6001600160a01b0382165f9081526005602052604081205481906040516370a0823160e01b81523060048201526001600160a01b038616906370a0823190602401602060405180830381865afa1580156105a7573d5f803e3d5ffd5b505050506040513d601f19601f820116820180604052508101906105cb9190610ad0565b6105d59190610aa9565b90506105e6838261053f878761039f565b949350505050565b8047101561063e5760405162461bcd60e51b815260206004820152601d60248201527f416464726573733a20696e73756666696369656e742062616c616e636500000060448201526064016102e8565b5f826001600160a01b0316826040515f6040518083038185875af1925050503d805f8114610687576040519150601f19603f3d011682016040523d82523d5f602084013e61068c565b606091505b50509050806107035760405162461bcd60e51b815260206004820152603a60248201527f416464726573733a20756e61626c6520746f2073656e642076616c75652c207260448201527f6563697069656e74206d6179206861766520726576657274656400000000000060648201526084016102e8565b505050565b604080516001600160a01b038416602482015260448082018490528251808303909101815260649091019091526020810180516001600160e01b031663a9059cbb60e01b179052610703908490610794565b5f80546001600160a01b0385168252600260205260408220548391906107809086610ae7565b61078a9190610afe565b6105e69190610b1d565b5f6107e8826040518060400160405280602081526020017f5361666545524332303a206c6f772d6c6576656c2063616c6c206661696c6564815250856001600160a01b03166108679092919063ffffffff16565b905080515f14806108085750808060200190518101906108089190610b30565b6107035760405162461bcd60e51b815260206004820152602a60248201527f5361666545524332303a204552433230206f7065726174696f6e20646964206e6044820152691bdd081cdd58d8d9595960b21b60648201526084016102e8565b60606105e684845f85855f80866001600160a01b0316858760405161088c9190610b71565b5f6040518083038185875af1925050503d805f81146108c6576040519150601f19603f3d011682016040523d82523d5f602084013e6108cb565b606091505b50915091506108dc878383876108e7565b979650505050505050565b606083156109555782515f0361094e576001600160a01b0385163b61094e5760405162461bcd60e51b815260206004820152601d60248201527f416464726573733a2063616c6c20746f206e6f6e2d636f6e747261637400000060448201526064016102e8565b50816105e6565b6105e6838381511561096a5781518083602001fd5b8060405162461bcd60e51b81526004016102e89190610b8c565b6001600160a01b0381168114610998575f80fd5b50565b5f602082840312156109ab575f80fd5b813561054481610984565b5f80604083850312156109c7575f80fd5b82356109d281610984565b915060208301356109e281610984565b809150509250929050565b5f602082840312156109fd575f80fd5b5035919050565b60208082526026908201527f5061796d656e7453706c69747465723a206163636f756e7420686173206e6f2060408201526573686172657360d01b606082015260800190565b6020808252602b908201527f5061796d656e7453706c69747465723a206163636f756e74206973206e6f742060408201526a191d59481c185e5b595b9d60aa1b606082015260800190565b634e487b7160e01b5f52601160045260245ffd5b808201808211156103c5576103c5610a95565b634e487b7160e01b5f52603260045260245ffd5b5f60208284031215610ae0575f80fd5b5051919050565b80820281158282048414176103c5576103c5610a95565b5f82610b1857634e487b7160e01b5f52601260045260245ffd5b500490565b818103818111156103c5576103c5610a95565b5f60208284031215610b40575f80fd5b81518015158114610544575f80fd5b5f5b83811015610b69578181015183820152602001610b51565b50505f910152565b5f8251610b82818460208701610b4f565b9190910192915050565b602081525f8251806020840152610baa816040850160208701610b4f565b601f01601f1916919091016040019291505056fea2646970667358221220614839a1552da5beddedbb6ab6062f7c8d74337683eb4f3c75fc248925f8a9aa64736f6c63430008180033",
}

// PaymentSplitABI is the input ABI used to generate the binding from.
// Deprecated: Use PaymentSplitMetaData.ABI instead.
var PaymentSplitABI = PaymentSplitMetaData.ABI

// PaymentSplitBin is the compiled bytecode used for deploying new contracts.
// Deprecated: Use PaymentSplitMetaData.Bin instead.
var PaymentSplitBin = PaymentSplitMetaData.Bin

// DeployPaymentSplit deploys a new Ethereum contract, binding an instance of PaymentSplit to it.
func DeployPaymentSplit(auth *bind.TransactOpts, backend bind.ContractBackend, payees []common.Address, shares_ []*big.Int) (common.Address, *types.Transaction, *PaymentSplit, error) {
	parsed, err := PaymentSplitMetaData.GetAbi()
	if err != nil {
		return common.Address{}, nil, nil, err
	}
	if parsed == nil {
		return common.Address{}, nil, nil, errors.New("GetABI returned nil")
	}

	address, tx, contract, err := bind.DeployContract(auth, *parsed, common.FromHex(PaymentSplitBin), backend, payees, shares_)
	if err != nil {
		return common.Address{}, nil, nil, err
	}
	return address, tx, &PaymentSplit{PaymentSplitCaller: PaymentSplitCaller{contract: contract}, PaymentSplitTransactor: PaymentSplitTransactor{contract: contract}, PaymentSplitFilterer: PaymentSplitFilterer{contract: contract}}, nil
}

// PaymentSplit is an auto generated Go binding around an Ethereum contract.
type PaymentSplit struct {
	PaymentSplitCaller     // Read-only binding to the contract
	PaymentSplitTransactor // Write-only binding to the contract
	PaymentSplitFilterer   // Log filterer for contract events
}

// PaymentSplitCaller is an auto generated read-only Go binding around an Ethereum contract.
type PaymentSplitCaller struct {
	contract *bind.BoundContract // Generic contract wrapper for the low level calls
}

// PaymentSplitTransactor is an auto generated write-only Go binding around an Ethereum contract.
type PaymentSplitTransactor struct {
	contract *bind.BoundContract // Generic contract wrapper for the low level calls
}

// PaymentSplitFilterer is an auto generated log filtering Go binding around an Ethereum contract events.
type PaymentSplitFilterer struct {
	contract *bind.BoundContract // Generic contract wrapper for the low level calls
}

// PaymentSplitSession is an auto generated Go binding around an Ethereum contract,
// with pre-set call and transact options.
type PaymentSplitSession struct {
	Contract     *PaymentSplit     // Generic contract binding to set the session for
	CallOpts     bind.CallOpts     // Call options to use throughout this session
	TransactOpts bind.TransactOpts // Transaction auth options to use throughout this session
}

// PaymentSplitCallerSession is an auto generated read-only Go binding around an Ethereum contract,
// with pre-set call options.
type PaymentSplitCallerSession struct {
	Contract *PaymentSplitCaller // Generic contract caller binding to set the session for
	CallOpts bind.CallOpts       // Call options to use throughout this session
}

// PaymentSplitTransactorSession is an auto generated write-only Go binding around an Ethereum contract,
// with pre-set transact options.
type PaymentSplitTransactorSession struct {
	Contract     *PaymentSplitTransactor // Generic contract transactor binding to set the session for
	TransactOpts bind.TransactOpts       // Transaction auth options to use throughout this session
}

// PaymentSplitRaw is an auto generated low-level Go binding around an Ethereum contract.
type PaymentSplitRaw struct {
	Contract *PaymentSplit // Generic contract binding to access the raw methods on
}

// PaymentSplitCallerRaw is an auto generated low-level read-only Go binding around an Ethereum contract.
type PaymentSplitCallerRaw struct {
	Contract *PaymentSplitCaller // Generic read-only contract binding to access the raw methods on
}

// PaymentSplitTransactorRaw is an auto generated low-level write-only Go binding around an Ethereum contract.
type PaymentSplitTransactorRaw struct {
	Contract *PaymentSplitTransactor // Generic write-only contract binding to access the raw methods on
}

// NewPaymentSplit creates a new instance of PaymentSplit, bound to a specific deployed contract.
func NewPaymentSplit(address common.Address, backend bind.ContractBackend) (*PaymentSplit, error) {
	contract, err := bindPaymentSplit(address, backend, backend, backend)
	if err != nil {
		return nil, err
	}
	return &PaymentSplit{PaymentSplitCaller: PaymentSplitCaller{contract: contract}, PaymentSplitTransactor: PaymentSplitTransactor{contract: contract}, PaymentSplitFilterer: PaymentSplitFilterer{contract: contract}}, nil
}

// NewPaymentSplitCaller creates a new read-only instance of PaymentSplit, bound to a specific deployed contract.
func NewPaymentSplitCaller(address common.Address, caller bind.ContractCaller) (*PaymentSplitCaller, error) {
	contract, err := bindPaymentSplit(address, caller, nil, nil)
	if err != nil {
		return nil, err
	}
	return &PaymentSplitCaller{contract: contract}, nil
}

// NewPaymentSplitTransactor creates a new write-only instance of PaymentSplit, bound to a specific deployed contract.
func NewPaymentSplitTransactor(address common.Address, transactor bind.ContractTransactor) (*PaymentSplitTransactor, error) {
	contract, err := bindPaymentSplit(address, nil, transactor, nil)
	if err != nil {
		return nil, err
	}
	return &PaymentSplitTransactor{contract: contract}, nil
}

// NewPaymentSplitFilterer creates a new log filterer instance of PaymentSplit, bound to a specific deployed contract.
func NewPaymentSplitFilterer(address common.Address, filterer bind.ContractFilterer) (*PaymentSplitFilterer, error) {
	contract, err := bindPaymentSplit(address, nil, nil, filterer)
	if err != nil {
		return nil, err
	}
	return &PaymentSplitFilterer{contract: contract}, nil
}

// bindPaymentSplit binds a generic wrapper to an already deployed contract.
func bindPaymentSplit(address common.Address, caller bind.ContractCaller, transactor bind.ContractTransactor, filterer bind.ContractFilterer) (*bind.BoundContract, error) {
	parsed, err := PaymentSplitMetaData.GetAbi()
	if err != nil {
		return nil, err
	}
	return bind.NewBoundContract(address, *parsed, caller, transactor, filterer), nil
}

// Call invokes the (constant) contract method with params as input values and
// sets the output to result. The result type might be a single field for simple
// returns, a slice of interfaces for anonymous returns and a struct for named
// returns.
func (_PaymentSplit *PaymentSplitRaw) Call(opts *bind.CallOpts, result *[]interface{}, method string, params ...interface{}) error {
	return _PaymentSplit.Contract.PaymentSplitCaller.contract.Call(opts, result, method, params...)
}

// Transfer initiates a plain transaction to move funds to the contract, calling
// its default method if one is available.
func (_PaymentSplit *PaymentSplitRaw) Transfer(opts *bind.TransactOpts) (*types.Transaction, error) {
	return _PaymentSplit.Contract.PaymentSplitTransactor.contract.Transfer(opts)
}

// Transact invokes the (paid) contract method with params as input values.
func (_PaymentSplit *PaymentSplitRaw) Transact(opts *bind.TransactOpts, method string, params ...interface{}) (*types.Transaction, error) {
	return _PaymentSplit.Contract.PaymentSplitTransactor.contract.Transact(opts, method, params...)
}

// Call invokes the (constant) contract method with params as input values and
// sets the output to result. The result type might be a single field for simple
// returns, a slice of interfaces for anonymous returns and a struct for named
// returns.
func (_PaymentSplit *PaymentSplitCallerRaw) Call(opts *bind.CallOpts, result *[]interface{}, method string, params ...interface{}) error {
	return _PaymentSplit.Contract.contract.Call(opts, result, method, params...)
}

// Transfer initiates a plain transaction to move funds to the contract, calling
// its default method if one is available.
func (_PaymentSplit *PaymentSplitTransactorRaw) Transfer(opts *bind.TransactOpts) (*types.Transaction, error) {
	return _PaymentSplit.Contract.contract.Transfer(opts)
}

// Transact invokes the (paid) contract method with params as input values.
func (_PaymentSplit *PaymentSplitTransactorRaw) Transact(opts *bind.TransactOpts, method string, params ...interface{}) (*types.Transaction, error) {
	return _PaymentSplit.Contract.contract.Transact(opts, method, params...)
}

// TOTALBASISPOINTS is a free data retrieval call binding the contract method 0x271662ec.
//
// Solidity: function TOTAL_BASIS_POINTS() view returns(uint256)
func (_PaymentSplit *PaymentSplitCaller) TOTALBASISPOINTS(opts *bind.CallOpts) (*big.Int, error) {
	var out []interface{}
	err := _PaymentSplit.contract.Call(opts, &out, "TOTAL_BASIS_POINTS")

	if err != nil {
		return *new(*big.Int), err
	}

	out0 := *abi.ConvertType(out[0], new(*big.Int)).(**big.Int)

	return out0, err

}

// TOTALBASISPOINTS is a free data retrieval call binding the contract method 0x271662ec.
//
// Solidity: function TOTAL_BASIS_POINTS() view returns(uint256)
func (_PaymentSplit *PaymentSplitSession) TOTALBASISPOINTS() (*big.Int, error) {
	return _PaymentSplit.Contract.TOTALBASISPOINTS(&_PaymentSplit.CallOpts)
}

// TOTALBASISPOINTS is a free data retrieval call binding the contract method 0x271662ec.
//
// Solidity: function TOTAL_BASIS_POINTS() view returns(uint256)
func (_PaymentSplit *PaymentSplitCallerSession) TOTALBASISPOINTS() (*big.Int, error) {
	return _PaymentSplit.Contract.TOTALBASISPOINTS(&_PaymentSplit.CallOpts)
}

// Payee is a free data retrieval call binding the contract method 0x8b83209b.
//
// Solidity: function payee(uint256 index) view returns(address)
func (_PaymentSplit *PaymentSplitCaller) Payee(opts *bind.CallOpts, index *big.Int) (common.Address, error) {
	var out []interface{}
	err := _PaymentSplit.contract.Call(opts, &out, "payee", index)

	if err != nil {
		return *new(common.Address), err
	}

	out0 := *abi.ConvertType(out[0], new(common.Address)).(*common.Address)

	return out0, err

}

// Payee is a free data retrieval call binding the contract method 0x8b83209b.
//
// Solidity: function payee(uint256 index) view returns(address)
func (_PaymentSplit *PaymentSplitSession) Payee(index *big.Int) (common.Address, error) {
	return _PaymentSplit.Contract.Payee(&_PaymentSplit.CallOpts, index)
}

// Payee is a free data retrieval call binding the contract method 0x8b83209b.
//
// Solidity: function payee(uint256 index) view returns(address)
func (_PaymentSplit *PaymentSplitCallerSession) Payee(index *big.Int) (common.Address, error) {
	return _PaymentSplit.Contract.Payee(&_PaymentSplit.CallOpts, index)
}

// Releasable is a free data retrieval call binding the contract method 0xa3f8eace.
//
// Solidity: function releasable(address account) view returns(uint256)
func (_PaymentSplit *PaymentSplitCaller) Releasable(opts *bind.CallOpts, account common.Address) (*big.Int, error) {
	var out []interface{}
	err := _PaymentSplit.contract.Call(opts, &out, "releasable", account)

	if err != nil {
		return *new(*big.Int), err
	}

	out0 := *abi.ConvertType(out[0], new(*big.Int)).(**big.Int)

	return out0, err

}

// Releasable is a free data retrieval call binding the contract method 0xa3f8eace.
//
// Solidity: function releasable(address account) view returns(uint256)
func (_PaymentSplit *PaymentSplitSession) Releasable(account common.Address) (*big.Int, error) {
	return _PaymentSplit.Contract.Releasable(&_PaymentSplit.CallOpts, account)
}

// Releasable is a free data retrieval call binding the contract method 0xa3f8eace.
//
// Solidity: function releasable(address account) view returns(uint256)
func (_PaymentSplit *PaymentSplitCallerSession) Releasable(account common.Address) (*big.Int, error) {
	return _PaymentSplit.Contract.Releasable(&_PaymentSplit.CallOpts, account)
}

// Releasable0 is a free data retrieval call binding the contract method 0xc45ac050.
//
// Solidity: function releasable(address token, address account) view returns(uint256)
func (_PaymentSplit *PaymentSplitCaller) Releasable0(opts *bind.CallOpts, token common.Address, account common.Address) (*big.Int, error) {
	var out []interface{}
	err := _PaymentSplit.contract.Call(opts, &out, "releasable0", token, account)

	if err != nil {
		return *new(*big.Int), err
	}

	out0 := *abi.ConvertType(out[0], new(*big.Int)).(**big.Int)

	return out0, err

}

// Releasable0 is a free data retrieval call binding the contract method 0xc45ac050.
//
// Solidity: function releasable(address token, address account) view returns(uint256)
func (_PaymentSplit *PaymentSplitSession) Releasable0(token common.Address, account common.Address) (*big.Int, error) {
	return _PaymentSplit.Contract.Releasable0(&_PaymentSplit.CallOpts, token, account)
}

// Releasable0 is a free data retrieval call binding the contract method 0xc45ac050.
//
// Solidity: function releasable(address token, address account) view returns(uint256)
func (_PaymentSplit *PaymentSplitCallerSession) Releasable0(token common.Address, account common.Address) (*big.Int, error) {
	return _PaymentSplit.Contract.Releasable0(&_PaymentSplit.CallOpts, token, account)
}

// Released is a free data retrieval call binding the contract method 0x406072a9.
//
// Solidity: function released(address token, address account) view returns(uint256)
func (_PaymentSplit *PaymentSplitCaller) Released(opts *bind.CallOpts, token common.Address, account common.Address) (*big.Int, error) {
	var out []interface{}
	err := _PaymentSplit.contract.Call(opts, &out, "released", token, account)

	if err != nil {
		return *new(*big.Int), err
	}

	out0 := *abi.ConvertType(out[0], new(*big.Int)).(**big.Int)

	return out0, err

}

// Released is a free data retrieval call binding the contract method 0x406072a9.
//
// Solidity: function released(address token, address account) view returns(uint256)
func (_PaymentSplit *PaymentSplitSession) Released(token common.Address, account common.Address) (*big.Int, error) {
	return _PaymentSplit.Contract.Released(&_PaymentSplit.CallOpts, token, account)
}

// Released is a free data retrieval call binding the contract method 0x406072a9.
//
// Solidity: function released(address token, address account) view returns(uint256)
func (_PaymentSplit *PaymentSplitCallerSession) Released(token common.Address, account common.Address) (*big.Int, error) {
	return _PaymentSplit.Contract.Released(&_PaymentSplit.CallOpts, token, account)
}

// Released0 is a free data retrieval call binding the contract method 0x9852595c.
//
// Solidity: function released(address account) view returns(uint256)
func (_PaymentSplit *PaymentSplitCaller) Released0(opts *bind.CallOpts, account common.Address) (*big.Int, error) {
	var out []interface{}
	err := _PaymentSplit.contract.Call(opts, &out, "released0", account)

	if err != nil {
		return *new(*big.Int), err
	}

	out0 := *abi.ConvertType(out[0], new(*big.Int)).(**big.Int)

	return out0, err

}

// Released0 is a free data retrieval call binding the contract method 0x9852595c.
//
// Solidity: function released(address account) view returns(uint256)
func (_PaymentSplit *PaymentSplitSession) Released0(account common.Address) (*big.Int, error) {
	return _PaymentSplit.Contract.Released0(&_PaymentSplit.CallOpts, account)
}

// Released0 is a free data retrieval call binding the contract method 0x9852595c.
//
// Solidity: function released(address account) view returns(uint256)
func (_PaymentSplit *PaymentSplitCallerSession) Released0(account common.Address) (*big.Int, error) {
	return _PaymentSplit.Contract.Released0(&_PaymentSplit.CallOpts, account)
}

// Shares is a free data retrieval call binding the contract method 0xce7c2ac2.
//
// Solidity: function shares(address account) view returns(uint256)
func (_PaymentSplit *PaymentSplitCaller) Shares(opts *bind.CallOpts, account common.Address) (*big.Int, error) {
	var out []interface{}
	err := _PaymentSplit.contract.Call(opts, &out, "shares", account)

	if err != nil {
		return *new(*big.Int), err
	}

	out0 := *abi.ConvertType(out[0], new(*big.Int)).(**big.Int)

	return out0, err

}

// Shares is a free data retrieval call binding the contract method 0xce7c2ac2.
//
// Solidity: function shares(address account) view returns(uint256)
func (_PaymentSplit *PaymentSplitSession) Shares(account common.Address) (*big.Int, error) {
	return _PaymentSplit.Contract.Shares(&_PaymentSplit.CallOpts, account)
}

// Shares is a free data retrieval call binding the contract method 0xce7c2ac2.
//
// Solidity: function shares(address account) view returns(uint256)
func (_PaymentSplit *PaymentSplitCallerSession) Shares(account common.Address) (*big.Int, error) {
	return _PaymentSplit.Contract.Shares(&_PaymentSplit.CallOpts, account)
}

// TotalReleased is a free data retrieval call binding the contract method 0xd79779b2.
//
// Solidity: function totalReleased(address token) view returns(uint256)
func (_PaymentSplit *PaymentSplitCaller) TotalReleased(opts *bind.CallOpts, token common.Address) (*big.Int, error) {
	var out []interface{}
	err := _PaymentSplit.contract.Call(opts, &out, "totalReleased", token)

	if err != nil {
		return *new(*big.Int), err
	}

	out0 := *abi.ConvertType(out[0], new(*big.Int)).(**big.Int)

	return out0, err

}

// TotalReleased is a free data retrieval call binding the contract method 0xd79779b2.
//
// Solidity: function totalReleased(address token) view returns(uint256)
func (_PaymentSplit *PaymentSplitSession) TotalReleased(token common.Address) (*big.Int, error) {
	return _PaymentSplit.Contract.TotalReleased(&_PaymentSplit.CallOpts, token)
}

// TotalReleased is a free data retrieval call binding the contract method 0xd79779b2.
//
// Solidity: function totalReleased(address token) view returns(uint256)
func (_PaymentSplit *PaymentSplitCallerSession) TotalReleased(token common.Address) (*big.Int, error) {
	return _PaymentSplit.Contract.TotalReleased(&_PaymentSplit.CallOpts, token)
}

// TotalReleased0 is a free data retrieval call binding the contract method 0xe33b7de3.
//
// Solidity: function totalReleased() view returns(uint256)
func (_PaymentSplit *PaymentSplitCaller) TotalReleased0(opts *bind.CallOpts) (*big.Int, error) {
	var out []interface{}
	err := _PaymentSplit.contract.Call(opts, &out, "totalReleased0")

	if err != nil {
		return *new(*big.Int), err
	}

	out0 := *abi.ConvertType(out[0], new(*big.Int)).(**big.Int)

	return out0, err

}

// TotalReleased0 is a free data retrieval call binding the contract method 0xe33b7de3.
//
// Solidity: function totalReleased() view returns(uint256)
func (_PaymentSplit *PaymentSplitSession) TotalReleased0() (*big.Int, error) {
	return _PaymentSplit.Contract.TotalReleased0(&_PaymentSplit.CallOpts)
}

// TotalReleased0 is a free data retrieval call binding the contract method 0xe33b7de3.
//
// Solidity: function totalReleased() view returns(uint256)
func (_PaymentSplit *PaymentSplitCallerSession) TotalReleased0() (*big.Int, error) {
	return _PaymentSplit.Contract.TotalReleased0(&_PaymentSplit.CallOpts)
}

// TotalShares is a free data retrieval call binding the contract method 0x3a98ef39.
//
// Solidity: function totalShares() view returns(uint256)
func (_PaymentSplit *PaymentSplitCaller) TotalShares(opts *bind.CallOpts) (*big.Int, error) {
	var out []interface{}
	err := _PaymentSplit.contract.Call(opts, &out, "totalShares")

	if err != nil {
		return *new(*big.Int), err
	}

	out0 := *abi.ConvertType(out[0], new(*big.Int)).(**big.Int)

	return out0, err

}

// TotalShares is a free data retrieval call binding the contract method 0x3a98ef39.
//
// Solidity: function totalShares() view returns(uint256)
func (_PaymentSplit *PaymentSplitSession) TotalShares() (*big.Int, error) {
	return _PaymentSplit.Contract.TotalShares(&_PaymentSplit.CallOpts)
}

// TotalShares is a free data retrieval call binding the contract method 0x3a98ef39.
//
// Solidity: function totalShares() view returns(uint256)
func (_PaymentSplit *PaymentSplitCallerSession) TotalShares() (*big.Int, error) {
	return _PaymentSplit.Contract.TotalShares(&_PaymentSplit.CallOpts)
}

// Release is a paid mutator transaction binding the contract method 0x19165587.
//
// Solidity: function release(address account) returns()
func (_PaymentSplit *PaymentSplitTransactor) Release(opts *bind.TransactOpts, account common.Address) (*types.Transaction, error) {
	return _PaymentSplit.contract.Transact(opts, "release", account)
}

// Release is a paid mutator transaction binding the contract method 0x19165587.
//
// Solidity: function release(address account) returns()
func (_PaymentSplit *PaymentSplitSession) Release(account common.Address) (*types.Transaction, error) {
	return _PaymentSplit.Contract.Release(&_PaymentSplit.TransactOpts, account)
}

// Release is a paid mutator transaction binding the contract method 0x19165587.
//
// Solidity: function release(address account) returns()
func (_PaymentSplit *PaymentSplitTransactorSession) Release(account common.Address) (*types.Transaction, error) {
	return _PaymentSplit.Contract.Release(&_PaymentSplit.TransactOpts, account)
}

// Release0 is a paid mutator transaction binding the contract method 0x48b75044.
//
// Solidity: function release(address token, address account) returns()
func (_PaymentSplit *PaymentSplitTransactor) Release0(opts *bind.TransactOpts, token common.Address, account common.Address) (*types.Transaction, error) {
	return _PaymentSplit.contract.Transact(opts, "release0", token, account)
}

// Release0 is a paid mutator transaction binding the contract method 0x48b75044.
//
// Solidity: function release(address token, address account) returns()
func (_PaymentSplit *PaymentSplitSession) Release0(token common.Address, account common.Address) (*types.Transaction, error) {
	return _PaymentSplit.Contract.Release0(&_PaymentSplit.TransactOpts, token, account)
}

// Release0 is a paid mutator transaction binding the contract method 0x48b75044.
//
// Solidity: function release(address token, address account) returns()
func (_PaymentSplit *PaymentSplitTransactorSession) Release0(token common.Address, account common.Address) (*types.Transaction, error) {
	return _PaymentSplit.Contract.Release0(&_PaymentSplit.TransactOpts, token, account)
}

// Receive is a paid mutator transaction binding the contract receive function.
//
// Solidity: receive() payable returns()
func (_PaymentSplit *PaymentSplitTransactor) Receive(opts *bind.TransactOpts) (*types.Transaction, error) {
	return _PaymentSplit.contract.RawTransact(opts, nil) // calldata is disallowed for receive function
}

// Receive is a paid mutator transaction binding the contract receive function.
//
// Solidity: receive() payable returns()
func (_PaymentSplit *PaymentSplitSession) Receive() (*types.Transaction, error) {
	return _PaymentSplit.Contract.Receive(&_PaymentSplit.TransactOpts)
}

// Receive is a paid mutator transaction binding the contract receive function.
//
// Solidity: receive() payable returns()
func (_PaymentSplit *PaymentSplitTransactorSession) Receive() (*types.Transaction, error) {
	return _PaymentSplit.Contract.Receive(&_PaymentSplit.TransactOpts)
}

// PaymentSplitERC20PaymentReleasedIterator is returned from FilterERC20PaymentReleased and is used to iterate over the raw logs and unpacked data for ERC20PaymentReleased events raised by the PaymentSplit contract.
type PaymentSplitERC20PaymentReleasedIterator struct {
	Event *PaymentSplitERC20PaymentReleased // Event containing the contract specifics and raw log

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
func (it *PaymentSplitERC20PaymentReleasedIterator) Next() bool {
	// If the iterator failed, stop iterating
	if it.fail != nil {
		return false
	}
	// If the iterator completed, deliver directly whatever's available
	if it.done {
		select {
		case log := <-it.logs:
			it.Event = new(PaymentSplitERC20PaymentReleased)
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
		it.Event = new(PaymentSplitERC20PaymentReleased)
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
func (it *PaymentSplitERC20PaymentReleasedIterator) Error() error {
	return it.fail
}

// Close terminates the iteration process, releasing any pending underlying
// resources.
func (it *PaymentSplitERC20PaymentReleasedIterator) Close() error {
	it.sub.Unsubscribe()
	return nil
}

// PaymentSplitERC20PaymentReleased represents a ERC20PaymentReleased event raised by the PaymentSplit contract.
type PaymentSplitERC20PaymentReleased struct {
	Token  common.Address
	To     common.Address
	Amount *big.Int
	Raw    types.Log // Blockchain specific contextual infos
}

// FilterERC20PaymentReleased is a free log retrieval operation binding the contract event 0x3be5b7a71e84ed12875d241991c70855ac5817d847039e17a9d895c1ceb0f18a.
//
// Solidity: event ERC20PaymentReleased(address indexed token, address to, uint256 amount)
func (_PaymentSplit *PaymentSplitFilterer) FilterERC20PaymentReleased(opts *bind.FilterOpts, token []common.Address) (*PaymentSplitERC20PaymentReleasedIterator, error) {

	var tokenRule []interface{}
	for _, tokenItem := range token {
		tokenRule = append(tokenRule, tokenItem)
	}

	logs, sub, err := _PaymentSplit.contract.FilterLogs(opts, "ERC20PaymentReleased", tokenRule)
	if err != nil {
		return nil, err
	}
	return &PaymentSplitERC20PaymentReleasedIterator{contract: _PaymentSplit.contract, event: "ERC20PaymentReleased", logs: logs, sub: sub}, nil
}

// WatchERC20PaymentReleased is a free log subscription operation binding the contract event 0x3be5b7a71e84ed12875d241991c70855ac5817d847039e17a9d895c1ceb0f18a.
//
// Solidity: event ERC20PaymentReleased(address indexed token, address to, uint256 amount)
func (_PaymentSplit *PaymentSplitFilterer) WatchERC20PaymentReleased(opts *bind.WatchOpts, sink chan<- *PaymentSplitERC20PaymentReleased, token []common.Address) (event.Subscription, error) {

	var tokenRule []interface{}
	for _, tokenItem := range token {
		tokenRule = append(tokenRule, tokenItem)
	}

	logs, sub, err := _PaymentSplit.contract.WatchLogs(opts, "ERC20PaymentReleased", tokenRule)
	if err != nil {
		return nil, err
	}
	return event.NewSubscription(func(quit <-chan struct{}) error {
		defer sub.Unsubscribe()
		for {
			select {
			case log := <-logs:
				// New log arrived, parse the event and forward to the user
				event := new(PaymentSplitERC20PaymentReleased)
				if err := _PaymentSplit.contract.UnpackLog(event, "ERC20PaymentReleased", log); err != nil {
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
func (_PaymentSplit *PaymentSplitFilterer) ParseERC20PaymentReleased(log types.Log) (*PaymentSplitERC20PaymentReleased, error) {
	event := new(PaymentSplitERC20PaymentReleased)
	if err := _PaymentSplit.contract.UnpackLog(event, "ERC20PaymentReleased", log); err != nil {
		return nil, err
	}
	event.Raw = log
	return event, nil
}

// PaymentSplitPayeeAddedIterator is returned from FilterPayeeAdded and is used to iterate over the raw logs and unpacked data for PayeeAdded events raised by the PaymentSplit contract.
type PaymentSplitPayeeAddedIterator struct {
	Event *PaymentSplitPayeeAdded // Event containing the contract specifics and raw log

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
func (it *PaymentSplitPayeeAddedIterator) Next() bool {
	// If the iterator failed, stop iterating
	if it.fail != nil {
		return false
	}
	// If the iterator completed, deliver directly whatever's available
	if it.done {
		select {
		case log := <-it.logs:
			it.Event = new(PaymentSplitPayeeAdded)
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
		it.Event = new(PaymentSplitPayeeAdded)
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
func (it *PaymentSplitPayeeAddedIterator) Error() error {
	return it.fail
}

// Close terminates the iteration process, releasing any pending underlying
// resources.
func (it *PaymentSplitPayeeAddedIterator) Close() error {
	it.sub.Unsubscribe()
	return nil
}

// PaymentSplitPayeeAdded represents a PayeeAdded event raised by the PaymentSplit contract.
type PaymentSplitPayeeAdded struct {
	Account common.Address
	Shares  *big.Int
	Raw     types.Log // Blockchain specific contextual infos
}

// FilterPayeeAdded is a free log retrieval operation binding the contract event 0x40c340f65e17194d14ddddb073d3c9f888e3cb52b5aae0c6c7706b4fbc905fac.
//
// Solidity: event PayeeAdded(address account, uint256 shares)
func (_PaymentSplit *PaymentSplitFilterer) FilterPayeeAdded(opts *bind.FilterOpts) (*PaymentSplitPayeeAddedIterator, error) {

	logs, sub, err := _PaymentSplit.contract.FilterLogs(opts, "PayeeAdded")
	if err != nil {
		return nil, err
	}
	return &PaymentSplitPayeeAddedIterator{contract: _PaymentSplit.contract, event: "PayeeAdded", logs: logs, sub: sub}, nil
}

// WatchPayeeAdded is a free log subscription operation binding the contract event 0x40c340f65e17194d14ddddb073d3c9f888e3cb52b5aae0c6c7706b4fbc905fac.
//
// Solidity: event PayeeAdded(address account, uint256 shares)
func (_PaymentSplit *PaymentSplitFilterer) WatchPayeeAdded(opts *bind.WatchOpts, sink chan<- *PaymentSplitPayeeAdded) (event.Subscription, error) {

	logs, sub, err := _PaymentSplit.contract.WatchLogs(opts, "PayeeAdded")
	if err != nil {
		return nil, err
	}
	return event.NewSubscription(func(quit <-chan struct{}) error {
		defer sub.Unsubscribe()
		for {
			select {
			case log := <-logs:
				// New log arrived, parse the event and forward to the user
				event := new(PaymentSplitPayeeAdded)
				if err := _PaymentSplit.contract.UnpackLog(event, "PayeeAdded", log); err != nil {
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
func (_PaymentSplit *PaymentSplitFilterer) ParsePayeeAdded(log types.Log) (*PaymentSplitPayeeAdded, error) {
	event := new(PaymentSplitPayeeAdded)
	if err := _PaymentSplit.contract.UnpackLog(event, "PayeeAdded", log); err != nil {
		return nil, err
	}
	event.Raw = log
	return event, nil
}

// PaymentSplitPaymentReceivedIterator is returned from FilterPaymentReceived and is used to iterate over the raw logs and unpacked data for PaymentReceived events raised by the PaymentSplit contract.
type PaymentSplitPaymentReceivedIterator struct {
	Event *PaymentSplitPaymentReceived // Event containing the contract specifics and raw log

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
func (it *PaymentSplitPaymentReceivedIterator) Next() bool {
	// If the iterator failed, stop iterating
	if it.fail != nil {
		return false
	}
	// If the iterator completed, deliver directly whatever's available
	if it.done {
		select {
		case log := <-it.logs:
			it.Event = new(PaymentSplitPaymentReceived)
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
		it.Event = new(PaymentSplitPaymentReceived)
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
func (it *PaymentSplitPaymentReceivedIterator) Error() error {
	return it.fail
}

// Close terminates the iteration process, releasing any pending underlying
// resources.
func (it *PaymentSplitPaymentReceivedIterator) Close() error {
	it.sub.Unsubscribe()
	return nil
}

// PaymentSplitPaymentReceived represents a PaymentReceived event raised by the PaymentSplit contract.
type PaymentSplitPaymentReceived struct {
	From   common.Address
	Amount *big.Int
	Raw    types.Log // Blockchain specific contextual infos
}

// FilterPaymentReceived is a free log retrieval operation binding the contract event 0x6ef95f06320e7a25a04a175ca677b7052bdd97131872c2192525a629f51be770.
//
// Solidity: event PaymentReceived(address from, uint256 amount)
func (_PaymentSplit *PaymentSplitFilterer) FilterPaymentReceived(opts *bind.FilterOpts) (*PaymentSplitPaymentReceivedIterator, error) {

	logs, sub, err := _PaymentSplit.contract.FilterLogs(opts, "PaymentReceived")
	if err != nil {
		return nil, err
	}
	return &PaymentSplitPaymentReceivedIterator{contract: _PaymentSplit.contract, event: "PaymentReceived", logs: logs, sub: sub}, nil
}

// WatchPaymentReceived is a free log subscription operation binding the contract event 0x6ef95f06320e7a25a04a175ca677b7052bdd97131872c2192525a629f51be770.
//
// Solidity: event PaymentReceived(address from, uint256 amount)
func (_PaymentSplit *PaymentSplitFilterer) WatchPaymentReceived(opts *bind.WatchOpts, sink chan<- *PaymentSplitPaymentReceived) (event.Subscription, error) {

	logs, sub, err := _PaymentSplit.contract.WatchLogs(opts, "PaymentReceived")
	if err != nil {
		return nil, err
	}
	return event.NewSubscription(func(quit <-chan struct{}) error {
		defer sub.Unsubscribe()
		for {
			select {
			case log := <-logs:
				// New log arrived, parse the event and forward to the user
				event := new(PaymentSplitPaymentReceived)
				if err := _PaymentSplit.contract.UnpackLog(event, "PaymentReceived", log); err != nil {
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
func (_PaymentSplit *PaymentSplitFilterer) ParsePaymentReceived(log types.Log) (*PaymentSplitPaymentReceived, error) {
	event := new(PaymentSplitPaymentReceived)
	if err := _PaymentSplit.contract.UnpackLog(event, "PaymentReceived", log); err != nil {
		return nil, err
	}
	event.Raw = log
	return event, nil
}

// PaymentSplitPaymentReleasedIterator is returned from FilterPaymentReleased and is used to iterate over the raw logs and unpacked data for PaymentReleased events raised by the PaymentSplit contract.
type PaymentSplitPaymentReleasedIterator struct {
	Event *PaymentSplitPaymentReleased // Event containing the contract specifics and raw log

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
func (it *PaymentSplitPaymentReleasedIterator) Next() bool {
	// If the iterator failed, stop iterating
	if it.fail != nil {
		return false
	}
	// If the iterator completed, deliver directly whatever's available
	if it.done {
		select {
		case log := <-it.logs:
			it.Event = new(PaymentSplitPaymentReleased)
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
		it.Event = new(PaymentSplitPaymentReleased)
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
func (it *PaymentSplitPaymentReleasedIterator) Error() error {
	return it.fail
}

// Close terminates the iteration process, releasing any pending underlying
// resources.
func (it *PaymentSplitPaymentReleasedIterator) Close() error {
	it.sub.Unsubscribe()
	return nil
}

// PaymentSplitPaymentReleased represents a PaymentReleased event raised by the PaymentSplit contract.
type PaymentSplitPaymentReleased struct {
	To     common.Address
	Amount *big.Int
	Raw    types.Log // Blockchain specific contextual infos
}

// FilterPaymentReleased is a free log retrieval operation binding the contract event 0xdf20fd1e76bc69d672e4814fafb2c449bba3a5369d8359adf9e05e6fde87b056.
//
// Solidity: event PaymentReleased(address to, uint256 amount)
func (_PaymentSplit *PaymentSplitFilterer) FilterPaymentReleased(opts *bind.FilterOpts) (*PaymentSplitPaymentReleasedIterator, error) {

	logs, sub, err := _PaymentSplit.contract.FilterLogs(opts, "PaymentReleased")
	if err != nil {
		return nil, err
	}
	return &PaymentSplitPaymentReleasedIterator{contract: _PaymentSplit.contract, event: "PaymentReleased", logs: logs, sub: sub}, nil
}

// WatchPaymentReleased is a free log subscription operation binding the contract event 0xdf20fd1e76bc69d672e4814fafb2c449bba3a5369d8359adf9e05e6fde87b056.
//
// Solidity: event PaymentReleased(address to, uint256 amount)
func (_PaymentSplit *PaymentSplitFilterer) WatchPaymentReleased(opts *bind.WatchOpts, sink chan<- *PaymentSplitPaymentReleased) (event.Subscription, error) {

	logs, sub, err := _PaymentSplit.contract.WatchLogs(opts, "PaymentReleased")
	if err != nil {
		return nil, err
	}
	return event.NewSubscription(func(quit <-chan struct{}) error {
		defer sub.Unsubscribe()
		for {
			select {
			case log := <-logs:
				// New log arrived, parse the event and forward to the user
				event := new(PaymentSplitPaymentReleased)
				if err := _PaymentSplit.contract.UnpackLog(event, "PaymentReleased", log); err != nil {
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
func (_PaymentSplit *PaymentSplitFilterer) ParsePaymentReleased(log types.Log) (*PaymentSplitPaymentReleased, error) {
	event := new(PaymentSplitPaymentReleased)
	if err := _PaymentSplit.contract.UnpackLog(event, "PaymentReleased", log); err != nil {
		return nil, err
	}
	event.Raw = log
	return event, nil
}
