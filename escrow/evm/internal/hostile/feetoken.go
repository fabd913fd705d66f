// Code generated - DO NOT EDIT.
// This file is a generated binding and any manual changes will be lost.

package hostile

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

// FeeTokenMetaData contains all meta data concerning the FeeToken contract.
var FeeTokenMetaData = &bind.MetaData{
	ABI: "[{\"inputs\":[{\"internalType\":\"address\",\"name\":\"\",\"type\":\"address\"},{\"internalType\":\"address\",\"name\":\"\",\"type\":\"address\"}],\"name\":\"allowance\",\"outputs\":[{\"internalType\":\"uint256\",\"name\":\"\",\"type\":\"uint256\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"spender\",\"type\":\"address\"},{\"internalType\":\"uint256\",\"name\":\"amount\",\"type\":\"uint256\"}],\"name\":\"approve\",\"outputs\":[{\"internalType\":\"bool\",\"name\":\"\",\"type\":\"bool\"}],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"\",\"type\":\"address\"}],\"name\":\"balanceOf\",\"outputs\":[{\"internalType\":\"uint256\",\"name\":\"\",\"type\":\"uint256\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"to\",\"type\":\"address\"},{\"internalType\":\"uint256\",\"name\":\"amount\",\"type\":\"uint256\"}],\"name\":\"mint\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"to\",\"type\":\"address\"},{\"internalType\":\"uint256\",\"name\":\"amount\",\"type\":\"uint256\"}],\"name\":\"transfer\",\"outputs\":[{\"internalType\":\"bool\",\"name\":\"\",\"type\":\"bool\"}],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"from\",\"type\":\"address\"},{\"internalType\":\"address\",\"name\":\"to\",\"type\":\"address\"},{\"internalType\":\"uint256\",\"name\":\"amount\",\"type\":\"uint256\"}],\"name\":\"transferFrom\",\"outputs\":[{\"internalType\":\"bool\",\"name\":\"\",\"type\":\"bool\"}],\"stateMutability\":\"nonpayable\",\"type\":\"function\"}]",
	Bin: "0x6080604052348015600e575f5ffd5b5061040d8061001c5f395ff3fe608060405234801561000f575f5ffd5b506004361061006f575f3560e01c806370a082311161004d57806370a08231146100c3578063a9059cbb146100f0578063dd62ed3e14610103575f5ffd5b8063095ea7b31461007357806323b872dd1461009b57806340c10f19146100ae575b5f5ffd5b6100866100813660046102cb565b61012d565b60405190151581526020015b60405180910390f35b6100866100a93660046102f3565b61015a565b6100c16100bc3660046102cb565b6101d5565b005b6100e26100d136600461032d565b5f6020819052908152604090205481565b604051908152602001610092565b6100866100fe3660046102cb565b610205565b6100e261011136600461034d565b600160209081525f928352604080842090915290825290205481565b335f9081526001602081815260408084206001600160a01b03871685529091529091208290555b92915050565b6001600160a01b0383165f908152600160209081526040808320338452909152812054821115610188575f5ffd5b6001600160a01b0384165f908152600160209081526040808320338452909152812080548492906101ba908490610392565b909155506101cb905084848461021a565b5060019392505050565b6001600160a01b0382165f90815260208190526040812080548392906101fc9084906103a5565b90915550505050565b5f61021133848461021a565b50600192915050565b6001600160a01b0383165f9081526020819052604090205481111561023d575f5ffd5b6001600160a01b0383165f9081526020819052604081208054839290610264908490610392565b9091555061027590506064826103b8565b61027f9082610392565b6001600160a01b0383165f90815260208190526040812080549091906102a69084906103a5565b9091555050505050565b80356001600160a01b03811681146102c6575f5ffd5b919050565b5f5f604083850312156102dc575f5ffd5b6102e5836102b0565b946020939093013593505050565b5f5f5f60608486031215610305575f5ffd5b61030e846102b0565b925061031c602085016102b0565b929592945050506040919091013590565b5f6020828403121561033d575f5ffd5b610346826102b0565b9392505050565b5f5f6040838503121561035e575f5ffd5b610367836102b0565b9150610375602084016102b0565b90509250929050565b634e487b7160e01b5f52601160045260245ffd5b818103818111156101545761015461037e565b808201808211156101545761015461037e565b5f826103d257634e487b7160e01b5f52601260045260245ffd5b50049056fea2646970667358221220a5852bf0bf26f4188f4c704b7946581e7b7d833732f7757cc9c1d988e050f87f64736f6c63430008250033",
}

// FeeTokenABI is the input ABI used to generate the binding from.
// Deprecated: Use FeeTokenMetaData.ABI instead.
var FeeTokenABI = FeeTokenMetaData.ABI

// FeeTokenBin is the compiled bytecode used for deploying new contracts.
// Deprecated: Use FeeTokenMetaData.Bin instead.
var FeeTokenBin = FeeTokenMetaData.Bin

// DeployFeeToken deploys a new Ethereum contract, binding an instance of FeeToken to it.
func DeployFeeToken(auth *bind.TransactOpts, backend bind.ContractBackend) (common.Address, *types.Transaction, *FeeToken, error) {
	parsed, err := FeeTokenMetaData.GetAbi()
	if err != nil {
		return common.Address{}, nil, nil, err
	}
	if parsed == nil {
		return common.Address{}, nil, nil, errors.New("GetABI returned nil")
	}

	address, tx, contract, err := bind.DeployContract(auth, *parsed, common.FromHex(FeeTokenBin), backend)
	if err != nil {
		return common.Address{}, nil, nil, err
	}
	return address, tx, &FeeToken{FeeTokenCaller: FeeTokenCaller{contract: contract}, FeeTokenTransactor: FeeTokenTransactor{contract: contract}, FeeTokenFilterer: FeeTokenFilterer{contract: contract}}, nil
}

// FeeToken is an auto generated Go binding around an Ethereum contract.
type FeeToken struct {
	FeeTokenCaller     // Read-only binding to the contract
	FeeTokenTransactor // Write-only binding to the contract
	FeeTokenFilterer   // Log filterer for contract events
}

// FeeTokenCaller is an auto generated read-only Go binding around an Ethereum contract.
type FeeTokenCaller struct {
	contract *bind.BoundContract // Generic contract wrapper for the low level calls
}

// FeeTokenTransactor is an auto generated write-only Go binding around an Ethereum contract.
type FeeTokenTransactor struct {
	contract *bind.BoundContract // Generic contract wrapper for the low level calls
}

// FeeTokenFilterer is an auto generated log filtering Go binding around an Ethereum contract events.
type FeeTokenFilterer struct {
	contract *bind.BoundContract // Generic contract wrapper for the low level calls
}

// FeeTokenSession is an auto generated Go binding around an Ethereum contract,
// with pre-set call and transact options.
type FeeTokenSession struct {
	Contract     *FeeToken         // Generic contract binding to set the session for
	CallOpts     bind.CallOpts     // Call options to use throughout this session
	TransactOpts bind.TransactOpts // Transaction auth options to use throughout this session
}

// FeeTokenCallerSession is an auto generated read-only Go binding around an Ethereum contract,
// with pre-set call options.
type FeeTokenCallerSession struct {
	Contract *FeeTokenCaller // Generic contract caller binding to set the session for
	CallOpts bind.CallOpts   // Call options to use throughout this session
}

// FeeTokenTransactorSession is an auto generated write-only Go binding around an Ethereum contract,
// with pre-set transact options.
type FeeTokenTransactorSession struct {
	Contract     *FeeTokenTransactor // Generic contract transactor binding to set the session for
	TransactOpts bind.TransactOpts   // Transaction auth options to use throughout this session
}

// FeeTokenRaw is an auto generated low-level Go binding around an Ethereum contract.
type FeeTokenRaw struct {
	Contract *FeeToken // Generic contract binding to access the raw methods on
}

// FeeTokenCallerRaw is an auto generated low-level read-only Go binding around an Ethereum contract.
type FeeTokenCallerRaw struct {
	Contract *FeeTokenCaller // Generic read-only contract binding to access the raw methods on
}

// FeeTokenTransactorRaw is an auto generated low-level write-only Go binding around an Ethereum contract.
type FeeTokenTransactorRaw struct {
	Contract *FeeTokenTransactor // Generic write-only contract binding to access the raw methods on
}

// NewFeeToken creates a new instance of FeeToken, bound to a specific deployed contract.
func NewFeeToken(address common.Address, backend bind.ContractBackend) (*FeeToken, error) {
	contract, err := bindFeeToken(address, backend, backend, backend)
	if err != nil {
		return nil, err
	}
	return &FeeToken{FeeTokenCaller: FeeTokenCaller{contract: contract}, FeeTokenTransactor: FeeTokenTransactor{contract: contract}, FeeTokenFilterer: FeeTokenFilterer{contract: contract}}, nil
}

// NewFeeTokenCaller creates a new read-only instance of FeeToken, bound to a specific deployed contract.
func NewFeeTokenCaller(address common.Address, caller bind.ContractCaller) (*FeeTokenCaller, error) {
	contract, err := bindFeeToken(address, caller, nil, nil)
	if err != nil {
		return nil, err
	}
	return &FeeTokenCaller{contract: contract}, nil
}

// NewFeeTokenTransactor creates a new write-only instance of FeeToken, bound to a specific deployed contract.
func NewFeeTokenTransactor(address common.Address, transactor bind.ContractTransactor) (*FeeTokenTransactor, error) {
	contract, err := bindFeeToken(address, nil, transactor, nil)
	if err != nil {
		return nil, err
	}
	return &FeeTokenTransactor{contract: contract}, nil
}

// NewFeeTokenFilterer creates a new log filterer instance of FeeToken, bound to a specific deployed contract.
func NewFeeTokenFilterer(address common.Address, filterer bind.ContractFilterer) (*FeeTokenFilterer, error) {
	contract, err := bindFeeToken(address, nil, nil, filterer)
	if err != nil {
		return nil, err
	}
	return &FeeTokenFilterer{contract: contract}, nil
}

// bindFeeToken binds a generic wrapper to an already deployed contract.
func bindFeeToken(address common.Address, caller bind.ContractCaller, transactor bind.ContractTransactor, filterer bind.ContractFilterer) (*bind.BoundContract, error) {
	parsed, err := FeeTokenMetaData.GetAbi()
	if err != nil {
		return nil, err
	}
	return bind.NewBoundContract(address, *parsed, caller, transactor, filterer), nil
}

// Call invokes the (constant) contract method with params as input values and
// sets the output to result. The result type might be a single field for simple
// returns, a slice of interfaces for anonymous returns and a struct for named
// returns.
func (_FeeToken *FeeTokenRaw) Call(opts *bind.CallOpts, result *[]interface{}, method string, params ...interface{}) error {
	return _FeeToken.Contract.FeeTokenCaller.contract.Call(opts, result, method, params...)
}

// Transfer initiates a plain transaction to move funds to the contract, calling
// its default method if one is available.
func (_FeeToken *FeeTokenRaw) Transfer(opts *bind.TransactOpts) (*types.Transaction, error) {
	return _FeeToken.Contract.FeeTokenTransactor.contract.Transfer(opts)
}

// Transact invokes the (paid) contract method with params as input values.
func (_FeeToken *FeeTokenRaw) Transact(opts *bind.TransactOpts, method string, params ...interface{}) (*types.Transaction, error) {
	return _FeeToken.Contract.FeeTokenTransactor.contract.Transact(opts, method, params...)
}

// Call invokes the (constant) contract method with params as input values and
// sets the output to result. The result type might be a single field for simple
// returns, a slice of interfaces for anonymous returns and a struct for named
// returns.
func (_FeeToken *FeeTokenCallerRaw) Call(opts *bind.CallOpts, result *[]interface{}, method string, params ...interface{}) error {
	return _FeeToken.Contract.contract.Call(opts, result, method, params...)
}

// Transfer initiates a plain transaction to move funds to the contract, calling
// its default method if one is available.
func (_FeeToken *FeeTokenTransactorRaw) Transfer(opts *bind.TransactOpts) (*types.Transaction, error) {
	return _FeeToken.Contract.contract.Transfer(opts)
}

// Transact invokes the (paid) contract method with params as input values.
func (_FeeToken *FeeTokenTransactorRaw) Transact(opts *bind.TransactOpts, method string, params ...interface{}) (*types.Transaction, error) {
	return _FeeToken.Contract.contract.Transact(opts, method, params...)
}

// Allowance is a free data retrieval call binding the contract method 0xdd62ed3e.
//
// Solidity: function allowance(address , address ) view returns(uint256)
func (_FeeToken *FeeTokenCaller) Allowance(opts *bind.CallOpts, arg0 common.Address, arg1 common.Address) (*big.Int, error) {
	var out []interface{}
	err := _FeeToken.contract.Call(opts, &out, "allowance", arg0, arg1)

	if err != nil {
		return *new(*big.Int), err
	}

	out0 := *abi.ConvertType(out[0], new(*big.Int)).(**big.Int)

	return out0, err

}

// Allowance is a free data retrieval call binding the contract method 0xdd62ed3e.
//
// Solidity: function allowance(address , address ) view returns(uint256)
func (_FeeToken *FeeTokenSession) Allowance(arg0 common.Address, arg1 common.Address) (*big.Int, error) {
	return _FeeToken.Contract.Allowance(&_FeeToken.CallOpts, arg0, arg1)
}

// Allowance is a free data retrieval call binding the contract method 0xdd62ed3e.
//
// Solidity: function allowance(address , address ) view returns(uint256)
func (_FeeToken *FeeTokenCallerSession) Allowance(arg0 common.Address, arg1 common.Address) (*big.Int, error) {
	return _FeeToken.Contract.Allowance(&_FeeToken.CallOpts, arg0, arg1)
}

// BalanceOf is a free data retrieval call binding the contract method 0x70a08231.
//
// Solidity: function balanceOf(address ) view returns(uint256)
func (_FeeToken *FeeTokenCaller) BalanceOf(opts *bind.CallOpts, arg0 common.Address) (*big.Int, error) {
	var out []interface{}
	err := _FeeToken.contract.Call(opts, &out, "balanceOf", arg0)

	if err != nil {
		return *new(*big.Int), err
	}

	out0 := *abi.ConvertType(out[0], new(*big.Int)).(**big.Int)

	return out0, err

}

// BalanceOf is a free data retrieval call binding the contract method 0x70a08231.
//
// Solidity: function balanceOf(address ) view returns(uint256)
func (_FeeToken *FeeTokenSession) BalanceOf(arg0 common.Address) (*big.Int, error) {
	return _FeeToken.Contract.BalanceOf(&_FeeToken.CallOpts, arg0)
}

// BalanceOf is a free data retrieval call binding the contract method 0x70a08231.
//
// Solidity: function balanceOf(address ) view returns(uint256)
func (_FeeToken *FeeTokenCallerSession) BalanceOf(arg0 common.Address) (*big.Int, error) {
	return _FeeToken.Contract.BalanceOf(&_FeeToken.CallOpts, arg0)
}

// Approve is a paid mutator transaction binding the contract method 0x095ea7b3.
//
// Solidity: function approve(address spender, uint256 amount) returns(bool)
func (_FeeToken *FeeTokenTransactor) Approve(opts *bind.TransactOpts, spender common.Address, amount *big.Int) (*types.Transaction, error) {
	return _FeeToken.contract.Transact(opts, "approve", spender, amount)
}

// Approve is a paid mutator transaction binding the contract method 0x095ea7b3.
//
// Solidity: function approve(address spender, uint256 amount) returns(bool)
func (_FeeToken *FeeTokenSession) Approve(spender common.Address, amount *big.Int) (*types.Transaction, error) {
	return _FeeToken.Contract.Approve(&_FeeToken.TransactOpts, spender, amount)
}

// Approve is a paid mutator transaction binding the contract method 0x095ea7b3.
//
// Solidity: function approve(address spender, uint256 amount) returns(bool)
func (_FeeToken *FeeTokenTransactorSession) Approve(spender common.Address, amount *big.Int) (*types.Transaction, error) {
	return _FeeToken.Contract.Approve(&_FeeToken.TransactOpts, spender, amount)
}

// Mint is a paid mutator transaction binding the contract method 0x40c10f19.
//
// Solidity: function mint(address to, uint256 amount) returns()
func (_FeeToken *FeeTokenTransactor) Mint(opts *bind.TransactOpts, to common.Address, amount *big.Int) (*types.Transaction, error) {
	return _FeeToken.contract.Transact(opts, "mint", to, amount)
}

// Mint is a paid mutator transaction binding the contract method 0x40c10f19.
//
// Solidity: function mint(address to, uint256 amount) returns()
func (_FeeToken *FeeTokenSession) Mint(to common.Address, amount *big.Int) (*types.Transaction, error) {
	return _FeeToken.Contract.Mint(&_FeeToken.TransactOpts, to, amount)
}

// Mint is a paid mutator transaction binding the contract method 0x40c10f19.
//
// Solidity: function mint(address to, uint256 amount) returns()
func (_FeeToken *FeeTokenTransactorSession) Mint(to common.Address, amount *big.Int) (*types.Transaction, error) {
	return _FeeToken.Contract.Mint(&_FeeToken.TransactOpts, to, amount)
}

// Transfer is a paid mutator transaction binding the contract method 0xa9059cbb.
//
// Solidity: function transfer(address to, uint256 amount) returns(bool)
func (_FeeToken *FeeTokenTransactor) Transfer(opts *bind.TransactOpts, to common.Address, amount *big.Int) (*types.Transaction, error) {
	return _FeeToken.contract.Transact(opts, "transfer", to, amount)
}

// Transfer is a paid mutator transaction binding the contract method 0xa9059cbb.
//
// Solidity: function transfer(address to, uint256 amount) returns(bool)
func (_FeeToken *FeeTokenSession) Transfer(to common.Address, amount *big.Int) (*types.Transaction, error) {
	return _FeeToken.Contract.Transfer(&_FeeToken.TransactOpts, to, amount)
}

// Transfer is a paid mutator transaction binding the contract method 0xa9059cbb.
//
// Solidity: function transfer(address to, uint256 amount) returns(bool)
func (_FeeToken *FeeTokenTransactorSession) Transfer(to common.Address, amount *big.Int) (*types.Transaction, error) {
	return _FeeToken.Contract.Transfer(&_FeeToken.TransactOpts, to, amount)
}

// TransferFrom is a paid mutator transaction binding the contract method 0x23b872dd.
//
// Solidity: function transferFrom(address from, address to, uint256 amount) returns(bool)
func (_FeeToken *FeeTokenTransactor) TransferFrom(opts *bind.TransactOpts, from common.Address, to common.Address, amount *big.Int) (*types.Transaction, error) {
	return _FeeToken.contract.Transact(opts, "transferFrom", from, to, amount)
}

// TransferFrom is a paid mutator transaction binding the contract method 0x23b872dd.
//
// Solidity: function transferFrom(address from, address to, uint256 amount) returns(bool)
func (_FeeToken *FeeTokenSession) TransferFrom(from common.Address, to common.Address, amount *big.Int) (*types.Transaction, error) {
	return _FeeToken.Contract.TransferFrom(&_FeeToken.TransactOpts, from, to, amount)
}

// TransferFrom is a paid mutator transaction binding the contract method 0x23b872dd.
//
// Solidity: function transferFrom(address from, address to, uint256 amount) returns(bool)
func (_FeeToken *FeeTokenTransactorSession) TransferFrom(from common.Address, to common.Address, amount *big.Int) (*types.Transaction, error) {
	return _FeeToken.Contract.TransferFrom(&_FeeToken.TransactOpts, from, to, amount)
}
