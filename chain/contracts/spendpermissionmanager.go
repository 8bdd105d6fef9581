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

// SpendPermissionManagerPeriodSpend is an auto generated low-level Go binding around an user-defined struct.
type SpendPermissionManagerPeriodSpend struct {
	Start *big.Int
	End   *big.Int
	Spend *big.Int
}

// SpendPermissionManagerSpendPermission is an auto generated low-level Go binding around an user-defined struct.
type SpendPermissionManagerSpendPermission struct {
	Account   common.Address
	Spender   common.Address
	Token     common.Address
	Allowance *big.Int
	Period    *big.Int
	Start     *big.Int
	End       *big.Int
	Salt      *big.Int
	ExtraData []byte
}

// SpendPermissionManagerMetaData contains all meta data concerning the SpendPermissionManager contract.
var SpendPermissionManagerMetaData = &bind.MetaData{
	ABI: "[{\"inputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"constructor\"},{\"inputs\":[{\"internalType\":\"uint48\",\"name\":\"currentTimestamp\",\"type\":\"uint48\"},{\"internalType\":\"uint48\",\"name\":\"end\",\"type\":\"uint48\"}],\"name\":\"AfterSpendPermissionEnd\",\"type\":\"error\"},{\"inputs\":[{\"internalType\":\"uint48\",\"name\":\"currentTimestamp\",\"type\":\"uint48\"},{\"internalType\":\"uint48\",\"name\":\"start\",\"type\":\"uint48\"}],\"name\":\"BeforeSpendPermissionStart\",\"type\":\"error\"},{\"inputs\":[{\"internalType\":\"uint256\",\"name\":\"value\",\"type\":\"uint256\"},{\"internalType\":\"uint256\",\"name\":\"allowance\",\"type\":\"uint256\"}],\"name\":\"ExceededSpendPermission\",\"type\":\"error\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"sender\",\"type\":\"address\"},{\"internalType\":\"address\",\"name\":\"expected\",\"type\":\"address\"}],\"name\":\"InvalidSender\",\"type\":\"error\"},{\"inputs\":[],\"name\":\"InvalidShortString\",\"type\":\"error\"},{\"inputs\":[],\"name\":\"InvalidSignature\",\"type\":\"error\"},{\"inputs\":[{\"internalType\":\"uint48\",\"name\":\"start\",\"type\":\"uint48\"},{\"internalType\":\"uint48\",\"name\":\"end\",\"type\":\"uint48\"}],\"name\":\"InvalidStartEnd\",\"type\":\"error\"},{\"inputs\":[],\"name\":\"NativeTokenNotSupported\",\"type\":\"error\"},{\"inputs\":[{\"internalType\":\"uint256\",\"name\":\"value\",\"type\":\"uint256\"}],\"name\":\"SpendValueOverflow\",\"type\":\"error\"},{\"inputs\":[{\"internalType\":\"string\",\"name\":\"str\",\"type\":\"string\"}],\"name\":\"StringTooLong\",\"type\":\"error\"},{\"inputs\":[],\"name\":\"UnauthorizedSpendPermission\",\"type\":\"error\"},{\"inputs\":[],\"name\":\"ZeroAllowance\",\"type\":\"error\"},{\"inputs\":[],\"name\":\"ZeroPeriod\",\"type\":\"error\"},{\"inputs\":[],\"name\":\"ZeroSpender\",\"type\":\"error\"},{\"inputs\":[],\"name\":\"ZeroToken\",\"type\":\"error\"},{\"inputs\":[],\"name\":\"ZeroValue\",\"type\":\"error\"},{\"anonymous\":false,\"inputs\":[],\"name\":\"EIP712DomainChanged\",\"type\":\"event\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":true,\"internalType\":\"bytes32\",\"name\":\"hash\",\"type\":\"bytes32\"},{\"components\":[{\"internalType\":\"address\",\"name\":\"account\",\"type\":\"address\"},{\"internalType\":\"address\",\"name\":\"spender\",\"type\":\"address\"},{\"internalType\":\"address\",\"name\":\"token\",\"type\":\"address\"},{\"internalType\":\"uint160\",\"name\":\"allowance\",\"type\":\"uint160\"},{\"internalType\":\"uint48\",\"name\":\"period\",\"type\":\"uint48\"},{\"internalType\":\"uint48\",\"name\":\"start\",\"type\":\"uint48\"},{\"internalType\":\"uint48\",\"name\":\"end\",\"type\":\"uint48\"},{\"internalType\":\"uint256\",\"name\":\"salt\",\"type\":\"uint256\"},{\"internalType\":\"bytes\",\"name\":\"extraData\",\"type\":\"bytes\"}],\"indexed\":false,\"internalType\":\"structSpendPermissionManager.SpendPermission\",\"name\":\"spendPermission\",\"type\":\"tuple\"}],\"name\":\"SpendPermissionApproved\",\"type\":\"event\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":true,\"internalType\":\"bytes32\",\"name\":\"hash\",\"type\":\"bytes32\"},{\"components\":[{\"internalType\":\"address\",\"name\":\"account\",\"type\":\"address\"},{\"internalType\":\"address\",\"name\":\"spender\",\"type\":\"address\"},{\"internalType\":\"address\",\"name\":\"token\",\"type\":\"address\"},{\"internalType\":\"uint160\",\"name\":\"allowance\",\"type\":\"uint160\"},{\"internalType\":\"uint48\",\"name\":\"period\",\"type\":\"uint48\"},{\"internalType\":\"uint48\",\"name\":\"start\",\"type\":\"uint48\"},{\"internalType\":\"uint48\",\"name\":\"end\",\"type\":\"uint48\"},{\"internalType\":\"uint256\",\"name\":\"salt\",\"type\":\"uint256\"},{\"internalType\":\"bytes\",\"name\":\"extraData\",\"type\":\"bytes\"}],\"indexed\":false,\"internalType\":\"structSpendPermissionManager.SpendPermission\",\"name\":\"spendPermission\",\"type\":\"tuple\"}],\"name\":\"SpendPermissionRevoked\",\"type\":\"event\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":true,\"internalType\":\"bytes32\",\"name\":\"hash\",\"type\":\"bytes32\"},{\"indexed\":true,\"internalType\":\"address\",\"name\":\"account\",\"type\":\"address\"},{\"indexed\":true,\"internalType\":\"address\",\"name\":\"spender\",\"type\":\"address\"},{\"indexed\":false,\"internalType\":\"address\",\"name\":\"token\",\"type\":\"address\"},{\"components\":[{\"internalType\":\"uint48\",\"name\":\"start\",\"type\":\"uint48\"},{\"internalType\":\"uint48\",\"name\":\"end\",\"type\":\"uint48\"},{\"internalType\":\"uint160\",\"name\":\"spend\",\"type\":\"uint160\"}],\"indexed\":false,\"internalType\":\"structSpendPermissionManager.PeriodSpend\",\"name\":\"periodSpend\",\"type\":\"tuple\"}],\"name\":\"SpendPermissionUsed\",\"type\":\"event\"},{\"inputs\":[],\"name\":\"NATIVE_TOKEN\",\"outputs\":[{\"internalType\":\"address\",\"name\":\"\",\"type\":\"address\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"SPEND_PERMISSION_TYPEHASH\",\"outputs\":[{\"internalType\":\"bytes32\",\"name\":\"\",\"type\":\"bytes32\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"components\":[{\"internalType\":\"address\",\"name\":\"account\",\"type\":\"address\"},{\"internalType\":\"address\",\"name\":\"spender\",\"type\":\"address\"},{\"internalType\":\"address\",\"name\":\"token\",\"type\":\"address\"},{\"internalType\":\"uint160\",\"name\":\"allowance\",\"type\":\"uint160\"},{\"internalType\":\"uint48\",\"name\":\"period\",\"type\":\"uint48\"},{\"internalType\":\"uint48\",\"name\":\"start\",\"type\":\"uint48\"},{\"internalType\":\"uint48\",\"name\":\"end\",\"type\":\"uint48\"},{\"internalType\":\"uint256\",\"name\":\"salt\",\"type\":\"uint256\"},{\"internalType\":\"bytes\",\"name\":\"extraData\",\"type\":\"bytes\"}],\"internalType\":\"structSpendPermissionManager.SpendPermission\",\"name\":\"spendPermission\",\"type\":\"tuple\"}],\"name\":\"approve\",\"outputs\":[{\"internalType\":\"bool\",\"name\":\"\",\"type\":\"bool\"}],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[{\"components\":[{\"internalType\":\"address\",\"name\":\"account\",\"type\":\"address\"},{\"internalType\":\"address\",\"name\":\"spender\",\"type\":\"address\"},{\"internalType\":\"address\",\"name\":\"token\",\"type\":\"address\"},{\"internalType\":\"uint160\",\"name\":\"allowance\",\"type\":\"uint160\"},{\"internalType\":\"uint48\",\"name\":\"period\",\"type\":\"uint48\"},{\"internalType\":\"uint48\",\"name\":\"start\",\"type\":\"uint48\"},{\"internalType\":\"uint48\",\"name\":\"end\",\"type\":\"uint48\"},{\"internalType\":\"uint256\",\"name\":\"salt\",\"type\":\"uint256\"},{\"internalType\":\"bytes\",\"name\":\"extraData\",\"type\":\"bytes\"}],\"internalType\":\"structSpendPermissionManager.SpendPermission\",\"name\":\"spendPermission\",\"type\":\"tuple\"},{\"internalType\":\"bytes\",\"name\":\"signature\",\"type\":\"bytes\"}],\"name\":\"approveWithSignature\",\"outputs\":[{\"internalType\":\"bool\",\"name\":\"\",\"type\":\"bool\"}],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"eip712Domain\",\"outputs\":[{\"internalType\":\"bytes1\",\"name\":\"fields\",\"type\":\"bytes1\"},{\"internalType\":\"string\",\"name\":\"name\",\"type\":\"string\"},{\"internalType\":\"string\",\"name\":\"version\",\"type\":\"string\"},{\"internalType\":\"uint256\",\"name\":\"chainId\",\"type\":\"uint256\"},{\"internalType\":\"address\",\"name\":\"verifyingContract\",\"type\":\"address\"},{\"internalType\":\"bytes32\",\"name\":\"salt\",\"type\":\"bytes32\"},{\"internalType\":\"uint256[]\",\"name\":\"extensions\",\"type\":\"uint256[]\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"components\":[{\"internalType\":\"address\",\"name\":\"account\",\"type\":\"address\"},{\"internalType\":\"address\",\"name\":\"spender\",\"type\":\"address\"},{\"internalType\":\"address\",\"name\":\"token\",\"type\":\"address\"},{\"internalType\":\"uint160\",\"name\":\"allowance\",\"type\":\"uint160\"},{\"internalType\":\"uint48\",\"name\":\"period\",\"type\":\"uint48\"},{\"internalType\":\"uint48\",\"name\":\"start\",\"type\":\"uint48\"},{\"internalType\":\"uint48\",\"name\":\"end\",\"type\":\"uint48\"},{\"internalType\":\"uint256\",\"name\":\"salt\",\"type\":\"uint256\"},{\"internalType\":\"bytes\",\"name\":\"extraData\",\"type\":\"bytes\"}],\"internalType\":\"structSpendPermissionManager.SpendPermission\",\"name\":\"spendPermission\",\"type\":\"tuple\"}],\"name\":\"getCurrentPeriod\",\"outputs\":[{\"components\":[{\"internalType\":\"uint48\",\"name\":\"start\",\"type\":\"uint48\"},{\"internalType\":\"uint48\",\"name\":\"end\",\"type\":\"uint48\"},{\"internalType\":\"uint160\",\"name\":\"spend\",\"type\":\"uint160\"}],\"internalType\":\"structSpendPermissionManager.PeriodSpend\",\"name\":\"\",\"type\":\"tuple\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"components\":[{\"internalType\":\"address\",\"name\":\"account\",\"type\":\"address\"},{\"internalType\":\"address\",\"name\":\"spender\",\"type\":\"address\"},{\"internalType\":\"address\",\"name\":\"token\",\"type\":\"address\"},{\"internalType\":\"uint160\",\"name\":\"allowance\",\"type\":\"uint160\"},{\"internalType\":\"uint48\",\"name\":\"period\",\"type\":\"uint48\"},{\"internalType\":\"uint48\",\"name\":\"start\",\"type\":\"uint48\"},{\"internalType\":\"uint48\",\"name\":\"end\",\"type\":\"uint48\"},{\"internalType\":\"uint256\",\"name\":\"salt\",\"type\":\"uint256\"},{\"internalType\":\"bytes\",\"name\":\"extraData\",\"type\":\"bytes\"}],\"internalType\":\"structSpendPermissionManager.SpendPermission\",\"name\":\"spendPermission\",\"type\":\"tuple\"}],\"name\":\"getHash\",\"outputs\":[{\"internalType\":\"bytes32\",\"name\":\"\",\"type\":\"bytes32\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"components\":[{\"internalType\":\"address\",\"name\":\"account\",\"type\":\"address\"},{\"internalType\":\"address\",\"name\":\"spender\",\"type\":\"address\"},{\"internalType\":\"address\",\"name\":\"token\",\"type\":\"address\"},{\"internalType\":\"uint160\",\"name\":\"allowance\",\"type\":\"uint160\"},{\"internalType\":\"uint48\",\"name\":\"period\",\"type\":\"uint48\"},{\"internalType\":\"uint48\",\"name\":\"start\",\"type\":\"uint48\"},{\"internalType\":\"uint48\",\"name\":\"end\",\"type\":\"uint48\"},{\"internalType\":\"uint256\",\"name\":\"salt\",\"type\":\"uint256\"},{\"internalType\":\"bytes\",\"name\":\"extraData\",\"type\":\"bytes\"}],\"internalType\":\"structSpendPermissionManager.SpendPermission\",\"name\":\"spendPermission\",\"type\":\"tuple\"}],\"name\":\"getLastUpdatedPeriod\",\"outputs\":[{\"components\":[{\"internalType\":\"uint48\",\"name\":\"start\",\"type\":\"uint48\"},{\"internalType\":\"uint48\",\"name\":\"end\",\"type\":\"uint48\"},{\"internalType\":\"uint160\",\"name\":\"spend\",\"type\":\"uint160\"}],\"internalType\":\"structSpendPermissionManager.PeriodSpend\",\"name\":\"\",\"type\":\"tuple\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"components\":[{\"internalType\":\"address\",\"name\":\"account\",\"type\":\"address\"},{\"internalType\":\"address\",\"name\":\"spender\",\"type\":\"address\"},{\"internalType\":\"address\",\"name\":\"token\",\"type\":\"address\"},{\"internalType\":\"uint160\",\"name\":\"allowance\",\"type\":\"uint160\"},{\"internalType\":\"uint48\",\"name\":\"period\",\"type\":\"uint48\"},{\"internalType\":\"uint48\",\"name\":\"start\",\"type\":\"uint48\"},{\"internalType\":\"uint48\",\"name\":\"end\",\"type\":\"uint48\"},{\"internalType\":\"uint256\",\"name\":\"salt\",\"type\":\"uint256\"},{\"internalType\":\"bytes\",\"name\":\"extraData\",\"type\":\"bytes\"}],\"internalType\":\"structSpendPermissionManager.SpendPermission\",\"name\":\"spendPermission\",\"type\":\"tuple\"}],\"name\":\"isApproved\",\"outputs\":[{\"internalType\":\"bool\",\"name\":\"\",\"type\":\"bool\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"components\":[{\"internalType\":\"address\",\"name\":\"account\",\"type\":\"address\"},{\"internalType\":\"address\",\"name\":\"spender\",\"type\":\"address\"},{\"internalType\":\"address\",\"name\":\"token\",\"type\":\"address\"},{\"internalType\":\"uint160\",\"name\":\"allowance\",\"type\":\"uint160\"},{\"internalType\":\"uint48\",\"name\":\"period\",\"type\":\"uint48\"},{\"internalType\":\"uint48\",\"name\":\"start\",\"type\":\"uint48\"},{\"internalType\":\"uint48\",\"name\":\"end\",\"type\":\"uint48\"},{\"internalType\":\"uint256\",\"name\":\"salt\",\"type\":\"uint256\"},{\"internalType\":\"bytes\",\"name\":\"extraData\",\"type\":\"bytes\"}],\"internalType\":\"structSpendPermissionManager.SpendPermission\",\"name\":\"spendPermission\",\"type\":\"tuple\"}],\"name\":\"isRevoked\",\"outputs\":[{\"internalType\":\"bool\",\"name\":\"\",\"type\":\"bool\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"components\":[{\"internalType\":\"address\",\"name\":\"account\",\"type\":\"address\"},{\"internalType\":\"address\",\"name\":\"spender\",\"type\":\"address\"},{\"internalType\":\"address\",\"name\":\"token\",\"type\":\"address\"},{\"internalType\":\"uint160\",\"name\":\"allowance\",\"type\":\"uint160\"},{\"internalType\":\"uint48\",\"name\":\"period\",\"type\":\"uint48\"},{\"internalType\":\"uint48\",\"name\":\"start\",\"type\":\"uint48\"},{\"internalType\":\"uint48\",\"name\":\"end\",\"type\":\"uint48\"},{\"internalType\":\"uint256\",\"name\":\"salt\",\"type\":\"uint256\"},{\"internalType\":\"bytes\",\"name\":\"extraData\",\"type\":\"bytes\"}],\"internalType\":\"structSpendPermissionManager.SpendPermission\",\"name\":\"spendPermission\",\"type\":\"tuple\"}],\"name\":\"isValid\",\"outputs\":[{\"internalType\":\"bool\",\"name\":\"\",\"type\":\"bool\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"components\":[{\"internalType\":\"address\",\"name\":\"account\",\"type\":\"address\"},{\"internalType\":\"address\",\"name\":\"spender\",\"type\":\"address\"},{\"internalType\":\"address\",\"name\":\"token\",\"type\":\"address\"},{\"internalType\":\"uint160\",\"name\":\"allowance\",\"type\":\"uint160\"},{\"internalType\":\"uint48\",\"name\":\"period\",\"type\":\"uint48\"},{\"internalType\":\"uint48\",\"name\":\"start\",\"type\":\"uint48\"},{\"internalType\":\"uint48\",\"name\":\"end\",\"type\":\"uint48\"},{\"internalType\":\"uint256\",\"name\":\"salt\",\"type\":\"uint256\"},{\"internalType\":\"bytes\",\"name\":\"extraData\",\"type\":\"bytes\"}],\"internalType\":\"structSpendPermissionManager.SpendPermission\",\"name\":\"spendPermission\",\"type\":\"tuple\"}],\"name\":\"revoke\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[{\"components\":[{\"internalType\":\"address\",\"name\":\"account\",\"type\":\"address\"},{\"internalType\":\"address\",\"name\":\"spender\",\"type\":\"address\"},{\"internalType\":\"address\",\"name\":\"token\",\"type\":\"address\"},{\"internalType\":\"uint160\",\"name\":\"allowance\",\"type\":\"uint160\"},{\"internalType\":\"uint48\",\"name\":\"period\",\"type\":\"uint48\"},{\"internalType\":\"uint48\",\"name\":\"start\",\"type\":\"uint48\"},{\"internalType\":\"uint48\",\"name\":\"end\",\"type\":\"uint48\"},{\"internalType\":\"uint256\",\"name\":\"salt\",\"type\":\"uint256\"},{\"internalType\":\"bytes\",\"name\":\"extraData\",\"type\":\"bytes\"}],\"internalType\":\"structSpendPermissionManager.SpendPermission\",\"name\":\"spendPermission\",\"type\":\"tuple\"}],\"name\":\"revokeAsSpender\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[{\"components\":[{\"internalType\":\"address\",\"name\":\"account\",\"type\":\"address\"},{\"internalType\":\"address\",\"name\":\"spender\",\"type\":\"address\"},{\"internalType\":\"address\",\"name\":\"token\",\"type\":\"address\"},{\"internalType\":\"uint160\",\"name\":\"allowance\",\"type\":\"uint160\"},{\"internalType\":\"uint48\",\"name\":\"period\",\"type\":\"uint48\"},{\"internalType\":\"uint48\",\"name\":\"start\",\"type\":\"uint48\"},{\"internalType\":\"uint48\",\"name\":\"end\",\"type\":\"uint48\"},{\"internalType\":\"uint256\",\"name\":\"salt\",\"type\":\"uint256\"},{\"internalType\":\"bytes\",\"name\":\"extraData\",\"type\":\"bytes\"}],\"internalType\":\"structSpendPermissionManager.SpendPermission\",\"name\":\"spendPermission\",\"type\":\"tuple\"},{\"internalType\":\"uint160\",\"name\":\"value\",\"type\":\"uint160\"}],\"name\":\"spend\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"}]",
	Bin: "0x61016060405234801562000011575f80fd5b50604080518082018252601881527f5370656e64205065726d697373696f6e204d616e616765720000000000000000602080830191909152825180840190935260018352603160f81b90830152906200006b825f62000118565b610120526200007c81600162000118565b61014052815160208084019190912060e052815190820120610100524660a0526200010960e05161010051604080517f8b73c3c69bb8fe3d512ecc4cf759cc79239f7b179b0ffacaa9a75d522b39400f60208201529081019290925260608201524660808201523060a08201525f9060c00160405160208183030381529060405280519060200120905090565b60805250503060c05262000377565b5f60208351101562000137576200012f8362000150565b90506200014a565b8162000144848262000239565b5060ff90505b92915050565b5f80829050601f8151111562000186578260405163305a27a960e01b81526004016200017d919062000305565b60405180910390fd5b8051620001938262000353565b179392505050565b634e487b7160e01b5f52604160045260245ffd5b600181811c90821680620001c457607f821691505b602082108103620001e357634e487b7160e01b5f52602260045260245ffd5b50919050565b601f8211156200023457805f5260205f20601f840160051c81016020851015620002105750805b601f840160051c820191505b8181101562000231575f81556001016200021c565b50505b505050565b81516001600160401b038111156200025557620002556200019b565b6200026d81620002668454620001af565b84620001e9565b602080601f831160018114620002a3575f84156200028b5750858301515b5f19600386901b1c1916600185901b178555620002fd565b5f85815260208120601f198616915b82811015620002d357888601518255948401946001909101908401620002b2565b5085821015620002f157878501515f19600388901b60f8161c191681555b505060018460011b0185555b505050505050565b5f602080835283518060208501525f5b81811015620003335785810183015185820160400152820162000315565b505f604082860101526040601f19601f8301168501019250505092915050565b80516020808301519190811015620001e3575f1960209190910360031b1b16919050565b60805160a05160c05160e051610100516101205161014051611afc620003c95f395f61050501525f6104db01525f61130201525f6112da01525f61123501525f61125f01525f6112890152611afc5ff3fe608060405234801561000f575f80fd5b50600436106100e5575f3560e01c80637fae20b5116100885780639e16b82f116100635780639e16b82f14610219578063b2c2b0191461022c578063b9ffc8e11461023f578063e0a00b7914610252575f80fd5b80637fae20b5146101b657806384b0196e146101c95780639a9dcbad146101e4575f80fd5b80633a3c58e8116100c35780633a3c58e814610168578063415a97351461017b57806354ab90c21461019057806378792f76146101a3575f80fd5b80632c18d42e146100e957806331f7d9641461011257806333211c3014610145575b5f80fd5b6100fc6100f7366004611519565b610265565b604051610109919061154b565b60405180910390f35b61012d73eeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee81565b6040516001600160a01b039091168152602001610109565b610158610153366004611519565b610299565b6040519015158152602001610109565b610158610176366004611519565b6102f8565b61018e6101893660046115a9565b61031e565b005b6100fc61019e366004611519565b6103c2565b61018e6101b1366004611519565b61043c565b6101586101c4366004611519565b610490565b6101d16104ce565b6040516101099796959493929190611645565b61020b7fc9fa0f0252014cf89ab0539e3bb3adcb76f93e6bb6494e8cc61c14e2761ee2e481565b604051908152602001610109565b610158610227366004611519565b610554565b61018e61023a366004611519565b610561565b61015861024d3660046116dc565b610571565b61020b610260366004611519565b610643565b604080516060810182525f80825260208201819052918101919091526102938261028e84610643565b610781565b92915050565b5f6102a7602083018361176b565b336001600160a01b038216146102e65760405163708986dd60e11b81523360048201526001600160a01b03821660248201526044015b60405180910390fd5b6102ef836109b8565b91505b50919050565b5f60035f61030584610643565b815260208101919091526040015f205460ff1692915050565b61032e604083016020840161176b565b336001600160a01b038216146103685760405163708986dd60e11b81523360048201526001600160a01b03821660248201526044016102dd565b6103728383610c00565b6103bd610382602085018561176b565b610392604086016020870161176b565b6001600160a01b0385166103ac606088016040890161176b565b6001600160a01b0316929190610e68565b505050565b604080516060810182525f808252602082018190529181019190915260045f6103ea84610643565b815260208082019290925260409081015f208151606081018352905465ffffffffffff8082168352600160301b82041693820193909352600160601b9092046001600160a01b03169082015292915050565b610449602082018261176b565b336001600160a01b038216146104835760405163708986dd60e11b81523360048201526001600160a01b03821660248201526044016102dd565b61048c82610ec8565b5050565b5f8061049b83610643565b5f8181526002602052604090205490915060ff1680156102ef57505f9081526003602052604090205460ff161592915050565b5f606080828080836105007f000000000000000000000000000000000000000000000000000000000000000083610f45565b61052b7f00000000000000000000000000000000000000000000000000000000000000006001610f45565b604080515f80825260208201909252600f60f81b9b939a50919850469750309650945092509050565b5f60025f61030584610643565b610449604082016020830161176b565b5f805f6105bb61058087610643565b86868080601f0160208091040260200160405190810160405280939291908181526020018383808284375f92019190915250610fee92505050565b90925090505f8160048111156105d3576105d3611786565b1415806105e757506001600160a01b038216155b8061061057506105fa602087018761176b565b6001600160a01b0316826001600160a01b031614155b1561062e57604051638baa579f60e01b815260040160405180910390fd5b610637866109b8565b925050505b9392505050565b5f6102937fc9fa0f0252014cf89ab0539e3bb3adcb76f93e6bb6494e8cc61c14e2761ee2e4610675602085018561176b565b610685604086016020870161176b565b610695606087016040880161176b565b6106a5608088016060890161176b565b6106b560a0890160808a016117af565b6106c560c08a0160a08b016117af565b6106d560e08b0160c08c016117af565b60e08b01356106e86101008d018d6117c8565b6040516106f692919061180b565b60408051918290038220602083019b909b526001600160a01b03998a1690820152968816606088015294871660808701529590921660a085015265ffffffffffff90811660c085015290811660e08401529092166101008201526101208101919091526101408101919091526101600160405160208183030381529060405280519060200120611030565b604080516060810182525f8082526020820181905291810191909152426107ae60c0850160a086016117af565b65ffffffffffff168165ffffffffffff16101561080057806107d660c0860160a087016117af565b60405162a170cd60e01b815265ffffffffffff9283166004820152911660248201526044016102dd565b61081060e0850160c086016117af565b65ffffffffffff168165ffffffffffff1610610862578061083760e0860160c087016117af565b6040516313c2920760e21b815265ffffffffffff9283166004820152911660248201526044016102dd565b5f838152600460209081526040918290208251606081018452905465ffffffffffff8082168352600160301b82041692820192909252600160601b9091046001600160a01b031691810182905290158015906108d15750806020015165ffffffffffff168265ffffffffffff16105b156108df5791506102939050565b5f6108f060a08701608088016117af565b61090060c0880160a089016117af565b61090a908561182e565b6109149190611854565b61091e908461182e565b90505f61093160a08801608089016117af565b65ffffffffffff168265ffffffffffff1661094c9190611884565b905061095e60e0880160c089016117af565b65ffffffffffff168111156109885761097d60e0880160c089016117af565b65ffffffffffff1690505b6040805160608101825265ffffffffffff93841681529190921660208201525f9181019190915295945050505050565b5f806109ca606084016040850161176b565b6001600160a01b0316036109f15760405163ad1991f560e01b815260040160405180910390fd5b73eeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee610a16606084016040850161176b565b6001600160a01b031603610a3d57604051635885ca3f60e11b815260040160405180910390fd5b5f610a4e604084016020850161176b565b6001600160a01b031603610a75576040516307eb16dd60e21b815260040160405180910390fd5b610a8560a08301608084016117af565b65ffffffffffff165f03610aac5760405163586e5acb60e01b815260040160405180910390fd5b610abc608083016060840161176b565b6001600160a01b03165f03610ae457604051638e01c48b60e01b815260040160405180910390fd5b610af460e0830160c084016117af565b65ffffffffffff16610b0c60c0840160a085016117af565b65ffffffffffff1610610b6457610b2960c0830160a084016117af565b610b3960e0840160c085016117af565b604051630746a40160e31b815265ffffffffffff9283166004820152911660248201526044016102dd565b5f610b6e83610643565b5f8181526003602052604090205490915060ff1615610b8f57505f92915050565b5f8181526002602052604090205460ff16610bf7575f8181526002602052604090819020805460ff191660011790555181907f40a18f36db551498d122b5bfe203819b4c710502e7401e2bd6d2ccc6d2ceb55890610bee908690611901565b60405180910390a25b50600192915050565b806001600160a01b03165f03610c2957604051637c946ed760e01b815260040160405180910390fd5b5f610c3383610643565b5f8181526002602052604090205490915060ff161580610c6057505f8181526003602052604090205460ff165b15610c7e5760405163282b9f9760e01b815260040160405180910390fd5b5f610c898483610781565b90505f836001600160a01b031682604001516001600160a01b0316610cae9190611884565b90506001600160a01b03811115610cdb5760405163b27ed7ef60e01b8152600481018290526024016102dd565b610ceb608086016060870161176b565b6001600160a01b0316811115610d375780610d0c608087016060880161176b565b604051631fa3d79160e31b815260048101929092526001600160a01b031660248201526044016102dd565b6001600160a01b0380821660408085019182525f868152600460209081529082902086518154838901519551909616600160601b026bffffffffffffffffffffffff65ffffffffffff968716600160301b026bffffffffffffffffffffffff199098169690921695909517959095179490941692909217909255610dbf91870190870161176b565b6001600160a01b0316610dd5602087018761176b565b6001600160a01b0316847fbcba65b462dfff1a0af642e2ccd28778c64fcb16da2132dabf6eee8906d6753c610e1060608a0160408b0161176b565b6040518060600160405280885f015165ffffffffffff168152602001886020015165ffffffffffff1681526020018a6001600160a01b0316815250604051610e59929190611a01565b60405180910390a45050505050565b604080516001600160a01b0385811660248301528416604482015260648082018490528251808303909101815260849091019091526020810180516001600160e01b03166323b872dd60e01b179052610ec290859061105c565b50505050565b5f610ed282610643565b5f8181526003602052604090205490915060ff1615610eef575050565b5f8181526003602052604090819020805460ff191660011790555181907fff59e520513907d7deffc74c82b5492b06b2988d7d03dacfd4995de47fe94c9590610f39908590611901565b60405180910390a25050565b606060ff8314610f5f57610f588361112f565b9050610293565b818054610f6b90611a48565b80601f0160208091040260200160405190810160405280929190818152602001828054610f9790611a48565b8015610fe25780601f10610fb957610100808354040283529160200191610fe2565b820191905f5260205f20905b815481529060010190602001808311610fc557829003601f168201915b50505050509050610293565b5f808251604103611022576020830151604084015160608501515f1a6110168782858561116c565b94509450505050611029565b505f905060025b9250929050565b5f61029361103c611229565b8360405161190160f01b8152600281019290925260228201526042902090565b5f6110b0826040518060400160405280602081526020017f5361666545524332303a206c6f772d6c6576656c2063616c6c206661696c6564815250856001600160a01b03166113579092919063ffffffff16565b905080515f14806110d05750808060200190518101906110d09190611a7a565b6103bd5760405162461bcd60e51b815260206004820152602a60248201527f5361666545524332303a204552433230206f7065726174696f6e20646964206e6044820152691bdd081cdd58d8d9595960b21b60648201526084016102dd565b60605f61113b8361136d565b6040805160208082528183019092529192505f91906020820181803683375050509182525060208101929092525090565b5f807f7fffffffffffffffffffffffffffffff5d576e7357a4501ddfe92f46681b20a08311156111a157505f90506003611220565b604080515f8082526020820180845289905260ff881692820192909252606081018690526080810185905260019060a0016020604051602081039080840390855afa1580156111f2573d5f803e3d5ffd5b5050604051601f1901519150506001600160a01b03811661121a575f60019250925050611220565b91505f90505b94509492505050565b5f306001600160a01b037f00000000000000000000000000000000000000000000000000000000000000001614801561128157507f000000000000000000000000000000000000000000000000000000000000000046145b156112ab57507f000000000000000000000000000000000000000000000000000000000000000090565b611352604080517f8b73c3c69bb8fe3d512ecc4cf759cc79239f7b179b0ffacaa9a75d522b39400f60208201527f0000000000000000000000000000000000000000000000000000000000000000918101919091527f000000000000000000000000000000000000000000000000000000000000000060608201524660808201523060a08201525f9060c00160405160208183030381529060405280519060200120905090565b905090565b606061136584845f85611394565b949350505050565b5f60ff8216601f81111561029357604051632cd44ac360e21b815260040160405180910390fd5b6060824710156113f55760405162461bcd60e51b815260206004820152602660248201527f416464726573733a20696e73756666696369656e742062616c616e636520666f6044820152651c8818d85b1b60d21b60648201526084016102dd565b5f80866001600160a01b031685876040516114109190611a99565b5f6040518083038185875af1925050503d805f811461144a576040519150601f19603f3d011682016040523d82523d5f602084013e61144f565b606091505b50915091506114608783838761146b565b979650505050505050565b606083156114d95782515f036114d2576001600160a01b0385163b6114d25760405162461bcd60e51b815260206004820152601d60248201527f416464726573733a2063616c6c20746f206e6f6e2d636f6e747261637400000060448201526064016102dd565b5081611365565b61136583838151156114ee5781518083602001fd5b8060405162461bcd60e51b81526004016102dd9190611ab4565b5f61012082840312156102f2575f80fd5b5f60208284031215611529575f80fd5b813567ffffffffffffffff81111561153f575f80fd5b61136584828501611508565b815165ffffffffffff9081168252602080840151909116908201526040808301516001600160a01b03169082015260608101610293565b6001600160a01b0381168114611596575f80fd5b50565b80356115a481611582565b919050565b5f80604083850312156115ba575f80fd5b823567ffffffffffffffff8111156115d0575f80fd5b6115dc85828601611508565b92505060208301356115ed81611582565b809150509250929050565b5f5b838110156116125781810151838201526020016115fa565b50505f910152565b5f81518084526116318160208601602086016115f8565b601f01601f19169290920160200192915050565b60ff60f81b881681525f602060e0602084015261166560e084018a61161a565b8381036040850152611677818a61161a565b606085018990526001600160a01b038816608086015260a0850187905284810360c0860152855180825260208088019350909101905f5b818110156116ca578351835292840192918401916001016116ae565b50909c9b505050505050505050505050565b5f805f604084860312156116ee575f80fd5b833567ffffffffffffffff80821115611705575f80fd5b61171187838801611508565b94506020860135915080821115611726575f80fd5b818601915086601f830112611739575f80fd5b813581811115611747575f80fd5b876020828501011115611758575f80fd5b6020830194508093505050509250925092565b5f6020828403121561177b575f80fd5b813561063c81611582565b634e487b7160e01b5f52602160045260245ffd5b803565ffffffffffff811681146115a4575f80fd5b5f602082840312156117bf575f80fd5b61063c8261179a565b5f808335601e198436030181126117dd575f80fd5b83018035915067ffffffffffffffff8211156117f7575f80fd5b602001915036819003821315611029575f80fd5b818382375f9101908152919050565b634e487b7160e01b5f52601160045260245ffd5b65ffffffffffff82811682821603908082111561184d5761184d61181a565b5092915050565b5f65ffffffffffff8084168061187857634e487b7160e01b5f52601260045260245ffd5b92169190910692915050565b808201808211156102935761029361181a565b5f808335601e198436030181126118ac575f80fd5b830160208101925035905067ffffffffffffffff8111156118cb575f80fd5b803603821315611029575f80fd5b81835281816020850137505f828201602090810191909152601f909101601f19169091010190565b602081526119226020820161191584611599565b6001600160a01b03169052565b5f61192f60208401611599565b6001600160a01b03811660408401525061194b60408401611599565b6001600160a01b03811660608401525061196760608401611599565b6001600160a01b0381166080840152506119836080840161179a565b65ffffffffffff811660a08401525061199e60a0840161179a565b65ffffffffffff811660c0840152506119b960c0840161179a565b65ffffffffffff811660e08401525061010060e0840135818401526119e081850185611897565b6101208581015291506119f8610140850183836118d9565b95945050505050565b6001600160a01b03831681526080810161063c6020830184805165ffffffffffff9081168352602080830151909116908301526040908101516001600160a01b0316910152565b600181811c90821680611a5c57607f821691505b6020821081036102f257634e487b7160e01b5f52602260045260245ffd5b5f60208284031215611a8a575f80fd5b8151801515811461063c575f80fd5b5f8251611aaa8184602087016115f8565b9190910192915050565b602081525f61063c602083018461161a56fea26469706673582212200f4184594c1e752713cfe992879841645e4dc9fd742aa84aa3ff47d978d7e1bf64736f6c63430008180033",
}

// SpendPermissionManagerABI is the input ABI used to generate the binding from.
// Deprecated: Use SpendPermissionManagerMetaData.ABI instead.
var SpendPermissionManagerABI = SpendPermissionManagerMetaData.ABI

// SpendPermissionManagerBin is the compiled bytecode used for deploying new contracts.
// Deprecated: Use SpendPermissionManagerMetaData.Bin instead.
var SpendPermissionManagerBin = SpendPermissionManagerMetaData.Bin

// DeploySpendPermissionManager deploys a new Ethereum contract, binding an instance of SpendPermissionManager to it.
func DeploySpendPermissionManager(auth *bind.TransactOpts, backend bind.ContractBackend) (common.Address, *types.Transaction, *SpendPermissionManager, error) {
	parsed, err := SpendPermissionManagerMetaData.GetAbi()
	if err != nil {
		return common.Address{}, nil, nil, err
	}
	if parsed == nil {
		return common.Address{}, nil, nil, errors.New("GetABI returned nil")
	}

	address, tx, contract, err := bind.DeployContract(auth, *parsed, common.FromHex(SpendPermissionManagerBin), backend)
	if err != nil {
		return common.Address{}, nil, nil, err
	}
	return address, tx, &SpendPermissionManager{SpendPermissionManagerCaller: SpendPermissionManagerCaller{contract: contract}, SpendPermissionManagerTransactor: SpendPermissionManagerTransactor{contract: contract}, SpendPermissionManagerFilterer: SpendPermissionManagerFilterer{contract: contract}}, nil
}

// SpendPermissionManager is an auto generated Go binding around an Ethereum contract.
type SpendPermissionManager struct {
	SpendPermissionManagerCaller     // Read-only binding to the contract
	SpendPermissionManagerTransactor // Write-only binding to the contract
	SpendPermissionManagerFilterer   // Log filterer for contract events
}

// SpendPermissionManagerCaller is an auto generated read-only Go binding around an Ethereum contract.
type SpendPermissionManagerCaller struct {
	contract *bind.BoundContract // Generic contract wrapper for the low level calls
}

// SpendPermissionManagerTransactor is an auto generated write-only Go binding around an Ethereum contract.
type SpendPermissionManagerTransactor struct {
	contract *bind.BoundContract // Generic contract wrapper for the low level calls
}

// SpendPermissionManagerFilterer is an auto generated log filtering Go binding around an Ethereum contract events.
type SpendPermissionManagerFilterer struct {
	contract *bind.BoundContract // Generic contract wrapper for the low level calls
}

// SpendPermissionManagerSession is an auto generated Go binding around an Ethereum contract,
// with pre-set call and transact options.
type SpendPermissionManagerSession struct {
	Contract     *SpendPermissionManager // Generic contract binding to set the session for
	CallOpts     bind.CallOpts           // Call options to use throughout this session
	TransactOpts bind.TransactOpts       // Transaction auth options to use throughout this session
}

// SpendPermissionManagerCallerSession is an auto generated read-only Go binding around an Ethereum contract,
// with pre-set call options.
type SpendPermissionManagerCallerSession struct {
	Contract *SpendPermissionManagerCaller // Generic contract caller binding to set the session for
	CallOpts bind.CallOpts                 // Call options to use throughout this session
}

// SpendPermissionManagerTransactorSession is an auto generated write-only Go binding around an Ethereum contract,
// with pre-set transact options.
type SpendPermissionManagerTransactorSession struct {
	Contract     *SpendPermissionManagerTransactor // Generic contract transactor binding to set the session for
	TransactOpts bind.TransactOpts                 // Transaction auth options to use throughout this session
}

// SpendPermissionManagerRaw is an auto generated low-level Go binding around an Ethereum contract.
type SpendPermissionManagerRaw struct {
	Contract *SpendPermissionManager // Generic contract binding to access the raw methods on
}

// SpendPermissionManagerCallerRaw is an auto generated low-level read-only Go binding around an Ethereum contract.
type SpendPermissionManagerCallerRaw struct {
	Contract *SpendPermissionManagerCaller // Generic read-only contract binding to access the raw methods on
}

// SpendPermissionManagerTransactorRaw is an auto generated low-level write-only Go binding around an Ethereum contract.
type SpendPermissionManagerTransactorRaw struct {
	Contract *SpendPermissionManagerTransactor // Generic write-only contract binding to access the raw methods on
}

// NewSpendPermissionManager creates a new instance of SpendPermissionManager, bound to a specific deployed contract.
func NewSpendPermissionManager(address common.Address, backend bind.ContractBackend) (*SpendPermissionManager, error) {
	contract, err := bindSpendPermissionManager(address, backend, backend, backend)
	if err != nil {
		return nil, err
	}
	return &SpendPermissionManager{SpendPermissionManagerCaller: SpendPermissionManagerCaller{contract: contract}, SpendPermissionManagerTransactor: SpendPermissionManagerTransactor{contract: contract}, SpendPermissionManagerFilterer: SpendPermissionManagerFilterer{contract: contract}}, nil
}

// NewSpendPermissionManagerCaller creates a new read-only instance of SpendPermissionManager, bound to a specific deployed contract.
func NewSpendPermissionManagerCaller(address common.Address, caller bind.ContractCaller) (*SpendPermissionManagerCaller, error) {
	contract, err := bindSpendPermissionManager(address, caller, nil, nil)
	if err != nil {
		return nil, err
	}
	return &SpendPermissionManagerCaller{contract: contract}, nil
}

// NewSpendPermissionManagerTransactor creates a new write-only instance of SpendPermissionManager, bound to a specific deployed contract.
func NewSpendPermissionManagerTransactor(address common.Address, transactor bind.ContractTransactor) (*SpendPermissionManagerTransactor, error) {
	contract, err := bindSpendPermissionManager(address, nil, transactor, nil)
	if err != nil {
		return nil, err
	}
	return &SpendPermissionManagerTransactor{contract: contract}, nil
}

// NewSpendPermissionManagerFilterer creates a new log filterer instance of SpendPermissionManager, bound to a specific deployed contract.
func NewSpendPermissionManagerFilterer(address common.Address, filterer bind.ContractFilterer) (*SpendPermissionManagerFilterer, error) {
	contract, err := bindSpendPermissionManager(address, nil, nil, filterer)
	if err != nil {
		return nil, err
	}
	return &SpendPermissionManagerFilterer{contract: contract}, nil
}

// bindSpendPermissionManager binds a generic wrapper to an already deployed contract.
func bindSpendPermissionManager(address common.Address, caller bind.ContractCaller, transactor bind.ContractTransactor, filterer bind.ContractFilterer) (*bind.BoundContract, error) {
	parsed, err := SpendPermissionManagerMetaData.GetAbi()
	if err != nil {
		return nil, err
	}
	return bind.NewBoundContract(address, *parsed, caller, transactor, filterer), nil
}

// Call invokes the (constant) contract method with params as input values and
// sets the output to result. The result type might be a single field for simple
// returns, a slice of interfaces for anonymous returns and a struct for named
// returns.
func (_SpendPermissionManager *SpendPermissionManagerRaw) Call(opts *bind.CallOpts, result *[]interface{}, method string, params ...interface{}) error {
	return _SpendPermissionManager.Contract.SpendPermissionManagerCaller.contract.Call(opts, result, method, params...)
}

// Transfer initiates a plain transaction to move funds to the contract, calling
// its default method if one is available.
func (_SpendPermissionManager *SpendPermissionManagerRaw) Transfer(opts *bind.TransactOpts) (*types.Transaction, error) {
	return _SpendPermissionManager.Contract.SpendPermissionManagerTransactor.contract.Transfer(opts)
}

// Transact invokes the (paid) contract method with params as input values.
func (_SpendPermissionManager *SpendPermissionManagerRaw) Transact(opts *bind.TransactOpts, method string, params ...interface{}) (*types.Transaction, error) {
	return _SpendPermissionManager.Contract.SpendPermissionManagerTransactor.contract.Transact(opts, method, params...)
}

// Call invokes the (constant) contract method with params as input values and
// sets the output to result. The result type might be a single field for simple
// returns, a slice of interfaces for anonymous returns and a struct for named
// returns.
func (_SpendPermissionManager *SpendPermissionManagerCallerRaw) Call(opts *bind.CallOpts, result *[]interface{}, method string, params ...interface{}) error {
	return _SpendPermissionManager.Contract.contract.Call(opts, result, method, params...)
}

// Transfer initiates a plain transaction to move funds to the contract, calling
// its default method if one is available.
func (_SpendPermissionManager *SpendPermissionManagerTransactorRaw) Transfer(opts *bind.TransactOpts) (*types.Transaction, error) {
	return _SpendPermissionManager.Contract.contract.Transfer(opts)
}

// Transact invokes the (paid) contract method with params as input values.
func (_SpendPermissionManager *SpendPermissionManagerTransactorRaw) Transact(opts *bind.TransactOpts, method string, params ...interface{}) (*types.Transaction, error) {
	return _SpendPermissionManager.Contract.contract.Transact(opts, method, params...)
}

// NATIVETOKEN is a free data retrieval call binding the contract method 0x31f7d964.
//
// Solidity: function NATIVE_TOKEN() view returns(address)
func (_SpendPermissionManager *SpendPermissionManagerCaller) NATIVETOKEN(opts *bind.CallOpts) (common.Address, error) {
	var out []interface{}
	err := _SpendPermissionManager.contract.Call(opts, &out, "NATIVE_TOKEN")

	if err != nil {
		return *new(common.Address), err
	}

	out0 := *abi.ConvertType(out[0], new(common.Address)).(*common.Address)

	return out0, err

}

// NATIVETOKEN is a free data retrieval call binding the contract method 0x31f7d964.
//
// Solidity: function NATIVE_TOKEN() view returns(address)
func (_SpendPermissionManager *SpendPermissionManagerSession) NATIVETOKEN() (common.Address, error) {
	return _SpendPermissionManager.Contract.NATIVETOKEN(&_SpendPermissionManager.CallOpts)
}

// NATIVETOKEN is a free data retrieval call binding the contract method 0x31f7d964.
//
// Solidity: function NATIVE_TOKEN() view returns(address)
func (_SpendPermissionManager *SpendPermissionManagerCallerSession) NATIVETOKEN() (common.Address, error) {
	return _SpendPermissionManager.Contract.NATIVETOKEN(&_SpendPermissionManager.CallOpts)
}

// SPENDPERMISSIONTYPEHASH is a free data retrieval call binding the contract method 0x9a9dcbad.
//
// Solidity: function SPEND_PERMISSION_TYPEHASH() view returns(bytes32)
func (_SpendPermissionManager *SpendPermissionManagerCaller) SPENDPERMISSIONTYPEHASH(opts *bind.CallOpts) ([32]byte, error) {
	var out []interface{}
	err := _SpendPermissionManager.contract.Call(opts, &out, "SPEND_PERMISSION_TYPEHASH")

	if err != nil {
		return *new([32]byte), err
	}

	out0 := *abi.ConvertType(out[0], new([32]byte)).(*[32]byte)

	return out0, err

}

// SPENDPERMISSIONTYPEHASH is a free data retrieval call binding the contract method 0x9a9dcbad.
//
// Solidity: function SPEND_PERMISSION_TYPEHASH() view returns(bytes32)
func (_SpendPermissionManager *SpendPermissionManagerSession) SPENDPERMISSIONTYPEHASH() ([32]byte, error) {
	return _SpendPermissionManager.Contract.SPENDPERMISSIONTYPEHASH(&_SpendPermissionManager.CallOpts)
}

// SPENDPERMISSIONTYPEHASH is a free data retrieval call binding the contract method 0x9a9dcbad.
//
// Solidity: function SPEND_PERMISSION_TYPEHASH() view returns(bytes32)
func (_SpendPermissionManager *SpendPermissionManagerCallerSession) SPENDPERMISSIONTYPEHASH() ([32]byte, error) {
	return _SpendPermissionManager.Contract.SPENDPERMISSIONTYPEHASH(&_SpendPermissionManager.CallOpts)
}

// Eip712Domain is a free data retrieval call binding the contract method 0x84b0196e.
//
// Solidity: function eip712Domain() view returns(bytes1 fields, string name, string version, uint256 chainId, address verifyingContract, bytes32 salt, uint256[] extensions)
func (_SpendPermissionManager *SpendPermissionManagerCaller) Eip712Domain(opts *bind.CallOpts) (struct {
	Fields            [1]byte
	Name              string
	Version           string
	ChainId           *big.Int
	VerifyingContract common.Address
	Salt              [32]byte
	Extensions        []*big.Int
}, error) {
	var out []interface{}
	err := _SpendPermissionManager.contract.Call(opts, &out, "eip712Domain")

	outstruct := new(struct {
		Fields            [1]byte
		Name              string
		Version           string
		ChainId           *big.Int
		VerifyingContract common.Address
		Salt              [32]byte
		Extensions        []*big.Int
	})
	if err != nil {
		return *outstruct, err
	}

	outstruct.Fields = *abi.ConvertType(out[0], new([1]byte)).(*[1]byte)
	outstruct.Name = *abi.ConvertType(out[1], new(string)).(*string)
	outstruct.Version = *abi.ConvertType(out[2], new(string)).(*string)
	outstruct.ChainId = *abi.ConvertType(out[3], new(*big.Int)).(**big.Int)
	outstruct.VerifyingContract = *abi.ConvertType(out[4], new(common.Address)).(*common.Address)
	outstruct.Salt = *abi.ConvertType(out[5], new([32]byte)).(*[32]byte)
	outstruct.Extensions = *abi.ConvertType(out[6], new([]*big.Int)).(*[]*big.Int)

	return *outstruct, err

}

// Eip712Domain is a free data retrieval call binding the contract method 0x84b0196e.
//
// Solidity: function eip712Domain() view returns(bytes1 fields, string name, string version, uint256 chainId, address verifyingContract, bytes32 salt, uint256[] extensions)
func (_SpendPermissionManager *SpendPermissionManagerSession) Eip712Domain() (struct {
	Fields            [1]byte
	Name              string
	Version           string
	ChainId           *big.Int
	VerifyingContract common.Address
	Salt              [32]byte
	Extensions        []*big.Int
}, error) {
	return _SpendPermissionManager.Contract.Eip712Domain(&_SpendPermissionManager.CallOpts)
}

// Eip712Domain is a free data retrieval call binding the contract method 0x84b0196e.
//
// Solidity: function eip712Domain() view returns(bytes1 fields, string name, string version, uint256 chainId, address verifyingContract, bytes32 salt, uint256[] extensions)
func (_SpendPermissionManager *SpendPermissionManagerCallerSession) Eip712Domain() (struct {
	Fields            [1]byte
	Name              string
	Version           string
	ChainId           *big.Int
	VerifyingContract common.Address
	Salt              [32]byte
	Extensions        []*big.Int
}, error) {
	return _SpendPermissionManager.Contract.Eip712Domain(&_SpendPermissionManager.CallOpts)
}

// GetCurrentPeriod is a free data retrieval call binding the contract method 0x2c18d42e.
//
// Solidity: function getCurrentPeriod((address,address,address,uint160,uint48,uint48,uint48,uint256,bytes) spendPermission) view returns((uint48,uint48,uint160))
func (_SpendPermissionManager *SpendPermissionManagerCaller) GetCurrentPeriod(opts *bind.CallOpts, spendPermission SpendPermissionManagerSpendPermission) (SpendPermissionManagerPeriodSpend, error) {
	var out []interface{}
	err := _SpendPermissionManager.contract.Call(opts, &out, "getCurrentPeriod", spendPermission)

	if err != nil {
		return *new(SpendPermissionManagerPeriodSpend), err
	}

	out0 := *abi.ConvertType(out[0], new(SpendPermissionManagerPeriodSpend)).(*SpendPermissionManagerPeriodSpend)

	return out0, err

}

// GetCurrentPeriod is a free data retrieval call binding the contract method 0x2c18d42e.
//
// Solidity: function getCurrentPeriod((address,address,address,uint160,uint48,uint48,uint48,uint256,bytes) spendPermission) view returns((uint48,uint48,uint160))
func (_SpendPermissionManager *SpendPermissionManagerSession) GetCurrentPeriod(spendPermission SpendPermissionManagerSpendPermission) (SpendPermissionManagerPeriodSpend, error) {
	return _SpendPermissionManager.Contract.GetCurrentPeriod(&_SpendPermissionManager.CallOpts, spendPermission)
}

// GetCurrentPeriod is a free data retrieval call binding the contract method 0x2c18d42e.
//
// Solidity: function getCurrentPeriod((address,address,address,uint160,uint48,uint48,uint48,uint256,bytes) spendPermission) view returns((uint48,uint48,uint160))
func (_SpendPermissionManager *SpendPermissionManagerCallerSession) GetCurrentPeriod(spendPermission SpendPermissionManagerSpendPermission) (SpendPermissionManagerPeriodSpend, error) {
	return _SpendPermissionManager.Contract.GetCurrentPeriod(&_SpendPermissionManager.CallOpts, spendPermission)
}

// GetHash is a free data retrieval call binding the contract method 0xe0a00b79.
//
// Solidity: function getHash((address,address,address,uint160,uint48,uint48,uint48,uint256,bytes) spendPermission) view returns(bytes32)
func (_SpendPermissionManager *SpendPermissionManagerCaller) GetHash(opts *bind.CallOpts, spendPermission SpendPermissionManagerSpendPermission) ([32]byte, error) {
	var out []interface{}
	err := _SpendPermissionManager.contract.Call(opts, &out, "getHash", spendPermission)

	if err != nil {
		return *new([32]byte), err
	}

	out0 := *abi.ConvertType(out[0], new([32]byte)).(*[32]byte)

	return out0, err

}

// GetHash is a free data retrieval call binding the contract method 0xe0a00b79.
//
// Solidity: function getHash((address,address,address,uint160,uint48,uint48,uint48,uint256,bytes) spendPermission) view returns(bytes32)
func (_SpendPermissionManager *SpendPermissionManagerSession) GetHash(spendPermission SpendPermissionManagerSpendPermission) ([32]byte, error) {
	return _SpendPermissionManager.Contract.GetHash(&_SpendPermissionManager.CallOpts, spendPermission)
}

// GetHash is a free data retrieval call binding the contract method 0xe0a00b79.
//
// Solidity: function getHash((address,address,address,uint160,uint48,uint48,uint48,uint256,bytes) spendPermission) view returns(bytes32)
func (_SpendPermissionManager *SpendPermissionManagerCallerSession) GetHash(spendPermission SpendPermissionManagerSpendPermission) ([32]byte, error) {
	return _SpendPermissionManager.Contract.GetHash(&_SpendPermissionManager.CallOpts, spendPermission)
}

// GetLastUpdatedPeriod is a free data retrieval call binding the contract method 0x54ab90c2.
//
// Solidity: function getLastUpdatedPeriod((address,address,address,uint160,uint48,uint48,uint48,uint256,bytes) spendPermission) view returns((uint48,uint48,uint160))
func (_SpendPermissionManager *SpendPermissionManagerCaller) GetLastUpdatedPeriod(opts *bind.CallOpts, spendPermission SpendPermissionManagerSpendPermission) (SpendPermissionManagerPeriodSpend, error) {
	var out []interface{}
	err := _SpendPermissionManager.contract.Call(opts, &out, "getLastUpdatedPeriod", spendPermission)

	if err != nil {
		return *new(SpendPermissionManagerPeriodSpend), err
	}

	out0 := *abi.ConvertType(out[0], new(SpendPermissionManagerPeriodSpend)).(*SpendPermissionManagerPeriodSpend)

	return out0, err

}

// GetLastUpdatedPeriod is a free data retrieval call binding the contract method 0x54ab90c2.
//
// Solidity: function getLastUpdatedPeriod((address,address,address,uint160,uint48,uint48,uint48,uint256,bytes) spendPermission) view returns((uint48,uint48,uint160))
func (_SpendPermissionManager *SpendPermissionManagerSession) GetLastUpdatedPeriod(spendPermission SpendPermissionManagerSpendPermission) (SpendPermissionManagerPeriodSpend, error) {
	return _SpendPermissionManager.Contract.GetLastUpdatedPeriod(&_SpendPermissionManager.CallOpts, spendPermission)
}

// GetLastUpdatedPeriod is a free data retrieval call binding the contract method 0x54ab90c2.
//
// Solidity: function getLastUpdatedPeriod((address,address,address,uint160,uint48,uint48,uint48,uint256,bytes) spendPermission) view returns((uint48,uint48,uint160))
func (_SpendPermissionManager *SpendPermissionManagerCallerSession) GetLastUpdatedPeriod(spendPermission SpendPermissionManagerSpendPermission) (SpendPermissionManagerPeriodSpend, error) {
	return _SpendPermissionManager.Contract.GetLastUpdatedPeriod(&_SpendPermissionManager.CallOpts, spendPermission)
}

// IsApproved is a free data retrieval call binding the contract method 0x9e16b82f.
//
// Solidity: function isApproved((address,address,address,uint160,uint48,uint48,uint48,uint256,bytes) spendPermission) view returns(bool)
func (_SpendPermissionManager *SpendPermissionManagerCaller) IsApproved(opts *bind.CallOpts, spendPermission SpendPermissionManagerSpendPermission) (bool, error) {
	var out []interface{}
	err := _SpendPermissionManager.contract.Call(opts, &out, "isApproved", spendPermission)

	if err != nil {
		return *new(bool), err
	}

	out0 := *abi.ConvertType(out[0], new(bool)).(*bool)

	return out0, err

}

// IsApproved is a free data retrieval call binding the contract method 0x9e16b82f.
//
// Solidity: function isApproved((address,address,address,uint160,uint48,uint48,uint48,uint256,bytes) spendPermission) view returns(bool)
func (_SpendPermissionManager *SpendPermissionManagerSession) IsApproved(spendPermission SpendPermissionManagerSpendPermission) (bool, error) {
	return _SpendPermissionManager.Contract.IsApproved(&_SpendPermissionManager.CallOpts, spendPermission)
}

// IsApproved is a free data retrieval call binding the contract method 0x9e16b82f.
//
// Solidity: function isApproved((address,address,address,uint160,uint48,uint48,uint48,uint256,bytes) spendPermission) view returns(bool)
func (_SpendPermissionManager *SpendPermissionManagerCallerSession) IsApproved(spendPermission SpendPermissionManagerSpendPermission) (bool, error) {
	return _SpendPermissionManager.Contract.IsApproved(&_SpendPermissionManager.CallOpts, spendPermission)
}

// IsRevoked is a free data retrieval call binding the contract method 0x3a3c58e8.
//
// Solidity: function isRevoked((address,address,address,uint160,uint48,uint48,uint48,uint256,bytes) spendPermission) view returns(bool)
func (_SpendPermissionManager *SpendPermissionManagerCaller) IsRevoked(opts *bind.CallOpts, spendPermission SpendPermissionManagerSpendPermission) (bool, error) {
	var out []interface{}
	err := _SpendPermissionManager.contract.Call(opts, &out, "isRevoked", spendPermission)

	if err != nil {
		return *new(bool), err
	}

	out0 := *abi.ConvertType(out[0], new(bool)).(*bool)

	return out0, err

}

// IsRevoked is a free data retrieval call binding the contract method 0x3a3c58e8.
//
// Solidity: function isRevoked((address,address,address,uint160,uint48,uint48,uint48,uint256,bytes) spendPermission) view returns(bool)
func (_SpendPermissionManager *SpendPermissionManagerSession) IsRevoked(spendPermission SpendPermissionManagerSpendPermission) (bool, error) {
	return _SpendPermissionManager.Contract.IsRevoked(&_SpendPermissionManager.CallOpts, spendPermission)
}

// IsRevoked is a free data retrieval call binding the contract method 0x3a3c58e8.
//
// Solidity: function isRevoked((address,address,address,uint160,uint48,uint48,uint48,uint256,bytes) spendPermission) view returns(bool)
func (_SpendPermissionManager *SpendPermissionManagerCallerSession) IsRevoked(spendPermission SpendPermissionManagerSpendPermission) (bool, error) {
	return _SpendPermissionManager.Contract.IsRevoked(&_SpendPermissionManager.CallOpts, spendPermission)
}

// IsValid is a free data retrieval call binding the contract method 0x7fae20b5.
//
// Solidity: function isValid((address,address,address,uint160,uint48,uint48,uint48,uint256,bytes) spendPermission) view returns(bool)
func (_SpendPermissionManager *SpendPermissionManagerCaller) IsValid(opts *bind.CallOpts, spendPermission SpendPermissionManagerSpendPermission) (bool, error) {
	var out []interface{}
	err := _SpendPermissionManager.contract.Call(opts, &out, "isValid", spendPermission)

	if err != nil {
		return *new(bool), err
	}

	out0 := *abi.ConvertType(out[0], new(bool)).(*bool)

	return out0, err

}

// IsValid is a free data retrieval call binding the contract method 0x7fae20b5.
//
// Solidity: function isValid((address,address,address,uint160,uint48,uint48,uint48,uint256,bytes) spendPermission) view returns(bool)
func (_SpendPermissionManager *SpendPermissionManagerSession) IsValid(spendPermission SpendPermissionManagerSpendPermission) (bool, error) {
	return _SpendPermissionManager.Contract.IsValid(&_SpendPermissionManager.CallOpts, spendPermission)
}

// IsValid is a free data retrieval call binding the contract method 0x7fae20b5.
//
// Solidity: function isValid((address,address,address,uint160,uint48,uint48,uint48,uint256,bytes) spendPermission) view returns(bool)
func (_SpendPermissionManager *SpendPermissionManagerCallerSession) IsValid(spendPermission SpendPermissionManagerSpendPermission) (bool, error) {
	return _SpendPermissionManager.Contract.IsValid(&_SpendPermissionManager.CallOpts, spendPermission)
}

// Approve is a paid mutator transaction binding the contract method 0x33211c30.
//
// Solidity: function approve((address,address,address,uint160,uint48,uint48,uint48,uint256,bytes) spendPermission) returns(bool)
func (_SpendPermissionManager *SpendPermissionManagerTransactor) Approve(opts *bind.TransactOpts, spendPermission SpendPermissionManagerSpendPermission) (*types.Transaction, error) {
	return _SpendPermissionManager.contract.Transact(opts, "approve", spendPermission)
}

// Approve is a paid mutator transaction binding the contract method 0x33211c30.
//
// Solidity: function approve((address,address,address,uint160,uint48,uint48,uint48,uint256,bytes) spendPermission) returns(bool)
func (_SpendPermissionManager *SpendPermissionManagerSession) Approve(spendPermission SpendPermissionManagerSpendPermission) (*types.Transaction, error) {
	return _SpendPermissionManager.Contract.Approve(&_SpendPermissionManager.TransactOpts, spendPermission)
}

// Approve is a paid mutator transaction binding the contract method 0x33211c30.
//
// Solidity: function approve((address,address,address,uint160,uint48,uint48,uint48,uint256,bytes) spendPermission) returns(bool)
func (_SpendPermissionManager *SpendPermissionManagerTransactorSession) Approve(spendPermission SpendPermissionManagerSpendPermission) (*types.Transaction, error) {
	return _SpendPermissionManager.Contract.Approve(&_SpendPermissionManager.TransactOpts, spendPermission)
}

// ApproveWithSignature is a paid mutator transaction binding the contract method 0xb9ffc8e1.
//
// Solidity: function approveWithSignature((address,address,address,uint160,uint48,uint48,uint48,uint256,bytes) spendPermission, bytes signature) returns(bool)
func (_SpendPermissionManager *SpendPermissionManagerTransactor) ApproveWithSignature(opts *bind.TransactOpts, spendPermission SpendPermissionManagerSpendPermission, signature []byte) (*types.Transaction, error) {
	return _SpendPermissionManager.contract.Transact(opts, "approveWithSignature", spendPermission, signature)
}

// ApproveWithSignature is a paid mutator transaction binding the contract method 0xb9ffc8e1.
//
// Solidity: function approveWithSignature((address,address,address,uint160,uint48,uint48,uint48,uint256,bytes) spendPermission, bytes signature) returns(bool)
func (_SpendPermissionManager *SpendPermissionManagerSession) ApproveWithSignature(spendPermission SpendPermissionManagerSpendPermission, signature []byte) (*types.Transaction, error) {
	return _SpendPermissionManager.Contract.ApproveWithSignature(&_SpendPermissionManager.TransactOpts, spendPermission, signature)
}

// ApproveWithSignature is a paid mutator transaction binding the contract method 0xb9ffc8e1.
//
// Solidity: function approveWithSignature((address,address,address,uint160,uint48,uint48,uint48,uint256,bytes) spendPermission, bytes signature) returns(bool)
func (_SpendPermissionManager *SpendPermissionManagerTransactorSession) ApproveWithSignature(spendPermission SpendPermissionManagerSpendPermission, signature []byte) (*types.Transaction, error) {
	return _SpendPermissionManager.Contract.ApproveWithSignature(&_SpendPermissionManager.TransactOpts, spendPermission, signature)
}

// Revoke is a paid mutator transaction binding the contract method 0x78792f76.
//
// Solidity: function revoke((address,address,address,uint160,uint48,uint48,uint48,uint256,bytes) spendPermission) returns()
func (_SpendPermissionManager *SpendPermissionManagerTransactor) Revoke(opts *bind.TransactOpts, spendPermission SpendPermissionManagerSpendPermission) (*types.Transaction, error) {
	return _SpendPermissionManager.contract.Transact(opts, "revoke", spendPermission)
}

// Revoke is a paid mutator transaction binding the contract method 0x78792f76.
//
// Solidity: function revoke((address,address,address,uint160,uint48,uint48,uint48,uint256,bytes) spendPermission) returns()
func (_SpendPermissionManager *SpendPermissionManagerSession) Revoke(spendPermission SpendPermissionManagerSpendPermission) (*types.Transaction, error) {
	return _SpendPermissionManager.Contract.Revoke(&_SpendPermissionManager.TransactOpts, spendPermission)
}

// Revoke is a paid mutator transaction binding the contract method 0x78792f76.
//
// Solidity: function revoke((address,address,address,uint160,uint48,uint48,uint48,uint256,bytes) spendPermission) returns()
func (_SpendPermissionManager *SpendPermissionManagerTransactorSession) Revoke(spendPermission SpendPermissionManagerSpendPermission) (*types.Transaction, error) {
	return _SpendPermissionManager.Contract.Revoke(&_SpendPermissionManager.TransactOpts, spendPermission)
}

// RevokeAsSpender is a paid mutator transaction binding the contract method 0xb2c2b019.
//
// Solidity: function revokeAsSpender((address,address,address,uint160,uint48,uint48,uint48,uint256,bytes) spendPermission) returns()
func (_SpendPermissionManager *SpendPermissionManagerTransactor) RevokeAsSpender(opts *bind.TransactOpts, spendPermission SpendPermissionManagerSpendPermission) (*types.Transaction, error) {
	return _SpendPermissionManager.contract.Transact(opts, "revokeAsSpender", spendPermission)
}

// RevokeAsSpender is a paid mutator transaction binding the contract method 0xb2c2b019.
//
// Solidity: function revokeAsSpender((address,address,address,uint160,uint48,uint48,uint48,uint256,bytes) spendPermission) returns()
func (_SpendPermissionManager *SpendPermissionManagerSession) RevokeAsSpender(spendPermission SpendPermissionManagerSpendPermission) (*types.Transaction, error) {
	return _SpendPermissionManager.Contract.RevokeAsSpender(&_SpendPermissionManager.TransactOpts, spendPermission)
}

// RevokeAsSpender is a paid mutator transaction binding the contract method 0xb2c2b019.
//
// Solidity: function revokeAsSpender((address,address,address,uint160,uint48,uint48,uint48,uint256,bytes) spendPermission) returns()
func (_SpendPermissionManager *SpendPermissionManagerTransactorSession) RevokeAsSpender(spendPermission SpendPermissionManagerSpendPermission) (*types.Transaction, error) {
	return _SpendPermissionManager.Contract.RevokeAsSpender(&_SpendPermissionManager.TransactOpts, spendPermission)
}

// Spend is a paid mutator transaction binding the contract method 0x415a9735.
//
// Solidity: function spend((address,address,address,uint160,uint48,uint48,uint48,uint256,bytes) spendPermission, uint160 value) returns()
func (_SpendPermissionManager *SpendPermissionManagerTransactor) Spend(opts *bind.TransactOpts, spendPermission SpendPermissionManagerSpendPermission, value *big.Int) (*types.Transaction, error) {
	return _SpendPermissionManager.contract.Transact(opts, "spend", spendPermission, value)
}

// Spend is a paid mutator transaction binding the contract method 0x415a9735.
//
// Solidity: function spend((address,address,address,uint160,uint48,uint48,uint48,uint256,bytes) spendPermission, uint160 value) returns()
func (_SpendPermissionManager *SpendPermissionManagerSession) Spend(spendPermission SpendPermissionManagerSpendPermission, value *big.Int) (*types.Transaction, error) {
	return _SpendPermissionManager.Contract.Spend(&_SpendPermissionManager.TransactOpts, spendPermission, value)
}

// Spend is a paid mutator transaction binding the contract method 0x415a9735.
//
// Solidity: function spend((address,address,address,uint160,uint48,uint48,uint48,uint256,bytes) spendPermission, uint160 value) returns()
func (_SpendPermissionManager *SpendPermissionManagerTransactorSession) Spend(spendPermission SpendPermissionManagerSpendPermission, value *big.Int) (*types.Transaction, error) {
	return _SpendPermissionManager.Contract.Spend(&_SpendPermissionManager.TransactOpts, spendPermission, value)
}

// SpendPermissionManagerEIP712DomainChangedIterator is returned from FilterEIP712DomainChanged and is used to iterate over the raw logs and unpacked data for EIP712DomainChanged events raised by the SpendPermissionManager contract.
type SpendPermissionManagerEIP712DomainChangedIterator struct {
	Event *SpendPermissionManagerEIP712DomainChanged // Event containing the contract specifics and raw log

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
func (it *SpendPermissionManagerEIP712DomainChangedIterator) Next() bool {
	// If the iterator failed, stop iterating
	if it.fail != nil {
		return false
	}
	// If the iterator completed, deliver directly whatever's available
	if it.done {
		select {
		case log := <-it.logs:
			it.Event = new(SpendPermissionManagerEIP712DomainChanged)
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
		it.Event = new(SpendPermissionManagerEIP712DomainChanged)
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
func (it *SpendPermissionManagerEIP712DomainChangedIterator) Error() error {
	return it.fail
}

// Close terminates the iteration process, releasing any pending underlying
// resources.
func (it *SpendPermissionManagerEIP712DomainChangedIterator) Close() error {
	it.sub.Unsubscribe()
	return nil
}

// SpendPermissionManagerEIP712DomainChanged represents a EIP712DomainChanged event raised by the SpendPermissionManager contract.
type SpendPermissionManagerEIP712DomainChanged struct {
	Raw types.Log // Blockchain specific contextual infos
}

// FilterEIP712DomainChanged is a free log retrieval operation binding the contract event 0x0a6387c9ea3628b88a633bb4f3b151770f70085117a15f9bf3787cda53f13d31.
//
// Solidity: event EIP712DomainChanged()
func (_SpendPermissionManager *SpendPermissionManagerFilterer) FilterEIP712DomainChanged(opts *bind.FilterOpts) (*SpendPermissionManagerEIP712DomainChangedIterator, error) {

	logs, sub, err := _SpendPermissionManager.contract.FilterLogs(opts, "EIP712DomainChanged")
	if err != nil {
		return nil, err
	}
	return &SpendPermissionManagerEIP712DomainChangedIterator{contract: _SpendPermissionManager.contract, event: "EIP712DomainChanged", logs: logs, sub: sub}, nil
}

// WatchEIP712DomainChanged is a free log subscription operation binding the contract event 0x0a6387c9ea3628b88a633bb4f3b151770f70085117a15f9bf3787cda53f13d31.
//
// Solidity: event EIP712DomainChanged()
func (_SpendPermissionManager *SpendPermissionManagerFilterer) WatchEIP712DomainChanged(opts *bind.WatchOpts, sink chan<- *SpendPermissionManagerEIP712DomainChanged) (event.Subscription, error) {

	logs, sub, err := _SpendPermissionManager.contract.WatchLogs(opts, "EIP712DomainChanged")
	if err != nil {
		return nil, err
	}
	return event.NewSubscription(func(quit <-chan struct{}) error {
		defer sub.Unsubscribe()
		for {
			select {
			case log := <-logs:
				// New log arrived, parse the event and forward to the user
				event := new(SpendPermissionManagerEIP712DomainChanged)
				if err := _SpendPermissionManager.contract.UnpackLog(event, "EIP712DomainChanged", log); err != nil {
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

// ParseEIP712DomainChanged is a log parse operation binding the contract event 0x0a6387c9ea3628b88a633bb4f3b151770f70085117a15f9bf3787cda53f13d31.
//
// Solidity: event EIP712DomainChanged()
func (_SpendPermissionManager *SpendPermissionManagerFilterer) ParseEIP712DomainChanged(log types.Log) (*SpendPermissionManagerEIP712DomainChanged, error) {
	event := new(SpendPermissionManagerEIP712DomainChanged)
	if err := _SpendPermissionManager.contract.UnpackLog(event, "EIP712DomainChanged", log); err != nil {
		return nil, err
	}
	event.Raw = log
	return event, nil
}

// SpendPermissionManagerSpendPermissionApprovedIterator is returned from FilterSpendPermissionApproved and is used to iterate over the raw logs and unpacked data for SpendPermissionApproved events raised by the SpendPermissionManager contract.
type SpendPermissionManagerSpendPermissionApprovedIterator struct {
	Event *SpendPermissionManagerSpendPermissionApproved // Event containing the contract specifics and raw log

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
func (it *SpendPermissionManagerSpendPermissionApprovedIterator) Next() bool {
	// If the iterator failed, stop iterating
	if it.fail != nil {
		return false
	}
	// If the iterator completed, deliver directly whatever's available
	if it.done {
		select {
		case log := <-it.logs:
			it.Event = new(SpendPermissionManagerSpendPermissionApproved)
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
		it.Event = new(SpendPermissionManagerSpendPermissionApproved)
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
func (it *SpendPermissionManagerSpendPermissionApprovedIterator) Error() error {
	return it.fail
}

// Close terminates the iteration process, releasing any pending underlying
// resources.
func (it *SpendPermissionManagerSpendPermissionApprovedIterator) Close() error {
	it.sub.Unsubscribe()
	return nil
}

// SpendPermissionManagerSpendPermissionApproved represents a SpendPermissionApproved event raised by the SpendPermissionManager contract.
type SpendPermissionManagerSpendPermissionApproved struct {
	Hash            [32]byte
	SpendPermission SpendPermissionManagerSpendPermission
	Raw             types.Log // Blockchain specific contextual infos
}

// FilterSpendPermissionApproved is a free log retrieval operation binding the contract event 0x40a18f36db551498d122b5bfe203819b4c710502e7401e2bd6d2ccc6d2ceb558.
//
// Solidity: event SpendPermissionApproved(bytes32 indexed hash, (address,address,address,uint160,uint48,uint48,uint48,uint256,bytes) spendPermission)
func (_SpendPermissionManager *SpendPermissionManagerFilterer) FilterSpendPermissionApproved(opts *bind.FilterOpts, hash [][32]byte) (*SpendPermissionManagerSpendPermissionApprovedIterator, error) {

	var hashRule []interface{}
	for _, hashItem := range hash {
		hashRule = append(hashRule, hashItem)
	}

	logs, sub, err := _SpendPermissionManager.contract.FilterLogs(opts, "SpendPermissionApproved", hashRule)
	if err != nil {
		return nil, err
	}
	return &SpendPermissionManagerSpendPermissionApprovedIterator{contract: _SpendPermissionManager.contract, event: "SpendPermissionApproved", logs: logs, sub: sub}, nil
}

// WatchSpendPermissionApproved is a free log subscription operation binding the contract event 0x40a18f36db551498d122b5bfe203819b4c710502e7401e2bd6d2ccc6d2ceb558.
//
// Solidity: event SpendPermissionApproved(bytes32 indexed hash, (address,address,address,uint160,uint48,uint48,uint48,uint256,bytes) spendPermission)
func (_SpendPermissionManager *SpendPermissionManagerFilterer) WatchSpendPermissionApproved(opts *bind.WatchOpts, sink chan<- *SpendPermissionManagerSpendPermissionApproved, hash [][32]byte) (event.Subscription, error) {

	var hashRule []interface{}
	for _, hashItem := range hash {
		hashRule = append(hashRule, hashItem)
	}

	logs, sub, err := _SpendPermissionManager.contract.WatchLogs(opts, "SpendPermissionApproved", hashRule)
	if err != nil {
		return nil, err
	}
	return event.NewSubscription(func(quit <-chan struct{}) error {
		defer sub.Unsubscribe()
		for {
			select {
			case log := <-logs:
				// New log arrived, parse the event and forward to the user
				event := new(SpendPermissionManagerSpendPermissionApproved)
				if err := _SpendPermissionManager.contract.UnpackLog(event, "SpendPermissionApproved", log); err != nil {
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

// ParseSpendPermissionApproved is a log parse operation binding the contract event 0x40a18f36db551498d122b5bfe203819b4c710502e7401e2bd6d2ccc6d2ceb558.
//
// Solidity: event SpendPermissionApproved(bytes32 indexed hash, (address,address,address,uint160,uint48,uint48,uint48,uint256,bytes) spendPermission)
func (_SpendPermissionManager *SpendPermissionManagerFilterer) ParseSpendPermissionApproved(log types.Log) (*SpendPermissionManagerSpendPermissionApproved, error) {
	event := new(SpendPermissionManagerSpendPermissionApproved)
	if err := _SpendPermissionManager.contract.UnpackLog(event, "SpendPermissionApproved", log); err != nil {
		return nil, err
	}
	event.Raw = log
	return event, nil
}

// SpendPermissionManagerSpendPermissionRevokedIterator is returned from FilterSpendPermissionRevoked and is used to iterate over the raw logs and unpacked data for SpendPermissionRevoked events raised by the SpendPermissionManager contract.
type SpendPermissionManagerSpendPermissionRevokedIterator struct {
	Event *SpendPermissionManagerSpendPermissionRevoked // Event containing the contract specifics and raw log

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
func (it *SpendPermissionManagerSpendPermissionRevokedIterator) Next() bool {
	// If the iterator failed, stop iterating
	if it.fail != nil {
		return false
	}
	// If the iterator completed, deliver directly whatever's available
	if it.done {
		select {
		case log := <-it.logs:
			it.Event = new(SpendPermissionManagerSpendPermissionRevoked)
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
		it.Event = new(SpendPermissionManagerSpendPermissionRevoked)
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
func (it *SpendPermissionManagerSpendPermissionRevokedIterator) Error() error {
	return it.fail
}

// Close terminates the iteration process, releasing any pending underlying
// resources.
func (it *SpendPermissionManagerSpendPermissionRevokedIterator) Close() error {
	it.sub.Unsubscribe()
	return nil
}

// SpendPermissionManagerSpendPermissionRevoked represents a SpendPermissionRevoked event raised by the SpendPermissionManager contract.
type SpendPermissionManagerSpendPermissionRevoked struct {
	Hash            [32]byte
	SpendPermission SpendPermissionManagerSpendPermission
	Raw             types.Log // Blockchain specific contextual infos
}

// FilterSpendPermissionRevoked is a free log retrieval operation binding the contract event 0xff59e520513907d7deffc74c82b5492b06b2988d7d03dacfd4995de47fe94c95.
//
// Solidity: event SpendPermissionRevoked(bytes32 indexed hash, (address,address,address,uint160,uint48,uint48,uint48,uint256,bytes) spendPermission)
func (_SpendPermissionManager *SpendPermissionManagerFilterer) FilterSpendPermissionRevoked(opts *bind.FilterOpts, hash [][32]byte) (*SpendPermissionManagerSpendPermissionRevokedIterator, error) {

	var hashRule []interface{}
	for _, hashItem := range hash {
		hashRule = append(hashRule, hashItem)
	}

	logs, sub, err := _SpendPermissionManager.contract.FilterLogs(opts, "SpendPermissionRevoked", hashRule)
	if err != nil {
		return nil, err
	}
	return &SpendPermissionManagerSpendPermissionRevokedIterator{contract: _SpendPermissionManager.contract, event: "SpendPermissionRevoked", logs: logs, sub: sub}, nil
}

// WatchSpendPermissionRevoked is a free log subscription operation binding the contract event 0xff59e520513907d7deffc74c82b5492b06b2988d7d03dacfd4995de47fe94c95.
//
// Solidity: event SpendPermissionRevoked(bytes32 indexed hash, (address,address,address,uint160,uint48,uint48,uint48,uint256,bytes) spendPermission)
func (_SpendPermissionManager *SpendPermissionManagerFilterer) WatchSpendPermissionRevoked(opts *bind.WatchOpts, sink chan<- *SpendPermissionManagerSpendPermissionRevoked, hash [][32]byte) (event.Subscription, error) {

	var hashRule []interface{}
	for _, hashItem := range hash {
		hashRule = append(hashRule, hashItem)
	}

	logs, sub, err := _SpendPermissionManager.contract.WatchLogs(opts, "SpendPermissionRevoked", hashRule)
	if err != nil {
		return nil, err
	}
	return event.NewSubscription(func(quit <-chan struct{}) error {
		defer sub.Unsubscribe()
		for {
			select {
			case log := <-logs:
				// New log arrived, parse the event and forward to the user
				event := new(SpendPermissionManagerSpendPermissionRevoked)
				if err := _SpendPermissionManager.contract.UnpackLog(event, "SpendPermissionRevoked", log); err != nil {
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

// ParseSpendPermissionRevoked is a log parse operation binding the contract event 0xff59e520513907d7deffc74c82b5492b06b2988d7d03dacfd4995de47fe94c95.
//
// Solidity: event SpendPermissionRevoked(bytes32 indexed hash, (address,address,address,uint160,uint48,uint48,uint48,uint256,bytes) spendPermission)
func (_SpendPermissionManager *SpendPermissionManagerFilterer) ParseSpendPermissionRevoked(log types.Log) (*SpendPermissionManagerSpendPermissionRevoked, error) {
	event := new(SpendPermissionManagerSpendPermissionRevoked)
	if err := _SpendPermissionManager.contract.UnpackLog(event, "SpendPermissionRevoked", log); err != nil {
		return nil, err
	}
	event.Raw = log
	return event, nil
}

// SpendPermissionManagerSpendPermissionUsedIterator is returned from FilterSpendPermissionUsed and is used to iterate over the raw logs and unpacked data for SpendPermissionUsed events raised by the SpendPermissionManager contract.
type SpendPermissionManagerSpendPermissionUsedIterator struct {
	Event *SpendPermissionManagerSpendPermissionUsed // Event containing the contract specifics and raw log

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
func (it *SpendPermissionManagerSpendPermissionUsedIterator) Next() bool {
	// If the iterator failed, stop iterating
	if it.fail != nil {
		return false
	}
	// If the iterator completed, deliver directly whatever's available
	if it.done {
		select {
		case log := <-it.logs:
			it.Event = new(SpendPermissionManagerSpendPermissionUsed)
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
		it.Event = new(SpendPermissionManagerSpendPermissionUsed)
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
func (it *SpendPermissionManagerSpendPermissionUsedIterator) Error() error {
	return it.fail
}

// Close terminates the iteration process, releasing any pending underlying
// resources.
func (it *SpendPermissionManagerSpendPermissionUsedIterator) Close() error {
	it.sub.Unsubscribe()
	return nil
}

// SpendPermissionManagerSpendPermissionUsed represents a SpendPermissionUsed event raised by the SpendPermissionManager contract.
type SpendPermissionManagerSpendPermissionUsed struct {
	Hash        [32]byte
	Account     common.Address
	Spender     common.Address
	Token       common.Address
	PeriodSpend SpendPermissionManagerPeriodSpend
	Raw         types.Log // Blockchain specific contextual infos
}

// FilterSpendPermissionUsed is a free log retrieval operation binding the contract event 0xbcba65b462dfff1a0af642e2ccd28778c64fcb16da2132dabf6eee8906d6753c.
//
// Solidity: event SpendPermissionUsed(bytes32 indexed hash, address indexed account, address indexed spender, address token, (uint48,uint48,uint160) periodSpend)
func (_SpendPermissionManager *SpendPermissionManagerFilterer) FilterSpendPermissionUsed(opts *bind.FilterOpts, hash [][32]byte, account []common.Address, spender []common.Address) (*SpendPermissionManagerSpendPermissionUsedIterator, error) {

	var hashRule []interface{}
	for _, hashItem := range hash {
		hashRule = append(hashRule, hashItem)
	}
	var accountRule []interface{}
	for _, accountItem := range account {
		accountRule = append(accountRule, accountItem)
	}
	var spenderRule []interface{}
	for _, spenderItem := range spender {
		spenderRule = append(spenderRule, spenderItem)
	}

	logs, sub, err := _SpendPermissionManager.contract.FilterLogs(opts, "SpendPermissionUsed", hashRule, accountRule, spenderRule)
	if err != nil {
		return nil, err
	}
	return &SpendPermissionManagerSpendPermissionUsedIterator{contract: _SpendPermissionManager.contract, event: "SpendPermissionUsed", logs: logs, sub: sub}, nil
}

// WatchSpendPermissionUsed is a free log subscription operation binding the contract event 0xbcba65b462dfff1a0af642e2ccd28778c64fcb16da2132dabf6eee8906d6753c.
//
// Solidity: event SpendPermissionUsed(bytes32 indexed hash, address indexed account, address indexed spender, address token, (uint48,uint48,uint160) periodSpend)
func (_SpendPermissionManager *SpendPermissionManagerFilterer) WatchSpendPermissionUsed(opts *bind.WatchOpts, sink chan<- *SpendPermissionManagerSpendPermissionUsed, hash [][32]byte, account []common.Address, spender []common.Address) (event.Subscription, error) {

	var hashRule []interface{}
	for _, hashItem := range hash {
		hashRule = append(hashRule, hashItem)
	}
	var accountRule []interface{}
	for _, accountItem := range account {
		accountRule = append(accountRule, accountItem)
	}
	var spenderRule []interface{}
	for _, spenderItem := range spender {
		spenderRule = append(spenderRule, spenderItem)
	}

	logs, sub, err := _SpendPermissionManager.contract.WatchLogs(opts, "SpendPermissionUsed", hashRule, accountRule, spenderRule)
	if err != nil {
		return nil, err
	}
	return event.NewSubscription(func(quit <-chan struct{}) error {
		defer sub.Unsubscribe()
		for {
			select {
			case log := <-logs:
				// New log arrived, parse the event and forward to the user
				event := new(SpendPermissionManagerSpendPermissionUsed)
				if err := _SpendPermissionManager.contract.UnpackLog(event, "SpendPermissionUsed", log); err != nil {
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

// ParseSpendPermissionUsed is a log parse operation binding the contract event 0xbcba65b462dfff1a0af642e2ccd28778c64fcb16da2132dabf6eee8906d6753c.
//
// Solidity: event SpendPermissionUsed(bytes32 indexed hash, address indexed account, address indexed spender, address token, (uint48,uint48,uint160) periodSpend)
func (_SpendPermissionManager *SpendPermissionManagerFilterer) ParseSpendPermissionUsed(log types.Log) (*SpendPermissionManagerSpendPermissionUsed, error) {
	event := new(SpendPermissionManagerSpendPermissionUsed)
	if err := _SpendPermissionManager.contract.UnpackLog(event, "SpendPermissionUsed", log); err != nil {
		return nil, err
	}
	event.Raw = log
	return event, nil
}
