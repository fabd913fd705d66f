// Code generated - DO NOT EDIT.
// This file is a generated binding and any manual changes will be lost.

package contract

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

// TestStablecoinMetaData contains all meta data concerning the TestStablecoin contract.
var TestStablecoinMetaData = &bind.MetaData{
	ABI: "[{\"inputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"constructor\"},{\"inputs\":[],\"name\":\"Insufficient\",\"type\":\"error\"},{\"inputs\":[],\"name\":\"NotMinter\",\"type\":\"error\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":true,\"internalType\":\"address\",\"name\":\"owner\",\"type\":\"address\"},{\"indexed\":true,\"internalType\":\"address\",\"name\":\"spender\",\"type\":\"address\"},{\"indexed\":false,\"internalType\":\"uint256\",\"name\":\"value\",\"type\":\"uint256\"}],\"name\":\"Approval\",\"type\":\"event\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":true,\"internalType\":\"address\",\"name\":\"from\",\"type\":\"address\"},{\"indexed\":true,\"internalType\":\"address\",\"name\":\"to\",\"type\":\"address\"},{\"indexed\":false,\"internalType\":\"uint256\",\"name\":\"value\",\"type\":\"uint256\"}],\"name\":\"Transfer\",\"type\":\"event\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"\",\"type\":\"address\"},{\"internalType\":\"address\",\"name\":\"\",\"type\":\"address\"}],\"name\":\"allowance\",\"outputs\":[{\"internalType\":\"uint256\",\"name\":\"\",\"type\":\"uint256\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"spender\",\"type\":\"address\"},{\"internalType\":\"uint256\",\"name\":\"amount\",\"type\":\"uint256\"}],\"name\":\"approve\",\"outputs\":[{\"internalType\":\"bool\",\"name\":\"\",\"type\":\"bool\"}],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"\",\"type\":\"address\"}],\"name\":\"balanceOf\",\"outputs\":[{\"internalType\":\"uint256\",\"name\":\"\",\"type\":\"uint256\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"decimals\",\"outputs\":[{\"internalType\":\"uint8\",\"name\":\"\",\"type\":\"uint8\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"to\",\"type\":\"address\"},{\"internalType\":\"uint256\",\"name\":\"amount\",\"type\":\"uint256\"}],\"name\":\"mint\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"minter\",\"outputs\":[{\"internalType\":\"address\",\"name\":\"\",\"type\":\"address\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"name\",\"outputs\":[{\"internalType\":\"string\",\"name\":\"\",\"type\":\"string\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"symbol\",\"outputs\":[{\"internalType\":\"string\",\"name\":\"\",\"type\":\"string\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"totalSupply\",\"outputs\":[{\"internalType\":\"uint256\",\"name\":\"\",\"type\":\"uint256\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"to\",\"type\":\"address\"},{\"internalType\":\"uint256\",\"name\":\"amount\",\"type\":\"uint256\"}],\"name\":\"transfer\",\"outputs\":[{\"internalType\":\"bool\",\"name\":\"\",\"type\":\"bool\"}],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"from\",\"type\":\"address\"},{\"internalType\":\"address\",\"name\":\"to\",\"type\":\"address\"},{\"internalType\":\"uint256\",\"name\":\"amount\",\"type\":\"uint256\"}],\"name\":\"transferFrom\",\"outputs\":[{\"internalType\":\"bool\",\"name\":\"\",\"type\":\"bool\"}],\"stateMutability\":\"nonpayable\",\"type\":\"function\"}]",
	Bin: "0x60a0604052348015600e575f5ffd5b50336080526080516106c26100325f395f818161011f015261037301526106c25ff3fe608060405234801561000f575f5ffd5b50600436106100c4575f3560e01c8063313ce5671161007d57806395d89b411161005857806395d89b41146101f3578063a9059cbb1461022f578063dd62ed3e14610242575f5ffd5b8063313ce567146101a557806340c10f19146101bf57806370a08231146101d4575f5ffd5b8063095ea7b3116100ad578063095ea7b31461015957806318160ddd1461017c57806323b872dd14610192575f5ffd5b806306fdde03146100c8578063075461721461011a575b5f5ffd5b6101046040518060400160405280601281526020017f537761726d77616765205465737420555344000000000000000000000000000081525081565b6040516101119190610536565b60405180910390f35b6101417f000000000000000000000000000000000000000000000000000000000000000081565b6040516001600160a01b039091168152602001610111565b61016c610167366004610586565b61026c565b6040519015158152602001610111565b6101845f5481565b604051908152602001610111565b61016c6101a03660046105ae565b6102d8565b6101ad600681565b60405160ff9091168152602001610111565b6101d26101cd366004610586565b610368565b005b6101846101e23660046105e8565b60016020525f908152604090205481565b6101046040518060400160405280600481526020017f745553440000000000000000000000000000000000000000000000000000000081525081565b61016c61023d366004610586565b61044f565b610184610250366004610608565b600260209081525f928352604080842090915290825290205481565b335f8181526002602090815260408083206001600160a01b038716808552925280832085905551919290917f8c5be1e5ebec7d5bd14f71427d1e84f3dd0314c0f7b2291e5b200ac8c7c3b925906102c69086815260200190565b60405180910390a35060015b92915050565b6001600160a01b0383165f9081526002602090815260408083203384529091528120545f198114610352578281101561032457604051631dc930eb60e01b815260040160405180910390fd5b61032e8382610666565b6001600160a01b0386165f9081526002602090815260408083203384529091529020555b61035d858585610464565b506001949350505050565b336001600160a01b037f000000000000000000000000000000000000000000000000000000000000000016146103ca576040517ff8d2906c00000000000000000000000000000000000000000000000000000000815260040160405180910390fd5b805f5f8282546103da9190610679565b90915550506001600160a01b0382165f9081526001602052604081208054839290610406908490610679565b90915550506040518181526001600160a01b038316905f907fddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef9060200160405180910390a35050565b5f61045b338484610464565b50600192915050565b6001600160a01b0383165f908152600160205260409020548181101561049d57604051631dc930eb60e01b815260040160405180910390fd5b6104a78282610666565b6001600160a01b038086165f9081526001602052604080822093909355908516815290812080548492906104dc908490610679565b92505081905550826001600160a01b0316846001600160a01b03167fddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef8460405161052891815260200190565b60405180910390a350505050565b602081525f82518060208401528060208501604085015e5f604082850101526040601f19601f83011684010191505092915050565b80356001600160a01b0381168114610581575f5ffd5b919050565b5f5f60408385031215610597575f5ffd5b6105a08361056b565b946020939093013593505050565b5f5f5f606084860312156105c0575f5ffd5b6105c98461056b565b92506105d76020850161056b565b929592945050506040919091013590565b5f602082840312156105f8575f5ffd5b6106018261056b565b9392505050565b5f5f60408385031215610619575f5ffd5b6106228361056b565b91506106306020840161056b565b90509250929050565b7f4e487b71000000000000000000000000000000000000000000000000000000005f52601160045260245ffd5b818103818111156102d2576102d2610639565b808201808211156102d2576102d261063956fea26469706673582212206a2a978fba158123c2bd4266342dc0ad2ca3d8251cd983712d76da67c9f8a23564736f6c63430008250033",
}

// TestStablecoinABI is the input ABI used to generate the binding from.
// Deprecated: Use TestStablecoinMetaData.ABI instead.
var TestStablecoinABI = TestStablecoinMetaData.ABI

// TestStablecoinBin is the compiled bytecode used for deploying new contracts.
// Deprecated: Use TestStablecoinMetaData.Bin instead.
var TestStablecoinBin = TestStablecoinMetaData.Bin

// DeployTestStablecoin deploys a new Ethereum contract, binding an instance of TestStablecoin to it.
func DeployTestStablecoin(auth *bind.TransactOpts, backend bind.ContractBackend) (common.Address, *types.Transaction, *TestStablecoin, error) {
	parsed, err := TestStablecoinMetaData.GetAbi()
	if err != nil {
		return common.Address{}, nil, nil, err
	}
	if parsed == nil {
		return common.Address{}, nil, nil, errors.New("GetABI returned nil")
	}

	address, tx, contract, err := bind.DeployContract(auth, *parsed, common.FromHex(TestStablecoinBin), backend)
	if err != nil {
		return common.Address{}, nil, nil, err
	}
	return address, tx, &TestStablecoin{TestStablecoinCaller: TestStablecoinCaller{contract: contract}, TestStablecoinTransactor: TestStablecoinTransactor{contract: contract}, TestStablecoinFilterer: TestStablecoinFilterer{contract: contract}}, nil
}

// TestStablecoin is an auto generated Go binding around an Ethereum contract.
type TestStablecoin struct {
	TestStablecoinCaller     // Read-only binding to the contract
	TestStablecoinTransactor // Write-only binding to the contract
	TestStablecoinFilterer   // Log filterer for contract events
}

// TestStablecoinCaller is an auto generated read-only Go binding around an Ethereum contract.
type TestStablecoinCaller struct {
	contract *bind.BoundContract // Generic contract wrapper for the low level calls
}

// TestStablecoinTransactor is an auto generated write-only Go binding around an Ethereum contract.
type TestStablecoinTransactor struct {
	contract *bind.BoundContract // Generic contract wrapper for the low level calls
}

// TestStablecoinFilterer is an auto generated log filtering Go binding around an Ethereum contract events.
type TestStablecoinFilterer struct {
	contract *bind.BoundContract // Generic contract wrapper for the low level calls
}

// TestStablecoinSession is an auto generated Go binding around an Ethereum contract,
// with pre-set call and transact options.
type TestStablecoinSession struct {
	Contract     *TestStablecoin   // Generic contract binding to set the session for
	CallOpts     bind.CallOpts     // Call options to use throughout this session
	TransactOpts bind.TransactOpts // Transaction auth options to use throughout this session
}

// TestStablecoinCallerSession is an auto generated read-only Go binding around an Ethereum contract,
// with pre-set call options.
type TestStablecoinCallerSession struct {
	Contract *TestStablecoinCaller // Generic contract caller binding to set the session for
	CallOpts bind.CallOpts         // Call options to use throughout this session
}

// TestStablecoinTransactorSession is an auto generated write-only Go binding around an Ethereum contract,
// with pre-set transact options.
type TestStablecoinTransactorSession struct {
	Contract     *TestStablecoinTransactor // Generic contract transactor binding to set the session for
	TransactOpts bind.TransactOpts         // Transaction auth options to use throughout this session
}

// TestStablecoinRaw is an auto generated low-level Go binding around an Ethereum contract.
type TestStablecoinRaw struct {
	Contract *TestStablecoin // Generic contract binding to access the raw methods on
}

// TestStablecoinCallerRaw is an auto generated low-level read-only Go binding around an Ethereum contract.
type TestStablecoinCallerRaw struct {
	Contract *TestStablecoinCaller // Generic read-only contract binding to access the raw methods on
}

// TestStablecoinTransactorRaw is an auto generated low-level write-only Go binding around an Ethereum contract.
type TestStablecoinTransactorRaw struct {
	Contract *TestStablecoinTransactor // Generic write-only contract binding to access the raw methods on
}

// NewTestStablecoin creates a new instance of TestStablecoin, bound to a specific deployed contract.
func NewTestStablecoin(address common.Address, backend bind.ContractBackend) (*TestStablecoin, error) {
	contract, err := bindTestStablecoin(address, backend, backend, backend)
	if err != nil {
		return nil, err
	}
	return &TestStablecoin{TestStablecoinCaller: TestStablecoinCaller{contract: contract}, TestStablecoinTransactor: TestStablecoinTransactor{contract: contract}, TestStablecoinFilterer: TestStablecoinFilterer{contract: contract}}, nil
}

// NewTestStablecoinCaller creates a new read-only instance of TestStablecoin, bound to a specific deployed contract.
func NewTestStablecoinCaller(address common.Address, caller bind.ContractCaller) (*TestStablecoinCaller, error) {
	contract, err := bindTestStablecoin(address, caller, nil, nil)
	if err != nil {
		return nil, err
	}
	return &TestStablecoinCaller{contract: contract}, nil
}

// NewTestStablecoinTransactor creates a new write-only instance of TestStablecoin, bound to a specific deployed contract.
func NewTestStablecoinTransactor(address common.Address, transactor bind.ContractTransactor) (*TestStablecoinTransactor, error) {
	contract, err := bindTestStablecoin(address, nil, transactor, nil)
	if err != nil {
		return nil, err
	}
	return &TestStablecoinTransactor{contract: contract}, nil
}

// NewTestStablecoinFilterer creates a new log filterer instance of TestStablecoin, bound to a specific deployed contract.
func NewTestStablecoinFilterer(address common.Address, filterer bind.ContractFilterer) (*TestStablecoinFilterer, error) {
	contract, err := bindTestStablecoin(address, nil, nil, filterer)
	if err != nil {
		return nil, err
	}
	return &TestStablecoinFilterer{contract: contract}, nil
}

// bindTestStablecoin binds a generic wrapper to an already deployed contract.
func bindTestStablecoin(address common.Address, caller bind.ContractCaller, transactor bind.ContractTransactor, filterer bind.ContractFilterer) (*bind.BoundContract, error) {
	parsed, err := TestStablecoinMetaData.GetAbi()
	if err != nil {
		return nil, err
	}
	return bind.NewBoundContract(address, *parsed, caller, transactor, filterer), nil
}

// Call invokes the (constant) contract method with params as input values and
// sets the output to result. The result type might be a single field for simple
// returns, a slice of interfaces for anonymous returns and a struct for named
// returns.
func (_TestStablecoin *TestStablecoinRaw) Call(opts *bind.CallOpts, result *[]interface{}, method string, params ...interface{}) error {
	return _TestStablecoin.Contract.TestStablecoinCaller.contract.Call(opts, result, method, params...)
}

// Transfer initiates a plain transaction to move funds to the contract, calling
// its default method if one is available.
func (_TestStablecoin *TestStablecoinRaw) Transfer(opts *bind.TransactOpts) (*types.Transaction, error) {
	return _TestStablecoin.Contract.TestStablecoinTransactor.contract.Transfer(opts)
}

// Transact invokes the (paid) contract method with params as input values.
func (_TestStablecoin *TestStablecoinRaw) Transact(opts *bind.TransactOpts, method string, params ...interface{}) (*types.Transaction, error) {
	return _TestStablecoin.Contract.TestStablecoinTransactor.contract.Transact(opts, method, params...)
}

// Call invokes the (constant) contract method with params as input values and
// sets the output to result. The result type might be a single field for simple
// returns, a slice of interfaces for anonymous returns and a struct for named
// returns.
func (_TestStablecoin *TestStablecoinCallerRaw) Call(opts *bind.CallOpts, result *[]interface{}, method string, params ...interface{}) error {
	return _TestStablecoin.Contract.contract.Call(opts, result, method, params...)
}

// Transfer initiates a plain transaction to move funds to the contract, calling
// its default method if one is available.
func (_TestStablecoin *TestStablecoinTransactorRaw) Transfer(opts *bind.TransactOpts) (*types.Transaction, error) {
	return _TestStablecoin.Contract.contract.Transfer(opts)
}

// Transact invokes the (paid) contract method with params as input values.
func (_TestStablecoin *TestStablecoinTransactorRaw) Transact(opts *bind.TransactOpts, method string, params ...interface{}) (*types.Transaction, error) {
	return _TestStablecoin.Contract.contract.Transact(opts, method, params...)
}

// Allowance is a free data retrieval call binding the contract method 0xdd62ed3e.
//
// Solidity: function allowance(address , address ) view returns(uint256)
func (_TestStablecoin *TestStablecoinCaller) Allowance(opts *bind.CallOpts, arg0 common.Address, arg1 common.Address) (*big.Int, error) {
	var out []interface{}
	err := _TestStablecoin.contract.Call(opts, &out, "allowance", arg0, arg1)

	if err != nil {
		return *new(*big.Int), err
	}

	out0 := *abi.ConvertType(out[0], new(*big.Int)).(**big.Int)

	return out0, err

}

// Allowance is a free data retrieval call binding the contract method 0xdd62ed3e.
//
// Solidity: function allowance(address , address ) view returns(uint256)
func (_TestStablecoin *TestStablecoinSession) Allowance(arg0 common.Address, arg1 common.Address) (*big.Int, error) {
	return _TestStablecoin.Contract.Allowance(&_TestStablecoin.CallOpts, arg0, arg1)
}

// Allowance is a free data retrieval call binding the contract method 0xdd62ed3e.
//
// Solidity: function allowance(address , address ) view returns(uint256)
func (_TestStablecoin *TestStablecoinCallerSession) Allowance(arg0 common.Address, arg1 common.Address) (*big.Int, error) {
	return _TestStablecoin.Contract.Allowance(&_TestStablecoin.CallOpts, arg0, arg1)
}

// BalanceOf is a free data retrieval call binding the contract method 0x70a08231.
//
// Solidity: function balanceOf(address ) view returns(uint256)
func (_TestStablecoin *TestStablecoinCaller) BalanceOf(opts *bind.CallOpts, arg0 common.Address) (*big.Int, error) {
	var out []interface{}
	err := _TestStablecoin.contract.Call(opts, &out, "balanceOf", arg0)

	if err != nil {
		return *new(*big.Int), err
	}

	out0 := *abi.ConvertType(out[0], new(*big.Int)).(**big.Int)

	return out0, err

}

// BalanceOf is a free data retrieval call binding the contract method 0x70a08231.
//
// Solidity: function balanceOf(address ) view returns(uint256)
func (_TestStablecoin *TestStablecoinSession) BalanceOf(arg0 common.Address) (*big.Int, error) {
	return _TestStablecoin.Contract.BalanceOf(&_TestStablecoin.CallOpts, arg0)
}

// BalanceOf is a free data retrieval call binding the contract method 0x70a08231.
//
// Solidity: function balanceOf(address ) view returns(uint256)
func (_TestStablecoin *TestStablecoinCallerSession) BalanceOf(arg0 common.Address) (*big.Int, error) {
	return _TestStablecoin.Contract.BalanceOf(&_TestStablecoin.CallOpts, arg0)
}

// Decimals is a free data retrieval call binding the contract method 0x313ce567.
//
// Solidity: function decimals() view returns(uint8)
func (_TestStablecoin *TestStablecoinCaller) Decimals(opts *bind.CallOpts) (uint8, error) {
	var out []interface{}
	err := _TestStablecoin.contract.Call(opts, &out, "decimals")

	if err != nil {
		return *new(uint8), err
	}

	out0 := *abi.ConvertType(out[0], new(uint8)).(*uint8)

	return out0, err

}

// Decimals is a free data retrieval call binding the contract method 0x313ce567.
//
// Solidity: function decimals() view returns(uint8)
func (_TestStablecoin *TestStablecoinSession) Decimals() (uint8, error) {
	return _TestStablecoin.Contract.Decimals(&_TestStablecoin.CallOpts)
}

// Decimals is a free data retrieval call binding the contract method 0x313ce567.
//
// Solidity: function decimals() view returns(uint8)
func (_TestStablecoin *TestStablecoinCallerSession) Decimals() (uint8, error) {
	return _TestStablecoin.Contract.Decimals(&_TestStablecoin.CallOpts)
}

// Minter is a free data retrieval call binding the contract method 0x07546172.
//
// Solidity: function minter() view returns(address)
func (_TestStablecoin *TestStablecoinCaller) Minter(opts *bind.CallOpts) (common.Address, error) {
	var out []interface{}
	err := _TestStablecoin.contract.Call(opts, &out, "minter")

	if err != nil {
		return *new(common.Address), err
	}

	out0 := *abi.ConvertType(out[0], new(common.Address)).(*common.Address)

	return out0, err

}

// Minter is a free data retrieval call binding the contract method 0x07546172.
//
// Solidity: function minter() view returns(address)
func (_TestStablecoin *TestStablecoinSession) Minter() (common.Address, error) {
	return _TestStablecoin.Contract.Minter(&_TestStablecoin.CallOpts)
}

// Minter is a free data retrieval call binding the contract method 0x07546172.
//
// Solidity: function minter() view returns(address)
func (_TestStablecoin *TestStablecoinCallerSession) Minter() (common.Address, error) {
	return _TestStablecoin.Contract.Minter(&_TestStablecoin.CallOpts)
}

// Name is a free data retrieval call binding the contract method 0x06fdde03.
//
// Solidity: function name() view returns(string)
func (_TestStablecoin *TestStablecoinCaller) Name(opts *bind.CallOpts) (string, error) {
	var out []interface{}
	err := _TestStablecoin.contract.Call(opts, &out, "name")

	if err != nil {
		return *new(string), err
	}

	out0 := *abi.ConvertType(out[0], new(string)).(*string)

	return out0, err

}

// Name is a free data retrieval call binding the contract method 0x06fdde03.
//
// Solidity: function name() view returns(string)
func (_TestStablecoin *TestStablecoinSession) Name() (string, error) {
	return _TestStablecoin.Contract.Name(&_TestStablecoin.CallOpts)
}

// Name is a free data retrieval call binding the contract method 0x06fdde03.
//
// Solidity: function name() view returns(string)
func (_TestStablecoin *TestStablecoinCallerSession) Name() (string, error) {
	return _TestStablecoin.Contract.Name(&_TestStablecoin.CallOpts)
}

// Symbol is a free data retrieval call binding the contract method 0x95d89b41.
//
// Solidity: function symbol() view returns(string)
func (_TestStablecoin *TestStablecoinCaller) Symbol(opts *bind.CallOpts) (string, error) {
	var out []interface{}
	err := _TestStablecoin.contract.Call(opts, &out, "symbol")

	if err != nil {
		return *new(string), err
	}

	out0 := *abi.ConvertType(out[0], new(string)).(*string)

	return out0, err

}

// Symbol is a free data retrieval call binding the contract method 0x95d89b41.
//
// Solidity: function symbol() view returns(string)
func (_TestStablecoin *TestStablecoinSession) Symbol() (string, error) {
	return _TestStablecoin.Contract.Symbol(&_TestStablecoin.CallOpts)
}

// Symbol is a free data retrieval call binding the contract method 0x95d89b41.
//
// Solidity: function symbol() view returns(string)
func (_TestStablecoin *TestStablecoinCallerSession) Symbol() (string, error) {
	return _TestStablecoin.Contract.Symbol(&_TestStablecoin.CallOpts)
}

// TotalSupply is a free data retrieval call binding the contract method 0x18160ddd.
//
// Solidity: function totalSupply() view returns(uint256)
func (_TestStablecoin *TestStablecoinCaller) TotalSupply(opts *bind.CallOpts) (*big.Int, error) {
	var out []interface{}
	err := _TestStablecoin.contract.Call(opts, &out, "totalSupply")

	if err != nil {
		return *new(*big.Int), err
	}

	out0 := *abi.ConvertType(out[0], new(*big.Int)).(**big.Int)

	return out0, err

}

// TotalSupply is a free data retrieval call binding the contract method 0x18160ddd.
//
// Solidity: function totalSupply() view returns(uint256)
func (_TestStablecoin *TestStablecoinSession) TotalSupply() (*big.Int, error) {
	return _TestStablecoin.Contract.TotalSupply(&_TestStablecoin.CallOpts)
}

// TotalSupply is a free data retrieval call binding the contract method 0x18160ddd.
//
// Solidity: function totalSupply() view returns(uint256)
func (_TestStablecoin *TestStablecoinCallerSession) TotalSupply() (*big.Int, error) {
	return _TestStablecoin.Contract.TotalSupply(&_TestStablecoin.CallOpts)
}

// Approve is a paid mutator transaction binding the contract method 0x095ea7b3.
//
// Solidity: function approve(address spender, uint256 amount) returns(bool)
func (_TestStablecoin *TestStablecoinTransactor) Approve(opts *bind.TransactOpts, spender common.Address, amount *big.Int) (*types.Transaction, error) {
	return _TestStablecoin.contract.Transact(opts, "approve", spender, amount)
}

// Approve is a paid mutator transaction binding the contract method 0x095ea7b3.
//
// Solidity: function approve(address spender, uint256 amount) returns(bool)
func (_TestStablecoin *TestStablecoinSession) Approve(spender common.Address, amount *big.Int) (*types.Transaction, error) {
	return _TestStablecoin.Contract.Approve(&_TestStablecoin.TransactOpts, spender, amount)
}

// Approve is a paid mutator transaction binding the contract method 0x095ea7b3.
//
// Solidity: function approve(address spender, uint256 amount) returns(bool)
func (_TestStablecoin *TestStablecoinTransactorSession) Approve(spender common.Address, amount *big.Int) (*types.Transaction, error) {
	return _TestStablecoin.Contract.Approve(&_TestStablecoin.TransactOpts, spender, amount)
}

// Mint is a paid mutator transaction binding the contract method 0x40c10f19.
//
// Solidity: function mint(address to, uint256 amount) returns()
func (_TestStablecoin *TestStablecoinTransactor) Mint(opts *bind.TransactOpts, to common.Address, amount *big.Int) (*types.Transaction, error) {
	return _TestStablecoin.contract.Transact(opts, "mint", to, amount)
}

// Mint is a paid mutator transaction binding the contract method 0x40c10f19.
//
// Solidity: function mint(address to, uint256 amount) returns()
func (_TestStablecoin *TestStablecoinSession) Mint(to common.Address, amount *big.Int) (*types.Transaction, error) {
	return _TestStablecoin.Contract.Mint(&_TestStablecoin.TransactOpts, to, amount)
}

// Mint is a paid mutator transaction binding the contract method 0x40c10f19.
//
// Solidity: function mint(address to, uint256 amount) returns()
func (_TestStablecoin *TestStablecoinTransactorSession) Mint(to common.Address, amount *big.Int) (*types.Transaction, error) {
	return _TestStablecoin.Contract.Mint(&_TestStablecoin.TransactOpts, to, amount)
}

// Transfer is a paid mutator transaction binding the contract method 0xa9059cbb.
//
// Solidity: function transfer(address to, uint256 amount) returns(bool)
func (_TestStablecoin *TestStablecoinTransactor) Transfer(opts *bind.TransactOpts, to common.Address, amount *big.Int) (*types.Transaction, error) {
	return _TestStablecoin.contract.Transact(opts, "transfer", to, amount)
}

// Transfer is a paid mutator transaction binding the contract method 0xa9059cbb.
//
// Solidity: function transfer(address to, uint256 amount) returns(bool)
func (_TestStablecoin *TestStablecoinSession) Transfer(to common.Address, amount *big.Int) (*types.Transaction, error) {
	return _TestStablecoin.Contract.Transfer(&_TestStablecoin.TransactOpts, to, amount)
}

// Transfer is a paid mutator transaction binding the contract method 0xa9059cbb.
//
// Solidity: function transfer(address to, uint256 amount) returns(bool)
func (_TestStablecoin *TestStablecoinTransactorSession) Transfer(to common.Address, amount *big.Int) (*types.Transaction, error) {
	return _TestStablecoin.Contract.Transfer(&_TestStablecoin.TransactOpts, to, amount)
}

// TransferFrom is a paid mutator transaction binding the contract method 0x23b872dd.
//
// Solidity: function transferFrom(address from, address to, uint256 amount) returns(bool)
func (_TestStablecoin *TestStablecoinTransactor) TransferFrom(opts *bind.TransactOpts, from common.Address, to common.Address, amount *big.Int) (*types.Transaction, error) {
	return _TestStablecoin.contract.Transact(opts, "transferFrom", from, to, amount)
}

// TransferFrom is a paid mutator transaction binding the contract method 0x23b872dd.
//
// Solidity: function transferFrom(address from, address to, uint256 amount) returns(bool)
func (_TestStablecoin *TestStablecoinSession) TransferFrom(from common.Address, to common.Address, amount *big.Int) (*types.Transaction, error) {
	return _TestStablecoin.Contract.TransferFrom(&_TestStablecoin.TransactOpts, from, to, amount)
}

// TransferFrom is a paid mutator transaction binding the contract method 0x23b872dd.
//
// Solidity: function transferFrom(address from, address to, uint256 amount) returns(bool)
func (_TestStablecoin *TestStablecoinTransactorSession) TransferFrom(from common.Address, to common.Address, amount *big.Int) (*types.Transaction, error) {
	return _TestStablecoin.Contract.TransferFrom(&_TestStablecoin.TransactOpts, from, to, amount)
}

// TestStablecoinApprovalIterator is returned from FilterApproval and is used to iterate over the raw logs and unpacked data for Approval events raised by the TestStablecoin contract.
type TestStablecoinApprovalIterator struct {
	Event *TestStablecoinApproval // Event containing the contract specifics and raw log

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
func (it *TestStablecoinApprovalIterator) Next() bool {
	// If the iterator failed, stop iterating
	if it.fail != nil {
		return false
	}
	// If the iterator completed, deliver directly whatever's available
	if it.done {
		select {
		case log := <-it.logs:
			it.Event = new(TestStablecoinApproval)
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
		it.Event = new(TestStablecoinApproval)
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
func (it *TestStablecoinApprovalIterator) Error() error {
	return it.fail
}

// Close terminates the iteration process, releasing any pending underlying
// resources.
func (it *TestStablecoinApprovalIterator) Close() error {
	it.sub.Unsubscribe()
	return nil
}

// TestStablecoinApproval represents a Approval event raised by the TestStablecoin contract.
type TestStablecoinApproval struct {
	Owner   common.Address
	Spender common.Address
	Value   *big.Int
	Raw     types.Log // Blockchain specific contextual infos
}

// FilterApproval is a free log retrieval operation binding the contract event 0x8c5be1e5ebec7d5bd14f71427d1e84f3dd0314c0f7b2291e5b200ac8c7c3b925.
//
// Solidity: event Approval(address indexed owner, address indexed spender, uint256 value)
func (_TestStablecoin *TestStablecoinFilterer) FilterApproval(opts *bind.FilterOpts, owner []common.Address, spender []common.Address) (*TestStablecoinApprovalIterator, error) {

	var ownerRule []interface{}
	for _, ownerItem := range owner {
		ownerRule = append(ownerRule, ownerItem)
	}
	var spenderRule []interface{}
	for _, spenderItem := range spender {
		spenderRule = append(spenderRule, spenderItem)
	}

	logs, sub, err := _TestStablecoin.contract.FilterLogs(opts, "Approval", ownerRule, spenderRule)
	if err != nil {
		return nil, err
	}
	return &TestStablecoinApprovalIterator{contract: _TestStablecoin.contract, event: "Approval", logs: logs, sub: sub}, nil
}

// WatchApproval is a free log subscription operation binding the contract event 0x8c5be1e5ebec7d5bd14f71427d1e84f3dd0314c0f7b2291e5b200ac8c7c3b925.
//
// Solidity: event Approval(address indexed owner, address indexed spender, uint256 value)
func (_TestStablecoin *TestStablecoinFilterer) WatchApproval(opts *bind.WatchOpts, sink chan<- *TestStablecoinApproval, owner []common.Address, spender []common.Address) (event.Subscription, error) {

	var ownerRule []interface{}
	for _, ownerItem := range owner {
		ownerRule = append(ownerRule, ownerItem)
	}
	var spenderRule []interface{}
	for _, spenderItem := range spender {
		spenderRule = append(spenderRule, spenderItem)
	}

	logs, sub, err := _TestStablecoin.contract.WatchLogs(opts, "Approval", ownerRule, spenderRule)
	if err != nil {
		return nil, err
	}
	return event.NewSubscription(func(quit <-chan struct{}) error {
		defer sub.Unsubscribe()
		for {
			select {
			case log := <-logs:
				// New log arrived, parse the event and forward to the user
				event := new(TestStablecoinApproval)
				if err := _TestStablecoin.contract.UnpackLog(event, "Approval", log); err != nil {
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
func (_TestStablecoin *TestStablecoinFilterer) ParseApproval(log types.Log) (*TestStablecoinApproval, error) {
	event := new(TestStablecoinApproval)
	if err := _TestStablecoin.contract.UnpackLog(event, "Approval", log); err != nil {
		return nil, err
	}
	event.Raw = log
	return event, nil
}

// TestStablecoinTransferIterator is returned from FilterTransfer and is used to iterate over the raw logs and unpacked data for Transfer events raised by the TestStablecoin contract.
type TestStablecoinTransferIterator struct {
	Event *TestStablecoinTransfer // Event containing the contract specifics and raw log

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
func (it *TestStablecoinTransferIterator) Next() bool {
	// If the iterator failed, stop iterating
	if it.fail != nil {
		return false
	}
	// If the iterator completed, deliver directly whatever's available
	if it.done {
		select {
		case log := <-it.logs:
			it.Event = new(TestStablecoinTransfer)
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
		it.Event = new(TestStablecoinTransfer)
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
func (it *TestStablecoinTransferIterator) Error() error {
	return it.fail
}

// Close terminates the iteration process, releasing any pending underlying
// resources.
func (it *TestStablecoinTransferIterator) Close() error {
	it.sub.Unsubscribe()
	return nil
}

// TestStablecoinTransfer represents a Transfer event raised by the TestStablecoin contract.
type TestStablecoinTransfer struct {
	From  common.Address
	To    common.Address
	Value *big.Int
	Raw   types.Log // Blockchain specific contextual infos
}

// FilterTransfer is a free log retrieval operation binding the contract event 0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef.
//
// Solidity: event Transfer(address indexed from, address indexed to, uint256 value)
func (_TestStablecoin *TestStablecoinFilterer) FilterTransfer(opts *bind.FilterOpts, from []common.Address, to []common.Address) (*TestStablecoinTransferIterator, error) {

	var fromRule []interface{}
	for _, fromItem := range from {
		fromRule = append(fromRule, fromItem)
	}
	var toRule []interface{}
	for _, toItem := range to {
		toRule = append(toRule, toItem)
	}

	logs, sub, err := _TestStablecoin.contract.FilterLogs(opts, "Transfer", fromRule, toRule)
	if err != nil {
		return nil, err
	}
	return &TestStablecoinTransferIterator{contract: _TestStablecoin.contract, event: "Transfer", logs: logs, sub: sub}, nil
}

// WatchTransfer is a free log subscription operation binding the contract event 0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef.
//
// Solidity: event Transfer(address indexed from, address indexed to, uint256 value)
func (_TestStablecoin *TestStablecoinFilterer) WatchTransfer(opts *bind.WatchOpts, sink chan<- *TestStablecoinTransfer, from []common.Address, to []common.Address) (event.Subscription, error) {

	var fromRule []interface{}
	for _, fromItem := range from {
		fromRule = append(fromRule, fromItem)
	}
	var toRule []interface{}
	for _, toItem := range to {
		toRule = append(toRule, toItem)
	}

	logs, sub, err := _TestStablecoin.contract.WatchLogs(opts, "Transfer", fromRule, toRule)
	if err != nil {
		return nil, err
	}
	return event.NewSubscription(func(quit <-chan struct{}) error {
		defer sub.Unsubscribe()
		for {
			select {
			case log := <-logs:
				// New log arrived, parse the event and forward to the user
				event := new(TestStablecoinTransfer)
				if err := _TestStablecoin.contract.UnpackLog(event, "Transfer", log); err != nil {
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
func (_TestStablecoin *TestStablecoinFilterer) ParseTransfer(log types.Log) (*TestStablecoinTransfer, error) {
	event := new(TestStablecoinTransfer)
	if err := _TestStablecoin.contract.UnpackLog(event, "Transfer", log); err != nil {
		return nil, err
	}
	event.Raw = log
	return event, nil
}
