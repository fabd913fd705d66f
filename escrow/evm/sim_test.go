package evm

import (
	"errors"
	"math/big"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/accounts/abi/bind"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/ethclient/simulated"
	"github.com/ethereum/go-ethereum/rpc"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/swarmwage/swarmwage/escrow/evm/contract"
)

// simChain is one simulated chain (go-ethereum's simulated backend, chain ID
// 1337) with funded keys. Blocks are mined only by mine, at times the test
// chooses, so races at a boundary second are exact.
type simChain struct {
	t       *testing.T
	b       *simulated.Backend
	c       simulated.Client
	chainID *big.Int
	keys    map[string]*Key
}

// gasFixed is the gas limit of transactions sent by tests: fixed, so a
// transaction that reverts is mined (and its receipt checked) instead of
// failing gas estimation.
const gasFixed = 3_000_000

func newSimChain(t *testing.T, names ...string) *simChain {
	t.Helper()
	s := &simChain{t: t, keys: map[string]*Key{}}
	alloc := types.GenesisAlloc{}
	eth := new(big.Int).Exp(big.NewInt(10), big.NewInt(18), nil)
	for _, n := range append([]string{"deployer"}, names...) {
		k, err := GenerateKey()
		require.NoError(t, err)
		s.keys[n] = k
		alloc[k.Address()] = types.Account{Balance: new(big.Int).Mul(eth, big.NewInt(100))}
	}
	s.b = simulated.NewBackend(alloc)
	t.Cleanup(func() { _ = s.b.Close() })
	s.c = s.b.Client()
	id, err := s.c.ChainID(t.Context())
	require.NoError(t, err)
	s.chainID = id
	// Put the chain an hour ahead of the wall clock: from then on every block
	// is exactly one second after its parent unless the test jumps, so times
	// are deterministic.
	require.NoError(t, s.b.AdjustTime(time.Hour))
	return s
}

func (s *simChain) key(name string) *Key { return s.keys[name] }

func (s *simChain) opts(name string) *bind.TransactOpts {
	o, err := s.keys[name].Transactor(s.chainID)
	require.NoError(s.t, err)
	o.Context = s.t.Context()
	o.GasLimit = gasFixed
	return o
}

// head is the latest block's timestamp.
func (s *simChain) head() uint64 {
	h, err := s.c.HeaderByNumber(s.t.Context(), nil)
	require.NoError(s.t, err)
	return h.Time
}

// at moves the chain so that the next mined block has timestamp ts.
func (s *simChain) at(ts uint64) {
	s.t.Helper()
	h := s.head()
	require.Less(s.t, h, ts, "chain already at %d, cannot mine at %d", h, ts)
	if ts-1 > h {
		// The pool forgets mined transactions asynchronously after a block;
		// AdjustTime refuses while it still lists them.
		require.EventuallyWithT(s.t, func(c *assert.CollectT) {
			assert.NoError(c, s.b.AdjustTime(time.Duration(ts-1-h)*time.Second))
		}, 5*time.Second, 5*time.Millisecond)
	}
}

// tx is one transaction a test sends.
type txFn func() (*types.Transaction, error)

// mine sends the transactions in order, mines them into one block and
// returns their receipts. Sending must succeed; the receipts' status is the
// caller's to check.
func (s *simChain) mine(fns ...txFn) []*types.Receipt {
	s.t.Helper()
	txs := make([]*types.Transaction, len(fns))
	for i, fn := range fns {
		tx, err := fn()
		require.NoError(s.t, err, "send transaction %d", i)
		txs[i] = tx
	}
	s.b.Commit()
	out := make([]*types.Receipt, len(txs))
	for i, tx := range txs {
		r, err := s.c.TransactionReceipt(s.t.Context(), tx.Hash())
		require.NoError(s.t, err)
		out[i] = r
	}
	return out
}

// ok mines one transaction and requires it to succeed.
func (s *simChain) ok(fn txFn) *types.Receipt {
	s.t.Helper()
	r := s.mine(fn)[0]
	require.Equal(s.t, types.ReceiptStatusSuccessful, r.Status, "transaction reverted")
	return r
}

// reverts requires fn to fail with the contract's custom error name: at gas
// estimation (no fixed gas) or when mined.
func (s *simChain) reverts(name string, a *abi.ABI, call func(*bind.TransactOpts) (*types.Transaction, error), who string) {
	s.t.Helper()
	o := s.opts(who)
	o.GasLimit = 0 // estimate: the node reports the revert data
	_, err := call(o)
	require.Error(s.t, err, "expected revert %s", name)
	requireRevert(s.t, err, name, a)
}

func requireRevert(t *testing.T, err error, name string, a *abi.ABI) {
	t.Helper()
	var de rpc.DataError
	require.True(t, errors.As(err, &de), "error %v carries no revert data", err)
	data, _ := de.ErrorData().(string)
	b, derr := hexutil.Decode(data)
	require.NoError(t, derr, "revert data %q", data)
	e, ok := a.Errors[name]
	require.True(t, ok, "no error %s in the ABI", name)
	require.GreaterOrEqual(t, len(b), 4, "revert data too short: %x", b)
	id := e.ID
	require.Equal(t, id[:4], b[:4], "revert %x, want %s", b, name)
}

// deployment is one escrow with its token on a simChain.
type deployment struct {
	*simChain
	token    *contract.TestStablecoin
	tokenAt  common.Address
	esc      *contract.SwarmwageEscrow
	escAt    common.Address
	domain   Domain
	escABI   *abi.ABI
	filterer *contract.SwarmwageEscrowFilterer
}

func (s *simChain) deployToken() (common.Address, *contract.TestStablecoin) {
	s.t.Helper()
	var addr common.Address
	var tok *contract.TestStablecoin
	s.ok(func() (*types.Transaction, error) {
		a, tx, c, err := contract.DeployTestStablecoin(s.opts("deployer"), s.c)
		addr, tok = a, c
		return tx, err
	})
	return addr, tok
}

func (s *simChain) deployEscrow(token common.Address, notice uint64) *deployment {
	s.t.Helper()
	d := &deployment{simChain: s, tokenAt: token}
	s.ok(func() (*types.Transaction, error) {
		a, tx, c, err := contract.DeploySwarmwageEscrow(s.opts("deployer"), s.c, token, notice)
		d.escAt, d.esc = a, c
		return tx, err
	})
	a, err := contract.SwarmwageEscrowMetaData.GetAbi()
	require.NoError(s.t, err)
	d.escABI = a
	d.domain = Domain{ChainID: s.chainID, Escrow: d.escAt}
	d.filterer = &d.esc.SwarmwageEscrowFilterer
	return d
}

// newDeployment deploys a test stablecoin and an escrow with the notice.
func newDeployment(t *testing.T, notice uint64) *deployment {
	s := newSimChain(t, "buyer", "seller", "seller2", "other")
	tokAt, tok := s.deployToken()
	d := s.deployEscrow(tokAt, notice)
	d.token = tok
	return d
}

func big64(n int64) *big.Int { return big.NewInt(n) }

// fund mints amount to the buyer, deposits it and allocates alloc of it to
// seller.
func (d *deployment) fund(buyer string, amount int64, seller string, alloc int64) {
	d.t.Helper()
	b := d.key(buyer).Address()
	d.ok(func() (*types.Transaction, error) { return d.token.Mint(d.opts("deployer"), b, big64(amount)) })
	d.ok(func() (*types.Transaction, error) { return d.token.Approve(d.opts(buyer), d.escAt, big64(amount)) })
	d.ok(func() (*types.Transaction, error) { return d.esc.Deposit(d.opts(buyer), big64(amount)) })
	if alloc > 0 {
		d.ok(func() (*types.Transaction, error) {
			return d.esc.Allocate(d.opts(buyer), d.key(seller).Address(), big64(alloc))
		})
	}
}

func (d *deployment) lock(buyer, seller, job string, amount int64, notBefore uint64) *Lock {
	d.t.Helper()
	l := &Lock{JobID: JobID(job), Buyer: d.key(buyer).Address(), Seller: d.key(seller).Address(), Amount: amount, NotBefore: notBefore}
	require.NoError(d.t, d.domain.SignLock(d.key(buyer), l))
	return l
}

func (d *deployment) release(buyer, seller, job string, amount int64) *Release {
	d.t.Helper()
	r := &Release{JobID: JobID(job), Buyer: d.key(buyer).Address(), Seller: d.key(seller).Address(), Amount: amount}
	require.NoError(d.t, d.domain.SignRelease(d.key(buyer), r))
	return r
}

// redeemTx returns a transaction redeeming vouchers (Lock or Release) for
// seller, sent by from.
func (d *deployment) redeemTx(from, seller string, vs ...any) txFn {
	return func() (*types.Transaction, error) {
		return d.esc.Redeem(d.opts(from), d.key(seller).Address(), toContractVouchers(vs...))
	}
}

func toContractVouchers(vs ...any) []contract.SwarmwageEscrowVoucher {
	out := make([]contract.SwarmwageEscrowVoucher, 0, len(vs))
	for _, v := range vs {
		switch v := v.(type) {
		case *Lock:
			out = append(out, lockVoucher(v))
		case *Release:
			out = append(out, releaseVoucher(v))
		case contract.SwarmwageEscrowVoucher:
			out = append(out, v)
		default:
			panic("not a voucher")
		}
	}
	return out
}

func (d *deployment) tokenBalance(name string) int64 {
	d.t.Helper()
	b, err := d.token.BalanceOf(&bind.CallOpts{Context: d.t.Context()}, d.key(name).Address())
	require.NoError(d.t, err)
	return b.Int64()
}

func (d *deployment) lineOf(buyer, seller string) (balance, withdrawing int64, readyAt uint64) {
	d.t.Helper()
	l, err := d.esc.Line(&bind.CallOpts{Context: d.t.Context()}, d.key(buyer).Address(), d.key(seller).Address())
	require.NoError(d.t, err)
	return l.Balance.Int64(), l.Withdrawing.Int64(), l.WithdrawAt
}

func (d *deployment) jobState(buyer, seller, job string) uint8 {
	d.t.Helper()
	j, err := d.esc.Job(&bind.CallOpts{Context: d.t.Context()}, d.key(buyer).Address(), d.key(seller).Address(), JobID(job))
	require.NoError(d.t, err)
	return j.State
}

// outcome is what one receipt says about jobs: paid and skipped (with reason).
type outcome struct {
	paid    map[common.Hash]int64
	skipped map[common.Hash]uint8
}

func (d *deployment) outcomes(r *types.Receipt) outcome {
	d.t.Helper()
	o := outcome{paid: map[common.Hash]int64{}, skipped: map[common.Hash]uint8{}}
	for _, l := range r.Logs {
		if p, err := d.filterer.ParsePaid(*l); err == nil && l.Topics[0] == d.escABI.Events["Paid"].ID {
			o.paid[p.JobId] += p.Amount.Int64()
		}
		if k, err := d.filterer.ParseSkipped(*l); err == nil && l.Topics[0] == d.escABI.Events["Skipped"].ID {
			o.skipped[k.JobId] = k.Reason
		}
	}
	return o
}

func jh(job string) common.Hash { return common.Hash(JobID(job)) }

// signRaw signs a digest with a key, v in {27, 28}.
func signRaw(t *testing.T, k *Key, h common.Hash) []byte {
	t.Helper()
	sig, err := crypto.Sign(h[:], k.priv)
	require.NoError(t, err)
	sig[64] += 27
	return sig
}
