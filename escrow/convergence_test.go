package escrow_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/swarmwage/swarmwage/escrow"
)

// Regression: a buyer that died after it recorded a delivery and before it
// refunded restarted with the job delivered, and the window timer released
// output that had failed verification. The timer now never releases a
// delivery the buyer did not accept; it asks the undecided hook, which
// verifies again.
func TestTimerNeverReleasesAnUndecidedDelivery(t *testing.T) {
	testCases := []struct {
		name      string
		hook      bool
		wantState escrow.State
		wantPaid  int64
	}{
		{"no hook: the hold waits", false, escrow.StateDelivered, 0},
		{"hook refunds what fails verification", true, escrow.StateRefunded, 0},
	}
	for _, tc := range testCases {
		t.Run(tc.name, func(t *testing.T) {
			p := setupPair(t)
			var asked []string
			if tc.hook {
				p.buyer.opts = append(p.buyer.opts, escrow.WithUndecided(func(ctx context.Context, r escrow.Record) {
					asked = append(asked, r.JobID)
					_, err := p.buyer.e.Refund(ctx, r.JobID, escrow.ReasonReverified, []string{"mean"})
					require.NoError(t, err)
				}))
			}
			p.lock(t, "j")
			ctx := t.Context()
			d, err := p.seller.e.Deliver(ctx, "j", []byte(`{"mean":99}`))
			require.NoError(t, err)
			require.NoError(t, p.buyer.e.RecordDelivery(ctx, d, []byte(`{"mean":99}`)))
			p.buyer.reopen(t) // the crash between recording and deciding

			out, err := p.buyer.e.Payload(ctx, escrow.RoleBuyer, "j", escrow.PayloadOutput)
			require.NoError(t, err)
			require.Equal(t, `{"mean":99}`, string(out), "the output is durable with the delivery")

			p.clock.Advance(testWindow + time.Second)
			_, err = p.buyer.e.FireDue(ctx)
			require.NoError(t, err)
			require.Equal(t, tc.wantState, p.buyer.state(t, "j", escrow.RoleBuyer))
			require.Equal(t, tc.wantPaid, p.buyer.balance(t).Paid)
			if tc.hook {
				require.Equal(t, []string{"j"}, asked)
			}
			p.buyer.requireInvariant(t)
		})
	}
}

// Regression: the seller recorded a delivery the buyer never received (a
// partition), the buyer refunded at the deadline, the seller's timer
// released at the end of its window, and the late refund got 409: the
// ledgers disagreed forever. The seller's timer release is now provisional
// (pending, not spendable) and the buyer's decision, whenever it arrives
// before the finality horizon, takes precedence.
func TestBuyerDecisionTakesPrecedenceOverSellerTimer(t *testing.T) {
	testCases := []struct {
		name        string
		decision    string
		wantSeller  escrow.State
		wantEarned  int64
		wantPending int64
	}{
		{"late refund reverses the provisional release", escrow.DecisionRefund, escrow.StateDisputed, 0, 0},
		{"late release confirms it", escrow.DecisionRelease, escrow.StateReleased, testPrice, 0},
		{"no decision: pending until the horizon", "", escrow.StateReleased, 0, testPrice},
	}
	for _, tc := range testCases {
		t.Run(tc.name, func(t *testing.T) {
			p := setupPair(t)
			ctx := t.Context()
			p.lock(t, "j")
			d, err := p.seller.e.Deliver(ctx, "j", []byte("out"))
			require.NoError(t, err)
			var settle *escrow.Settle
			switch tc.decision {
			case escrow.DecisionRefund: // the delivery was lost: refund at the deadline
				p.clock.Advance(testTimeout)
				_, err = p.buyer.e.FireDue(ctx)
				require.NoError(t, err)
				rb, err := p.buyer.e.GetRole(ctx, "j", escrow.RoleBuyer)
				require.NoError(t, err)
				settle = rb.Settle
			case escrow.DecisionRelease:
				require.NoError(t, p.buyer.e.RecordDelivery(ctx, d, []byte("out")))
				settle, err = p.buyer.e.Release(ctx, "j")
				require.NoError(t, err)
			}
			// Partitioned: the seller's own timer fires first.
			p.clock.Advance(testTimeout + testGrace + time.Second)
			n, err := p.seller.e.FireDue(ctx)
			require.NoError(t, err)
			require.Equal(t, 1, n)
			rs, err := p.seller.e.GetRole(ctx, "j", escrow.RoleSeller)
			require.NoError(t, err)
			require.True(t, rs.Provisional)
			require.Equal(t, escrow.StateReleased, rs.State)
			require.Equal(t, escrow.Balance{Pending: testPrice}, p.seller.balance(t), "nothing spendable yet")
			p.seller.requireInvariant(t)

			if settle != nil { // the partition heals: the outbox delivers the decision
				require.NoError(t, p.seller.e.ApplySettle(ctx, settle))
				require.NoError(t, p.seller.e.ApplySettle(ctx, settle), "replayed")
			}
			rs, err = p.seller.e.GetRole(ctx, "j", escrow.RoleSeller)
			require.NoError(t, err)
			require.Equal(t, tc.wantSeller, rs.State)
			b := p.seller.balance(t)
			require.Equal(t, tc.wantEarned, b.Earned)
			require.Equal(t, tc.wantPending, b.Pending)
			require.Equal(t, tc.wantEarned, b.Available)
			p.seller.requireInvariant(t)
			p.buyer.requireInvariant(t)
			if settle != nil {
				require.Equal(t, tc.wantEarned, p.buyer.balance(t).Paid, "both ledgers agree")
				return
			}
			p.clock.Advance(escrow.DefaultFinality)
			n, err = p.seller.e.FireDue(ctx)
			require.NoError(t, err)
			require.Equal(t, 1, n)
			require.Equal(t, escrow.Balance{Available: testPrice, Earned: testPrice}, p.seller.balance(t))
			p.seller.requireInvariant(t)
		})
	}
}

// A lock commits to its input: the seller refuses an input the lock does
// not name, and a replay of an accepted lock is reported as not fresh.
func TestLockCommitsToInput(t *testing.T) {
	p := setupPair(t)
	ctx := t.Context()
	params := p.lockParams("j")
	params.Input = []byte(`{"data":[1]}`)
	l, err := p.buyer.e.Lock(ctx, params)
	require.NoError(t, err)
	require.Equal(t, escrow.HashHex(params.Input), l.InputHash)
	_, err = p.seller.e.AcceptLock(ctx, l, []byte(`{"data":[2]}`))
	require.ErrorIs(t, err, escrow.ErrInvalidMessage)
	fresh, err := p.seller.e.AcceptLock(ctx, l, params.Input)
	require.NoError(t, err)
	require.True(t, fresh)
	fresh, err = p.seller.e.AcceptLock(ctx, l, params.Input)
	require.NoError(t, err)
	require.False(t, fresh, "a lock is accepted once")
	_, err = p.seller.e.AcceptLock(ctx, l, []byte(`{"data":[3]}`))
	require.ErrorIs(t, err, escrow.ErrJobIDReused)
	in, err := p.seller.e.Payload(ctx, escrow.RoleSeller, "j", escrow.PayloadInput)
	require.NoError(t, err)
	require.Equal(t, params.Input, in)
}
