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

// FalseTokenMetaData contains all meta data concerning the FalseToken contract.
var FalseTokenMetaData = &bind.MetaData{
	ABI: "[{\"inputs\":[{\"internalType\":\"address\",\"name\":\"\",\"type\":\"address\"},{\"internalType\":\"address\",\"name\":\"\",\"type\":\"address\"}],\"name\":\"allowance\",\"outputs\":[{\"internalType\":\"uint256\",\"name\":\"\",\"type\":\"uint256\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"spender\",\"type\":\"address\"},{\"internalType\":\"uint256\",\"name\":\"amount\",\"type\":\"uint256\"}],\"name\":\"approve\",\"outputs\":[{\"internalType\":\"bool\",\"name\":\"\",\"type\":\"bool\"}],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"\",\"type\":\"address\"}],\"name\":\"balanceOf\",\"outputs\":[{\"internalType\":\"uint256\",\"name\":\"\",\"type\":\"uint256\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"fail\",\"outputs\":[{\"internalType\":\"bool\",\"name\":\"\",\"type\":\"bool\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"to\",\"type\":\"address\"},{\"internalType\":\"uint256\",\"name\":\"amount\",\"type\":\"uint256\"}],\"name\":\"mint\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"bool\",\"name\":\"f\",\"type\":\"bool\"}],\"name\":\"setFail\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"to\",\"type\":\"address\"},{\"internalType\":\"uint256\",\"name\":\"amount\",\"type\":\"uint256\"}],\"name\":\"transfer\",\"outputs\":[{\"internalType\":\"bool\",\"name\":\"\",\"type\":\"bool\"}],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"from\",\"type\":\"address\"},{\"internalType\":\"address\",\"name\":\"to\",\"type\":\"address\"},{\"internalType\":\"uint256\",\"name\":\"amount\",\"type\":\"uint256\"}],\"name\":\"transferFrom\",\"outputs\":[{\"internalType\":\"bool\",\"name\":\"\",\"type\":\"bool\"}],\"stateMutability\":\"nonpayable\",\"type\":\"function\"}]",
	Bin: "0x6080604052348015600e575f5ffd5b506104bd8061001c5f395ff3fe608060405234801561000f575f5ffd5b5060043610610085575f3560e01c80639d769402116100585780639d76940214610106578063a9059cbb14610127578063a9cc47181461013a578063dd62ed3e14610147575f5ffd5b8063095ea7b31461008957806323b872dd146100b157806340c10f19146100c457806370a08231146100d9575b5f5ffd5b61009c610097366004610369565b610171565b60405190151581526020015b60405180910390f35b61009c6100bf366004610391565b61019e565b6100d76100d2366004610369565b61029a565b005b6100f86100e73660046103cb565b5f6020819052908152604090205481565b6040519081526020016100a8565b6100d76101143660046103e4565b6002805460ff1916911515919091179055565b61009c610135366004610369565b6102ca565b60025461009c9060ff1681565b6100f8610155366004610403565b600160209081525f928352604080842090915290825290205481565b335f9081526001602081815260408084206001600160a01b03871685529091529091208290555b92915050565b6002545f9060ff16806101c757506001600160a01b0384165f9081526020819052604090205482115b806101f357506001600160a01b0384165f90815260016020908152604080832033845290915290205482115b156101ff57505f610293565b6001600160a01b0384165f90815260016020908152604080832033845290915281208054849290610231908490610461565b90915550506001600160a01b0384165f908152602081905260408120805484929061025d908490610461565b90915550506001600160a01b0383165f9081526020819052604081208054849290610289908490610474565b9091555060019150505b9392505050565b6001600160a01b0382165f90815260208190526040812080548392906102c1908490610474565b90915550505050565b6002545f9060ff16806102ea5750335f9081526020819052604090205482115b156102f657505f610198565b335f9081526020819052604081208054849290610314908490610461565b90915550506001600160a01b0383165f9081526020819052604081208054849290610340908490610474565b909155506001949350505050565b80356001600160a01b0381168114610364575f5ffd5b919050565b5f5f6040838503121561037a575f5ffd5b6103838361034e565b946020939093013593505050565b5f5f5f606084860312156103a3575f5ffd5b6103ac8461034e565b92506103ba6020850161034e565b929592945050506040919091013590565b5f602082840312156103db575f5ffd5b6102938261034e565b5f602082840312156103f4575f5ffd5b81358015158114610293575f5ffd5b5f5f60408385031215610414575f5ffd5b61041d8361034e565b915061042b6020840161034e565b90509250929050565b7f4e487b71000000000000000000000000000000000000000000000000000000005f52601160045260245ffd5b8181038181111561019857610198610434565b808201808211156101985761019861043456fea2646970667358221220826edcbd215dcb59d6c000d88944be7f63a7954331e0a1771f34c92145ee3c6c64736f6c63430008250033",
}

// FalseTokenABI is the input ABI used to generate the binding from.
// Deprecated: Use FalseTokenMetaData.ABI instead.
var FalseTokenABI = FalseTokenMetaData.ABI

// FalseTokenBin is the compiled bytecode used for deploying new contracts.
// Deprecated: Use FalseTokenMetaData.Bin instead.
var FalseTokenBin = FalseTokenMetaData.Bin

// DeployFalseToken deploys a new Ethereum contract, binding an instance of FalseToken to it.
func DeployFalseToken(auth *bind.TransactOpts, backend bind.ContractBackend) (common.Address, *types.Transaction, *FalseToken, error) {
	parsed, err := FalseTokenMetaData.GetAbi()
	if err != nil {
		return common.Address{}, nil, nil, err
	}
	if parsed == nil {
		return common.Address{}, nil, nil, errors.New("GetABI returned nil")
	}

	address, tx, contract, err := bind.DeployContract(auth, *parsed, common.FromHex(FalseTokenBin), backend)
	if err != nil {
		return common.Address{}, nil, nil, err
	}
	return address, tx, &FalseToken{FalseTokenCaller: FalseTokenCaller{contract: contract}, FalseTokenTransactor: FalseTokenTransactor{contract: contract}, FalseTokenFilterer: FalseTokenFilterer{contract: contract}}, nil
}

// FalseToken is an auto generated Go binding around an Ethereum contract.
type FalseToken struct {
	FalseTokenCaller     // Read-only binding to the contract
	FalseTokenTransactor // Write-only binding to the contract
	FalseTokenFilterer   // Log filterer for contract events
}

// FalseTokenCaller is an auto generated read-only Go binding around an Ethereum contract.
type FalseTokenCaller struct {
	contract *bind.BoundContract // Generic contract wrapper for the low level calls
}

// FalseTokenTransactor is an auto generated write-only Go binding around an Ethereum contract.
type FalseTokenTransactor struct {
	contract *bind.BoundContract // Generic contract wrapper for the low level calls
}

// FalseTokenFilterer is an auto generated log filtering Go binding around an Ethereum contract events.
type FalseTokenFilterer struct {
	contract *bind.BoundContract // Generic contract wrapper for the low level calls
}

// FalseTokenSession is an auto generated Go binding around an Ethereum contract,
// with pre-set call and transact options.
type FalseTokenSession struct {
	Contract     *FalseToken       // Generic contract binding to set the session for
	CallOpts     bind.CallOpts     // Call options to use throughout this session
	TransactOpts bind.TransactOpts // Transaction auth options to use throughout this session
}

// FalseTokenCallerSession is an auto generated read-only Go binding around an Ethereum contract,
// with pre-set call options.
type FalseTokenCallerSession struct {
	Contract *FalseTokenCaller // Generic contract caller binding to set the session for
	CallOpts bind.CallOpts     // Call options to use throughout this session
}

// FalseTokenTransactorSession is an auto generated write-only Go binding around an Ethereum contract,
// with pre-set transact options.
type FalseTokenTransactorSession struct {
	Contract     *FalseTokenTransactor // Generic contract transactor binding to set the session for
	TransactOpts bind.TransactOpts     // Transaction auth options to use throughout this session
}

// FalseTokenRaw is an auto generated low-level Go binding around an Ethereum contract.
type FalseTokenRaw struct {
	Contract *FalseToken // Generic contract binding to access the raw methods on
}

// FalseTokenCallerRaw is an auto generated low-level read-only Go binding around an Ethereum contract.
type FalseTokenCallerRaw struct {
	Contract *FalseTokenCaller // Generic read-only contract binding to access the raw methods on
}

// FalseTokenTransactorRaw is an auto generated low-level write-only Go binding around an Ethereum contract.
type FalseTokenTransactorRaw struct {
	Contract *FalseTokenTransactor // Generic write-only contract binding to access the raw methods on
}

// NewFalseToken creates a new instance of FalseToken, bound to a specific deployed contract.
func NewFalseToken(address common.Address, backend bind.ContractBackend) (*FalseToken, error) {
	contract, err := bindFalseToken(address, backend, backend, backend)
	if err != nil {
		return nil, err
	}
	return &FalseToken{FalseTokenCaller: FalseTokenCaller{contract: contract}, FalseTokenTransactor: FalseTokenTransactor{contract: contract}, FalseTokenFilterer: FalseTokenFilterer{contract: contract}}, nil
}

// NewFalseTokenCaller creates a new read-only instance of FalseToken, bound to a specific deployed contract.
func NewFalseTokenCaller(address common.Address, caller bind.ContractCaller) (*FalseTokenCaller, error) {
	contract, err := bindFalseToken(address, caller, nil, nil)
	if err != nil {
		return nil, err
	}
	return &FalseTokenCaller{contract: contract}, nil
}

// NewFalseTokenTransactor creates a new write-only instance of FalseToken, bound to a specific deployed contract.
func NewFalseTokenTransactor(address common.Address, transactor bind.ContractTransactor) (*FalseTokenTransactor, error) {
	contract, err := bindFalseToken(address, nil, transactor, nil)
	if err != nil {
		return nil, err
	}
	return &FalseTokenTransactor{contract: contract}, nil
}

// NewFalseTokenFilterer creates a new log filterer instance of FalseToken, bound to a specific deployed contract.
func NewFalseTokenFilterer(address common.Address, filterer bind.ContractFilterer) (*FalseTokenFilterer, error) {
	contract, err := bindFalseToken(address, nil, nil, filterer)
	if err != nil {
		return nil, err
	}
	return &FalseTokenFilterer{contract: contract}, nil
}

// bindFalseToken binds a generic wrapper to an already deployed contract.
func bindFalseToken(address common.Address, caller bind.ContractCaller, transactor bind.ContractTransactor, filterer bind.ContractFilterer) (*bind.BoundContract, error) {
	parsed, err := FalseTokenMetaData.GetAbi()
	if err != nil {
		return nil, err
	}
	return bind.NewBoundContract(address, *parsed, caller, transactor, filterer), nil
}

// Call invokes the (constant) contract method with params as input values and
// sets the output to result. The result type might be a single field for simple
// returns, a slice of interfaces for anonymous returns and a struct for named
// returns.
func (_FalseToken *FalseTokenRaw) Call(opts *bind.CallOpts, result *[]interface{}, method string, params ...interface{}) error {
	return _FalseToken.Contract.FalseTokenCaller.contract.Call(opts, result, method, params...)
}

// Transfer initiates a plain transaction to move funds to the contract, calling
// its default method if one is available.
func (_FalseToken *FalseTokenRaw) Transfer(opts *bind.TransactOpts) (*types.Transaction, error) {
	return _FalseToken.Contract.FalseTokenTransactor.contract.Transfer(opts)
}

// Transact invokes the (paid) contract method with params as input values.
func (_FalseToken *FalseTokenRaw) Transact(opts *bind.TransactOpts, method string, params ...interface{}) (*types.Transaction, error) {
	return _FalseToken.Contract.FalseTokenTransactor.contract.Transact(opts, method, params...)
}

// Call invokes the (constant) contract method with params as input values and
// sets the output to result. The result type might be a single field for simple
// returns, a slice of interfaces for anonymous returns and a struct for named
// returns.
func (_FalseToken *FalseTokenCallerRaw) Call(opts *bind.CallOpts, result *[]interface{}, method string, params ...interface{}) error {
	return _FalseToken.Contract.contract.Call(opts, result, method, params...)
}

// Transfer initiates a plain transaction to move funds to the contract, calling
// its default method if one is available.
func (_FalseToken *FalseTokenTransactorRaw) Transfer(opts *bind.TransactOpts) (*types.Transaction, error) {
	return _FalseToken.Contract.contract.Transfer(opts)
}

// Transact invokes the (paid) contract method with params as input values.
func (_FalseToken *FalseTokenTransactorRaw) Transact(opts *bind.TransactOpts, method string, params ...interface{}) (*types.Transaction, error) {
	return _FalseToken.Contract.contract.Transact(opts, method, params...)
}

// Allowance is a free data retrieval call binding the contract method 0xdd62ed3e.
//
// Solidity: function allowance(address , address ) view returns(uint256)
func (_FalseToken *FalseTokenCaller) Allowance(opts *bind.CallOpts, arg0 common.Address, arg1 common.Address) (*big.Int, error) {
	var out []interface{}
	err := _FalseToken.contract.Call(opts, &out, "allowance", arg0, arg1)

	if err != nil {
		return *new(*big.Int), err
	}

	out0 := *abi.ConvertType(out[0], new(*big.Int)).(**big.Int)

	return out0, err

}

// Allowance is a free data retrieval call binding the contract method 0xdd62ed3e.
//
// Solidity: function allowance(address , address ) view returns(uint256)
func (_FalseToken *FalseTokenSession) Allowance(arg0 common.Address, arg1 common.Address) (*big.Int, error) {
	return _FalseToken.Contract.Allowance(&_FalseToken.CallOpts, arg0, arg1)
}

// Allowance is a free data retrieval call binding the contract method 0xdd62ed3e.
//
// Solidity: function allowance(address , address ) view returns(uint256)
func (_FalseToken *FalseTokenCallerSession) Allowance(arg0 common.Address, arg1 common.Address) (*big.Int, error) {
	return _FalseToken.Contract.Allowance(&_FalseToken.CallOpts, arg0, arg1)
}

// BalanceOf is a free data retrieval call binding the contract method 0x70a08231.
//
// Solidity: function balanceOf(address ) view returns(uint256)
func (_FalseToken *FalseTokenCaller) BalanceOf(opts *bind.CallOpts, arg0 common.Address) (*big.Int, error) {
	var out []interface{}
	err := _FalseToken.contract.Call(opts, &out, "balanceOf", arg0)

	if err != nil {
		return *new(*big.Int), err
	}

	out0 := *abi.ConvertType(out[0], new(*big.Int)).(**big.Int)

	return out0, err

}

// BalanceOf is a free data retrieval call binding the contract method 0x70a08231.
//
// Solidity: function balanceOf(address ) view returns(uint256)
func (_FalseToken *FalseTokenSession) BalanceOf(arg0 common.Address) (*big.Int, error) {
	return _FalseToken.Contract.BalanceOf(&_FalseToken.CallOpts, arg0)
}

// BalanceOf is a free data retrieval call binding the contract method 0x70a08231.
//
// Solidity: function balanceOf(address ) view returns(uint256)
func (_FalseToken *FalseTokenCallerSession) BalanceOf(arg0 common.Address) (*big.Int, error) {
	return _FalseToken.Contract.BalanceOf(&_FalseToken.CallOpts, arg0)
}

// Fail is a free data retrieval call binding the contract method 0xa9cc4718.
//
// Solidity: function fail() view returns(bool)
func (_FalseToken *FalseTokenCaller) Fail(opts *bind.CallOpts) (bool, error) {
	var out []interface{}
	err := _FalseToken.contract.Call(opts, &out, "fail")

	if err != nil {
		return *new(bool), err
	}

	out0 := *abi.ConvertType(out[0], new(bool)).(*bool)

	return out0, err

}

// Fail is a free data retrieval call binding the contract method 0xa9cc4718.
//
// Solidity: function fail() view returns(bool)
func (_FalseToken *FalseTokenSession) Fail() (bool, error) {
	return _FalseToken.Contract.Fail(&_FalseToken.CallOpts)
}

// Fail is a free data retrieval call binding the contract method 0xa9cc4718.
//
// Solidity: function fail() view returns(bool)
func (_FalseToken *FalseTokenCallerSession) Fail() (bool, error) {
	return _FalseToken.Contract.Fail(&_FalseToken.CallOpts)
}

// Approve is a paid mutator transaction binding the contract method 0x095ea7b3.
//
// Solidity: function approve(address spender, uint256 amount) returns(bool)
func (_FalseToken *FalseTokenTransactor) Approve(opts *bind.TransactOpts, spender common.Address, amount *big.Int) (*types.Transaction, error) {
	return _FalseToken.contract.Transact(opts, "approve", spender, amount)
}

// Approve is a paid mutator transaction binding the contract method 0x095ea7b3.
//
// Solidity: function approve(address spender, uint256 amount) returns(bool)
func (_FalseToken *FalseTokenSession) Approve(spender common.Address, amount *big.Int) (*types.Transaction, error) {
	return _FalseToken.Contract.Approve(&_FalseToken.TransactOpts, spender, amount)
}

// Approve is a paid mutator transaction binding the contract method 0x095ea7b3.
//
// Solidity: function approve(address spender, uint256 amount) returns(bool)
func (_FalseToken *FalseTokenTransactorSession) Approve(spender common.Address, amount *big.Int) (*types.Transaction, error) {
	return _FalseToken.Contract.Approve(&_FalseToken.TransactOpts, spender, amount)
}

// Mint is a paid mutator transaction binding the contract method 0x40c10f19.
//
// Solidity: function mint(address to, uint256 amount) returns()
func (_FalseToken *FalseTokenTransactor) Mint(opts *bind.TransactOpts, to common.Address, amount *big.Int) (*types.Transaction, error) {
	return _FalseToken.contract.Transact(opts, "mint", to, amount)
}

// Mint is a paid mutator transaction binding the contract method 0x40c10f19.
//
// Solidity: function mint(address to, uint256 amount) returns()
func (_FalseToken *FalseTokenSession) Mint(to common.Address, amount *big.Int) (*types.Transaction, error) {
	return _FalseToken.Contract.Mint(&_FalseToken.TransactOpts, to, amount)
}

// Mint is a paid mutator transaction binding the contract method 0x40c10f19.
//
// Solidity: function mint(address to, uint256 amount) returns()
func (_FalseToken *FalseTokenTransactorSession) Mint(to common.Address, amount *big.Int) (*types.Transaction, error) {
	return _FalseToken.Contract.Mint(&_FalseToken.TransactOpts, to, amount)
}

// SetFail is a paid mutator transaction binding the contract method 0x9d769402.
//
// Solidity: function setFail(bool f) returns()
func (_FalseToken *FalseTokenTransactor) SetFail(opts *bind.TransactOpts, f bool) (*types.Transaction, error) {
	return _FalseToken.contract.Transact(opts, "setFail", f)
}

// SetFail is a paid mutator transaction binding the contract method 0x9d769402.
//
// Solidity: function setFail(bool f) returns()
func (_FalseToken *FalseTokenSession) SetFail(f bool) (*types.Transaction, error) {
	return _FalseToken.Contract.SetFail(&_FalseToken.TransactOpts, f)
}

// SetFail is a paid mutator transaction binding the contract method 0x9d769402.
//
// Solidity: function setFail(bool f) returns()
func (_FalseToken *FalseTokenTransactorSession) SetFail(f bool) (*types.Transaction, error) {
	return _FalseToken.Contract.SetFail(&_FalseToken.TransactOpts, f)
}

// Transfer is a paid mutator transaction binding the contract method 0xa9059cbb.
//
// Solidity: function transfer(address to, uint256 amount) returns(bool)
func (_FalseToken *FalseTokenTransactor) Transfer(opts *bind.TransactOpts, to common.Address, amount *big.Int) (*types.Transaction, error) {
	return _FalseToken.contract.Transact(opts, "transfer", to, amount)
}

// Transfer is a paid mutator transaction binding the contract method 0xa9059cbb.
//
// Solidity: function transfer(address to, uint256 amount) returns(bool)
func (_FalseToken *FalseTokenSession) Transfer(to common.Address, amount *big.Int) (*types.Transaction, error) {
	return _FalseToken.Contract.Transfer(&_FalseToken.TransactOpts, to, amount)
}

// Transfer is a paid mutator transaction binding the contract method 0xa9059cbb.
//
// Solidity: function transfer(address to, uint256 amount) returns(bool)
func (_FalseToken *FalseTokenTransactorSession) Transfer(to common.Address, amount *big.Int) (*types.Transaction, error) {
	return _FalseToken.Contract.Transfer(&_FalseToken.TransactOpts, to, amount)
}

// TransferFrom is a paid mutator transaction binding the contract method 0x23b872dd.
//
// Solidity: function transferFrom(address from, address to, uint256 amount) returns(bool)
func (_FalseToken *FalseTokenTransactor) TransferFrom(opts *bind.TransactOpts, from common.Address, to common.Address, amount *big.Int) (*types.Transaction, error) {
	return _FalseToken.contract.Transact(opts, "transferFrom", from, to, amount)
}

// TransferFrom is a paid mutator transaction binding the contract method 0x23b872dd.
//
// Solidity: function transferFrom(address from, address to, uint256 amount) returns(bool)
func (_FalseToken *FalseTokenSession) TransferFrom(from common.Address, to common.Address, amount *big.Int) (*types.Transaction, error) {
	return _FalseToken.Contract.TransferFrom(&_FalseToken.TransactOpts, from, to, amount)
}

// TransferFrom is a paid mutator transaction binding the contract method 0x23b872dd.
//
// Solidity: function transferFrom(address from, address to, uint256 amount) returns(bool)
func (_FalseToken *FalseTokenTransactorSession) TransferFrom(from common.Address, to common.Address, amount *big.Int) (*types.Transaction, error) {
	return _FalseToken.Contract.TransferFrom(&_FalseToken.TransactOpts, from, to, amount)
}
