package escrow_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/swarmwage/swarmwage/escrow"
)

// TestTimers moves the clock past each timer and checks who fires: the
// buyer at the deadline or the end of its window, the seller a grace later.
func TestTimers(t *testing.T) {
	testCases := []struct {
		name        string
		deliver     bool
		advance     time.Duration
		buyerFires  int
		sellerFires int
		buyerState  escrow.State
		sellerState escrow.State
		buyerReason string
		sellerEarn  int64
	}{
		{"locked, before the deadline", false, testTimeout - time.Millisecond, 0, 0, escrow.StateLocked, escrow.StateLocked, "", 0},
		{"locked, at the deadline", false, testTimeout, 1, 0, escrow.StateRefunded, escrow.StateLocked, escrow.ReasonDeadline, 0},
		{"locked, past the deadline and the grace", false, testTimeout + testGrace, 1, 1, escrow.StateRefunded, escrow.StateRefunded, escrow.ReasonDeadline, 0},
		{"delivered, inside the window", true, testWindow - time.Millisecond, 0, 0, escrow.StateDelivered, escrow.StateDelivered, "", 0},
		{"delivered, window over", true, testWindow, 1, 0, escrow.StateReleased, escrow.StateDelivered, escrow.ReasonWindow, 0},
		// The seller waits for the deadline too: a lost delivery never
		// started the buyer's window.
		{"delivered, window over, before the deadline", true, testWindow + testGrace, 1, 0, escrow.StateReleased, escrow.StateDelivered, escrow.ReasonWindow, 0},
		{"delivered, past deadline and grace", true, testTimeout + testGrace, 1, 1, escrow.StateReleased, escrow.StateReleased, escrow.ReasonWindow, testPrice},
	}
	for _, tc := range testCases {
		t.Run(tc.name, func(t *testing.T) {
			p := setupPair(t)
			p.lock(t, "j")
			if tc.deliver {
				p.deliver(t, "j")
			}
			p.clock.Advance(tc.advance)
			n, err := p.buyer.e.FireDue(t.Context())
			require.NoError(t, err)
			require.Equal(t, tc.buyerFires, n)
			n, err = p.seller.e.FireDue(t.Context())
			require.NoError(t, err)
			require.Equal(t, tc.sellerFires, n)
			// A second pass finds nothing more.
			n, err = p.buyer.e.FireDue(t.Context())
			require.NoError(t, err)
			require.Zero(t, n)

			rb, err := p.buyer.e.GetRole(t.Context(), "j", escrow.RoleBuyer)
			require.NoError(t, err)
			require.Equal(t, tc.buyerState, rb.State)
			require.Equal(t, tc.buyerReason, rb.Reason)
			if tc.buyerFires > 0 {
				require.NotNil(t, rb.Settle, "the buyer signs what its timer decided")
				require.NoError(t, rb.Settle.Verify())
				require.Len(t, p.buyer.hooks(), 1)
				// The market forwards the timer's settle; the seller applies it.
				require.NoError(t, p.seller.e.ApplySettle(t.Context(), rb.Settle))
				want := escrow.StateRefunded
				if rb.Settle.Decision == escrow.DecisionRelease {
					want = escrow.StateReleased
				}
				require.Equal(t, want, p.seller.state(t, "j", escrow.RoleSeller))
			} else {
				require.Equal(t, tc.sellerState, p.seller.state(t, "j", escrow.RoleSeller))
			}
			if rb.State == escrow.StateReleased {
				require.Equal(t, int64(testPrice), p.buyer.balance(t).Paid)
				require.Equal(t, int64(testPrice), p.seller.balance(t).Earned)
			} else if rb.State == escrow.StateRefunded {
				require.Equal(t, int64(10*credit), p.buyer.balance(t).Available)
				require.Zero(t, p.seller.balance(t).Earned)
			}
			p.buyer.requireInvariant(t)
			p.seller.requireInvariant(t)
		})
	}
}

// TestTimersResumeAfterRestart closes both DBs while jobs are open, moves
// the clock while they are down, reopens them and checks that the timers
// fire from what Badger kept.
func TestTimersResumeAfterRestart(t *testing.T) {
	p := setupPair(t)
	p.lock(t, "silent")    // the seller never delivers: refund at the deadline
	p.lock(t, "delivered") // the buyer dies after delivery: release after the window
	p.deliver(t, "delivered")

	p.buyer.close(t)
	p.seller.close(t)
	p.clock.Advance(testTimeout + testGrace)
	p.buyer.open(t)
	p.seller.open(t)

	n, err := p.buyer.e.FireDue(t.Context())
	require.NoError(t, err)
	require.Equal(t, 2, n)
	n, err = p.seller.e.FireDue(t.Context())
	require.NoError(t, err)
	require.Equal(t, 2, n)

	require.Equal(t, escrow.StateRefunded, p.buyer.state(t, "silent", escrow.RoleBuyer))
	require.Equal(t, escrow.StateRefunded, p.seller.state(t, "silent", escrow.RoleSeller))
	require.Equal(t, escrow.StateReleased, p.buyer.state(t, "delivered", escrow.RoleBuyer))
	require.Equal(t, escrow.StateReleased, p.seller.state(t, "delivered", escrow.RoleSeller))
	require.Equal(t, escrow.Balance{Available: 10*credit - testPrice, Paid: testPrice, Deposited: 10 * credit}, p.buyer.balance(t))
	// The seller's own timer released provisionally: the money is pending
	// until the buyer's release (which the market's outbox resends) arrives.
	require.Equal(t, escrow.Balance{Pending: testPrice}, p.seller.balance(t))
	p.seller.requireInvariant(t)
	rb, err := p.buyer.e.GetRole(t.Context(), "delivered", escrow.RoleBuyer)
	require.NoError(t, err)
	require.NoError(t, p.seller.e.ApplySettle(t.Context(), rb.Settle))
	require.Equal(t, escrow.Balance{Available: testPrice, Earned: testPrice}, p.seller.balance(t))
	p.buyer.requireInvariant(t)
	p.seller.requireInvariant(t)
}

// TestStartFiresTimers runs the timers goroutine for real (short interval)
// after a restart and waits for it to settle the job.
func TestStartFiresTimers(t *testing.T) {
	clock := newClock()
	buyer := setupNode(t, clock, escrow.WithTimerInterval(5*time.Millisecond))
	seller := setupNode(t, clock)
	ctx := t.Context()
	require.NoError(t, buyer.e.Deposit(ctx, credit, ""))
	_, err := buyer.e.Lock(ctx, escrow.LockParams{JobID: "j", Seller: seller.id, Amount: testPrice,
		Deadline: clock.Now().Add(time.Minute), Window: time.Minute})
	require.NoError(t, err)
	buyer.reopen(t)
	require.NoError(t, buyer.e.Start(ctx))
	require.Error(t, buyer.e.Start(ctx), "Start twice")
	clock.Advance(time.Minute)
	require.Eventually(t, func() bool {
		r, err := buyer.e.Get(ctx, "j")
		return err == nil && r.State == escrow.StateRefunded
	}, 10*time.Second, 5*time.Millisecond)
	// The hook runs just after the commit that Get already sees.
	require.Eventually(t, func() bool { return len(buyer.hooks()) == 1 }, 10*time.Second, 5*time.Millisecond)
	require.Equal(t, escrow.ReasonDeadline, buyer.hooks()[0].Reason)
	buyer.reopen(t)
	buyer.requireInvariant(t)
}

// TestTimerLosesRaceToDecision: a decision made just before the timer's
// transaction wins; the timer then does nothing.
func TestTimerLosesRaceToDecision(t *testing.T) {
	p := setupPair(t)
	p.lock(t, "j")
	p.deliver(t, "j")
	p.clock.Advance(testWindow)
	_, err := p.buyer.e.Release(t.Context(), "j")
	require.NoError(t, err)
	n, err := p.buyer.e.FireDue(t.Context())
	require.NoError(t, err)
	require.Zero(t, n)
	require.Len(t, p.buyer.hooks(), 1)
}
