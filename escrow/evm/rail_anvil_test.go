package evm

// Tests of the rail against a real anvil (npm @foundry-rs/anvil, pinned in
// contracts/package-lock.json), started on 127.0.0.1 by each test.

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/accounts/abi/bind"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/rpc"
	"github.com/stretchr/testify/require"

	"github.com/swarmwage/swarmwage/escrow"
	"github.com/swarmwage/swarmwage/escrow/evm/evmtest"
)

// anvilNet is an anvil with a deployed escrow and test token, and rails for
// a buyer (anvil key 1) and a seller (anvil key 2); key 0 deployed.
type anvilNet struct {
	a        *evmtest.Anvil
	dep      *Deployment
	deployer *Key
	buyer    *Rail
	seller   *Rail
	rpc      *rpc.Client
}

func anvilKey(t testing.TB, a *evmtest.Anvil, i int) *Key {
	t.Helper()
	k, err := ParseKey(a.Keys[i])
	require.NoError(t, err)
	return k
}

func newAnvilNet(t testing.TB, notice time.Duration, conf uint64, anvilArgs ...string) *anvilNet {
	t.Helper()
	a := evmtest.StartAnvil(t, anvilArgs...)
	n := &anvilNet{a: a, deployer: anvilKey(t, a, 0)}
	dep, err := Deploy(t.Context(), a.URL, n.deployer, DeployOptions{TestToken: true, Notice: notice, Logger: quiet})
	require.NoError(t, err)
	n.dep = dep
	n.buyer = n.rail(t, anvilKey(t, a, 1), conf)
	n.seller = n.rail(t, anvilKey(t, a, 2), conf)
	n.rpc, err = rpc.DialContext(t.Context(), a.URL)
	require.NoError(t, err)
	t.Cleanup(n.rpc.Close)
	return n
}

func (n *anvilNet) rail(t testing.TB, k *Key, conf uint64) *Rail {
	t.Helper()
	r, err := Open(t.Context(), Config{RPC: n.a.URL, Escrow: n.dep.Escrow, Token: n.dep.Token, Confirmations: conf, PollInterval: 20 * time.Millisecond, TxTimeout: 20 * time.Second, Logger: quiet}, k)
	require.NoError(t, err)
	t.Cleanup(r.Close)
	return r
}

func (n *anvilNet) mint(t testing.TB, to common.Address, amount int64) {
	t.Helper()
	require.NoError(t, MintTest(t.Context(), n.a.URL, n.deployer, n.dep.Token, to, amount))
}

// deposited mints minted test tokens to the buyer and deposits amount of
// them into the escrow.
func (n *anvilNet) deposited(t testing.TB, minted, amount int64) {
	t.Helper()
	n.mint(t, n.buyer.Address(), minted)
	_, err := n.buyer.Deposit(t.Context(), amount)
	require.NoError(t, err)
}

// warp moves anvil's clock forward and mines a block.
func (n *anvilNet) warp(t testing.TB, d time.Duration) {
	t.Helper()
	require.NoError(t, n.rpc.CallContext(t.Context(), nil, "evm_increaseTime", int64(d/time.Second)))
	require.NoError(t, n.rpc.CallContext(t.Context(), nil, "evm_mine"))
}

func (n *anvilNet) chainNow(t testing.TB) time.Time {
	t.Helper()
	h, err := n.buyer.eth.HeaderByNumber(t.Context(), nil)
	require.NoError(t, err)
	return time.Unix(int64(h.Time), 0)
}

func TestRailHireFlowOnAnvil(t *testing.T) {
	n := newAnvilNet(t, time.Hour, 1)
	ctx := t.Context()
	seller := n.seller.Address()
	n.mint(t, n.buyer.Address(), 10_000_000) // 10 tUSD

	txs, err := n.buyer.Deposit(ctx, 5_000_000)
	require.NoError(t, err)
	require.Len(t, txs, 2, "approve and deposit")
	b, err := n.buyer.Balances(ctx)
	require.NoError(t, err)
	require.Equal(t, int64(5_000_000), b.Free)
	require.Equal(t, int64(5_000_000), b.Token)

	// First hire with this seller allocates a chunk; the next ones do not.
	res, err := n.buyer.EnsureLine(ctx, seller, 20_000, 1_000_000)
	require.NoError(t, err)
	require.NotNil(t, res)
	res, err = n.buyer.EnsureLine(ctx, seller, 40_000, 1_000_000)
	require.NoError(t, err)
	require.Nil(t, res, "line already covers it: no transaction")

	now := n.chainNow(t)
	l1, err := n.buyer.SignLock("job-1", seller, 20_000, now.Add(10*time.Minute))
	require.NoError(t, err)
	require.NoError(t, n.seller.CheckLock(ctx, l1, 0, now))

	// Over-commit: with 990_000 of open locks, a 20_000 lock is not covered.
	l2, err := n.buyer.SignLock("job-2", seller, 20_000, now.Add(10*time.Minute))
	require.NoError(t, err)
	require.ErrorIs(t, n.seller.CheckLock(ctx, l2, 990_000, now), ErrNotCovered)
	// Beyond the accept horizon (half the notice).
	l3, err := n.buyer.SignLock("job-3", seller, 20_000, now.Add(31*time.Minute))
	require.NoError(t, err)
	require.ErrorIs(t, n.seller.CheckLock(ctx, l3, 0, now), ErrInvalidVoucher)
	// Not for this seller.
	require.ErrorIs(t, n.buyer.CheckLock(ctx, l1, 0, now), ErrInvalidVoucher)

	// Verified: release; the seller redeems it with another job's claim later.
	r1, err := n.buyer.SignRelease(l1)
	require.NoError(t, err)
	red, err := n.seller.Redeem(ctx, []Voucher{{Release: r1}})
	require.NoError(t, err)
	require.Equal(t, int64(20_000), red.Total)
	sb, err := n.seller.Balances(ctx)
	require.NoError(t, err)
	require.Equal(t, int64(20_000), sb.Token)

	// A paid job cannot be accepted again.
	require.ErrorIs(t, n.seller.CheckLock(ctx, l1, 0, now), ErrInvalidVoucher)

	// Refund: the buyer cancels job-2 on chain; the seller's claim later fails.
	_, err = n.buyer.Cancel(ctx, seller, l2.JobID)
	require.NoError(t, err)
	// job-4: the buyer goes silent; the seller claims after notBefore.
	l4, err := n.buyer.SignLock("job-4", seller, 30_000, now.Add(5*time.Minute))
	require.NoError(t, err)
	require.NoError(t, n.seller.CheckLock(ctx, l4, 0, now))
	red, err = n.seller.Redeem(ctx, []Voucher{{Lock: l4}})
	require.NoError(t, err)
	require.Equal(t, uint8(SkipTooEarly), red.Skipped[l4.JobID])
	n.warp(t, 11*time.Minute)
	red, err = n.seller.Redeem(ctx, []Voucher{{Lock: l4}, {Lock: l2}})
	require.NoError(t, err)
	require.Equal(t, int64(30_000), red.Paid[l4.JobID])
	require.Equal(t, uint8(SkipCancelled), red.Skipped[l2.JobID])

	// Both sides reconcile the same outcomes from the chain.
	for _, side := range []*Rail{n.buyer, n.seller} {
		rep, err := side.Reconcile(ctx, Cursor{}, n.dep.Block, side.Address())
		require.NoError(t, err)
		got := map[[32]byte]string{}
		for _, j := range rep.Jobs {
			got[j.JobID] = j.Outcome
		}
		require.Equal(t, map[[32]byte]string{
			l1.JobID: OutcomeReleased, l2.JobID: OutcomeCancelled, l4.JobID: OutcomeClaimed,
		}, got)
		require.Equal(t, uint8(SkipCancelled), rep.Skipped[l2.JobID])
		// Resuming from the cursor finds nothing new.
		again, err := side.Reconcile(ctx, rep.Next, n.dep.Block, side.Address())
		require.NoError(t, err)
		require.Empty(t, again.Jobs)
		require.Equal(t, rep.Next, again.Next)
	}

	// Withdraw: free balance at once; the line after the notice.
	_, err = n.buyer.WithdrawFree(ctx, 4_000_000)
	require.NoError(t, err)
	_, err = n.buyer.RequestWithdraw(ctx, seller, 1_000_000)
	require.NoError(t, err)
	_, _, err = n.buyer.Withdraw(ctx, seller)
	require.ErrorIs(t, err, ErrReverted)
	require.ErrorContains(t, err, "NoticeRunning")
	n.warp(t, time.Hour)
	got, _, err := n.buyer.Withdraw(ctx, seller)
	require.NoError(t, err)
	require.Equal(t, int64(1_000_000-20_000-30_000), got)
	b, err = n.buyer.Balances(ctx)
	require.NoError(t, err)
	require.Equal(t, int64(10_000_000-50_000), b.Token, "everything but what the seller earned came back")
}

// Coverage needs the confirmation depth: an allocation one block old does
// not count for a seller that wants 3 confirmations.
func TestCoverageWaitsForConfirmations(t *testing.T) {
	n := newAnvilNet(t, time.Hour, 1)
	ctx := t.Context()
	seller3 := n.rail(t, anvilKey(t, n.a, 2), 3)
	n.deposited(t, 1_000_000, 1_000_000)
	_, err := n.buyer.Allocate(ctx, seller3.Address(), 100_000)
	require.NoError(t, err)
	now := n.chainNow(t)
	l, err := n.buyer.SignLock("conf", seller3.Address(), 50_000, now.Add(time.Minute))
	require.NoError(t, err)
	require.ErrorIs(t, seller3.CheckLock(ctx, l, 0, now), ErrNotCovered)
	require.NoError(t, n.seller.CheckLock(ctx, l, 0, now), "one confirmation is enough for the other")
	require.NoError(t, n.rpc.CallContext(ctx, nil, "anvil_mine", 2))
	require.NoError(t, seller3.CheckLock(ctx, l, 0, now))
}

func TestRailErrorsOnAnvil(t *testing.T) {
	n := newAnvilNet(t, time.Hour, 1)
	ctx := t.Context()

	t.Run("no gas money", func(t *testing.T) {
		poor, err := GenerateKey()
		require.NoError(t, err)
		r := n.rail(t, poor, 1)
		n.mint(t, poor.Address(), 1000)
		_, err = r.Deposit(ctx, 1000)
		require.ErrorIs(t, err, ErrNoGas)
		require.NotContains(t, err.Error(), hexKey(poor))
	})
	t.Run("insufficient free deposit", func(t *testing.T) {
		_, err := n.buyer.EnsureLine(ctx, n.seller.Address(), 1, 1)
		require.ErrorIs(t, err, ErrNotCovered)
		require.ErrorContains(t, err, "wallet deposit")
	})
	t.Run("contract refuses", func(t *testing.T) {
		_, err := n.buyer.Allocate(ctx, n.seller.Address(), 5)
		require.ErrorIs(t, err, ErrReverted)
		require.ErrorContains(t, err, "Insufficient")
	})
	t.Run("no escrow at the address", func(t *testing.T) {
		_, err := Open(ctx, Config{RPC: n.a.URL, Escrow: common.HexToAddress("0x1234"), Token: n.dep.Token}, n.deployer)
		require.ErrorIs(t, err, ErrWrongChain)
	})
	t.Run("escrow for another token", func(t *testing.T) {
		_, err := Open(ctx, Config{RPC: n.a.URL, Escrow: n.dep.Escrow, Token: n.dep.Escrow}, n.deployer)
		require.ErrorIs(t, err, ErrWrongChain)
	})
	t.Run("rpc down", func(t *testing.T) {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		require.NoError(t, err)
		url := "http://" + ln.Addr().String()
		require.NoError(t, ln.Close()) // nothing listens there now
		_, err = Open(ctx, Config{RPC: url, Escrow: n.dep.Escrow, Token: n.dep.Token}, n.deployer)
		require.ErrorIs(t, err, ErrChainDown)
		_, err = Deploy(ctx, url, n.deployer, DeployOptions{TestToken: true, Notice: time.Minute})
		require.ErrorIs(t, err, ErrChainDown)
	})
}

// A chain that goes down under an open rail gives ErrChainDown for every
// read and write, and the rail works again when a chain is back.
func TestRailChainGoesDown(t *testing.T) {
	a, stop, err := evmtest.Start(31337)
	require.NoError(t, err)
	deployer := anvilKey(t, a, 0)
	dep, err := Deploy(t.Context(), a.URL, deployer, DeployOptions{TestToken: true, Notice: time.Hour, Logger: quiet})
	require.NoError(t, err)
	r, err := Open(t.Context(), Config{RPC: a.URL, Escrow: dep.Escrow, Token: dep.Token, TxTimeout: 5 * time.Second, Logger: quiet}, anvilKey(t, a, 1))
	require.NoError(t, err)
	defer r.Close()
	require.NoError(t, stop())
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	_, err = r.Balances(ctx)
	require.ErrorIs(t, err, ErrChainDown)
	_, err = r.Deposit(ctx, 1)
	require.ErrorIs(t, err, ErrChainDown)
	l, err := r.SignLock("x", deployer.Address(), 1, time.Now())
	require.NoError(t, err, "signing needs no chain")
	_, err = r.Reconcile(ctx, Cursor{}, 0, r.Address())
	require.ErrorIs(t, err, ErrChainDown)
	require.NotNil(t, l)
}

// A reorg deeper than the confirmation depth under a reconcile cursor is
// reported, not silently skipped.
func TestReconcileDetectsReorg(t *testing.T) {
	n := newAnvilNet(t, time.Hour, 1)
	ctx := t.Context()
	var snap string
	require.NoError(t, n.rpc.CallContext(ctx, &snap, "evm_snapshot"))
	n.mint(t, n.buyer.Address(), 1000)
	txs, err := n.buyer.Deposit(ctx, 1000)
	require.NoError(t, err)
	depositReceipt, err := n.buyer.eth.TransactionReceipt(ctx, txs[len(txs)-1].Hash)
	require.NoError(t, err)
	rep, err := n.buyer.Reconcile(ctx, Cursor{}, n.dep.Block, n.buyer.Address())
	require.NoError(t, err)
	require.NotEmpty(t, rep.Lines)
	// Replace the blocks under the cursor with others.
	var ok bool
	require.NoError(t, n.rpc.CallContext(ctx, &ok, "evm_revert", snap))
	require.True(t, ok)
	require.NoError(t, n.rpc.CallContext(ctx, nil, "evm_increaseTime", 7))
	require.NoError(t, n.rpc.CallContext(ctx, nil, "anvil_mine", 5))
	_, err = n.buyer.Reconcile(ctx, rep.Next, n.dep.Block, n.buyer.Address())
	require.ErrorIs(t, err, ErrReorg)
	var re *ReorgError
	require.True(t, errors.As(err, &re))
	require.Equal(t, rep.Next.Block, re.Block)
	// The deposit's receipt now names a block that is no longer canonical.
	require.NotNil(t, depositReceipt)
	_, err = n.buyer.confirmed(ctx, depositReceipt)
	require.ErrorIs(t, err, ErrReorg)
	// From the deployment block again, the deposit is gone.
	rep, err = n.buyer.Reconcile(ctx, Cursor{}, n.dep.Block, n.buyer.Address())
	require.NoError(t, err)
	require.Empty(t, rep.Lines)
}

// quiet drops the rail's logs in tests.
var quiet = slog.New(slog.DiscardHandler)

func hexKey(k *Key) string {
	return common.Bytes2Hex(k.priv.D.FillBytes(make([]byte, 32)))
}

// A transaction whose block is replaced while the rail waits for its
// confirmations is reported as a reorg, not as a confirmed payment.
func TestWaitReportsReorgOfItsTransaction(t *testing.T) {
	n := newAnvilNet(t, time.Hour, 1)
	ctx := t.Context()
	n.deposited(t, 1000, 1000)
	var snap string
	require.NoError(t, n.rpc.CallContext(ctx, &snap, "evm_snapshot"))
	head, err := n.buyer.eth.BlockNumber(ctx)
	require.NoError(t, err)

	slow := n.rail(t, anvilKey(t, n.a, 1), 3) // the buyer again, waiting for 3 confirmations
	slow.cfg.TxTimeout = 3 * time.Second
	done := make(chan error, 1)
	go func() {
		_, err := slow.Allocate(ctx, n.seller.Address(), 10)
		done <- err
	}()
	// Wait until the allocation is mined, then take its block away.
	require.Eventually(t, func() bool {
		h, err := n.buyer.eth.BlockNumber(ctx)
		return err == nil && h > head
	}, 5*time.Second, 10*time.Millisecond)
	// Let the waiting rail see its receipt (it polls every 20 ms) before the
	// block goes: a receipt never seen is a timeout, not a reorg.
	time.Sleep(10 * slow.cfg.PollInterval)
	var ok bool
	require.NoError(t, n.rpc.CallContext(ctx, &ok, "evm_revert", snap))
	require.True(t, ok)
	require.NoError(t, n.rpc.CallContext(ctx, nil, "anvil_mine", 4))
	err = <-done
	require.ErrorIs(t, err, ErrReorg)
}

// TestReadAtAReplacedBlockSaysTheChainReorganized: a read pinned to a
// block's hash after a reorg replaced that block (anvil answers a bare
// -32001 "Resource not found") is an ErrReorg that says what was being
// read and that the block is no longer on the chain, and the escrow sees
// it as the rail being unavailable for now (a hire retries), not as a
// refusal.
func TestReadAtAReplacedBlockSaysTheChainReorganized(t *testing.T) {
	n := newAnvilNet(t, time.Hour, 1)
	ctx := t.Context()
	var snap string
	require.NoError(t, n.rpc.CallContext(ctx, &snap, "evm_snapshot"))
	require.NoError(t, n.rpc.CallContext(ctx, nil, "anvil_mine", 2))
	gone, err := n.buyer.eth.HeaderByNumber(ctx, nil)
	require.NoError(t, err)
	var ok bool
	require.NoError(t, n.rpc.CallContext(ctx, &ok, "evm_revert", snap))
	require.True(t, ok)
	require.NoError(t, n.rpc.CallContext(ctx, nil, "evm_increaseTime", 7))
	require.NoError(t, n.rpc.CallContext(ctx, nil, "anvil_mine", 4))

	_, err = n.buyer.esc.Line(&bind.CallOpts{Context: ctx, BlockHash: gone.Hash()}, n.buyer.Address(), n.seller.Address())
	require.Error(t, err, "the block is gone")
	err = classify("read line", err, n.buyer.abis...)
	require.ErrorIs(t, err, ErrReorg)
	require.ErrorContains(t, err, "read line: evm: chain reorganized: the block it was read at is no longer on the chain")
	require.ErrorIs(t, railErr(err), escrow.ErrRailUnavailable)
}

// rpcErr is an endpoint's JSON-RPC error.
type rpcErr struct {
	code int
	msg  string
}

func (e rpcErr) Error() string  { return e.msg }
func (e rpcErr) ErrorCode() int { return e.code }

func TestClassifyBlockGone(t *testing.T) {
	for _, tc := range []struct {
		err   error
		reorg bool
	}{
		{rpcErr{-32001, "Resource not found"}, true},  // anvil
		{rpcErr{-32000, "header not found"}, true},    // geth
		{errors.New("unknown block"), true},           // erigon and others
		{rpcErr{-32000, "execution reverted"}, false}, // a revert
		{rpcErr{-32602, "invalid argument 0"}, false}, // a bad request
		{errors.New("nonce too low"), false},
	} {
		err := classify("read the job on chain", tc.err)
		require.Equal(t, tc.reorg, errors.Is(err, ErrReorg), "%v", tc.err)
		require.ErrorContains(t, err, "read the job on chain: ")
	}
}
