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

// NoReturnTokenMetaData contains all meta data concerning the NoReturnToken contract.
var NoReturnTokenMetaData = &bind.MetaData{
	ABI: "[{\"inputs\":[{\"internalType\":\"address\",\"name\":\"\",\"type\":\"address\"},{\"internalType\":\"address\",\"name\":\"\",\"type\":\"address\"}],\"name\":\"allowance\",\"outputs\":[{\"internalType\":\"uint256\",\"name\":\"\",\"type\":\"uint256\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"spender\",\"type\":\"address\"},{\"internalType\":\"uint256\",\"name\":\"amount\",\"type\":\"uint256\"}],\"name\":\"approve\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"\",\"type\":\"address\"}],\"name\":\"balanceOf\",\"outputs\":[{\"internalType\":\"uint256\",\"name\":\"\",\"type\":\"uint256\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"to\",\"type\":\"address\"},{\"internalType\":\"uint256\",\"name\":\"amount\",\"type\":\"uint256\"}],\"name\":\"mint\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"to\",\"type\":\"address\"},{\"internalType\":\"uint256\",\"name\":\"amount\",\"type\":\"uint256\"}],\"name\":\"transfer\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"from\",\"type\":\"address\"},{\"internalType\":\"address\",\"name\":\"to\",\"type\":\"address\"},{\"internalType\":\"uint256\",\"name\":\"amount\",\"type\":\"uint256\"}],\"name\":\"transferFrom\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"}]",
	Bin: "0x6080604052348015600e575f5ffd5b506104168061001c5f395ff3fe608060405234801561000f575f5ffd5b506004361061006f575f3560e01c806370a082311161004d57806370a08231146100d2578063a9059cbb14610103578063dd62ed3e14610116575f5ffd5b8063095ea7b31461007357806323b872dd146100ac57806340c10f19146100bf575b5f5ffd5b6100aa6100813660046102d4565b335f9081526001602090815260408083206001600160a01b039590951683529390529190912055565b005b6100aa6100ba3660046102fc565b610140565b6100aa6100cd3660046102d4565b610225565b6100f16100e0366004610336565b5f6020819052908152604090205481565b60405190815260200160405180910390f35b6100aa6101113660046102d4565b610255565b6100f1610124366004610356565b600160209081525f928352604080842090915290825290205481565b6001600160a01b0383165f90815260208190526040902054811180159061018957506001600160a01b0383165f9081526001602090815260408083203384529091529020548111155b610191575f5ffd5b6001600160a01b0383165f908152600160209081526040808320338452909152812080548392906101c39084906103b4565b90915550506001600160a01b0383165f90815260208190526040812080548392906101ef9084906103b4565b90915550506001600160a01b0382165f908152602081905260408120805483929061021b9084906103cd565b9091555050505050565b6001600160a01b0382165f908152602081905260408120805483929061024c9084906103cd565b90915550505050565b335f9081526020819052604090205481111561026f575f5ffd5b335f908152602081905260408120805483929061028d9084906103b4565b90915550506001600160a01b0382165f908152602081905260408120805483929061024c9084906103cd565b80356001600160a01b03811681146102cf575f5ffd5b919050565b5f5f604083850312156102e5575f5ffd5b6102ee836102b9565b946020939093013593505050565b5f5f5f6060848603121561030e575f5ffd5b610317846102b9565b9250610325602085016102b9565b929592945050506040919091013590565b5f60208284031215610346575f5ffd5b61034f826102b9565b9392505050565b5f5f60408385031215610367575f5ffd5b610370836102b9565b915061037e602084016102b9565b90509250929050565b7f4e487b71000000000000000000000000000000000000000000000000000000005f52601160045260245ffd5b818103818111156103c7576103c7610387565b92915050565b808201808211156103c7576103c761038756fea26469706673582212206c044beb36341beb2115a3b9b7e453d8ec6efeadde7704bf27438e8f9ebbb82264736f6c63430008250033",
}

// NoReturnTokenABI is the input ABI used to generate the binding from.
// Deprecated: Use NoReturnTokenMetaData.ABI instead.
var NoReturnTokenABI = NoReturnTokenMetaData.ABI

// NoReturnTokenBin is the compiled bytecode used for deploying new contracts.
// Deprecated: Use NoReturnTokenMetaData.Bin instead.
var NoReturnTokenBin = NoReturnTokenMetaData.Bin

// DeployNoReturnToken deploys a new Ethereum contract, binding an instance of NoReturnToken to it.
func DeployNoReturnToken(auth *bind.TransactOpts, backend bind.ContractBackend) (common.Address, *types.Transaction, *NoReturnToken, error) {
	parsed, err := NoReturnTokenMetaData.GetAbi()
	if err != nil {
		return common.Address{}, nil, nil, err
	}
	if parsed == nil {
		return common.Address{}, nil, nil, errors.New("GetABI returned nil")
	}

	address, tx, contract, err := bind.DeployContract(auth, *parsed, common.FromHex(NoReturnTokenBin), backend)
	if err != nil {
		return common.Address{}, nil, nil, err
	}
	return address, tx, &NoReturnToken{NoReturnTokenCaller: NoReturnTokenCaller{contract: contract}, NoReturnTokenTransactor: NoReturnTokenTransactor{contract: contract}, NoReturnTokenFilterer: NoReturnTokenFilterer{contract: contract}}, nil
}

// NoReturnToken is an auto generated Go binding around an Ethereum contract.
type NoReturnToken struct {
	NoReturnTokenCaller     // Read-only binding to the contract
	NoReturnTokenTransactor // Write-only binding to the contract
	NoReturnTokenFilterer   // Log filterer for contract events
}

// NoReturnTokenCaller is an auto generated read-only Go binding around an Ethereum contract.
type NoReturnTokenCaller struct {
	contract *bind.BoundContract // Generic contract wrapper for the low level calls
}

// NoReturnTokenTransactor is an auto generated write-only Go binding around an Ethereum contract.
type NoReturnTokenTransactor struct {
	contract *bind.BoundContract // Generic contract wrapper for the low level calls
}

// NoReturnTokenFilterer is an auto generated log filtering Go binding around an Ethereum contract events.
type NoReturnTokenFilterer struct {
	contract *bind.BoundContract // Generic contract wrapper for the low level calls
}

// NoReturnTokenSession is an auto generated Go binding around an Ethereum contract,
// with pre-set call and transact options.
type NoReturnTokenSession struct {
	Contract     *NoReturnToken    // Generic contract binding to set the session for
	CallOpts     bind.CallOpts     // Call options to use throughout this session
	TransactOpts bind.TransactOpts // Transaction auth options to use throughout this session
}

// NoReturnTokenCallerSession is an auto generated read-only Go binding around an Ethereum contract,
// with pre-set call options.
type NoReturnTokenCallerSession struct {
	Contract *NoReturnTokenCaller // Generic contract caller binding to set the session for
	CallOpts bind.CallOpts        // Call options to use throughout this session
}

// NoReturnTokenTransactorSession is an auto generated write-only Go binding around an Ethereum contract,
// with pre-set transact options.
type NoReturnTokenTransactorSession struct {
	Contract     *NoReturnTokenTransactor // Generic contract transactor binding to set the session for
	TransactOpts bind.TransactOpts        // Transaction auth options to use throughout this session
}

// NoReturnTokenRaw is an auto generated low-level Go binding around an Ethereum contract.
type NoReturnTokenRaw struct {
	Contract *NoReturnToken // Generic contract binding to access the raw methods on
}

// NoReturnTokenCallerRaw is an auto generated low-level read-only Go binding around an Ethereum contract.
type NoReturnTokenCallerRaw struct {
	Contract *NoReturnTokenCaller // Generic read-only contract binding to access the raw methods on
}

// NoReturnTokenTransactorRaw is an auto generated low-level write-only Go binding around an Ethereum contract.
type NoReturnTokenTransactorRaw struct {
	Contract *NoReturnTokenTransactor // Generic write-only contract binding to access the raw methods on
}

// NewNoReturnToken creates a new instance of NoReturnToken, bound to a specific deployed contract.
func NewNoReturnToken(address common.Address, backend bind.ContractBackend) (*NoReturnToken, error) {
	contract, err := bindNoReturnToken(address, backend, backend, backend)
	if err != nil {
		return nil, err
	}
	return &NoReturnToken{NoReturnTokenCaller: NoReturnTokenCaller{contract: contract}, NoReturnTokenTransactor: NoReturnTokenTransactor{contract: contract}, NoReturnTokenFilterer: NoReturnTokenFilterer{contract: contract}}, nil
}

// NewNoReturnTokenCaller creates a new read-only instance of NoReturnToken, bound to a specific deployed contract.
func NewNoReturnTokenCaller(address common.Address, caller bind.ContractCaller) (*NoReturnTokenCaller, error) {
	contract, err := bindNoReturnToken(address, caller, nil, nil)
	if err != nil {
		return nil, err
	}
	return &NoReturnTokenCaller{contract: contract}, nil
}

// NewNoReturnTokenTransactor creates a new write-only instance of NoReturnToken, bound to a specific deployed contract.
func NewNoReturnTokenTransactor(address common.Address, transactor bind.ContractTransactor) (*NoReturnTokenTransactor, error) {
	contract, err := bindNoReturnToken(address, nil, transactor, nil)
	if err != nil {
		return nil, err
	}
	return &NoReturnTokenTransactor{contract: contract}, nil
}

// NewNoReturnTokenFilterer creates a new log filterer instance of NoReturnToken, bound to a specific deployed contract.
func NewNoReturnTokenFilterer(address common.Address, filterer bind.ContractFilterer) (*NoReturnTokenFilterer, error) {
	contract, err := bindNoReturnToken(address, nil, nil, filterer)
	if err != nil {
		return nil, err
	}
	return &NoReturnTokenFilterer{contract: contract}, nil
}

// bindNoReturnToken binds a generic wrapper to an already deployed contract.
func bindNoReturnToken(address common.Address, caller bind.ContractCaller, transactor bind.ContractTransactor, filterer bind.ContractFilterer) (*bind.BoundContract, error) {
	parsed, err := NoReturnTokenMetaData.GetAbi()
	if err != nil {
		return nil, err
	}
	return bind.NewBoundContract(address, *parsed, caller, transactor, filterer), nil
}

// Call invokes the (constant) contract method with params as input values and
// sets the output to result. The result type might be a single field for simple
// returns, a slice of interfaces for anonymous returns and a struct for named
// returns.
func (_NoReturnToken *NoReturnTokenRaw) Call(opts *bind.CallOpts, result *[]interface{}, method string, params ...interface{}) error {
	return _NoReturnToken.Contract.NoReturnTokenCaller.contract.Call(opts, result, method, params...)
}

// Transfer initiates a plain transaction to move funds to the contract, calling
// its default method if one is available.
func (_NoReturnToken *NoReturnTokenRaw) Transfer(opts *bind.TransactOpts) (*types.Transaction, error) {
	return _NoReturnToken.Contract.NoReturnTokenTransactor.contract.Transfer(opts)
}

// Transact invokes the (paid) contract method with params as input values.
func (_NoReturnToken *NoReturnTokenRaw) Transact(opts *bind.TransactOpts, method string, params ...interface{}) (*types.Transaction, error) {
	return _NoReturnToken.Contract.NoReturnTokenTransactor.contract.Transact(opts, method, params...)
}

// Call invokes the (constant) contract method with params as input values and
// sets the output to result. The result type might be a single field for simple
// returns, a slice of interfaces for anonymous returns and a struct for named
// returns.
func (_NoReturnToken *NoReturnTokenCallerRaw) Call(opts *bind.CallOpts, result *[]interface{}, method string, params ...interface{}) error {
	return _NoReturnToken.Contract.contract.Call(opts, result, method, params...)
}

// Transfer initiates a plain transaction to move funds to the contract, calling
// its default method if one is available.
func (_NoReturnToken *NoReturnTokenTransactorRaw) Transfer(opts *bind.TransactOpts) (*types.Transaction, error) {
	return _NoReturnToken.Contract.contract.Transfer(opts)
}

// Transact invokes the (paid) contract method with params as input values.
func (_NoReturnToken *NoReturnTokenTransactorRaw) Transact(opts *bind.TransactOpts, method string, params ...interface{}) (*types.Transaction, error) {
	return _NoReturnToken.Contract.contract.Transact(opts, method, params...)
}

// Allowance is a free data retrieval call binding the contract method 0xdd62ed3e.
//
// Solidity: function allowance(address , address ) view returns(uint256)
func (_NoReturnToken *NoReturnTokenCaller) Allowance(opts *bind.CallOpts, arg0 common.Address, arg1 common.Address) (*big.Int, error) {
	var out []interface{}
	err := _NoReturnToken.contract.Call(opts, &out, "allowance", arg0, arg1)

	if err != nil {
		return *new(*big.Int), err
	}

	out0 := *abi.ConvertType(out[0], new(*big.Int)).(**big.Int)

	return out0, err

}

// Allowance is a free data retrieval call binding the contract method 0xdd62ed3e.
//
// Solidity: function allowance(address , address ) view returns(uint256)
func (_NoReturnToken *NoReturnTokenSession) Allowance(arg0 common.Address, arg1 common.Address) (*big.Int, error) {
	return _NoReturnToken.Contract.Allowance(&_NoReturnToken.CallOpts, arg0, arg1)
}

// Allowance is a free data retrieval call binding the contract method 0xdd62ed3e.
//
// Solidity: function allowance(address , address ) view returns(uint256)
func (_NoReturnToken *NoReturnTokenCallerSession) Allowance(arg0 common.Address, arg1 common.Address) (*big.Int, error) {
	return _NoReturnToken.Contract.Allowance(&_NoReturnToken.CallOpts, arg0, arg1)
}

// BalanceOf is a free data retrieval call binding the contract method 0x70a08231.
//
// Solidity: function balanceOf(address ) view returns(uint256)
func (_NoReturnToken *NoReturnTokenCaller) BalanceOf(opts *bind.CallOpts, arg0 common.Address) (*big.Int, error) {
	var out []interface{}
	err := _NoReturnToken.contract.Call(opts, &out, "balanceOf", arg0)

	if err != nil {
		return *new(*big.Int), err
	}

	out0 := *abi.ConvertType(out[0], new(*big.Int)).(**big.Int)

	return out0, err

}

// BalanceOf is a free data retrieval call binding the contract method 0x70a08231.
//
// Solidity: function balanceOf(address ) view returns(uint256)
func (_NoReturnToken *NoReturnTokenSession) BalanceOf(arg0 common.Address) (*big.Int, error) {
	return _NoReturnToken.Contract.BalanceOf(&_NoReturnToken.CallOpts, arg0)
}

// BalanceOf is a free data retrieval call binding the contract method 0x70a08231.
//
// Solidity: function balanceOf(address ) view returns(uint256)
func (_NoReturnToken *NoReturnTokenCallerSession) BalanceOf(arg0 common.Address) (*big.Int, error) {
	return _NoReturnToken.Contract.BalanceOf(&_NoReturnToken.CallOpts, arg0)
}

// Approve is a paid mutator transaction binding the contract method 0x095ea7b3.
//
// Solidity: function approve(address spender, uint256 amount) returns()
func (_NoReturnToken *NoReturnTokenTransactor) Approve(opts *bind.TransactOpts, spender common.Address, amount *big.Int) (*types.Transaction, error) {
	return _NoReturnToken.contract.Transact(opts, "approve", spender, amount)
}

// Approve is a paid mutator transaction binding the contract method 0x095ea7b3.
//
// Solidity: function approve(address spender, uint256 amount) returns()
func (_NoReturnToken *NoReturnTokenSession) Approve(spender common.Address, amount *big.Int) (*types.Transaction, error) {
	return _NoReturnToken.Contract.Approve(&_NoReturnToken.TransactOpts, spender, amount)
}

// Approve is a paid mutator transaction binding the contract method 0x095ea7b3.
//
// Solidity: function approve(address spender, uint256 amount) returns()
func (_NoReturnToken *NoReturnTokenTransactorSession) Approve(spender common.Address, amount *big.Int) (*types.Transaction, error) {
	return _NoReturnToken.Contract.Approve(&_NoReturnToken.TransactOpts, spender, amount)
}

// Mint is a paid mutator transaction binding the contract method 0x40c10f19.
//
// Solidity: function mint(address to, uint256 amount) returns()
func (_NoReturnToken *NoReturnTokenTransactor) Mint(opts *bind.TransactOpts, to common.Address, amount *big.Int) (*types.Transaction, error) {
	return _NoReturnToken.contract.Transact(opts, "mint", to, amount)
}

// Mint is a paid mutator transaction binding the contract method 0x40c10f19.
//
// Solidity: function mint(address to, uint256 amount) returns()
func (_NoReturnToken *NoReturnTokenSession) Mint(to common.Address, amount *big.Int) (*types.Transaction, error) {
	return _NoReturnToken.Contract.Mint(&_NoReturnToken.TransactOpts, to, amount)
}

// Mint is a paid mutator transaction binding the contract method 0x40c10f19.
//
// Solidity: function mint(address to, uint256 amount) returns()
func (_NoReturnToken *NoReturnTokenTransactorSession) Mint(to common.Address, amount *big.Int) (*types.Transaction, error) {
	return _NoReturnToken.Contract.Mint(&_NoReturnToken.TransactOpts, to, amount)
}

// Transfer is a paid mutator transaction binding the contract method 0xa9059cbb.
//
// Solidity: function transfer(address to, uint256 amount) returns()
func (_NoReturnToken *NoReturnTokenTransactor) Transfer(opts *bind.TransactOpts, to common.Address, amount *big.Int) (*types.Transaction, error) {
	return _NoReturnToken.contract.Transact(opts, "transfer", to, amount)
}

// Transfer is a paid mutator transaction binding the contract method 0xa9059cbb.
//
// Solidity: function transfer(address to, uint256 amount) returns()
func (_NoReturnToken *NoReturnTokenSession) Transfer(to common.Address, amount *big.Int) (*types.Transaction, error) {
	return _NoReturnToken.Contract.Transfer(&_NoReturnToken.TransactOpts, to, amount)
}

// Transfer is a paid mutator transaction binding the contract method 0xa9059cbb.
//
// Solidity: function transfer(address to, uint256 amount) returns()
func (_NoReturnToken *NoReturnTokenTransactorSession) Transfer(to common.Address, amount *big.Int) (*types.Transaction, error) {
	return _NoReturnToken.Contract.Transfer(&_NoReturnToken.TransactOpts, to, amount)
}

// TransferFrom is a paid mutator transaction binding the contract method 0x23b872dd.
//
// Solidity: function transferFrom(address from, address to, uint256 amount) returns()
func (_NoReturnToken *NoReturnTokenTransactor) TransferFrom(opts *bind.TransactOpts, from common.Address, to common.Address, amount *big.Int) (*types.Transaction, error) {
	return _NoReturnToken.contract.Transact(opts, "transferFrom", from, to, amount)
}

// TransferFrom is a paid mutator transaction binding the contract method 0x23b872dd.
//
// Solidity: function transferFrom(address from, address to, uint256 amount) returns()
func (_NoReturnToken *NoReturnTokenSession) TransferFrom(from common.Address, to common.Address, amount *big.Int) (*types.Transaction, error) {
	return _NoReturnToken.Contract.TransferFrom(&_NoReturnToken.TransactOpts, from, to, amount)
}

// TransferFrom is a paid mutator transaction binding the contract method 0x23b872dd.
//
// Solidity: function transferFrom(address from, address to, uint256 amount) returns()
func (_NoReturnToken *NoReturnTokenTransactorSession) TransferFrom(from common.Address, to common.Address, amount *big.Int) (*types.Transaction, error) {
	return _NoReturnToken.Contract.TransferFrom(&_NoReturnToken.TransactOpts, from, to, amount)
}
