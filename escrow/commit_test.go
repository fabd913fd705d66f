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

// A settle the seller applies waits for the next change of its escrow and
// commits with it, one sync for both; with no other change it commits on
// its own. Either way it is durable when ApplySettle returns.
func TestApplySettleJoinsTheNextCommit(t *testing.T) {
	p := setupPair(t)
	ctx := context.Background()
	for _, id := range []string{"job-a", "job-b"} {
		p.lock(t, id)
		p.deliver(t, id)
	}
	settle := func(id string) *escrow.Settle {
		st, err := p.buyer.e.Release(ctx, id)
		require.NoError(t, err)
		return st
	}
	stA, stB := settle("job-a"), settle("job-b")
	lockC, err := p.buyer.e.Lock(ctx, p.lockParams("job-c"))
	require.NoError(t, err)

	applied := make(chan error, 1)
	go func() { applied <- p.seller.e.ApplySettle(ctx, stA) }()
	require.Eventually(t, func() bool { return escrow.QueuedChanges(p.seller.e) == 1 },
		10*time.Second, time.Millisecond, "the settle waits in the queue")
	require.NoError(t, acceptLock(p.seller.e, ctx, lockC), "the next change leads the batch")
	require.NoError(t, <-applied)
	require.Equal(t, version(t, p.seller, escrow.RoleSeller, "job-c"), version(t, p.seller, escrow.RoleSeller, "job-a"),
		"the settle and the lock in one commit")

	// Alone, it commits after its wait.
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
