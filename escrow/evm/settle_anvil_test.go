package evm

// Tests of the Settler (the evm rail as the escrow uses it) with two real
// escrows (Badger on disk) against a real anvil.

import (
	"context"
	"encoding/json"
	"fmt"
	"math/big"
	"sync"
	"testing"
	"time"

	"github.com/dgraph-io/badger/v4"
	"github.com/ethereum/go-ethereum/accounts/abi/bind"
	"github.com/ethereum/go-ethereum/common"
	"github.com/libp2p/go-libp2p/core/crypto"
	"github.com/libp2p/go-libp2p/core/peer"
	"github.com/stretchr/testify/require"

	"github.com/swarmwage/swarmwage/escrow"
	"github.com/swarmwage/swarmwage/escrow/evm/evmtest"
)

// railNode is one node of a settler test: an escrow on its own Badger DB
// with the evm rail.
type railNode struct {
	lk  crypto.PrivKey
	id  peer.ID
	key *Key
	db  *badger.DB
	esc *escrow.Escrow
	s   *Settler
}

func newRailNode(t testing.TB, n *anvilNet, key *Key, rpcURL string, cfg SettlerConfig, eopts ...escrow.Option) *railNode {
	t.Helper()
	db, err := badger.Open(badger.DefaultOptions(t.TempDir()).WithSyncWrites(true).WithLogger(nil).
		WithMemTableSize(8 << 20).WithValueThreshold(1 << 10).WithNumMemtables(2).WithValueLogFileSize(4 << 20).WithBlockCacheSize(1 << 20).WithIndexCacheSize(1 << 20))
	require.NoError(t, err)
	lk, _, err := crypto.GenerateEd25519Key(nil)
	require.NoError(t, err)
	id, err := peer.IDFromPrivateKey(lk)
	require.NoError(t, err)
	cfg.Config = Config{RPC: rpcURL, Escrow: n.dep.Escrow, Token: n.dep.Token, Confirmations: 1, PollInterval: 20 * time.Millisecond, TxTimeout: 20 * time.Second, Logger: quiet}
	if cfg.RedeemInterval == 0 {
		cfg.RedeemInterval = 200 * time.Millisecond
	}
	if cfg.ReconcileInterval == 0 {
		cfg.ReconcileInterval = 200 * time.Millisecond
	}
	s, err := NewSettler(cfg, key)
	require.NoError(t, err)
	opts := append([]escrow.Option{escrow.WithLogger(quiet), escrow.WithRail(s), escrow.WithTimerInterval(50 * time.Millisecond), escrow.WithSettleGrace(500 * time.Millisecond)}, eopts...)
	esc, err := escrow.New(db, lk, opts...)
	require.NoError(t, err)
	require.NoError(t, esc.Start(context.Background()))
	require.NoError(t, s.Start(esc))
	rn := &railNode{lk: lk, id: id, key: key, db: db, esc: esc, s: s}
	t.Cleanup(func() {
		require.NoError(t, s.Close())
		require.NoError(t, esc.Close())
		require.NoError(t, db.Close())
	})
	return rn
}

func (rn *railNode) balance(t *testing.T) escrow.Balance {
	t.Helper()
	b, err := rn.esc.Balance(t.Context())
	require.NoError(t, err)
	return b
}

func (rn *railNode) record(t testing.TB, role escrow.Role, jobID string) escrow.Record {
	t.Helper()
	r, err := rn.esc.GetRole(t.Context(), jobID, role)
	require.NoError(t, err)
	return r
}

// hire runs one job from buyer to seller up to the delivery, as the market
// would: lock (rail voucher), accept (coverage on chain), deliver, record.
func hire(t *testing.T, buyer, seller *railNode, jobID string, amount int64, deadline, window time.Duration) {
	t.Helper()
	ctx := t.Context()
	input := []byte(`{"data":[1,2,3]}`)
	l, err := buyer.esc.Lock(ctx, escrow.LockParams{
		JobID: jobID, QuoteID: "q-" + jobID, Capability: "compute.statistics.mean", Seller: seller.id,
		Amount: amount, Deadline: time.Now().Add(deadline), Window: window, Input: input,
		SellerAddress: seller.key.Address().Hex(),
	})
	require.NoError(t, err)
	require.Equal(t, escrow.TypeLockRail, wireType(t, l))
	wire, err := json.Marshal(l)
	require.NoError(t, err)
	got, err := escrow.DecodeLock(wire)
	require.NoError(t, err)
	fresh, err := seller.esc.AcceptLock(ctx, got, input)
	require.NoError(t, err)
	require.True(t, fresh)
	out := []byte(`{"result":2}`)
	d, err := seller.esc.Deliver(ctx, jobID, out)
	require.NoError(t, err)
	require.NoError(t, buyer.esc.RecordDelivery(ctx, d, out))
}

func wireType(t *testing.T, l *escrow.Lock) string {
	t.Helper()
	b, err := json.Marshal(l)
	require.NoError(t, err)
	var w struct {
		Type string `json:"type"`
	}
	require.NoError(t, json.Unmarshal(b, &w))
	return w.Type
}

func (n *anvilNet) tokenOf(t *testing.T, a common.Address) int64 {
	t.Helper()
	tok, err := n.seller.tok.BalanceOf(&bind.CallOpts{Context: t.Context()}, a)
	require.NoError(t, err)
	return tok.Int64()
}

func (n *anvilNet) jobState(t *testing.T, buyer, seller common.Address, jobID string) uint8 {
	t.Helper()
	j, err := n.seller.esc.Job(&bind.CallOpts{Context: t.Context()}, buyer, seller, JobID(jobID))
	require.NoError(t, err)
	return j.State
}

func (n *anvilNet) fundGas(t testing.TB, a common.Address) {
	t.Helper()
	require.NoError(t, n.rpc.CallContext(t.Context(), nil, "anvil_setBalance", a, "0x56BC75E2D63100000")) // 100 ETH
}

// newBuyerAndSeller makes a buyer and a seller on n with gas money, the
// buyer with mint tokens, reading the chain through buyerRPC and opening
// lines of chunk.
func newBuyerAndSeller(t testing.TB, n *anvilNet, buyerRPC string, mint, chunk int64) (buyer, seller *railNode) {
	t.Helper()
	bk, err := GenerateKey()
	require.NoError(t, err)
	sk, err := GenerateKey()
	require.NoError(t, err)
	n.fundGas(t, bk.Address())
	n.fundGas(t, sk.Address())
	n.mint(t, bk.Address(), mint)
	return newRailNode(t, n, bk, buyerRPC, SettlerConfig{LineChunk: chunk}), newRailNode(t, n, sk, n.a.URL, SettlerConfig{})
}

func newSettlerNet(t *testing.T) (*anvilNet, *railNode, *railNode) {
	t.Helper()
	n := newAnvilNet(t, time.Hour, 1)
	buyer, seller := newBuyerAndSeller(t, n, n.a.URL, 10_000_000, 1_000_000)
	got, _, err := buyer.s.Deposit(t.Context(), 5_000_000)
	require.NoError(t, err)
	require.Equal(t, int64(5_000_000), got)
	return n, buyer, seller
}

// TestSettlerReleaseRedeemsToTheSellersAddress: a verified job's release
// voucher travels in the settle, the seller redeems it in its next batch,
// the token lands in its address, and both ledgers reconcile to the
// chain's outcome.
func TestSettlerReleaseRedeemsToTheSellersAddress(t *testing.T) {
	n, buyer, seller := newSettlerNet(t)
	ctx := t.Context()
	require.Equal(t, escrow.Balance{Available: 5_000_000, Deposited: 5_000_000}, buyer.balance(t))

	hire(t, buyer, seller, "job-rel", 50_000, time.Minute, 10*time.Second)
	st, err := buyer.esc.Release(ctx, "job-rel")
	require.NoError(t, err)
	require.Equal(t, escrow.RailEVM, st.Rail)
	require.NotEmpty(t, st.RailProof)
	wire, err := json.Marshal(st)
	require.NoError(t, err)
	got, err := escrow.DecodeSettle(wire)
	require.NoError(t, err)
	require.NoError(t, seller.esc.ApplySettle(ctx, got))

	require.Eventually(t, func() bool { return n.tokenOf(t, seller.key.Address()) == 50_000 }, 15*time.Second, 50*time.Millisecond)
	require.Eventually(t, func() bool {
		return seller.record(t, escrow.RoleSeller, "job-rel").ChainOutcome == escrow.RailPaid &&
			buyer.record(t, escrow.RoleBuyer, "job-rel").ChainOutcome == escrow.RailPaid
	}, 15*time.Second, 50*time.Millisecond)
	require.Equal(t, escrow.Balance{Earned: 50_000, Withdrawn: 50_000}, seller.balance(t))
	require.Equal(t, escrow.Balance{Available: 4_950_000, Paid: 50_000, Deposited: 5_000_000}, buyer.balance(t))
	require.NoError(t, buyer.esc.CheckInvariant(ctx))
	require.NoError(t, seller.esc.CheckInvariant(ctx))
	st2 := seller.s.Stats()
	require.Equal(t, 1, st2.Redeemed)
	require.Len(t, st2.ReleaseToPaid, 1)
	// The first hire with a seller allocated only what its job needed;
	// the released job grew the line by a chunk, in the background.
	require.Eventually(t, func() bool { return buyer.s.Stats().ByKind["allocate"] == 2 }, 15*time.Second, 50*time.Millisecond)
	br, err := buyer.s.Chain(ctx)
	require.NoError(t, err)
	require.Eventually(t, func() bool {
		line, err := br.LineOf(ctx, buyer.key.Address(), seller.key.Address())
		return err == nil && line.Balance == 1_000_000
	}, 15*time.Second, 50*time.Millisecond, "50_000 for the first job, paid out; then the chunk of 1_000_000")

	// A second hire with the same seller needs no transaction of the buyer.
	hire(t, buyer, seller, "job-rel2", 50_000, time.Minute, 10*time.Second)
	require.Equal(t, 2, buyer.s.Stats().ByKind["allocate"])
	// The seller cannot be paid twice for the first job.
	rel := &Release{}
	require.NoError(t, json.Unmarshal(st.RailProof, rel))
	sr, err := seller.s.Chain(ctx)
	require.NoError(t, err)
	red, err := sr.Redeem(ctx, []Voucher{{Release: rel}})
	require.NoError(t, err)
	require.Zero(t, red.Total)
	require.Equal(t, uint8(SkipAlreadyPaid), red.Skipped[rel.JobID])
}

// TestSettlerRefundCancelsOnChain: a failed verification refunds; the
// buyer's hold stays held until its cancel is mined, then comes back, and
// the seller's lock voucher can never pay.
func TestSettlerRefundCancelsOnChain(t *testing.T) {
	n, buyer, seller := newSettlerNet(t)
	ctx := t.Context()
	hire(t, buyer, seller, "job-ref", 70_000, time.Minute, 10*time.Second)
	st, err := buyer.esc.Refund(ctx, "job-ref", "verification failed", []string{"value_matches"})
	require.NoError(t, err)
	require.Equal(t, escrow.RailEVM, st.Rail)
	r := buyer.record(t, escrow.RoleBuyer, "job-ref")
	if r.ChainOutcome == "" {
		require.True(t, r.RefundPending, "held until the cancel is mined")
	}
	require.Eventually(t, func() bool {
		return buyer.record(t, escrow.RoleBuyer, "job-ref").ChainOutcome == escrow.RailCancelled
	}, 15*time.Second, 50*time.Millisecond)
	require.Equal(t, uint8(2), n.jobState(t, buyer.key.Address(), seller.key.Address(), "job-ref"))
	require.Equal(t, escrow.Balance{Available: 5_000_000, Deposited: 5_000_000}, buyer.balance(t))
	require.NoError(t, seller.esc.ApplySettle(ctx, st))
	require.Equal(t, escrow.StateDisputed, seller.record(t, escrow.RoleSeller, "job-ref").State)

	// The seller's lock voucher is worthless, even after its not-before.
	rec := seller.record(t, escrow.RoleSeller, "job-ref")
	var l Lock
	require.NoError(t, json.Unmarshal(rec.Lock.RailProof, &l))
	n.warp(t, 2*time.Hour)
	sr, err := seller.s.Chain(ctx)
	require.NoError(t, err)
	red, err := sr.Redeem(ctx, []Voucher{{Lock: &l}})
	require.NoError(t, err)
	require.Zero(t, red.Total)
	require.Equal(t, uint8(SkipCancelled), red.Skipped[l.JobID])
	require.Zero(t, n.tokenOf(t, seller.key.Address()))
	require.NoError(t, buyer.esc.CheckInvariant(ctx))
	require.NoError(t, seller.esc.CheckInvariant(ctx))
}

// TestSettlerSellerClaimsFromASilentBuyer: the buyer records the delivery
// and decides nothing; after the lock's not-before the seller claims it,
// and the buyer's ledger follows the chain (released, with a signed
// settle) when it reconciles.
func TestSettlerSellerClaimsFromASilentBuyer(t *testing.T) {
	n, buyer, seller := newSettlerNet(t)
	ctx := t.Context()
	hire(t, buyer, seller, "job-claim", 30_000, 2*time.Second, time.Second)
	require.Eventually(t, func() bool { return n.tokenOf(t, seller.key.Address()) == 30_000 }, 30*time.Second, 100*time.Millisecond)
	require.Eventually(t, func() bool {
		r := buyer.record(t, escrow.RoleBuyer, "job-claim")
		return r.ChainOutcome == escrow.RailPaid && r.State == escrow.StateReleased && r.Settle != nil
	}, 15*time.Second, 50*time.Millisecond)
	sr := seller.record(t, escrow.RoleSeller, "job-claim")
	require.Equal(t, escrow.StateReleased, sr.State)
	require.False(t, sr.Provisional)
	require.Equal(t, escrow.RailPaid, sr.ChainOutcome)
	require.Equal(t, escrow.Balance{Earned: 30_000, Withdrawn: 30_000}, seller.balance(t))
	require.Equal(t, escrow.Balance{Available: 4_970_000, Paid: 30_000, Deposited: 5_000_000}, buyer.balance(t))
	require.NoError(t, buyer.esc.CheckInvariant(ctx))
	require.NoError(t, seller.esc.CheckInvariant(ctx))
}

// TestSettlerCoverageUnderConcurrentLocks: locks racing for one line never
// pass what it holds: the buyer refuses what its free deposit cannot cover,
// the seller what the line cannot.
func TestSettlerCoverageUnderConcurrentLocks(t *testing.T) {
	n := newAnvilNet(t, time.Hour, 1)
	bk, _ := GenerateKey()
	sk, _ := GenerateKey()
	n.fundGas(t, bk.Address())
	n.fundGas(t, sk.Address())
	n.mint(t, bk.Address(), 1_000_000)
	buyer := newRailNode(t, n, bk, n.a.URL, SettlerConfig{LineChunk: 1})
	seller := newRailNode(t, n, sk, n.a.URL, SettlerConfig{})
	_, _, err := buyer.s.Deposit(t.Context(), 500_000)
	require.NoError(t, err)

	var wg sync.WaitGroup
	var mu sync.Mutex
	accepted, refused := 0, 0
	for i := range 10 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ctx := t.Context()
			id := "race-" + string(rune('a'+i))
			l, err := buyer.esc.Lock(ctx, escrow.LockParams{JobID: id, QuoteID: "q", Capability: "compute.statistics.mean", Seller: seller.id,
				Amount: 100_000, Deadline: time.Now().Add(time.Minute), Window: time.Second, Input: []byte(`{}`), SellerAddress: sk.Address().Hex()})
			if err != nil {
				mu.Lock()
				refused++
				mu.Unlock()
				require.ErrorIs(t, err, escrow.ErrNotCovered)
				return
			}
			_, err = seller.esc.AcceptLock(ctx, l, []byte(`{}`))
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				require.ErrorIs(t, err, escrow.ErrNotCovered)
				refused++
				return
			}
			accepted++
		}()
	}
	wg.Wait()
	require.Equal(t, 5, accepted, "the deposit covers five")
	require.Equal(t, 5, refused)
	open, err := seller.esc.RailOpenAmount(t.Context(), escrow.RoleSeller, bk.Address().Hex())
	require.NoError(t, err)
	require.Equal(t, int64(500_000), open)
}

// TestSettlerAllocationsShareTheFreeDepositOneAtATime: hires with several
// sellers at once allocate from one free deposit; each reads it after the
// others' allocations, so a hire it cannot cover is refused as not covered
// (a clear error, nothing sent), never sent to revert with Insufficient.
func TestSettlerAllocationsShareTheFreeDepositOneAtATime(t *testing.T) {
	n := newAnvilNet(t, time.Hour, 1)
	bk, _ := GenerateKey()
	n.fundGas(t, bk.Address())
	n.mint(t, bk.Address(), 1_000_000)
	buyer := newRailNode(t, n, bk, n.a.URL, SettlerConfig{})
	_, _, err := buyer.s.Deposit(t.Context(), 250_000)
	require.NoError(t, err)

	const sellers = 8
	errs := make([]error, sellers)
	var wg sync.WaitGroup
	for i := range sellers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sk, err := GenerateKey()
			if err != nil {
				errs[i] = err
				return
			}
			terms := escrow.LockTerms{JobID: fmt.Sprintf("fund-%d", i), BuyerAddress: bk.Address().Hex(),
				SellerAddress: sk.Address().Hex(), Amount: 100_000, NotBefore: time.Now().Add(time.Minute)}
			_, errs[i] = buyer.s.PrepareLock(t.Context(), terms, 0)
		}()
	}
	wg.Wait()
	covered := 0
	for i, err := range errs {
		if err == nil {
			covered++
			continue
		}
		require.ErrorIs(t, err, escrow.ErrNotCovered, "hire %d", i)
		require.NotContains(t, err.Error(), "Insufficient", "hire %d was sent to revert", i)
	}
	require.Equal(t, 2, covered, "250_000 free covers two lines of 100_000")
	b, err := buyer.s.Chain(t.Context())
	require.NoError(t, err)
	bal, err := b.Balances(t.Context())
	require.NoError(t, err)
	require.Equal(t, int64(50_000), bal.Free)
}

// TestSettlerChainDownFailsClearlyAndResumes: with the RPC down a lock
// fails with ErrRailUnavailable and holds nothing; a refund made while it
// is down is cancelled once it is back.
func TestSettlerChainDownFailsClearlyAndResumes(t *testing.T) {
	n := newAnvilNet(t, time.Hour, 1)
	p := evmtest.StartProxy(t, n.a.URL)
	bk, _ := GenerateKey()
	sk, _ := GenerateKey()
	n.fundGas(t, bk.Address())
	n.fundGas(t, sk.Address())
	n.mint(t, bk.Address(), 1_000_000)
	buyer := newRailNode(t, n, bk, p.URL, SettlerConfig{LineChunk: 200_000})
	seller := newRailNode(t, n, sk, p.URL, SettlerConfig{})
	_, _, err := buyer.s.Deposit(t.Context(), 500_000)
	require.NoError(t, err)
	hire(t, buyer, seller, "before", 10_000, time.Minute, time.Second)

	p.Down()
	time.Sleep(100 * time.Millisecond) // past the cached head
	ctx := t.Context()
	_, err = buyer.esc.Lock(ctx, escrow.LockParams{JobID: "down", QuoteID: "q", Capability: "compute.statistics.mean", Seller: seller.id,
		Amount: 10_000, Deadline: time.Now().Add(time.Minute), Window: time.Second, Input: []byte(`{}`), SellerAddress: sk.Address().Hex()})
	require.ErrorIs(t, err, escrow.ErrRailUnavailable)
	require.ErrorIs(t, err, ErrChainDown)
	_, err = buyer.esc.GetRole(ctx, "down", escrow.RoleBuyer)
	require.ErrorIs(t, err, escrow.ErrNotFound, "nothing locked")
	// A refund while it is down: held, pending.
	_, err = buyer.esc.Refund(ctx, "before", "verification failed", nil)
	require.NoError(t, err)
	require.True(t, buyer.record(t, escrow.RoleBuyer, "before").RefundPending)
	require.Equal(t, int64(10_000), buyer.balance(t).Held)

	require.NoError(t, p.Up())
	require.Eventually(t, func() bool {
		return buyer.record(t, escrow.RoleBuyer, "before").ChainOutcome == escrow.RailCancelled
	}, 20*time.Second, 100*time.Millisecond)
	require.Zero(t, buyer.balance(t).Held)
	// The line holds only what the first job needed (the seller never
	// accepted a released job): the seller must have seen the cancel too,
	// or it still counts the lock as open against the line.
	require.Eventually(t, func() bool {
		return seller.record(t, escrow.RoleSeller, "before").ChainOutcome == escrow.RailCancelled
	}, 20*time.Second, 100*time.Millisecond)
	hire(t, buyer, seller, "after", 10_000, time.Minute, time.Second)
	require.NoError(t, buyer.esc.CheckInvariant(ctx))
}

// TestSettlerWithdraw: a buyer's free deposit leaves at once, its line
// money after the notice; a seller's release is redeemed by the same call.
func TestSettlerWithdraw(t *testing.T) {
	n, buyer, seller := newSettlerNet(t)
	ctx := t.Context()
	hire(t, buyer, seller, "job-w", 40_000, time.Minute, 10*time.Second)
	st, err := buyer.esc.Release(ctx, "job-w")
	require.NoError(t, err)
	require.NoError(t, seller.esc.ApplySettle(ctx, st))
	res, err := seller.s.Withdraw(ctx)
	require.NoError(t, err)
	require.LessOrEqual(t, res.Withdrawn, int64(40_000)) // the worker may have redeemed it first
	require.Eventually(t, func() bool { return n.tokenOf(t, seller.key.Address()) == 40_000 }, 10*time.Second, 50*time.Millisecond)
	require.Eventually(t, func() bool {
		return buyer.record(t, escrow.RoleBuyer, "job-w").ChainOutcome == escrow.RailPaid
	}, 10*time.Second, 50*time.Millisecond)

	// The line got 40k for the first job, then, once it was released, a
	// chunk of 1M.
	require.Eventually(t, func() bool { return buyer.s.Stats().ByKind["allocate"] == 2 }, 10*time.Second, 50*time.Millisecond)
	// Buyer: 3.96M free leaves now; the line (1M, less nothing open) waits.
	res, err = buyer.s.Withdraw(ctx)
	require.NoError(t, err)
	require.Equal(t, WithdrawResult{Withdrawn: 3_960_000, Pending: 1_000_000}, res)
	res, err = buyer.s.Withdraw(ctx)
	require.NoError(t, err)
	require.Equal(t, WithdrawResult{Pending: 1_000_000}, res, "the notice still runs")
	n.warp(t, time.Hour+time.Minute)
	res, err = buyer.s.Withdraw(ctx)
	require.NoError(t, err)
	require.Equal(t, WithdrawResult{Withdrawn: 1_000_000}, res)
	require.Equal(t, int64(10_000_000-40_000), n.tokenOf(t, buyer.key.Address()))
	b := buyer.balance(t)
	require.Equal(t, escrow.Balance{Paid: 40_000, Deposited: 5_000_000, Withdrawn: 4_960_000}, b)
	require.NoError(t, buyer.esc.CheckInvariant(ctx))
	f, err := buyer.s.Figures(ctx)
	require.NoError(t, err)
	require.Zero(t, f.Deposit())
	require.Positive(t, f.Gas.Cmp(new(big.Int)))
}

// TestSettlerNoGasFailsClearly: a buyer whose address has no gas money
// cannot allocate a line; the lock fails naming it and holds nothing.
func TestSettlerNoGasFailsClearly(t *testing.T) {
	n := newAnvilNet(t, time.Hour, 1)
	bk, _ := GenerateKey()
	sk, _ := GenerateKey()
	n.fundGas(t, bk.Address())
	n.mint(t, bk.Address(), 1_000_000)
	buyer := newRailNode(t, n, bk, n.a.URL, SettlerConfig{})
	seller := newRailNode(t, n, sk, n.a.URL, SettlerConfig{})
	_, _, err := buyer.s.Deposit(t.Context(), 500_000)
	require.NoError(t, err)
	require.NoError(t, n.rpc.CallContext(t.Context(), nil, "anvil_setBalance", bk.Address(), "0x0"))
	_, err = buyer.esc.Lock(t.Context(), escrow.LockParams{JobID: "nogas", QuoteID: "q", Capability: "compute.statistics.mean", Seller: seller.id,
		Amount: 10_000, Deadline: time.Now().Add(time.Minute), Window: time.Second, Input: []byte(`{}`), SellerAddress: sk.Address().Hex()})
	require.ErrorIs(t, err, ErrNoGas)
	require.ErrorIs(t, err, escrow.ErrRailUnavailable)
	require.Contains(t, err.Error(), bk.Address().Hex())
	require.Equal(t, escrow.Balance{Available: 500_000, Deposited: 500_000}, buyer.balance(t))
}

// Regression (issue 22): the buyer allocated 100x the price to a seller's
// line before the seller checked the lock, so a seller that refused every
// lock (its accept horizon) tied up the buyer's free deposit until a
// withdrawal's notice. The first allocation to a seller is now only what
// the job needs; nothing more moves until a job of the seller is released.
func TestSettlerFirstAllocationIsOnlyWhatTheJobNeeds(t *testing.T) {
	n := newAnvilNet(t, time.Hour, 1)
	buyer, seller := newBuyerAndSeller(t, n, n.a.URL, 10_000_000, 0) // the default chunk
	ctx := t.Context()
	_, _, err := buyer.s.Deposit(ctx, 5_000_000)
	require.NoError(t, err)
	input := []byte(`{"data":[1,2,3]}`)
	// A deadline past the seller's accept horizon (half the hour's notice):
	// the seller refuses the lock.
	l, err := buyer.esc.Lock(ctx, escrow.LockParams{
		JobID: "job-far", QuoteID: "q", Capability: "compute.statistics.mean", Seller: seller.id,
		Amount: 50_000, Deadline: time.Now().Add(40 * time.Minute), Window: 10 * time.Second, Input: input,
		SellerAddress: seller.key.Address().Hex(),
	})
	require.NoError(t, err)
	wire, err := json.Marshal(l)
	require.NoError(t, err)
	got, err := escrow.DecodeLock(wire)
	require.NoError(t, err)
	_, err = seller.esc.AcceptLock(ctx, got, input)
	require.ErrorIs(t, err, ErrInvalidVoucher)
	require.ErrorContains(t, err, "accept horizon")

	br, err := buyer.s.Chain(ctx)
	require.NoError(t, err)
	line, err := br.LineOf(ctx, buyer.key.Address(), seller.key.Address())
	require.NoError(t, err)
	require.Equal(t, int64(50_000), line.Balance, "one job's amount, not a chunk")
	bal, err := br.Balances(ctx)
	require.NoError(t, err)
	require.Equal(t, int64(4_950_000), bal.Free)
	require.Equal(t, 1, buyer.s.Stats().ByKind["allocate"])
	_, err = buyer.esc.Refund(ctx, "job-far", "seller refused the job", nil)
	require.NoError(t, err)
	require.NoError(t, buyer.esc.CheckInvariant(ctx))
	require.NoError(t, seller.esc.CheckInvariant(ctx))

	// A job the seller accepts and the buyer releases grows the line to
	// back the next jobs (DefaultLineChunkFactor of them).
	hire(t, buyer, seller, "job-ok", 50_000, time.Minute, 10*time.Second)
	_, err = buyer.esc.Release(ctx, "job-ok")
	require.NoError(t, err)
	require.Eventually(t, func() bool {
		line, err := br.LineOf(ctx, buyer.key.Address(), seller.key.Address())
		return err == nil && line.Balance >= 50_000+DefaultLineChunkFactor*50_000
	}, 15*time.Second, 50*time.Millisecond)
	require.NoError(t, buyer.esc.CheckInvariant(ctx))
}
