package market

import (
	"context"
	"encoding/json"
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
