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

// ReentrantTokenMetaData contains all meta data concerning the ReentrantToken contract.
var ReentrantTokenMetaData = &bind.MetaData{
	ABI: "[{\"inputs\":[{\"internalType\":\"address\",\"name\":\"\",\"type\":\"address\"},{\"internalType\":\"address\",\"name\":\"\",\"type\":\"address\"}],\"name\":\"allowance\",\"outputs\":[{\"internalType\":\"uint256\",\"name\":\"\",\"type\":\"uint256\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"spender\",\"type\":\"address\"},{\"internalType\":\"uint256\",\"name\":\"amount\",\"type\":\"uint256\"}],\"name\":\"approve\",\"outputs\":[{\"internalType\":\"bool\",\"name\":\"\",\"type\":\"bool\"}],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"target_\",\"type\":\"address\"},{\"internalType\":\"bytes\",\"name\":\"payload_\",\"type\":\"bytes\"}],\"name\":\"arm\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"attempted\",\"outputs\":[{\"internalType\":\"bool\",\"name\":\"\",\"type\":\"bool\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"\",\"type\":\"address\"}],\"name\":\"balanceOf\",\"outputs\":[{\"internalType\":\"uint256\",\"name\":\"\",\"type\":\"uint256\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"innerResult\",\"outputs\":[{\"internalType\":\"bytes\",\"name\":\"\",\"type\":\"bytes\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"innerSucceeded\",\"outputs\":[{\"internalType\":\"bool\",\"name\":\"\",\"type\":\"bool\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"to\",\"type\":\"address\"},{\"internalType\":\"uint256\",\"name\":\"amount\",\"type\":\"uint256\"}],\"name\":\"mint\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"payload\",\"outputs\":[{\"internalType\":\"bytes\",\"name\":\"\",\"type\":\"bytes\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"target\",\"outputs\":[{\"internalType\":\"address\",\"name\":\"\",\"type\":\"address\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"to\",\"type\":\"address\"},{\"internalType\":\"uint256\",\"name\":\"amount\",\"type\":\"uint256\"}],\"name\":\"transfer\",\"outputs\":[{\"internalType\":\"bool\",\"name\":\"\",\"type\":\"bool\"}],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"from\",\"type\":\"address\"},{\"internalType\":\"address\",\"name\":\"to\",\"type\":\"address\"},{\"internalType\":\"uint256\",\"name\":\"amount\",\"type\":\"uint256\"}],\"name\":\"transferFrom\",\"outputs\":[{\"internalType\":\"bool\",\"name\":\"\",\"type\":\"bool\"}],\"stateMutability\":\"nonpayable\",\"type\":\"function\"}]",
	Bin: "0x6080604052348015600e575f5ffd5b506109f18061001c5f395ff3fe608060405234801561000f575f5ffd5b50600436106100cf575f3560e01c8063917f51b41161007d578063aefbac6a11610058578063aefbac6a146101a4578063d4b83992146101b6578063dd62ed3e146101e1575f5ffd5b8063917f51b41461017c578063a878f85814610189578063a9059cbb14610191575f5ffd5b80633522bfd0116100ad5780633522bfd01461012757806340c10f191461013c57806370a082311461014f575f5ffd5b806308f0f877146100d3578063095ea7b3146100f157806323b872dd14610114575b5f5ffd5b6100db61020b565b6040516100e89190610577565b60405180910390f35b6101046100ff3660046105c7565b610297565b60405190151581526020016100e8565b6101046101223660046105ef565b6102c4565b61013a610135366004610629565b6103b7565b005b61013a61014a3660046105c7565b610407565b61016e61015d3660046106a7565b5f6020819052908152604090205481565b6040519081526020016100e8565b6004546101049060ff1681565b6100db610437565b61010461019f3660046105c7565b610444565b60045461010490610100900460ff1681565b6002546101c9906001600160a01b031681565b6040516001600160a01b0390911681526020016100e8565b61016e6101ef3660046106c7565b600160209081525f928352604080842090915290825290205481565b60058054610218906106f8565b80601f0160208091040260200160405190810160405280929190818152602001828054610244906106f8565b801561028f5780601f106102665761010080835404028352916020019161028f565b820191905f5260205f20905b81548152906001019060200180831161027257829003601f168201915b505050505081565b335f9081526001602081815260408084206001600160a01b03871685529091529091208290555b92915050565b6001600160a01b0383165f90815260208190526040812054821180159061030d57506001600160a01b0384165f9081526001602090815260408083203384529091529020548211155b610315575f5ffd5b6001600160a01b0384165f90815260016020908152604080832033845290915281208054849290610347908490610744565b90915550506001600160a01b0384165f9081526020819052604081208054849290610373908490610744565b90915550506001600160a01b0383165f908152602081905260408120805484929061039f908490610757565b909155506103ad90506104bf565b5060019392505050565b600280547fffffffffffffffffffffffff0000000000000000000000000000000000000000166001600160a01b03851617905560036103f78284836107d4565b50506004805460ff191690555050565b6001600160a01b0382165f908152602081905260408120805483929061042e908490610757565b90915550505050565b60038054610218906106f8565b335f9081526020819052604081205482111561045e575f5ffd5b335f908152602081905260408120805484929061047c908490610744565b90915550506001600160a01b0383165f90815260208190526040812080548492906104a8908490610757565b909155506104b690506104bf565b50600192915050565b6002546001600160a01b031615806104d9575060045460ff165b156104e057565b6004805460ff191660011790556002546040515f9182916001600160a01b039091169061050f9060039061088f565b5f604051808303815f865af19150503d805f8114610548576040519150601f19603f3d011682016040523d82523d5f602084013e61054d565b606091505b506004805461ff00191661010084151502179055909250905060056105728282610900565b505050565b602081525f82518060208401528060208501604085015e5f604082850101526040601f19601f83011684010191505092915050565b80356001600160a01b03811681146105c2575f5ffd5b919050565b5f5f604083850312156105d8575f5ffd5b6105e1836105ac565b946020939093013593505050565b5f5f5f60608486031215610601575f5ffd5b61060a846105ac565b9250610618602085016105ac565b929592945050506040919091013590565b5f5f5f6040848603121561063b575f5ffd5b610644846105ac565b9250602084013567ffffffffffffffff81111561065f575f5ffd5b8401601f8101861361066f575f5ffd5b803567ffffffffffffffff811115610685575f5ffd5b866020828401011115610696575f5ffd5b939660209190910195509293505050565b5f602082840312156106b7575f5ffd5b6106c0826105ac565b9392505050565b5f5f604083850312156106d8575f5ffd5b6106e1836105ac565b91506106ef602084016105ac565b90509250929050565b600181811c9082168061070c57607f821691505b60208210810361072a57634e487b7160e01b5f52602260045260245ffd5b50919050565b634e487b7160e01b5f52601160045260245ffd5b818103818111156102be576102be610730565b808201808211156102be576102be610730565b634e487b7160e01b5f52604160045260245ffd5b601f821115610572578282111561057257805f5260205f20601f840160051c60208510156107a957505f5b90810190601f840160051c035f5b818110156107cc575f838201556001016107b7565b505050505050565b67ffffffffffffffff8311156107ec576107ec61076a565b610800836107fa83546106f8565b8361077e565b5f601f841160018114610831575f851561081a5750838201355b5f19600387901b1c1916600186901b178355610888565b5f83815260208120601f198716915b828110156108605786850135825560209485019460019092019101610840565b508682101561087c575f1960f88860031b161c19848701351681555b505060018560011b0183555b5050505050565b5f5f835461089c816106f8565b6001821680156108b357600181146108c8576108f5565b60ff19831686528115158202860193506108f5565b865f5260205f205f5b838110156108ed578154888201526001909101906020016108d1565b505081860193505b509195945050505050565b815167ffffffffffffffff81111561091a5761091a61076a565b61092e8161092884546106f8565b8461077e565b6020601f821160018114610960575f83156109495750848201515b5f19600385901b1c1916600184901b178455610888565b5f84815260208120601f198516915b8281101561098f578785015182556020948501946001909201910161096f565b50848210156109ac57868401515f19600387901b60f8161c191681555b50505050600190811b0190555056fea264697066735822122069cab002cd42154b1e7e4d51e2af95e993a2ebc7ba506b3aff87cfaffc08cb3264736f6c63430008250033",
}

// ReentrantTokenABI is the input ABI used to generate the binding from.
// Deprecated: Use ReentrantTokenMetaData.ABI instead.
var ReentrantTokenABI = ReentrantTokenMetaData.ABI

// ReentrantTokenBin is the compiled bytecode used for deploying new contracts.
// Deprecated: Use ReentrantTokenMetaData.Bin instead.
var ReentrantTokenBin = ReentrantTokenMetaData.Bin

// DeployReentrantToken deploys a new Ethereum contract, binding an instance of ReentrantToken to it.
func DeployReentrantToken(auth *bind.TransactOpts, backend bind.ContractBackend) (common.Address, *types.Transaction, *ReentrantToken, error) {
	parsed, err := ReentrantTokenMetaData.GetAbi()
	if err != nil {
		return common.Address{}, nil, nil, err
	}
	if parsed == nil {
		return common.Address{}, nil, nil, errors.New("GetABI returned nil")
	}

	address, tx, contract, err := bind.DeployContract(auth, *parsed, common.FromHex(ReentrantTokenBin), backend)
	if err != nil {
		return common.Address{}, nil, nil, err
	}
	return address, tx, &ReentrantToken{ReentrantTokenCaller: ReentrantTokenCaller{contract: contract}, ReentrantTokenTransactor: ReentrantTokenTransactor{contract: contract}, ReentrantTokenFilterer: ReentrantTokenFilterer{contract: contract}}, nil
}

// ReentrantToken is an auto generated Go binding around an Ethereum contract.
type ReentrantToken struct {
	ReentrantTokenCaller     // Read-only binding to the contract
	ReentrantTokenTransactor // Write-only binding to the contract
	ReentrantTokenFilterer   // Log filterer for contract events
}

// ReentrantTokenCaller is an auto generated read-only Go binding around an Ethereum contract.
type ReentrantTokenCaller struct {
	contract *bind.BoundContract // Generic contract wrapper for the low level calls
}

// ReentrantTokenTransactor is an auto generated write-only Go binding around an Ethereum contract.
type ReentrantTokenTransactor struct {
	contract *bind.BoundContract // Generic contract wrapper for the low level calls
}

// ReentrantTokenFilterer is an auto generated log filtering Go binding around an Ethereum contract events.
type ReentrantTokenFilterer struct {
	contract *bind.BoundContract // Generic contract wrapper for the low level calls
}

// ReentrantTokenSession is an auto generated Go binding around an Ethereum contract,
// with pre-set call and transact options.
type ReentrantTokenSession struct {
	Contract     *ReentrantToken   // Generic contract binding to set the session for
	CallOpts     bind.CallOpts     // Call options to use throughout this session
	TransactOpts bind.TransactOpts // Transaction auth options to use throughout this session
}

// ReentrantTokenCallerSession is an auto generated read-only Go binding around an Ethereum contract,
// with pre-set call options.
type ReentrantTokenCallerSession struct {
	Contract *ReentrantTokenCaller // Generic contract caller binding to set the session for
	CallOpts bind.CallOpts         // Call options to use throughout this session
}

// ReentrantTokenTransactorSession is an auto generated write-only Go binding around an Ethereum contract,
// with pre-set transact options.
type ReentrantTokenTransactorSession struct {
	Contract     *ReentrantTokenTransactor // Generic contract transactor binding to set the session for
	TransactOpts bind.TransactOpts         // Transaction auth options to use throughout this session
}

// ReentrantTokenRaw is an auto generated low-level Go binding around an Ethereum contract.
type ReentrantTokenRaw struct {
	Contract *ReentrantToken // Generic contract binding to access the raw methods on
}

// ReentrantTokenCallerRaw is an auto generated low-level read-only Go binding around an Ethereum contract.
type ReentrantTokenCallerRaw struct {
	Contract *ReentrantTokenCaller // Generic read-only contract binding to access the raw methods on
}

// ReentrantTokenTransactorRaw is an auto generated low-level write-only Go binding around an Ethereum contract.
type ReentrantTokenTransactorRaw struct {
	Contract *ReentrantTokenTransactor // Generic write-only contract binding to access the raw methods on
}

// NewReentrantToken creates a new instance of ReentrantToken, bound to a specific deployed contract.
func NewReentrantToken(address common.Address, backend bind.ContractBackend) (*ReentrantToken, error) {
	contract, err := bindReentrantToken(address, backend, backend, backend)
	if err != nil {
		return nil, err
	}
	return &ReentrantToken{ReentrantTokenCaller: ReentrantTokenCaller{contract: contract}, ReentrantTokenTransactor: ReentrantTokenTransactor{contract: contract}, ReentrantTokenFilterer: ReentrantTokenFilterer{contract: contract}}, nil
}

// NewReentrantTokenCaller creates a new read-only instance of ReentrantToken, bound to a specific deployed contract.
func NewReentrantTokenCaller(address common.Address, caller bind.ContractCaller) (*ReentrantTokenCaller, error) {
	contract, err := bindReentrantToken(address, caller, nil, nil)
	if err != nil {
		return nil, err
	}
	return &ReentrantTokenCaller{contract: contract}, nil
}

// NewReentrantTokenTransactor creates a new write-only instance of ReentrantToken, bound to a specific deployed contract.
func NewReentrantTokenTransactor(address common.Address, transactor bind.ContractTransactor) (*ReentrantTokenTransactor, error) {
	contract, err := bindReentrantToken(address, nil, transactor, nil)
	if err != nil {
		return nil, err
	}
	return &ReentrantTokenTransactor{contract: contract}, nil
}

// NewReentrantTokenFilterer creates a new log filterer instance of ReentrantToken, bound to a specific deployed contract.
func NewReentrantTokenFilterer(address common.Address, filterer bind.ContractFilterer) (*ReentrantTokenFilterer, error) {
	contract, err := bindReentrantToken(address, nil, nil, filterer)
	if err != nil {
		return nil, err
	}
	return &ReentrantTokenFilterer{contract: contract}, nil
}

// bindReentrantToken binds a generic wrapper to an already deployed contract.
func bindReentrantToken(address common.Address, caller bind.ContractCaller, transactor bind.ContractTransactor, filterer bind.ContractFilterer) (*bind.BoundContract, error) {
	parsed, err := ReentrantTokenMetaData.GetAbi()
	if err != nil {
		return nil, err
	}
	return bind.NewBoundContract(address, *parsed, caller, transactor, filterer), nil
}

// Call invokes the (constant) contract method with params as input values and
// sets the output to result. The result type might be a single field for simple
// returns, a slice of interfaces for anonymous returns and a struct for named
// returns.
func (_ReentrantToken *ReentrantTokenRaw) Call(opts *bind.CallOpts, result *[]interface{}, method string, params ...interface{}) error {
	return _ReentrantToken.Contract.ReentrantTokenCaller.contract.Call(opts, result, method, params...)
}

// Transfer initiates a plain transaction to move funds to the contract, calling
// its default method if one is available.
func (_ReentrantToken *ReentrantTokenRaw) Transfer(opts *bind.TransactOpts) (*types.Transaction, error) {
	return _ReentrantToken.Contract.ReentrantTokenTransactor.contract.Transfer(opts)
}

// Transact invokes the (paid) contract method with params as input values.
func (_ReentrantToken *ReentrantTokenRaw) Transact(opts *bind.TransactOpts, method string, params ...interface{}) (*types.Transaction, error) {
	return _ReentrantToken.Contract.ReentrantTokenTransactor.contract.Transact(opts, method, params...)
}

// Call invokes the (constant) contract method with params as input values and
// sets the output to result. The result type might be a single field for simple
// returns, a slice of interfaces for anonymous returns and a struct for named
// returns.
func (_ReentrantToken *ReentrantTokenCallerRaw) Call(opts *bind.CallOpts, result *[]interface{}, method string, params ...interface{}) error {
	return _ReentrantToken.Contract.contract.Call(opts, result, method, params...)
}

// Transfer initiates a plain transaction to move funds to the contract, calling
// its default method if one is available.
func (_ReentrantToken *ReentrantTokenTransactorRaw) Transfer(opts *bind.TransactOpts) (*types.Transaction, error) {
	return _ReentrantToken.Contract.contract.Transfer(opts)
}

// Transact invokes the (paid) contract method with params as input values.
func (_ReentrantToken *ReentrantTokenTransactorRaw) Transact(opts *bind.TransactOpts, method string, params ...interface{}) (*types.Transaction, error) {
	return _ReentrantToken.Contract.contract.Transact(opts, method, params...)
}

// Allowance is a free data retrieval call binding the contract method 0xdd62ed3e.
//
// Solidity: function allowance(address , address ) view returns(uint256)
func (_ReentrantToken *ReentrantTokenCaller) Allowance(opts *bind.CallOpts, arg0 common.Address, arg1 common.Address) (*big.Int, error) {
	var out []interface{}
	err := _ReentrantToken.contract.Call(opts, &out, "allowance", arg0, arg1)

	if err != nil {
		return *new(*big.Int), err
	}

	out0 := *abi.ConvertType(out[0], new(*big.Int)).(**big.Int)

	return out0, err

}

// Allowance is a free data retrieval call binding the contract method 0xdd62ed3e.
//
// Solidity: function allowance(address , address ) view returns(uint256)
func (_ReentrantToken *ReentrantTokenSession) Allowance(arg0 common.Address, arg1 common.Address) (*big.Int, error) {
	return _ReentrantToken.Contract.Allowance(&_ReentrantToken.CallOpts, arg0, arg1)
}

// Allowance is a free data retrieval call binding the contract method 0xdd62ed3e.
//
// Solidity: function allowance(address , address ) view returns(uint256)
func (_ReentrantToken *ReentrantTokenCallerSession) Allowance(arg0 common.Address, arg1 common.Address) (*big.Int, error) {
	return _ReentrantToken.Contract.Allowance(&_ReentrantToken.CallOpts, arg0, arg1)
}

// Attempted is a free data retrieval call binding the contract method 0x917f51b4.
//
// Solidity: function attempted() view returns(bool)
func (_ReentrantToken *ReentrantTokenCaller) Attempted(opts *bind.CallOpts) (bool, error) {
	var out []interface{}
	err := _ReentrantToken.contract.Call(opts, &out, "attempted")

	if err != nil {
		return *new(bool), err
	}

	out0 := *abi.ConvertType(out[0], new(bool)).(*bool)

	return out0, err

}

// Attempted is a free data retrieval call binding the contract method 0x917f51b4.
//
// Solidity: function attempted() view returns(bool)
func (_ReentrantToken *ReentrantTokenSession) Attempted() (bool, error) {
	return _ReentrantToken.Contract.Attempted(&_ReentrantToken.CallOpts)
}

// Attempted is a free data retrieval call binding the contract method 0x917f51b4.
//
// Solidity: function attempted() view returns(bool)
func (_ReentrantToken *ReentrantTokenCallerSession) Attempted() (bool, error) {
	return _ReentrantToken.Contract.Attempted(&_ReentrantToken.CallOpts)
}

// BalanceOf is a free data retrieval call binding the contract method 0x70a08231.
//
// Solidity: function balanceOf(address ) view returns(uint256)
func (_ReentrantToken *ReentrantTokenCaller) BalanceOf(opts *bind.CallOpts, arg0 common.Address) (*big.Int, error) {
	var out []interface{}
	err := _ReentrantToken.contract.Call(opts, &out, "balanceOf", arg0)

	if err != nil {
		return *new(*big.Int), err
	}

	out0 := *abi.ConvertType(out[0], new(*big.Int)).(**big.Int)

	return out0, err

}

// BalanceOf is a free data retrieval call binding the contract method 0x70a08231.
//
// Solidity: function balanceOf(address ) view returns(uint256)
func (_ReentrantToken *ReentrantTokenSession) BalanceOf(arg0 common.Address) (*big.Int, error) {
	return _ReentrantToken.Contract.BalanceOf(&_ReentrantToken.CallOpts, arg0)
}

// BalanceOf is a free data retrieval call binding the contract method 0x70a08231.
//
// Solidity: function balanceOf(address ) view returns(uint256)
func (_ReentrantToken *ReentrantTokenCallerSession) BalanceOf(arg0 common.Address) (*big.Int, error) {
	return _ReentrantToken.Contract.BalanceOf(&_ReentrantToken.CallOpts, arg0)
}

// InnerResult is a free data retrieval call binding the contract method 0x08f0f877.
//
// Solidity: function innerResult() view returns(bytes)
func (_ReentrantToken *ReentrantTokenCaller) InnerResult(opts *bind.CallOpts) ([]byte, error) {
	var out []interface{}
	err := _ReentrantToken.contract.Call(opts, &out, "innerResult")

	if err != nil {
		return *new([]byte), err
	}

	out0 := *abi.ConvertType(out[0], new([]byte)).(*[]byte)

	return out0, err

}

// InnerResult is a free data retrieval call binding the contract method 0x08f0f877.
//
// Solidity: function innerResult() view returns(bytes)
func (_ReentrantToken *ReentrantTokenSession) InnerResult() ([]byte, error) {
	return _ReentrantToken.Contract.InnerResult(&_ReentrantToken.CallOpts)
}

// InnerResult is a free data retrieval call binding the contract method 0x08f0f877.
//
// Solidity: function innerResult() view returns(bytes)
func (_ReentrantToken *ReentrantTokenCallerSession) InnerResult() ([]byte, error) {
	return _ReentrantToken.Contract.InnerResult(&_ReentrantToken.CallOpts)
}

// InnerSucceeded is a free data retrieval call binding the contract method 0xaefbac6a.
//
// Solidity: function innerSucceeded() view returns(bool)
func (_ReentrantToken *ReentrantTokenCaller) InnerSucceeded(opts *bind.CallOpts) (bool, error) {
	var out []interface{}
	err := _ReentrantToken.contract.Call(opts, &out, "innerSucceeded")

	if err != nil {
		return *new(bool), err
	}

	out0 := *abi.ConvertType(out[0], new(bool)).(*bool)

	return out0, err

}

// InnerSucceeded is a free data retrieval call binding the contract method 0xaefbac6a.
//
// Solidity: function innerSucceeded() view returns(bool)
func (_ReentrantToken *ReentrantTokenSession) InnerSucceeded() (bool, error) {
	return _ReentrantToken.Contract.InnerSucceeded(&_ReentrantToken.CallOpts)
}

// InnerSucceeded is a free data retrieval call binding the contract method 0xaefbac6a.
//
// Solidity: function innerSucceeded() view returns(bool)
func (_ReentrantToken *ReentrantTokenCallerSession) InnerSucceeded() (bool, error) {
	return _ReentrantToken.Contract.InnerSucceeded(&_ReentrantToken.CallOpts)
}

// Payload is a free data retrieval call binding the contract method 0xa878f858.
//
// Solidity: function payload() view returns(bytes)
func (_ReentrantToken *ReentrantTokenCaller) Payload(opts *bind.CallOpts) ([]byte, error) {
	var out []interface{}
	err := _ReentrantToken.contract.Call(opts, &out, "payload")

	if err != nil {
		return *new([]byte), err
	}

	out0 := *abi.ConvertType(out[0], new([]byte)).(*[]byte)

	return out0, err

}

// Payload is a free data retrieval call binding the contract method 0xa878f858.
//
// Solidity: function payload() view returns(bytes)
func (_ReentrantToken *ReentrantTokenSession) Payload() ([]byte, error) {
	return _ReentrantToken.Contract.Payload(&_ReentrantToken.CallOpts)
}

// Payload is a free data retrieval call binding the contract method 0xa878f858.
//
// Solidity: function payload() view returns(bytes)
func (_ReentrantToken *ReentrantTokenCallerSession) Payload() ([]byte, error) {
	return _ReentrantToken.Contract.Payload(&_ReentrantToken.CallOpts)
}

// Target is a free data retrieval call binding the contract method 0xd4b83992.
//
// Solidity: function target() view returns(address)
func (_ReentrantToken *ReentrantTokenCaller) Target(opts *bind.CallOpts) (common.Address, error) {
	var out []interface{}
	err := _ReentrantToken.contract.Call(opts, &out, "target")

	if err != nil {
		return *new(common.Address), err
	}

	out0 := *abi.ConvertType(out[0], new(common.Address)).(*common.Address)

	return out0, err

}

// Target is a free data retrieval call binding the contract method 0xd4b83992.
//
// Solidity: function target() view returns(address)
func (_ReentrantToken *ReentrantTokenSession) Target() (common.Address, error) {
	return _ReentrantToken.Contract.Target(&_ReentrantToken.CallOpts)
}

// Target is a free data retrieval call binding the contract method 0xd4b83992.
//
// Solidity: function target() view returns(address)
func (_ReentrantToken *ReentrantTokenCallerSession) Target() (common.Address, error) {
	return _ReentrantToken.Contract.Target(&_ReentrantToken.CallOpts)
}

// Approve is a paid mutator transaction binding the contract method 0x095ea7b3.
//
// Solidity: function approve(address spender, uint256 amount) returns(bool)
func (_ReentrantToken *ReentrantTokenTransactor) Approve(opts *bind.TransactOpts, spender common.Address, amount *big.Int) (*types.Transaction, error) {
	return _ReentrantToken.contract.Transact(opts, "approve", spender, amount)
}

// Approve is a paid mutator transaction binding the contract method 0x095ea7b3.
//
// Solidity: function approve(address spender, uint256 amount) returns(bool)
func (_ReentrantToken *ReentrantTokenSession) Approve(spender common.Address, amount *big.Int) (*types.Transaction, error) {
	return _ReentrantToken.Contract.Approve(&_ReentrantToken.TransactOpts, spender, amount)
}

// Approve is a paid mutator transaction binding the contract method 0x095ea7b3.
//
// Solidity: function approve(address spender, uint256 amount) returns(bool)
func (_ReentrantToken *ReentrantTokenTransactorSession) Approve(spender common.Address, amount *big.Int) (*types.Transaction, error) {
	return _ReentrantToken.Contract.Approve(&_ReentrantToken.TransactOpts, spender, amount)
}

// Arm is a paid mutator transaction binding the contract method 0x3522bfd0.
//
// Solidity: function arm(address target_, bytes payload_) returns()
func (_ReentrantToken *ReentrantTokenTransactor) Arm(opts *bind.TransactOpts, target_ common.Address, payload_ []byte) (*types.Transaction, error) {
	return _ReentrantToken.contract.Transact(opts, "arm", target_, payload_)
}

// Arm is a paid mutator transaction binding the contract method 0x3522bfd0.
//
// Solidity: function arm(address target_, bytes payload_) returns()
func (_ReentrantToken *ReentrantTokenSession) Arm(target_ common.Address, payload_ []byte) (*types.Transaction, error) {
	return _ReentrantToken.Contract.Arm(&_ReentrantToken.TransactOpts, target_, payload_)
}

// Arm is a paid mutator transaction binding the contract method 0x3522bfd0.
//
// Solidity: function arm(address target_, bytes payload_) returns()
func (_ReentrantToken *ReentrantTokenTransactorSession) Arm(target_ common.Address, payload_ []byte) (*types.Transaction, error) {
	return _ReentrantToken.Contract.Arm(&_ReentrantToken.TransactOpts, target_, payload_)
}

// Mint is a paid mutator transaction binding the contract method 0x40c10f19.
//
// Solidity: function mint(address to, uint256 amount) returns()
func (_ReentrantToken *ReentrantTokenTransactor) Mint(opts *bind.TransactOpts, to common.Address, amount *big.Int) (*types.Transaction, error) {
	return _ReentrantToken.contract.Transact(opts, "mint", to, amount)
}

// Mint is a paid mutator transaction binding the contract method 0x40c10f19.
//
// Solidity: function mint(address to, uint256 amount) returns()
func (_ReentrantToken *ReentrantTokenSession) Mint(to common.Address, amount *big.Int) (*types.Transaction, error) {
	return _ReentrantToken.Contract.Mint(&_ReentrantToken.TransactOpts, to, amount)
}

// Mint is a paid mutator transaction binding the contract method 0x40c10f19.
//
// Solidity: function mint(address to, uint256 amount) returns()
func (_ReentrantToken *ReentrantTokenTransactorSession) Mint(to common.Address, amount *big.Int) (*types.Transaction, error) {
	return _ReentrantToken.Contract.Mint(&_ReentrantToken.TransactOpts, to, amount)
}

// Transfer is a paid mutator transaction binding the contract method 0xa9059cbb.
//
// Solidity: function transfer(address to, uint256 amount) returns(bool)
func (_ReentrantToken *ReentrantTokenTransactor) Transfer(opts *bind.TransactOpts, to common.Address, amount *big.Int) (*types.Transaction, error) {
	return _ReentrantToken.contract.Transact(opts, "transfer", to, amount)
}

// Transfer is a paid mutator transaction binding the contract method 0xa9059cbb.
//
// Solidity: function transfer(address to, uint256 amount) returns(bool)
func (_ReentrantToken *ReentrantTokenSession) Transfer(to common.Address, amount *big.Int) (*types.Transaction, error) {
	return _ReentrantToken.Contract.Transfer(&_ReentrantToken.TransactOpts, to, amount)
}

// Transfer is a paid mutator transaction binding the contract method 0xa9059cbb.
//
// Solidity: function transfer(address to, uint256 amount) returns(bool)
func (_ReentrantToken *ReentrantTokenTransactorSession) Transfer(to common.Address, amount *big.Int) (*types.Transaction, error) {
	return _ReentrantToken.Contract.Transfer(&_ReentrantToken.TransactOpts, to, amount)
}

// TransferFrom is a paid mutator transaction binding the contract method 0x23b872dd.
//
// Solidity: function transferFrom(address from, address to, uint256 amount) returns(bool)
func (_ReentrantToken *ReentrantTokenTransactor) TransferFrom(opts *bind.TransactOpts, from common.Address, to common.Address, amount *big.Int) (*types.Transaction, error) {
	return _ReentrantToken.contract.Transact(opts, "transferFrom", from, to, amount)
}

// TransferFrom is a paid mutator transaction binding the contract method 0x23b872dd.
//
// Solidity: function transferFrom(address from, address to, uint256 amount) returns(bool)
func (_ReentrantToken *ReentrantTokenSession) TransferFrom(from common.Address, to common.Address, amount *big.Int) (*types.Transaction, error) {
	return _ReentrantToken.Contract.TransferFrom(&_ReentrantToken.TransactOpts, from, to, amount)
}

// TransferFrom is a paid mutator transaction binding the contract method 0x23b872dd.
//
// Solidity: function transferFrom(address from, address to, uint256 amount) returns(bool)
func (_ReentrantToken *ReentrantTokenTransactorSession) TransferFrom(from common.Address, to common.Address, amount *big.Int) (*types.Transaction, error) {
	return _ReentrantToken.Contract.TransferFrom(&_ReentrantToken.TransactOpts, from, to, amount)
}
