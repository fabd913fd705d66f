package evm

// Issue 22 and 30 against a real anvil: a stranger's payment for a job ID
// and a log the chain does not confirm change no job; a payout, a cancel
// or an allocation that a reorg deeper than the confirmation depth takes
// away is re-sent, across a restart too, and both ledgers end agreeing
// with the chain job by job with no token created or lost.

import (
	"context"
	"encoding/json"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/accounts/abi/bind"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/stretchr/testify/require"

	"github.com/swarmwage/swarmwage/escrow"
	"github.com/swarmwage/swarmwage/escrow/evm/contract"
	"github.com/swarmwage/swarmwage/escrow/evm/evmtest"
)

// reorgNet is a buyer and a seller with fresh keys on one anvil; the
// seller redeems only when told (or after an hour), so a test can act
// between a release and its redeem.
func reorgNet(t *testing.T, sellerCfg SettlerConfig) (*anvilNet, *railNode, *railNode) {
	t.Helper()
	n := newAnvilNet(t, time.Hour, 1)
	bk, err := GenerateKey()
	require.NoError(t, err)
	sk, err := GenerateKey()
	require.NoError(t, err)
	n.fundGas(t, bk.Address())
	n.fundGas(t, sk.Address())
	n.mint(t, bk.Address(), 10_000_000)
	buyer := newRailNode(t, n, bk, n.a.URL, SettlerConfig{LineChunk: 1_000_000})
	seller := newRailNode(t, n, sk, n.a.URL, sellerCfg)
	_, _, err = buyer.s.Deposit(t.Context(), 5_000_000)
	require.NoError(t, err)
	return n, buyer, seller
}

// releaseTo has the buyer release a delivered job and the seller apply it.
func releaseTo(t *testing.T, buyer, seller *railNode, jobID string) {
	t.Helper()
	st, err := buyer.esc.Release(t.Context(), jobID)
	require.NoError(t, err)
	require.NoError(t, seller.esc.ApplySettle(t.Context(), st))
}

// strangerPays makes a stranger pay amount for jobID to seller with
// itself as buyer: deposit, allocate to the seller, sign a Release for
// the job ID, redeem it (anyone may submit a redeem). It returns the
// redeem's transaction.
func strangerPays(t *testing.T, n *anvilNet, seller common.Address, jobID string, amount int64) common.Hash {
	t.Helper()
	ctx := t.Context()
	k, err := GenerateKey()
	require.NoError(t, err)
	n.fundGas(t, k.Address())
	n.mint(t, k.Address(), amount)
	r := n.rail(t, k, 1)
	_, err = r.Deposit(ctx, amount)
	require.NoError(t, err)
	_, err = r.Allocate(ctx, seller, amount)
	require.NoError(t, err)
	rel := &Release{JobID: JobID(jobID), Buyer: k.Address(), Seller: seller, Amount: amount}
	require.NoError(t, r.Domain().SignRelease(k, rel))
	res, _, err := r.send(ctx, "a stranger's redeem", func(o *bind.TransactOpts) (*types.Transaction, error) {
		return r.esc.Redeem(o, seller, []contract.SwarmwageEscrowVoucher{releaseVoucher(rel)})
	})
	require.NoError(t, err)
	return res.Hash
}

// TestSettlerStrangersPaymentForAJobIDChangesNothing: issue 22's attack.
// While the seller's release waits for its redeem batch, a stranger pays
// 1 base unit for the job ID with itself as buyer. The seller's job and
// receipt stay as they were (the event is noted on the job), the seller
// then redeems the buyer's real voucher and is paid in full.
func TestSettlerStrangersPaymentForAJobIDChangesNothing(t *testing.T) {
	n, buyer, seller := reorgNet(t, SettlerConfig{RedeemInterval: time.Hour})
	ctx := t.Context()
	hire(t, buyer, seller, "job-s", 50_000, time.Minute, 10*time.Second)
	releaseTo(t, buyer, seller, "job-s")

	strangerTx := strangerPays(t, n, seller.key.Address(), "job-s", 1)
	require.Equal(t, int64(1), n.tokenOf(t, seller.key.Address()), "the stranger's unit reached the seller")
	require.NoError(t, seller.s.Reconcile(ctx))
	rec := seller.record(t, escrow.RoleSeller, "job-s")
	require.Equal(t, escrow.StateReleased, rec.State)
	require.Empty(t, rec.ChainOutcome, "a stranger's payment is not the job's")
	require.Empty(t, rec.ChainTx)
	require.Contains(t, rec.ChainNote, strangerTx.Hex())
	require.Contains(t, rec.ChainNote, "not this job's")
	require.Positive(t, seller.s.Stats().Disagreements)
	require.Equal(t, escrow.Balance{Available: 50_000, Earned: 50_000}, seller.balance(t), "earned, not yet withdrawn")

	// The seller still redeems the buyer's voucher.
	seller.s.RedeemSoon()
	require.Eventually(t, func() bool { return n.tokenOf(t, seller.key.Address()) == 50_001 }, 20*time.Second, 50*time.Millisecond)
	require.Eventually(t, func() bool {
		return seller.record(t, escrow.RoleSeller, "job-s").ChainOutcome == escrow.RailPaid &&
			buyer.record(t, escrow.RoleBuyer, "job-s").ChainOutcome == escrow.RailPaid
	}, 20*time.Second, 50*time.Millisecond)
	rec = seller.record(t, escrow.RoleSeller, "job-s")
	require.NotEqual(t, strangerTx.Hex(), rec.ChainTx, "the receipt names the buyer's payment")
	require.Equal(t, uint8(1), n.jobState(t, buyer.key.Address(), seller.key.Address(), "job-s"))
	// The receipt's payment proof checks out on chain.
	p, err := seller.s.Payment(rec)
	require.NoError(t, err)
	var pj map[string]any
	require.NoError(t, json.Unmarshal(p, &pj))
	require.Equal(t, rec.ChainTx, pj["tx"])
	require.Equal(t, escrow.Balance{Earned: 50_000, Withdrawn: 50_000}, seller.balance(t))
	require.NoError(t, buyer.esc.CheckInvariant(ctx))
	require.NoError(t, seller.esc.CheckInvariant(ctx))
}

// TestSettlerEventTheChainDoesNotConfirmChangesNothing: issue 30's forged
// log (a Paid event with a made-up transaction hash, as a lying RPC adds
// to eth_getLogs) leaves a pending refund pending; its cancel is sent and
// the job ends cancelled on chain.
func TestSettlerEventTheChainDoesNotConfirmChangesNothing(t *testing.T) {
	n, buyer, seller := reorgNet(t, SettlerConfig{})
	ctx := t.Context()
	hire(t, buyer, seller, "job-f", 70_000, time.Minute, 10*time.Second)
	// No gas: the cancel cannot be sent yet.
	require.NoError(t, n.rpc.CallContext(ctx, nil, "anvil_setBalance", buyer.key.Address(), "0x0"))
	_, err := buyer.esc.Refund(ctx, "job-f", "verification failed", []string{"value_matches"})
	require.NoError(t, err)
	rec := buyer.record(t, escrow.RoleBuyer, "job-f")
	require.True(t, rec.RefundPending)

	r, err := buyer.s.Chain(ctx)
	require.NoError(t, err)
	l, err := buyer.s.voucherOf(lockTermsOf(rec.Lock), rec.Lock.RailProof)
	require.NoError(t, err)
	forged := jobEvent{Outcome: OutcomeClaimed, JobID: l.JobID, Buyer: l.Buyer, Seller: l.Seller, Amount: l.Amount}
	require.NoError(t, buyer.s.applyEvent(ctx, r, nil, rec, forged, common.HexToHash("0xdeadbeef")))
	rec = buyer.record(t, escrow.RoleBuyer, "job-f")
	require.Contains(t, rec.ChainNote, "not confirmed by the chain")
	// A real transaction (the buyer's deposit) that does not hold the
	// event is no better.
	dep := buyer.depositTx(t)
	require.NoError(t, buyer.s.applyEvent(ctx, r, nil, rec, forged, dep))
	rec = buyer.record(t, escrow.RoleBuyer, "job-f")
	require.Equal(t, escrow.StateRefunded, rec.State)
	require.True(t, rec.RefundPending, "the refund stays pending")
	require.Empty(t, rec.ChainOutcome)
	require.Contains(t, rec.ChainNote, "not confirmed by the chain")
	require.Equal(t, int64(70_000), buyer.balance(t).Held)

	n.fundGas(t, buyer.key.Address())
	require.Eventually(t, func() bool {
		return buyer.record(t, escrow.RoleBuyer, "job-f").ChainOutcome == escrow.RailCancelled
	}, 20*time.Second, 50*time.Millisecond)
	require.Equal(t, uint8(2), n.jobState(t, buyer.key.Address(), seller.key.Address(), "job-f"))
	require.Zero(t, buyer.balance(t).Held)
	require.NoError(t, buyer.esc.CheckInvariant(ctx))
}

func (n *anvilNet) snapshot(t *testing.T) chainSnapshot {
	t.Helper()
	var snap chainSnapshot
	require.NoError(t, n.rpc.CallContext(t.Context(), &snap.id, "evm_snapshot"))
	head, err := n.buyer.eth.BlockNumber(t.Context())
	require.NoError(t, err)
	snap.head = head
	return snap
}

// chainSnapshot is an anvil snapshot and the head it was taken at. A
// block mined between the two calls is above head and so is replaced by a
// reorg to it too: the depth is only under-counted, never over-counted.
type chainSnapshot struct {
	id   string
	head uint64
}

// reorg replaces every block since snap with a longer chain of empty
// blocks: a reorg deeper than the confirmation depth.
func (n *anvilNet) reorg(t *testing.T, snap chainSnapshot) {
	t.Helper()
	ctx := t.Context()
	// Bury the blocks to replace under a few more, then replace them all.
	require.NoError(t, n.rpc.CallContext(ctx, nil, "anvil_mine", 3))
	before, err := n.buyer.eth.BlockNumber(ctx)
	require.NoError(t, err)
	var ok bool
	require.NoError(t, n.rpc.CallContext(ctx, &ok, "evm_revert", snap.id))
	require.True(t, ok)
	// The depth is measured from the snapshot's head, not from a head read
	// now: a node's transaction sent just before the revert (a top-up after
	// a claim) is mined on the new chain at once, and read here it made a
	// 4-block reorg look 3 deep.
	require.Greater(t, before, snap.head+3, "the reorg is deeper than the confirmation depth")
	require.NoError(t, n.rpc.CallContext(ctx, nil, "anvil_mine", before-snap.head+2))
}

// tokensConserved checks that the chain holds exactly what was minted
// to the buyer: in its address, the escrow and the seller's address.
func tokensConserved(t *testing.T, n *anvilNet, buyer, seller *railNode, minted int64) {
	t.Helper()
	require.Equal(t, minted, n.tokenOf(t, buyer.key.Address())+n.tokenOf(t, seller.key.Address())+n.tokenOf(t, n.dep.Escrow))
}

// ledgersAgree checks both ledgers job by job against the chain.
func ledgersAgree(t *testing.T, n *anvilNet, buyer, seller *railNode, jobID string, want string) {
	t.Helper()
	b := buyer.record(t, escrow.RoleBuyer, jobID)
	s := seller.record(t, escrow.RoleSeller, jobID)
	require.Equal(t, want, b.ChainOutcome, "buyer")
	require.Equal(t, want, s.ChainOutcome, "seller")
	require.False(t, b.ChainProvisional)
	require.False(t, s.ChainProvisional)
	state := map[string]uint8{escrow.RailPaid: 1, escrow.RailCancelled: 2}[want]
	require.Equal(t, state, n.jobState(t, buyer.key.Address(), seller.key.Address(), jobID))
	for _, rn := range []*railNode{buyer, seller} {
		require.NoError(t, rn.esc.CheckInvariant(t.Context()))
	}
}

// TestSettlerPayoutVanishedInAReorgIsRedeemedAgain: the seller's redeem
// and both recorded payouts vanish in a reorg deeper than the
// confirmation depth; the seller's release voucher is queued again, the
// job shows chain_provisional meanwhile, and both ledgers end paid with
// the chain, which paid once.
func TestSettlerPayoutVanishedInAReorgIsRedeemedAgain(t *testing.T) {
	n, buyer, seller := reorgNet(t, SettlerConfig{RedeemInterval: time.Hour})
	ctx := t.Context()
	hire(t, buyer, seller, "job-p", 50_000, time.Minute, 10*time.Second)
	releaseTo(t, buyer, seller, "job-p")
	snap := n.snapshot(t)
	seller.s.RedeemSoon()
	require.Eventually(t, func() bool {
		return seller.record(t, escrow.RoleSeller, "job-p").ChainOutcome == escrow.RailPaid &&
			buyer.record(t, escrow.RoleBuyer, "job-p").ChainOutcome == escrow.RailPaid
	}, 20*time.Second, 50*time.Millisecond)
	paidTx := seller.record(t, escrow.RoleSeller, "job-p").ChainTx

	n.reorg(t, snap)
	require.Zero(t, n.tokenOf(t, seller.key.Address()), "the payout is gone from the chain")
	require.NoError(t, seller.s.Watch(ctx))
	rec := seller.record(t, escrow.RoleSeller, "job-p")
	if rec.ChainOutcome == "" {
		require.True(t, rec.ChainProvisional, "provisional while it is re-sent")
		require.Contains(t, rec.ChainNote, paidTx)
	}
	require.Eventually(t, func() bool { return n.tokenOf(t, seller.key.Address()) == 50_000 }, 20*time.Second, 50*time.Millisecond)
	require.Eventually(t, func() bool {
		b, s := buyer.record(t, escrow.RoleBuyer, "job-p"), seller.record(t, escrow.RoleSeller, "job-p")
		return s.ChainOutcome == escrow.RailPaid && b.ChainOutcome == escrow.RailPaid && s.ChainTx != paidTx && b.ChainTx == s.ChainTx
	}, 20*time.Second, 50*time.Millisecond)
	ledgersAgree(t, n, buyer, seller, "job-p", escrow.RailPaid)
	require.Equal(t, escrow.Balance{Earned: 50_000, Withdrawn: 50_000}, seller.balance(t))
	require.Equal(t, escrow.Balance{Available: 4_950_000, Paid: 50_000, Deposited: 5_000_000}, buyer.balance(t))
	tokensConserved(t, n, buyer, seller, 10_000_000)
	require.Positive(t, seller.s.Stats().Vanished)
}

// TestSettlerCancelVanishedInAReorgIsSentAgain: the buyer's confirmed
// cancel vanishes; the refund is pending and held again, the cancel is
// sent again, and both ledgers end cancelled with the chain.
func TestSettlerCancelVanishedInAReorgIsSentAgain(t *testing.T) {
	n, buyer, seller := reorgNet(t, SettlerConfig{})
	ctx := t.Context()
	hire(t, buyer, seller, "job-c", 70_000, time.Minute, 10*time.Second)
	snap := n.snapshot(t)
	st, err := buyer.esc.Refund(ctx, "job-c", "verification failed", []string{"value_matches"})
	require.NoError(t, err)
	require.NoError(t, seller.esc.ApplySettle(ctx, st))
	require.Eventually(t, func() bool {
		return buyer.record(t, escrow.RoleBuyer, "job-c").ChainOutcome == escrow.RailCancelled &&
			seller.record(t, escrow.RoleSeller, "job-c").ChainOutcome == escrow.RailCancelled
	}, 20*time.Second, 50*time.Millisecond)
	cancelTx := buyer.record(t, escrow.RoleBuyer, "job-c").ChainTx
	require.NotEmpty(t, cancelTx)

	n.reorg(t, snap)
	require.Zero(t, n.jobState(t, buyer.key.Address(), seller.key.Address(), "job-c"), "the job is open on chain again")
	var recancelTx string
	require.Eventually(t, func() bool {
		b := buyer.record(t, escrow.RoleBuyer, "job-c")
		recancelTx = b.ChainTx
		return b.ChainOutcome == escrow.RailCancelled && b.ChainTx != cancelTx && !b.ChainProvisional
	}, 20*time.Second, 50*time.Millisecond)
	// The seller's record may still show the vanished cancel until its
	// watcher sees the reorg (it then reads "" for a while): wait for the
	// cancel sent again.
	require.Eventually(t, func() bool {
		s := seller.record(t, escrow.RoleSeller, "job-c")
		return s.ChainOutcome == escrow.RailCancelled && s.ChainTx == recancelTx && !s.ChainProvisional
	}, 20*time.Second, 50*time.Millisecond, "the seller records the cancel sent again")
	ledgersAgree(t, n, buyer, seller, "job-c", escrow.RailCancelled)
	require.Equal(t, escrow.StateDisputed, seller.record(t, escrow.RoleSeller, "job-c").State)
	require.Equal(t, escrow.Balance{Available: 5_000_000, Deposited: 5_000_000}, buyer.balance(t))
	require.Equal(t, escrow.Balance{}, seller.balance(t))
	tokensConserved(t, n, buyer, seller, 10_000_000)
}

// TestSettlerAllocationVanishedInAReorgIsMadeAgain: the allocation the
// buyer's first hire made vanishes; the buyer allocates again for its
// open lock, and the seller's redeem of the release then pays.
func TestSettlerAllocationVanishedInAReorgIsMadeAgain(t *testing.T) {
	n, buyer, seller := reorgNet(t, SettlerConfig{RedeemInterval: time.Hour})
	ctx := t.Context()
	snap := n.snapshot(t)
	hire(t, buyer, seller, "job-a", 40_000, time.Minute, 10*time.Second)
	r, err := buyer.s.Chain(ctx)
	require.NoError(t, err)
	line, err := r.LineOf(ctx, buyer.key.Address(), seller.key.Address())
	require.NoError(t, err)
	require.Equal(t, int64(40_000), line.Balance, "the first allocation is what the job needs")

	n.reorg(t, snap)
	line, err = r.LineOf(ctx, buyer.key.Address(), seller.key.Address())
	require.NoError(t, err)
	require.Zero(t, line.Balance, "the allocation is gone")
	require.Eventually(t, func() bool {
		line, err := r.LineOf(ctx, buyer.key.Address(), seller.key.Address())
		return err == nil && line.Available() >= 40_000
	}, 20*time.Second, 50*time.Millisecond, "allocated again")
	require.Eventually(t, func() bool { return buyer.s.Stats().Vanished > 0 }, 20*time.Second, 50*time.Millisecond, "counted once its transaction is confirmed")

	releaseTo(t, buyer, seller, "job-a")
	seller.s.RedeemSoon()
	require.Eventually(t, func() bool {
		return seller.record(t, escrow.RoleSeller, "job-a").ChainOutcome == escrow.RailPaid &&
			buyer.record(t, escrow.RoleBuyer, "job-a").ChainOutcome == escrow.RailPaid
	}, 20*time.Second, 50*time.Millisecond)
	ledgersAgree(t, n, buyer, seller, "job-a", escrow.RailPaid)
	require.Equal(t, int64(40_000), n.tokenOf(t, seller.key.Address()))
	tokensConserved(t, n, buyer, seller, 10_000_000)
}

// restart closes rn's settler and escrow, as a crash would leave them
// (nothing after the hook ran), and opens new ones on the same Badger DB.
func (rn *railNode) restart(t *testing.T, cfg SettlerConfig, hook func(string) bool) {
	t.Helper()
	require.NoError(t, rn.s.Close())
	require.NoError(t, rn.esc.Close())
	cfg.Config = rn.s.cfg.Config
	s, err := NewSettler(cfg, rn.key)
	require.NoError(t, err)
	s.hook = hook
	esc, err := escrow.New(rn.db, rn.lk, escrow.WithLogger(quiet), escrow.WithRail(s), escrow.WithTimerInterval(50*time.Millisecond), escrow.WithSettleGrace(500*time.Millisecond))
	require.NoError(t, err)
	require.NoError(t, esc.Start(context.Background()))
	require.NoError(t, s.Start(esc))
	rn.s, rn.esc = s, esc
	t.Cleanup(func() {
		require.NoError(t, s.Close())
		require.NoError(t, esc.Close())
	})
}

// TestSettlerVanishedPayoutSurvivesACrashAtEachStep: the seller's
// settler stops (as a crash) right after it saw a vanished payout, after
// it rewound its cursor, and after it reverted the record; restarted on
// the same store, it re-sends and ends paid with the chain.
func TestSettlerVanishedPayoutSurvivesACrashAtEachStep(t *testing.T) {
	skipLongInShort(t, "a chain and two nodes per crash point")
	for _, point := range []string{"after-vanished", "after-rewind", "after-revert"} {
		t.Run(point, func(t *testing.T) {
			n, buyer, seller := reorgNet(t, SettlerConfig{RedeemInterval: time.Hour})
			ctx := t.Context()
			hire(t, buyer, seller, "job-k", 30_000, time.Minute, 10*time.Second)
			releaseTo(t, buyer, seller, "job-k")
			snap := n.snapshot(t)
			seller.s.RedeemSoon()
			require.Eventually(t, func() bool {
				return seller.record(t, escrow.RoleSeller, "job-k").ChainOutcome == escrow.RailPaid
			}, 20*time.Second, 50*time.Millisecond)
			// A settler that goes no further than point, as if it had
			// crashed there: its own first pass or the Watch below gets
			// there, and every later pass stops there too.
			var hit atomic.Bool
			seller.restart(t, SettlerConfig{RedeemInterval: time.Hour}, func(p string) bool {
				if p == point {
					hit.Store(true)
					return true
				}
				return false
			})
			_, err := seller.s.Chain(ctx) // reached before the reorg starts
			require.NoError(t, err)
			n.reorg(t, snap)
			err = seller.s.Watch(ctx)
			require.True(t, hit.Load(), "the settler reached %s (%v)", point, err)
			seller.restart(t, SettlerConfig{RedeemInterval: time.Hour}, nil)
			require.Eventually(t, func() bool { return n.tokenOf(t, seller.key.Address()) == 30_000 }, 30*time.Second, 50*time.Millisecond)
			require.Eventually(t, func() bool {
				b, s := buyer.record(t, escrow.RoleBuyer, "job-k"), seller.record(t, escrow.RoleSeller, "job-k")
				return s.ChainOutcome == escrow.RailPaid && b.ChainOutcome == escrow.RailPaid && b.ChainTx == s.ChainTx
			}, 30*time.Second, 50*time.Millisecond, "%v", func() string {
				b, s := buyer.record(t, escrow.RoleBuyer, "job-k"), seller.record(t, escrow.RoleSeller, "job-k")
				return fmt.Sprintf("buyer %s %s %s %v %q / seller %s %s %s %v %q", b.State, b.ChainOutcome, b.ChainTx, b.ChainProvisional, b.ChainNote, s.State, s.ChainOutcome, s.ChainTx, s.ChainProvisional, s.ChainNote)
			})
			ledgersAgree(t, n, buyer, seller, "job-k", escrow.RailPaid)
			require.Equal(t, escrow.Balance{Earned: 30_000, Withdrawn: 30_000}, seller.balance(t))
			tokensConserved(t, n, buyer, seller, 10_000_000)
		})
	}
}

// TestSettlerClaimVanishedIsClaimedAgain: a silent buyer's job was claimed
// with the lock voucher; the claim vanishes; the seller's record is a
// provisional release again and it claims again with its lock voucher.
func TestSettlerClaimVanishedIsClaimedAgain(t *testing.T) {
	n, buyer, seller := reorgNet(t, SettlerConfig{})
	// The snapshot must come before the claim, which is sent a claim
	// margin past the lock's not-before (deadline and window); 8 s keeps it
	// well after.
	start := time.Now()
	hire(t, buyer, seller, "job-cl", 20_000, 8*time.Second, time.Second)
	hired := time.Since(start)
	snapAt := n.snapshot(t)
	require.Empty(t, seller.record(t, escrow.RoleSeller, "job-cl").ChainOutcome, "the claim came before the snapshot (the hire took %v)", hired)
	require.Eventually(t, func() bool {
		return seller.record(t, escrow.RoleSeller, "job-cl").ChainOutcome == escrow.RailPaid &&
			buyer.record(t, escrow.RoleBuyer, "job-cl").ChainOutcome == escrow.RailPaid
	}, 30*time.Second, 100*time.Millisecond)
	claim, err := n.buyer.eth.TransactionReceipt(t.Context(), common.HexToHash(seller.record(t, escrow.RoleSeller, "job-cl").ChainTx))
	require.NoError(t, err)
	// The reorg below must take the claim away.
	require.Greater(t, claim.BlockNumber.Uint64(), snapAt.head, "the claim is mined after the snapshot at block %d (the hire took %v)", snapAt.head, hired)
	n.reorg(t, snapAt)
	require.Zero(t, n.tokenOf(t, seller.key.Address()))
	require.Eventually(t, func() bool { return n.tokenOf(t, seller.key.Address()) == 20_000 }, 30*time.Second, 50*time.Millisecond)
	require.Eventually(t, func() bool {
		b, s := buyer.record(t, escrow.RoleBuyer, "job-cl"), seller.record(t, escrow.RoleSeller, "job-cl")
		return s.ChainOutcome == escrow.RailPaid && b.ChainOutcome == escrow.RailPaid && b.ChainTx == s.ChainTx && !s.Provisional
	}, 30*time.Second, 50*time.Millisecond)
	ledgersAgree(t, n, buyer, seller, "job-cl", escrow.RailPaid)
	require.Equal(t, escrow.Balance{Earned: 20_000, Withdrawn: 20_000}, seller.balance(t))
	require.Equal(t, escrow.Balance{Available: 4_980_000, Paid: 20_000, Deposited: 5_000_000}, buyer.balance(t))
	tokensConserved(t, n, buyer, seller, 10_000_000)
}

// depositTx is a transaction of rn's that holds no job event: its latest
// deposit.
func (rn *railNode) depositTx(t *testing.T) common.Hash {
	t.Helper()
	r, err := rn.s.Chain(t.Context())
	require.NoError(t, err)
	rep, err := r.Reconcile(t.Context(), Cursor{}, 0, rn.key.Address())
	require.NoError(t, err)
	for _, ev := range rep.Lines {
		if ev.Kind == "deposited" {
			return ev.Tx
		}
	}
	t.Fatal("no deposit of the node on chain")
	return common.Hash{}
}

// TestSettlerReorgsDuringHiresConverge is the fault run of issue 22 at
// the package level: rounds of hires (every other one fails verification
// and is refunded), each round's blocks then replaced by a reorg deeper
// than the confirmation depth (its allocation, payouts and cancels with
// them). Afterwards both ledgers and the chain agree job by job, no
// refunded job is paid, and no token is created or lost.
func TestSettlerReorgsDuringHiresConverge(t *testing.T) {
	skipLongInShort(t, "three rounds of hires, each replaced by a reorg")
	n, buyer, seller := reorgNet(t, SettlerConfig{})
	ctx := t.Context()
	const rounds, perRound, amount = 3, 4, 10_000
	var jobs []string
	released := map[string]bool{}
	faults := 0
	for round := range rounds {
		snap := n.snapshot(t)
		var these []string
		for i := range perRound {
			id := fmt.Sprintf("job-%d-%d", round, i)
			hire(t, buyer, seller, id, amount, time.Minute, 10*time.Second)
			if i%2 == 0 {
				releaseTo(t, buyer, seller, id)
				released[id] = true
			} else {
				st, err := buyer.esc.Refund(ctx, id, "verification failed", []string{"value_matches"})
				require.NoError(t, err)
				require.NoError(t, seller.esc.ApplySettle(ctx, st))
			}
			these = append(these, id)
		}
		require.Eventually(t, func() bool {
			for _, id := range these {
				if buyer.record(t, escrow.RoleBuyer, id).ChainOutcome == "" || seller.record(t, escrow.RoleSeller, id).ChainOutcome == "" {
					return false
				}
			}
			return true
		}, 30*time.Second, 50*time.Millisecond, "round %d settled on chain", round)
		n.reorg(t, snap)
		faults++
		jobs = append(jobs, these...)
	}
	divergences := func() (div, wrong int, why string) {
		for _, id := range jobs {
			b, s := buyer.record(t, escrow.RoleBuyer, id), seller.record(t, escrow.RoleSeller, id)
			chain := n.jobState(t, buyer.key.Address(), seller.key.Address(), id)
			want := escrow.RailCancelled
			if released[id] {
				want = escrow.RailPaid
			}
			ok := b.ChainOutcome == want && s.ChainOutcome == want && !b.ChainProvisional && !s.ChainProvisional
			if released[id] {
				ok = ok && chain == 1 && b.State == escrow.StateReleased && s.State == escrow.StateReleased && !s.Provisional
			} else {
				ok = ok && chain == 2 && b.State == escrow.StateRefunded && !b.RefundPending && s.State == escrow.StateDisputed
				if chain == 1 || s.State == escrow.StateReleased {
					wrong++
				}
			}
			if !ok {
				div++
				why = fmt.Sprintf("%s: buyer %s/%s seller %s/%s chain %d", id, b.State, b.ChainOutcome, s.State, s.ChainOutcome, chain)
			}
		}
		return div, wrong, why
	}
	var div, wrong int
	var why string
	for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(200 * time.Millisecond) {
		if div, wrong, why = divergences(); div == 0 || time.Now().After(deadline) {
			break
		}
	}
	require.Zero(t, div, "the ledgers and the chain agree job by job (one that does not: %s)", why)
	paid := int64(amount * len(released))
	require.Eventually(t, func() bool { return n.tokenOf(t, seller.key.Address()) == paid }, 20*time.Second, 50*time.Millisecond)
	require.Equal(t, escrow.Balance{Earned: paid, Withdrawn: paid}, seller.balance(t))
	require.Equal(t, escrow.Balance{Available: 5_000_000 - paid, Paid: paid, Deposited: 5_000_000}, buyer.balance(t))
	require.NoError(t, buyer.esc.CheckInvariant(ctx))
	require.NoError(t, seller.esc.CheckInvariant(ctx))
	tokensConserved(t, n, buyer, seller, 10_000_000)
	t.Logf("reorgs during hires: runs %d, faults injected %d (reorgs), re-sent %d (buyer) + %d (seller), divergences %d, wrong payments %d",
		len(jobs), faults, buyer.s.Stats().Vanished, seller.s.Stats().Vanished, div, wrong)
	require.Zero(t, wrong)
}

// TestSettlerDepositVanishedInAReorgIsUndone: issue 22. A deposit the
// ledger booked, then taken away by a reorg deeper than the confirmation
// depth, stayed booked: money to lock that the escrow never held. It is
// watched (provisional) until WatchDepth deep; vanished, it is undone in
// the ledger with a reversing entry, the invariant holds, and a deposit
// made again is booked and becomes final.
func TestSettlerDepositVanishedInAReorgIsUndone(t *testing.T) {
	n := newAnvilNet(t, time.Hour, 1)
	ctx := t.Context()
	k, err := GenerateKey()
	require.NoError(t, err)
	n.fundGas(t, k.Address())
	n.mint(t, k.Address(), 10_000_000)
	buyer := newRailNode(t, n, k, n.a.URL, SettlerConfig{WatchDepth: 8})
	snap := n.snapshot(t)
	got, tx, err := buyer.s.Deposit(ctx, 4_000_000)
	require.NoError(t, err)
	require.Equal(t, int64(4_000_000), got)
	require.Equal(t, escrow.Balance{Available: 4_000_000, Deposited: 4_000_000}, buyer.balance(t))
	prov, err := buyer.s.ProvisionalDeposits(ctx)
	require.NoError(t, err)
	require.Equal(t, int64(4_000_000), prov, "provisional until deep")

	n.reorg(t, snap)
	require.Zero(t, n.tokenOf(t, n.dep.Escrow), "the deposit is gone from the chain")
	require.Eventually(t, func() bool { return buyer.balance(t) == escrow.Balance{} }, 20*time.Second, 50*time.Millisecond,
		"undone in the ledger: %+v", buyer.balance(t))
	require.NoError(t, buyer.esc.CheckInvariant(ctx))
	require.Positive(t, buyer.s.Stats().Vanished)
	prov, err = buyer.s.ProvisionalDeposits(ctx)
	require.NoError(t, err)
	require.Zero(t, prov)

	// Deposited again (the tokens never left the address): booked once,
	// final once WatchDepth blocks deep.
	require.Equal(t, int64(10_000_000), n.tokenOf(t, k.Address()))
	got, tx2, err := buyer.s.Deposit(ctx, 3_000_000)
	require.NoError(t, err)
	require.NotEqual(t, tx, tx2)
	require.Equal(t, int64(3_000_000), got)
	require.NoError(t, n.rpc.CallContext(ctx, nil, "anvil_mine", 10))
	require.Eventually(t, func() bool {
		prov, err := buyer.s.ProvisionalDeposits(ctx)
		return err == nil && prov == 0
	}, 20*time.Second, 50*time.Millisecond, "final")
	require.Equal(t, escrow.Balance{Available: 3_000_000, Deposited: 3_000_000}, buyer.balance(t))
	require.NoError(t, buyer.esc.CheckInvariant(ctx))
	tokensConservedOf(t, n, 10_000_000, k.Address())
}

// tokensConservedOf checks that the tokens minted to addrs are all in
// their addresses or the escrow.
func tokensConservedOf(t *testing.T, n *anvilNet, minted int64, addrs ...common.Address) {
	t.Helper()
	total := n.tokenOf(t, n.dep.Escrow)
	for _, a := range addrs {
		total += n.tokenOf(t, a)
	}
	require.Equal(t, minted, total)
}

// TestSettlerRemembersTheNoticeForAStartWithTheChainDown: issue 22. A
// seller started while its chain was down stated no accept horizon. The
// escrow's notice is stored when the chain is reached, so a later start
// with the chain down still knows the horizon; a repo that never reached
// the chain knows none.
func TestSettlerRemembersTheNoticeForAStartWithTheChainDown(t *testing.T) {
	n := newAnvilNet(t, 2*time.Hour, 1)
	ctx := t.Context()
	p := evmtest.StartProxy(t, n.a.URL)
	k, err := GenerateKey()
	require.NoError(t, err)
	rn := newRailNode(t, n, k, p.URL, SettlerConfig{})
	_, ok := rn.s.StoredAcceptHorizon(ctx, rn.esc)
	if !ok {
		_, err := rn.s.Chain(ctx)
		require.NoError(t, err)
	}
	require.Eventually(t, func() bool {
		h, ok := rn.s.StoredAcceptHorizon(ctx, rn.esc)
		return ok && h == time.Hour
	}, 10*time.Second, 20*time.Millisecond)

	p.Down()
	rn.restart(t, SettlerConfig{}, nil)
	_, err = rn.s.AcceptHorizon(ctx)
	require.ErrorIs(t, err, escrow.ErrRailUnavailable)
	h, ok := rn.s.StoredAcceptHorizon(ctx, rn.esc)
	require.True(t, ok)
	require.Equal(t, time.Hour, h, "half the notice, as when the chain is up")

	never := newRailNode(t, n, k, "http://127.0.0.1:1", SettlerConfig{})
	_, ok = never.s.StoredAcceptHorizon(ctx, never.esc)
	require.False(t, ok)
}
