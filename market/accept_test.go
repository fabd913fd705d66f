package market

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/dgraph-io/badger/v4/pb"
	"github.com/stretchr/testify/require"

	"github.com/swarmwage/swarmwage/escrow"
)

// A fast job's escrow writes on the seller are two commits, not three: the
// accepted lock with the delivery (acceptGrace), then the buyer's settle.
// The buyer's are two: the lock, then the delivery with the decision
// (escrow.Decide). Each commit is a sync of the write-ahead log, on the
// hire's path but for the seller's settle (issue 25).
func TestAFastHireCommitsItsEscrowTwicePerSide(t *testing.T) {
	// However loaded the machine, the job ends within its accept grace.
	seller, buyer := setupHireWith(t, withAcceptGrace(t, time.Hour))
	first := hireMean(t, buyer, "compute.statistics.mean") // the first hire also finds the seller
	require.Eventually(t, settleSentOn(buyer, first.JobID), 20*time.Second, 10*time.Millisecond)
	sellerCommits := countCommits(t, seller, "escrow/job/")
	buyerCommits := countCommits(t, buyer, "escrow/job/")
	res := hireMean(t, buyer, "compute.statistics.mean")
	require.Equal(t, escrow.StateReleased, res.State)
	require.Eventually(t, func() bool {
		er, err := seller.market.escrow.GetRole(context.Background(), res.JobID, escrow.RoleSeller)
		return err == nil && er.State == escrow.StateReleased
	}, 20*time.Second, 10*time.Millisecond, "the seller applied the settle")
	require.Equal(t, 2, sellerCommits(), "seller: accepted lock with delivery, then the settle")
	require.Equal(t, 2, buyerCommits(), "buyer: lock, then delivery with release")
	er, err := seller.market.escrow.GetRole(context.Background(), res.JobID, escrow.RoleSeller)
	require.NoError(t, err)
	require.NotNil(t, er.Lock, "the seller keeps the buyer's lock")
	require.NotNil(t, er.Delivery, "and its own delivery")
	rec, err := seller.market.jobs.get(RoleSeller, res.JobID)
	require.NoError(t, err)
	require.Equal(t, StatusDelivered, rec.Status)
}

// countCommits counts the commits that write a key under prefix on p's
// Badger from now on: a commit is a version (Badger's commit timestamp).
func countCommits(t *testing.T, p *testPeer, prefix string) func() int {
	t.Helper()
	var mu sync.Mutex
	versions := map[uint64]bool{}
	flush := watchWrites(t, p.db, []pb.Match{{Prefix: []byte(prefix)}}, func(kv *pb.KV) {
		mu.Lock()
		defer mu.Unlock()
		versions[kv.Version] = true
	})
	return func() int {
		flush()
		mu.Lock()
		defer mu.Unlock()
		return len(versions)
	}
}

// A settle that reaches the seller while a job runs whose lock is not
// written yet (within acceptGrace) writes the lock first, then applies:
// a buyer's cancel stops the job and both sides end refunded. While it
// runs, GET /jobs/{id} says running, not "no such job".
func TestASettleMeetsAJobWhoseLockIsNotWrittenYet(t *testing.T) {
	running := make(chan struct{}, 1)
	seller, buyer := setupSlowSeller(t, running, withAcceptGrace(t, time.Hour))
	ctx := t.Context()
	hired, job := startSlowHire(t, buyer, running)
	_, err := seller.market.escrow.GetRole(ctx, job.JobID, escrow.RoleSeller)
	require.ErrorIs(t, err, escrow.ErrNotFound, "the lock is not written while the job is inside its grace")
	var st JobStatus
	_, _, err = buyer.market.client.do(ctx, buyer.market.addrsOf(seller.host.ID()), "GET", "/jobs/"+job.JobID, nil, maxEventLine, &st)
	require.NoError(t, err)
	require.Equal(t, StatusRunning, st.Status)

	_, err = buyer.market.refund(HireResult{JobID: job.JobID, Seller: job.Seller}, ErrCancelled.Error(), nil, nil)
	require.NoError(t, err)
	require.Error(t, <-hired, "the hire ends once the seller stops the job")
	require.Eventually(t, func() bool {
		er, err := seller.market.escrow.GetRole(ctx, job.JobID, escrow.RoleSeller)
		rec, err2 := seller.market.jobs.get(RoleSeller, job.JobID)
		return err == nil && err2 == nil && er.State == escrow.StateRefunded && rec.Status == StatusFailed
	}, 30*time.Second, 20*time.Millisecond, "the seller wrote the lock, applied the refund and stopped the job")
	for _, p := range []*testPeer{seller, buyer} {
		require.NoError(t, p.market.escrow.CheckInvariant(ctx), fmt.Sprintf("peer %s", p.host.ID()))
	}
}
