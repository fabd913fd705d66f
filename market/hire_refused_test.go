package market

import (
	"context"
	"encoding/json"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/swarmwage/swarmwage/escrow"
)

// TestLockRefusedUntilTheDeadlineNamesItsJob: a seller kept busy (429) past
// a hire's deadline never accepts the lock sent to it, and the hold is
// refunded, by the buyer or by its deadline timer, whichever comes first.
// The hire ends "no seller", but a lock was sent: its result names that job
// and its escrow state, so a caller can follow it. It once returned an
// empty result (faults TestConcurrentHires under load: a job refunded for
// "deadline" that no hire named).
func TestLockRefusedUntilTheDeadlineNamesItsJob(t *testing.T) {
	boot := setupPeer(t, nil)
	seller := setupPeer(t, boot, Concurrency(1, 0))
	buyer := setupPeer(t, boot)
	_, err := seller.market.AddListing(context.Background(), ListingParams{
		Capability: "custom.test.slow", Price: 10_000,
		Handler: HandlerConfig{Kind: HandlerExec, Command: []string{"sh", "-c", "sleep 4; cat"}},
	})
	require.NoError(t, err)
	waitProvided(t, boot, seller, buyer)
	ctx := context.Background()
	require.NoError(t, buyer.market.escrow.Deposit(ctx, 1_000_000, "test"))

	// The first hire takes the seller's only slot (and leaves its quote
	// in the buyer's cache, so the second locks without asking again).
	started := make(chan struct{})
	first := make(chan error, 1)
	go func() {
		var once bool
		_, err := buyer.market.Hire(ctx, HireRequest{
			Capability: "custom.test.slow", Input: json.RawMessage(`{}`), Timeout: 30 * time.Second,
			Progress: func(ev Event) {
				if ev.Type == EventAccepted && !once {
					once = true
					close(started)
				}
			},
		})
		first <- err
	}()
	select {
	case <-started:
	case err := <-first:
		t.Fatalf("the first hire ended before its job started: %v", err)
	}

	res, err := buyer.market.Hire(ctx, HireRequest{
		Capability: "custom.test.slow", Input: json.RawMessage(`{}`), Seller: seller.host.ID(), Timeout: 1500 * time.Millisecond,
	})
	require.ErrorIs(t, err, ErrNoSeller)
	require.NotEmpty(t, res.JobID, "a lock was sent: the result names its job")
	require.Equal(t, escrow.StateRefunded, res.State)
	require.Equal(t, seller.host.ID(), res.Seller)
	rec, err := buyer.market.escrow.GetRole(ctx, res.JobID, escrow.RoleBuyer)
	require.NoError(t, err)
	require.Equal(t, escrow.StateRefunded, rec.State)
	require.Equal(t, rec.Reason, res.Reason, "the result says why, as the ledger does")

	require.NoError(t, <-first, "the job that had the slot ran")
	b, err := buyer.market.escrow.Balance(ctx)
	require.NoError(t, err)
	require.Equal(t, int64(10_000), b.Held, "only the job that ran is held")
}

// TestOutputAfterTheDeadlineIsNotAFailedVerification: an output that
// reaches a loaded buyer after the job's deadline is refunded by the
// deadline, whichever of the hire and the deadline timer comes first, and
// the hire says so (ErrJobFailed, reason "deadline"). It once went through
// as a failed verification of the seller's (honest) output (faults
// TestConcurrentHires under load: an honest seller refunded with exit 5).
func TestOutputAfterTheDeadlineIsNotAFailedVerification(t *testing.T) {
	var late atomic.Int64 // how far the buyer's escrow clock is ahead
	boot := setupPeer(t, nil)
	seller := setupPeer(t, boot, withHandler(t, func(context.Context, json.RawMessage) (json.RawMessage, error) {
		late.Store(int64(time.Hour)) // the output leaves now, and arrives after the deadline
		return json.RawMessage(`{"result":2}`), nil
	}))
	buyer := startPeer(t, boot, []escrow.Option{escrow.WithClock(func() time.Time {
		return time.Now().Add(time.Duration(late.Load()))
	})}, nil, nil)
	addListing(t, seller, "compute.statistics.mean", 10_000)
	waitProvided(t, boot, seller, buyer)
	ctx := context.Background()
	require.NoError(t, buyer.market.escrow.Deposit(ctx, 1_000_000, "test"))

	res, err := buyer.market.Hire(ctx, HireRequest{
		Capability: "compute.statistics.mean", Input: json.RawMessage(`{"data":[1,2,3]}`), Seller: seller.host.ID(), Timeout: 30 * time.Second,
	})
	require.ErrorIs(t, err, ErrJobFailed)
	require.NotErrorIs(t, err, ErrVerificationFailed, "the output was fine; it came too late")
	require.NotEmpty(t, res.JobID)
	require.Equal(t, escrow.StateRefunded, res.State)
	require.Equal(t, escrow.ReasonDeadline, res.Reason)
	rec, err := buyer.market.escrow.GetRole(ctx, res.JobID, escrow.RoleBuyer)
	require.NoError(t, err)
	require.Equal(t, escrow.StateRefunded, rec.State)
	require.Empty(t, rec.FailedChecks, "no check failed")
}
