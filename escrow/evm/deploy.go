package evm

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"math/big"
	"time"

	"github.com/ethereum/go-ethereum/accounts/abi/bind"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/swarmwage/swarmwage/escrow/evm/contract"
)

// DefaultNotice is the withdrawal notice `chain deploy` uses without
// --notice: a week, long enough for a seller that is offline for days to
// claim before a buyer's deposit leaves.
const DefaultNotice = 7 * 24 * time.Hour

// DeployOptions says what Deploy deploys.
type DeployOptions struct {
	// Token is the ERC-20 the escrow will hold. Zero with TestToken set:
	// deploy a TestStablecoin first.
	Token     common.Address
	TestToken bool
	// Notice is the withdrawal notice, whole seconds, at least 1s.
	Notice time.Duration
	// Confirmations for each deployment transaction; 0 means 1.
	Confirmations uint64
	Logger        *slog.Logger
}

// Deployment is what Deploy made: the JSON of `swarmwage chain deploy --json`.
type Deployment struct {
	ChainID int64          `json:"chain_id"`
	Escrow  common.Address `json:"escrow"`
	Token   common.Address `json:"token"`
	// Block is the escrow's deployment block: where reconciliation starts.
	Block uint64 `json:"block"`
}

// ErrUsage: DeployOptions are inconsistent.
var ErrUsage = errors.New("evm: usage")

// Deploy deploys a SwarmwageEscrow (and with TestToken a TestStablecoin whose
// deployer is key) on the chain at rpc, paying gas from key.
func Deploy(ctx context.Context, rpc string, key *Key, o DeployOptions) (*Deployment, error) {
	if o.TestToken == (o.Token != common.Address{}) {
		return nil, fmt.Errorf("%w: give exactly one of a token address and the test token", ErrUsage)
	}
	if o.Notice < time.Second || o.Notice%time.Second != 0 || o.Notice/time.Second > math.MaxUint32 {
		return nil, fmt.Errorf("%w: notice %s: want whole seconds, from 1s to %d s", ErrUsage, o.Notice, uint64(math.MaxUint32))
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	eth, err := dialRPC(ctx, rpc)
	if err != nil {
		return nil, classify("dial "+rpc, err)
	}
	defer eth.Close()
	chainID, err := eth.ChainID(ctx)
	if err != nil {
		return nil, classify("chain ID of "+rpc, err)
	}
	if !chainID.IsInt64() {
		return nil, fmt.Errorf("%w: chain ID %s out of range", ErrWrongChain, chainID)
	}
	// A throwaway rail for sending and waiting: no escrow to check yet.
	r := &Rail{cfg: Config{Confirmations: max(o.Confirmations, 1), PollInterval: DefaultPollInterval, TxTimeout: DefaultTxTimeout},
		key: key, eth: eth, domain: Domain{ChainID: chainID}, log: o.Logger.With("rail", "evm")}
	if escABI, err := contract.SwarmwageEscrowMetaData.GetAbi(); err == nil {
		r.abis = append(r.abis, escABI)
	}
	token := o.Token
	if o.TestToken {
		var addr common.Address
		_, _, err := r.send(ctx, "deploy the test stablecoin", func(opts *bind.TransactOpts) (*types.Transaction, error) {
			a, tx, _, err := contract.DeployTestStablecoin(opts, eth)
			addr = a
			return tx, err
		})
		if err != nil {
			return nil, err
		}
		token = addr
	} else {
		code, err := eth.CodeAt(ctx, token, nil)
		if err != nil {
			return nil, classify("read token code", err)
		}
		if len(code) == 0 {
			return nil, fmt.Errorf("%w: no contract at token %s on chain %s", ErrWrongChain, token, chainID)
		}
	}
	var escAddr common.Address
	res, _, err := r.send(ctx, "deploy the escrow", func(opts *bind.TransactOpts) (*types.Transaction, error) {
		a, tx, _, err := contract.DeploySwarmwageEscrow(opts, eth, token, uint64(o.Notice/time.Second))
		escAddr = a
		return tx, err
	})
	if err != nil {
		return nil, err
	}
	o.Logger.Info("escrow deployed", "chain_id", chainID, "escrow", escAddr.Hex(), "token", token.Hex(), "notice", o.Notice)
	return &Deployment{ChainID: chainID.Int64(), Escrow: escAddr, Token: token, Block: res.Block}, nil
}

// MintTest mints amount of a TestStablecoin at token to to; key must be its
// deployer. For dev chains and tests.
func MintTest(ctx context.Context, rpc string, key *Key, token, to common.Address, amount int64) error {
	eth, err := dialRPC(ctx, rpc)
	if err != nil {
		return classify("dial "+rpc, err)
	}
	defer eth.Close()
	chainID, err := eth.ChainID(ctx)
	if err != nil {
		return classify("chain ID", err)
	}
	tok, err := contract.NewTestStablecoin(token, eth)
	if err != nil {
		return err
	}
	r := &Rail{cfg: Config{Confirmations: 1, PollInterval: DefaultPollInterval, TxTimeout: DefaultTxTimeout},
		key: key, eth: eth, domain: Domain{ChainID: chainID}, log: slog.Default()}
	if a, err := contract.TestStablecoinMetaData.GetAbi(); err == nil {
		r.abis = append(r.abis, a)
	}
	_, _, err = r.send(ctx, fmt.Sprintf("mint %d to %s", amount, to), func(o *bind.TransactOpts) (*types.Transaction, error) {
		return tok.Mint(o, to, big.NewInt(amount))
	})
	return err
}

// SendNative sends wei of the chain's native currency from key to to, for
// gas money on dev chains and in benchmarks.
func SendNative(ctx context.Context, rpc string, key *Key, to common.Address, wei *big.Int) error {
	eth, err := dialRPC(ctx, rpc)
	if err != nil {
		return classify("dial "+rpc, err)
	}
	defer eth.Close()
	chainID, err := eth.ChainID(ctx)
	if err != nil {
		return classify("chain ID", err)
	}
	r := &Rail{cfg: Config{Confirmations: 1, PollInterval: DefaultPollInterval, TxTimeout: DefaultTxTimeout},
		key: key, eth: eth, domain: Domain{ChainID: chainID}, log: slog.Default()}
	_, _, err = r.send(ctx, fmt.Sprintf("send %s wei to %s", wei, to), func(o *bind.TransactOpts) (*types.Transaction, error) {
		nonce, err := eth.PendingNonceAt(o.Context, key.Address())
		if err != nil {
			return nil, err
		}
		tip, err := eth.SuggestGasTipCap(o.Context)
		if err != nil {
			return nil, err
		}
		head, err := eth.HeaderByNumber(o.Context, nil)
		if err != nil {
			return nil, err
		}
		feeCap := new(big.Int).Add(tip, new(big.Int).Mul(head.BaseFee, big.NewInt(2)))
		tx := types.NewTx(&types.DynamicFeeTx{ChainID: chainID, Nonce: nonce, GasTipCap: tip, GasFeeCap: feeCap, Gas: 21000, To: &to, Value: wei})
		return o.Signer(key.Address(), tx)
	})
	return err
}
