package evm

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/big"
	"sync"
	"time"

	ethereum "github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/accounts/abi/bind"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/ethclient"
	"github.com/ethereum/go-ethereum/params"

	"github.com/swarmwage/swarmwage/escrow/evm/contract"
)

// Defaults of Config.
const (
	// DefaultConfirmations: a block counts once it is included (1). Public
	// chains want more: Base's sequencer makes reorgs rare, but a seller
	// that wants to survive one sets a few.
	DefaultConfirmations = 1
	// DefaultPollInterval is how often the rail polls for receipts and new
	// blocks.
	DefaultPollInterval = 250 * time.Millisecond
	// DefaultTxTimeout bounds the wait for one transaction's confirmations.
	DefaultTxTimeout = 2 * time.Minute
)

// Config says which chain, contract and token the rail uses.
type Config struct {
	// RPC is the chain's JSON-RPC URL (http, https, ws or wss).
	RPC string
	// Escrow is the SwarmwageEscrow contract's address.
	Escrow common.Address
	// Token is the ERC-20 the escrow holds; Open checks the escrow's own.
	Token common.Address
	// Confirmations: blocks (including the one with the event) before the
	// rail trusts state or an event. 0 means DefaultConfirmations.
	Confirmations uint64
	// PollInterval: 0 means DefaultPollInterval.
	PollInterval time.Duration
	// TxTimeout: 0 means DefaultTxTimeout.
	TxTimeout time.Duration
	// Logger: nil means slog.Default(). The key is never logged.
	Logger *slog.Logger
}

// Rail is one node's connection to the escrow contract: its key, the
// bindings and the chain's parameters. Safe for concurrent use;
// transactions from the rail's key are sent one at a time so their nonces
// never collide.
type Rail struct {
	cfg    Config
	key    *Key
	eth    *ethclient.Client
	esc    *contract.SwarmwageEscrow
	tok    *contract.TestStablecoin // used for the plain ERC-20 calls only
	domain Domain
	notice time.Duration
	abis   []*abi.ABI
	log    *slog.Logger

	sendMu sync.Mutex

	headMu  sync.Mutex
	maxHead uint64 // the highest head the endpoint reported
	// onMisbehave, when set (by the Settler, before the rail is used),
	// hears of every answer the rail found contradicting an earlier one.
	onMisbehave func(what string)
}

// blockNumber is the endpoint's head. A head lower than one it reported
// before is a reorg that shortened the chain, or an endpoint that lies
// (issue 30: blocks going backwards): it is logged and counted, and the
// rail goes on with the lower head, which only makes it read older,
// confirmed state; money is never moved on a block it did not see
// confirmed and canonical.
func (r *Rail) blockNumber(ctx context.Context) (uint64, error) {
	n, err := r.eth.BlockNumber(ctx)
	if err != nil {
		return 0, err
	}
	r.headMu.Lock()
	prev := r.maxHead
	if n > prev {
		r.maxHead = n
	}
	r.headMu.Unlock()
	if n < prev {
		r.misbehaved(fmt.Sprintf("%s reports head %d after it reported %d: a reorg, or an endpoint that lies", redactURL(r.cfg.RPC), n, prev))
	}
	return n, nil
}

// misbehaved logs an answer of the endpoint that contradicts an earlier
// one and tells the Settler (Stats.Disagreements).
func (r *Rail) misbehaved(what string) {
	r.log.Warn("RPC answer disagrees with an earlier one: "+what, "rpc", redactURL(r.cfg.RPC))
	if r.onMisbehave != nil {
		r.onMisbehave(what)
	}
}

// Open dials cfg.RPC and checks that it serves a chain on which cfg.Escrow is
// a SwarmwageEscrow for cfg.Token. The error wraps ErrChainDown or
// ErrWrongChain.
func Open(ctx context.Context, cfg Config, key *Key) (*Rail, error) {
	if key == nil {
		return nil, errors.New("evm: open rail: no key")
	}
	if cfg.Confirmations == 0 {
		cfg.Confirmations = DefaultConfirmations
	}
	if cfg.PollInterval <= 0 {
		cfg.PollInterval = DefaultPollInterval
	}
	if cfg.TxTimeout <= 0 {
		cfg.TxTimeout = DefaultTxTimeout
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	eth, err := dialRPC(ctx, cfg.RPC)
	if err != nil {
		return nil, classify("dial "+redactURL(cfg.RPC), err)
	}
	r, err := newRail(ctx, cfg, key, eth)
	if err != nil {
		eth.Close()
		return nil, err
	}
	return r, nil
}

func newRail(ctx context.Context, cfg Config, key *Key, eth *ethclient.Client) (*Rail, error) {
	chainID, err := eth.ChainID(ctx)
	if err != nil {
		return nil, classify("chain ID of "+redactURL(cfg.RPC), err)
	}
	code, err := eth.CodeAt(ctx, cfg.Escrow, nil)
	if err != nil {
		return nil, classify("read escrow code", err)
	}
	if len(code) == 0 {
		return nil, fmt.Errorf("%w: no contract at escrow %s on chain %s", ErrWrongChain, cfg.Escrow, chainID)
	}
	esc, err := contract.NewSwarmwageEscrow(cfg.Escrow, eth)
	if err != nil {
		return nil, fmt.Errorf("bind escrow: %w", err)
	}
	tok, err := contract.NewTestStablecoin(cfg.Token, eth)
	if err != nil {
		return nil, fmt.Errorf("bind token: %w", err)
	}
	call := &bind.CallOpts{Context: ctx}
	escToken, err := esc.Token(call)
	if err != nil {
		return nil, fmt.Errorf("%w: %s does not answer as a SwarmwageEscrow: %v", ErrWrongChain, cfg.Escrow, err)
	}
	if escToken != cfg.Token {
		return nil, fmt.Errorf("%w: escrow %s holds token %s, config says %s", ErrWrongChain, cfg.Escrow, escToken, cfg.Token)
	}
	notice, err := esc.Notice(call)
	if err != nil {
		return nil, classify("read notice", err)
	}
	escABI, err := contract.SwarmwageEscrowMetaData.GetAbi()
	if err != nil {
		return nil, err
	}
	tokABI, err := contract.TestStablecoinMetaData.GetAbi()
	if err != nil {
		return nil, err
	}
	return &Rail{
		cfg: cfg, key: key, eth: eth, esc: esc, tok: tok,
		domain: Domain{ChainID: chainID, Escrow: cfg.Escrow},
		notice: time.Duration(notice) * time.Second,
		abis:   []*abi.ABI{escABI, tokABI},
		log:    cfg.Logger.With("rail", "evm", "chain_id", chainID.String(), "escrow", cfg.Escrow.Hex()),
	}, nil
}

// Close closes the RPC connection.
func (r *Rail) Close() { r.eth.Close() }

// Address is the node's address on the chain: buyer and seller identity,
// payout address and gas payer.
func (r *Rail) Address() common.Address { return r.key.Address() }

// Domain is the EIP-712 domain of the rail's escrow.
func (r *Rail) Domain() Domain { return r.domain }

// Notice is the escrow's withdrawal notice.
func (r *Rail) Notice() time.Duration { return r.notice }

// Confirmations is the rail's confirmation depth.
func (r *Rail) Confirmations() uint64 { return r.cfg.Confirmations }

// TxResult is one mined and confirmed transaction.
type TxResult struct {
	Hash    common.Hash
	Block   uint64
	GasUsed uint64
	// Fee is what the transaction cost in the chain's native currency (wei).
	Fee *big.Int
}

// withHeadroom is the gas limit of a transaction estimated at gas: a
// quarter more, and room for two writes to an empty storage slot
// (20,000 gas each, less the 2,900 of a write to a full one).
func withHeadroom(gas uint64) uint64 { return gas + gas/4 + 2*17_100 }

// send builds a transaction with build (given options that do not send;
// it is called twice, the second time with the gas limit, nonce and fees
// set), checks the gas money, sends it, and waits for its confirmations. Only one
// send runs at a time per rail.
func (r *Rail) send(ctx context.Context, what string, build func(*bind.TransactOpts) (*types.Transaction, error)) (*TxResult, *types.Receipt, error) {
	r.sendMu.Lock()
	defer r.sendMu.Unlock()
	opts, err := r.key.Transactor(r.domain.ChainID)
	if err != nil {
		return nil, nil, err
	}
	opts.Context = ctx
	opts.NoSend = true
	bal, err := r.eth.BalanceAt(ctx, r.Address(), nil)
	if err != nil {
		return nil, nil, classify(what+": read gas balance", err)
	}
	if bal.Sign() == 0 {
		return nil, nil, fmt.Errorf("%s: %w: %s has no native currency to pay gas with; send it some", what, ErrNoGas, r.Address())
	}
	tx, err := build(opts) // estimates gas: a call the contract would refuse fails here
	if err != nil {
		return nil, nil, classify(what, err, r.abis...)
	}
	// The estimate is for the chain as it is now. Another party's
	// transaction mined first can make this one dearer: an allocate to a
	// line the seller has just emptied writes an empty slot, 17,100 gas
	// more. With the bare estimate as its limit it ran out of gas and
	// reverted (escrow/evm TestSendLeavesGasHeadroom). Build it again, with
	// the same nonce and fees, and room to spare.
	opts.GasLimit = withHeadroom(tx.Gas())
	opts.Nonce = new(big.Int).SetUint64(tx.Nonce())
	if tx.Type() == types.DynamicFeeTxType {
		opts.GasFeeCap, opts.GasTipCap = tx.GasFeeCap(), tx.GasTipCap()
	} else {
		opts.GasPrice = tx.GasPrice()
	}
	if tx, err = build(opts); err != nil {
		return nil, nil, classify(what, err, r.abis...)
	}
	if bal.Cmp(tx.Cost()) < 0 {
		return nil, nil, fmt.Errorf("%s: %w: %s has %s wei, the transaction may cost %s; send it some of the chain's native currency",
			what, ErrNoGas, r.Address(), bal, tx.Cost())
	}
	if err := r.eth.SendTransaction(ctx, tx); err != nil {
		return nil, nil, classify(what+": send", err, r.abis...)
	}
	r.log.Debug("transaction sent", "what", what, "tx", tx.Hash().Hex(), "gas_limit", tx.Gas())
	rc, err := r.waitConfirmed(ctx, tx)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", what, err)
	}
	res := &TxResult{Hash: tx.Hash(), Block: rc.BlockNumber.Uint64(), GasUsed: rc.GasUsed,
		Fee: new(big.Int).Mul(new(big.Int).SetUint64(rc.GasUsed), rc.EffectiveGasPrice)}
	if rc.Status != types.ReceiptStatusSuccessful {
		if n := r.logsOf(ctx, rc); n > 0 {
			// A reverted transaction emits no logs: the endpoint's receipt
			// and its logs disagree, so neither decides. The reconcile
			// books what the contract's events and state say.
			return res, rc, fmt.Errorf("%s: %w: %s says transaction %s reverted in block %d, yet it has %d logs of the escrow or token; what it did is read from the contract by the next reconcile",
				what, ErrRPCMisbehaved, redactURL(r.cfg.RPC), tx.Hash().Hex(), res.Block, n)
		}
	}
	if rc.Status != types.ReceiptStatusSuccessful {
		return res, rc, fmt.Errorf("%s: %w: transaction %s reverted in block %d", what, ErrReverted, tx.Hash().Hex(), res.Block)
	}
	return res, rc, nil
}

// logsOf counts the logs of rc's transaction that the escrow and the
// token emitted, from the receipt and from eth_getLogs of its block: a
// reverted transaction has none.
func (r *Rail) logsOf(ctx context.Context, rc *types.Receipt) int {
	n := len(rc.Logs)
	logs, err := r.eth.FilterLogs(ctx, ethereum.FilterQuery{
		FromBlock: rc.BlockNumber, ToBlock: rc.BlockNumber,
		Addresses: []common.Address{r.cfg.Escrow, r.cfg.Token},
	})
	if err != nil {
		return n
	}
	for _, l := range logs {
		if l.TxHash == rc.TxHash {
			n++
		}
	}
	return n
}

// droppedPolls is how many polls in a row a transaction may be neither
// mined nor pending before waitConfirmed counts it dropped: a reorg that
// took its block away without returning it to a pool (anvil's evm_revert
// does that; so does a node that lost it). The sender's lock is held while
// it waits, so waiting TxTimeout for a transaction no one has would hold up
// every other transaction of the key (a refund's cancel past its job's
// not-before, when it no longer counts); the caller sends again instead.
const droppedPolls = 8

// waitConfirmed waits until tx is in a block with Confirmations-1 blocks on
// top, and checks that block is still canonical. A receipt whose block was
// replaced is waited for again (the transaction may be mined anew) until
// TxTimeout, or until it is neither mined nor pending for droppedPolls
// polls; then the error wraps ErrReorg. A transaction pending that long
// behind a nonce no transaction holds gets the gap filled (fillNonceGap).
func (r *Rail) waitConfirmed(ctx context.Context, sent *types.Transaction) (*types.Receipt, error) {
	tx := sent.Hash()
	ctx, cancel := context.WithTimeout(ctx, r.cfg.TxTimeout)
	defer cancel()
	tick := time.NewTicker(r.cfg.PollInterval)
	defer tick.Stop()
	var reorged error
	var seenIn uint64 // block the receipt was last seen in
	missing := 0      // polls in a row it was neither mined nor pending
	pending := 0      // polls in a row it was pending
	for {
		rc, err := r.eth.TransactionReceipt(ctx, tx)
		switch {
		case err == nil:
			seenIn = rc.BlockNumber.Uint64()
			ok, cerr := r.confirmed(ctx, rc)
			if cerr != nil && !errors.Is(cerr, ErrReorg) {
				return nil, cerr
			}
			if cerr != nil {
				reorged = cerr
				r.log.Warn("transaction's block was replaced; waiting for it again", "tx", tx.Hex(), "err", cerr)
			} else if ok {
				return rc, nil
			}
		case errors.Is(err, ethereum.NotFound):
			if seenIn != 0 && reorged == nil {
				// It was mined and its block is gone: back in the pool at
				// best, dropped at worst.
				reorged = fmt.Errorf("%w: transaction left block %d", ErrReorg, seenIn)
				r.log.Warn("transaction's block was replaced; waiting for it again", "tx", tx.Hex(), "block", seenIn)
			}
			_, isPending, terr := r.eth.TransactionByHash(ctx, tx)
			if errors.Is(terr, ethereum.NotFound) {
				pending = 0
				if missing++; missing >= droppedPolls {
					r.log.Warn("transaction dropped: neither mined nor pending", "tx", tx.Hex(), "block", seenIn)
					return nil, fmt.Errorf("%w: transaction %s is neither mined nor pending (dropped, its block replaced or never mined)", ErrReorg, tx.Hex())
				}
				break
			}
			missing = 0
			if terr != nil || !isPending {
				break
			}
			if pending++; pending%droppedPolls == 0 {
				if err := r.fillNonceGap(ctx, sent); err != nil {
					r.log.Warn("could not fill the nonce gap below a pending transaction", "tx", tx.Hex(), "nonce", sent.Nonce(), "err", err)
				}
			}
		default:
			if ctx.Err() == nil {
				return nil, classify("receipt of "+tx.Hex(), err)
			}
		}
		select {
		case <-ctx.Done():
			if reorged != nil {
				return nil, fmt.Errorf("transaction %s not confirmed: %w", tx.Hex(), reorged)
			}
			if errors.Is(ctx.Err(), context.DeadlineExceeded) {
				return nil, fmt.Errorf("transaction %s not confirmed within %s: %w", tx.Hex(), r.cfg.TxTimeout, ErrChainDown)
			}
			return nil, ctx.Err()
		case <-tick.C:
		}
	}
}

// fillNonceGap sends a transfer of nothing to the key's own address for
// each nonce below sent's that neither the chain nor the pool holds, so
// that sent can be mined: no node mines a transaction while a nonce below
// it is missing. Such a gap opens when a reorg drops a mined transaction
// of the key (anvil's evm_revert does; so does a node that does not return
// a replaced block's transactions to its pool) after send read its nonce
// and before it sent: the chain's next nonce is then the dropped one's.
// Found by the fault suite's reorgs during hires: the buyer's sender waited
// TxTimeout for an allocation no node would mine, and every hire behind it
// timed out. Sending sent's effect again at the lower nonce instead would
// let the gapped one be mined after it: twice what was meant.
func (r *Rail) fillNonceGap(ctx context.Context, sent *types.Transaction) error {
	next, err := r.eth.PendingNonceAt(ctx, r.Address())
	if err != nil {
		return classify("read the pending nonce", err)
	}
	if next >= sent.Nonce() {
		return nil
	}
	opts, err := r.key.Transactor(r.domain.ChainID)
	if err != nil {
		return err
	}
	r.log.Warn("transaction waits behind nonces no transaction holds (a reorg dropped them); filling them with empty transfers",
		"tx", sent.Hash().Hex(), "nonce", sent.Nonce(), "from_nonce", next)
	self := r.Address()
	for n := next; n < sent.Nonce(); n++ {
		var fill types.TxData = &types.LegacyTx{Nonce: n, GasPrice: sent.GasPrice(), Gas: params.TxGas, To: &self}
		if sent.Type() == types.DynamicFeeTxType {
			fill = &types.DynamicFeeTx{ChainID: r.domain.ChainID, Nonce: n, GasTipCap: sent.GasTipCap(), GasFeeCap: sent.GasFeeCap(), Gas: params.TxGas, To: &self}
		}
		signed, err := opts.Signer(self, types.NewTx(fill))
		if err != nil {
			return fmt.Errorf("sign the empty transfer at nonce %d: %w", n, err)
		}
		if err := r.eth.SendTransaction(ctx, signed); err != nil {
			return classify(fmt.Sprintf("send the empty transfer at nonce %d", n), err)
		}
	}
	return nil
}

// confirmed reports whether rc's block has the confirmation depth, and
// returns ErrReorg if the canonical block at its height is another.
func (r *Rail) confirmed(ctx context.Context, rc *types.Receipt) (bool, error) {
	head, err := r.blockNumber(ctx)
	if err != nil {
		return false, classify("block number", err)
	}
	n := rc.BlockNumber.Uint64()
	if head+1 < n+r.cfg.Confirmations {
		return false, nil
	}
	h, err := r.eth.HeaderByNumber(ctx, rc.BlockNumber)
	if err != nil {
		return false, classify(fmt.Sprintf("header %d", n), err)
	}
	if h.Hash() != rc.BlockHash {
		return false, fmt.Errorf("%w: block %d was %s, is now %s", ErrReorg, n, rc.BlockHash.Hex(), h.Hash().Hex())
	}
	return true, nil
}

// confirmedHead is the newest block with the confirmation depth. The head
// it counts from is the highest the endpoint reported, not a lower one it
// reports now (blockNumber), as long as the endpoint still has that
// block: a head that goes back and forth does not make the rail read
// older state, nor doubt a block it saw confirmed. If the block is gone
// (a reorg shortened the chain) the rail counts from the head reported
// now.
func (r *Rail) confirmedHead(ctx context.Context) (*types.Header, error) {
	reported, err := r.blockNumber(ctx)
	if err != nil {
		return nil, classify("block number", err)
	}
	r.headMu.Lock()
	head := max(reported, r.maxHead)
	r.headMu.Unlock()
	h, n, err := r.confirmedAt(ctx, head)
	if err != nil && head > reported && errors.Is(err, ethereum.NotFound) {
		r.headMu.Lock()
		r.maxHead = reported
		r.headMu.Unlock()
		h, n, err = r.confirmedAt(ctx, reported)
	}
	if err != nil {
		return nil, classify(fmt.Sprintf("header %d", n), err)
	}
	if h.Number == nil || h.Number.Uint64() != n {
		return nil, fmt.Errorf("%w: %s answered block %v when asked for block %d", ErrRPCMisbehaved, redactURL(r.cfg.RPC), h.Number, n)
	}
	return h, nil
}

// confirmedAt reads the header confirmed when head is the chain's head.
func (r *Rail) confirmedAt(ctx context.Context, head uint64) (*types.Header, uint64, error) {
	n := uint64(0)
	if head+1 >= r.cfg.Confirmations {
		n = head + 1 - r.cfg.Confirmations
	}
	h, err := r.eth.HeaderByNumber(ctx, new(big.Int).SetUint64(n))
	return h, n, err
}
