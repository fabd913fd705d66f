package escrow_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/swarmwage/swarmwage/escrow"
	"github.com/swarmwage/swarmwage/internal/kv"
)

// TestPreparedDecision: a decision worked out ahead of its commit
// (Decision.Prepare) commits what Decide would have, whatever changed
// between the two: with nothing changed, its prepared writes stand; with
// the balance or the job changed meanwhile, it is worked out again in
// the commit, so no change made meanwhile is lost and no stale state is
// written.
func TestPreparedDecision(t *testing.T) {
	cases := []struct {
		name string
		// meanwhile runs between Prepare and Commit.
		meanwhile func(t *testing.T, p *pair, jobID string)
		// wantErr is Commit's error, if it must fail.
		wantErr error
		// deposit is what meanwhile deposited.
		deposit int64
	}{
		{name: "nothing changed", meanwhile: func(*testing.T, *pair, string) {}},
		{name: "a deposit meanwhile", deposit: 7_000, meanwhile: func(t *testing.T, p *pair, _ string) {
			require.NoError(t, p.buyer.e.Deposit(context.Background(), 7_000, "meanwhile"))
		}},
		{name: "another job locked meanwhile", meanwhile: func(t *testing.T, p *pair, _ string) {
			_, err := p.buyer.e.Lock(context.Background(), p.lockParams("other-job"))
			require.NoError(t, err)
		}},
		{name: "the job refunded meanwhile", wantErr: escrow.ErrAlreadySettled, meanwhile: func(t *testing.T, p *pair, jobID string) {
			_, err := p.buyer.e.Refund(context.Background(), jobID, "meanwhile", nil)
			require.NoError(t, err)
		}},
	}
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			p := setupPair(t)
			jobID := fmt.Sprintf("job-%d", i)
			l, err := p.buyer.e.Lock(ctx, p.lockParams(jobID))
			require.NoError(t, err)
			a, fresh, err := p.seller.e.PrepareAccept(ctx, l, nil)
			require.NoError(t, err)
			require.True(t, fresh)
			d, _, err := a.AcceptDelivered(ctx, []byte("out"))
			require.NoError(t, err)
			a.Close()
			before, err := p.buyer.e.Balance(ctx)
			require.NoError(t, err)

			dc, err := p.buyer.e.NewDecision(ctx, jobID, d, []byte("out"), escrow.Verdict{Decision: escrow.DecisionRelease})
			require.NoError(t, err)
			dc.Prepare(ctx)
			_, err = p.buyer.e.GetRole(ctx, jobID, escrow.RoleBuyer)
			require.NoError(t, err)
			require.Equal(t, escrow.StateLocked, p.buyer.state(t, jobID, escrow.RoleBuyer), "Prepare writes nothing")
			tc.meanwhile(t, p, jobID)
			also := func(txn kv.Txn) error { return txn.Set([]byte("test/decided"), []byte("yes")) }
			st, err := dc.Commit(ctx, also)
			if tc.wantErr != nil {
				require.ErrorIs(t, err, tc.wantErr)
				require.Nil(t, st)
				require.Equal(t, escrow.StateRefunded, p.buyer.state(t, jobID, escrow.RoleBuyer))
				p.buyer.requireInvariant(t)
				return
			}
			require.NoError(t, err)
			require.NotNil(t, st)
			require.NoError(t, st.Verify())
			_, err = dc.Commit(ctx)
			require.Error(t, err, "a decision commits once")
			p.buyer.reopen(t)

			r, err := p.buyer.e.GetRole(ctx, jobID, escrow.RoleBuyer)
			require.NoError(t, err)
			require.Equal(t, escrow.StateReleased, r.State)
			require.NotNil(t, r.Delivery)
			require.Equal(t, d.Signature, r.Delivery.Signature)
			requireKV(t, p.buyer, "test/decided", "yes")
			after, err := p.buyer.e.Balance(ctx)
			require.NoError(t, err)
			require.Equal(t, before.Paid+l.Amount, after.Paid)
			require.Equal(t, before.Deposited+tc.deposit, after.Deposited, "a deposit made meanwhile is kept")
			p.buyer.requireInvariant(t)
		})
	}
}

// TestDeliverSigned: a delivery signed ahead (SignDelivery, sent while it
// is written) is the one written and returned, again on a repeat; another
// signed delivery of the same job, or one for another output, is refused.
func TestDeliverSigned(t *testing.T) {
	ctx := context.Background()
	p := setupPair(t)
	l, err := p.buyer.e.Lock(ctx, p.lockParams("job-1"))
	require.NoError(t, err)
	require.NoError(t, acceptLock(p.seller.e, ctx, l))
	d, err := p.seller.e.SignDelivery("job-1", []byte("out"))
	require.NoError(t, err)
	_, err = p.seller.e.DeliverSigned(ctx, d, []byte("other out"))
	require.ErrorIs(t, err, escrow.ErrInvalidMessage)
	got, err := p.seller.e.DeliverSigned(ctx, d, []byte("out"))
	require.NoError(t, err)
	require.Equal(t, d.Signature, got.Signature)
	p.seller.reopen(t)
	r, err := p.seller.e.GetRole(ctx, "job-1", escrow.RoleSeller)
	require.NoError(t, err)
	require.Equal(t, escrow.StateDelivered, r.State)
	require.Equal(t, d.Signature, r.Delivery.Signature)

	again, err := p.seller.e.DeliverSigned(ctx, d, []byte("out"))
	require.NoError(t, err, "the same delivery again")
	require.Equal(t, d.Signature, again.Signature)
	p.seller.clock.Advance(time.Second) // another date, another signature
	other, err := p.seller.e.SignDelivery("job-1", []byte("out"))
	require.NoError(t, err)
	_, err = p.seller.e.DeliverSigned(ctx, other, []byte("out"))
	require.ErrorIs(t, err, escrow.ErrBadState, "another signed delivery of the same output")
	require.NoError(t, p.buyer.e.RecordDelivery(ctx, d, []byte("out")), "the buyer takes the one sent")
	p.seller.requireInvariant(t)
}
