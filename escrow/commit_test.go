package escrow_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/swarmwage/swarmwage/escrow"
)

// version is the Badger commit that last wrote role's record of jobID.
func version(t *testing.T, n *testNode, role escrow.Role, jobID string) uint64 {
	t.Helper()
	var v uint64
	require.NoError(t, n.db.View(func(txn *badgerTxn) error {
		item, err := txn.Get(escrow.JobKey(role, jobID))
		if err != nil {
			return err
		}
		v = item.Version()
		return nil
	}))
	return v
}

// releasedWhileALockIsAccepted locks, delivers and releases the jobs ids
// (their settles not yet applied at the seller), and has the seller start
// accepting the lock of job-c. The seller's settles then wait a minute to
// join a commit, so that however slow the machine they are still queued
// when that lock commits; the shipped wait is 2 ms.
func releasedWhileALockIsAccepted(t *testing.T, p *pair, ids ...string) ([]*escrow.Settle, *escrow.Accepting) {
	t.Helper()
	ctx := context.Background()
	escrow.SetSettleCommitWait(p.seller.e, time.Minute)
	var sts []*escrow.Settle
	for _, id := range ids {
		p.lock(t, id)
		p.deliver(t, id)
		st, err := p.buyer.e.Release(ctx, id)
		require.NoError(t, err)
		sts = append(sts, st)
	}
	lockC, err := p.buyer.e.Lock(ctx, p.lockParams("job-c"))
	require.NoError(t, err)
	prep, fresh, err := p.seller.e.PrepareAccept(ctx, lockC, nil)
	require.NoError(t, err)
	require.True(t, fresh)
	return sts, prep
}

// A settle the seller applies while a lock is being accepted waits for
// that lock's commit and commits with it, one sync for both; with no lock
// coming it commits on its own after the wait. Either way it is durable
// when ApplySettle returns.
func TestApplySettleJoinsTheNextCommit(t *testing.T) {
	p := setupPair(t)
	ctx := context.Background()
	sts, prep := releasedWhileALockIsAccepted(t, p, "job-a", "job-b")
	stA, stB := sts[0], sts[1]
	applied := make(chan error, 1)
	go func() { applied <- p.seller.e.ApplySettle(ctx, stA) }()
	require.Eventually(t, func() bool { return escrow.QueuedChanges(p.seller.e) == 1 },
		10*time.Second, time.Millisecond, "the settle waits in the queue")
	fresh, err := prep.Accept(ctx)
	require.NoError(t, err, "the lock being accepted leads the batch")
	require.True(t, fresh)
	prep.Close()
	require.NoError(t, <-applied)
	require.Equal(t, version(t, p.seller, escrow.RoleSeller, "job-c"), version(t, p.seller, escrow.RoleSeller, "job-a"),
		"the settle and the lock in one commit")

	// No lock being accepted: it commits on its own, after the shipped
	// wait at most.
	escrow.SetSettleCommitWait(p.seller.e, escrow.SettleCommitWait)
	before := version(t, p.seller, escrow.RoleSeller, "job-c")
	require.NoError(t, p.seller.e.ApplySettle(ctx, stB))
	require.Greater(t, version(t, p.seller, escrow.RoleSeller, "job-b"), before)
	require.Zero(t, escrow.QueuedChanges(p.seller.e))

	p.seller.reopen(t)
	for _, id := range []string{"job-a", "job-b"} {
		require.Equal(t, escrow.StateReleased, p.seller.state(t, id, escrow.RoleSeller), "durable: %s", id)
	}
	require.Equal(t, escrow.StateLocked, p.seller.state(t, "job-c", escrow.RoleSeller))
	p.seller.requireInvariant(t)
	p.buyer.requireInvariant(t)
}

// Two settles that wait to join a lock's commit are each worked out
// before it, from the same balance: in the batch the first one's writes
// stand, and the second, whose balance the first changed, is worked out
// again, so both are earned.
func TestPreparedSettlesShareABatch(t *testing.T) {
	p := setupPair(t)
	ctx := context.Background()
	sts, prep := releasedWhileALockIsAccepted(t, p, "job-a", "job-b")
	before, err := p.seller.e.Balance(ctx)
	require.NoError(t, err)
	applied := make(chan error, 2)
	for _, st := range sts {
		go func() { applied <- p.seller.e.ApplySettle(ctx, st) }()
	}
	require.Eventually(t, func() bool { return escrow.QueuedChanges(p.seller.e) == 2 },
		10*time.Second, time.Millisecond, "both settles wait in the queue")
	_, err = prep.Accept(ctx)
	require.NoError(t, err)
	prep.Close()
	require.NoError(t, <-applied)
	require.NoError(t, <-applied)
	v := version(t, p.seller, escrow.RoleSeller, "job-c")
	require.Equal(t, v, version(t, p.seller, escrow.RoleSeller, "job-a"), "one commit")
	require.Equal(t, v, version(t, p.seller, escrow.RoleSeller, "job-b"), "one commit")
	after, err := p.seller.e.Balance(ctx)
	require.NoError(t, err)
	require.Equal(t, before.Earned+sts[0].Amount+sts[1].Amount, after.Earned, "both settles are earned")
	p.seller.reopen(t)
	p.seller.requireInvariant(t)
}

// ApplySettleRecord returns the record as the settle left it, the same
// for a repeat; a settle signed for another rail than the job's is
// refused, on credits and on a rail.
func TestApplySettleRecord(t *testing.T) {
	ctx := context.Background()
	p := setupPair(t)
	p.lock(t, "job-1")
	p.deliver(t, "job-1")
	st, err := p.buyer.e.Release(ctx, "job-1")
	require.NoError(t, err)
	for range 2 {
		r, err := p.seller.e.ApplySettleRecord(ctx, st)
		require.NoError(t, err)
		require.Equal(t, escrow.StateReleased, r.State)
		require.Equal(t, "job-1", r.JobID)
		require.Equal(t, int64(testPrice), r.Amount)
	}

	rp := setupRailPair(t)
	rp.lock(t, "job-r")
	rp.deliver(t, "job-r")
	rst, err := rp.buyer.e.Release(ctx, "job-r")
	require.NoError(t, err)
	for _, tc := range []struct {
		name          string
		buyer, seller *testNode
		st            *escrow.Settle
		rail          string
	}{
		{"a rail's settle for a credits job", p.buyer, p.seller, st, "fake"},
		{"a credits settle for a rail job", rp.buyer, rp.seller, rst, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			bad := *tc.st
			bad.Rail, bad.RailProof = tc.rail, nil
			require.NoError(t, escrow.SignSettle(&bad, tc.buyer.key))
			_, err := tc.seller.e.ApplySettleRecord(ctx, &bad)
			require.ErrorIs(t, err, escrow.ErrInvalidMessage)
			require.Contains(t, err.Error(), "the settle is for rail")
		})
	}
	p.seller.requireInvariant(t)
	rp.seller.requireInvariant(t)
}
