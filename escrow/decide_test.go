package escrow_test

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/swarmwage/swarmwage/escrow"
	"github.com/swarmwage/swarmwage/internal/kv"
)

// TestDecide: one commit records the delivery and the verdict, with what
// the two calls it replaces (RecordDelivery, then Release, Refund or
// Accept) would leave, durable across a reopen; a refused delivery writes
// nothing, not even the verdict's extra state.
func TestDecide(t *testing.T) {
	cases := []struct {
		name      string
		verdict   escrow.Verdict
		state     escrow.State
		accepted  bool
		held      int64
		available int64
		settle    string // the settle's decision; "" for none
	}{
		{name: "release", verdict: escrow.Verdict{Decision: escrow.DecisionRelease},
			state: escrow.StateReleased, held: 0, available: 10*credit - testPrice, settle: escrow.DecisionRelease},
		{name: "refund", verdict: escrow.Verdict{Decision: escrow.DecisionRefund, Reason: "verification failed", FailedChecks: []string{"mean"}},
			state: escrow.StateRefunded, held: 0, available: 10 * credit, settle: escrow.DecisionRefund},
		{name: "accept", verdict: escrow.Verdict{Decision: escrow.VerdictAccept},
			state: escrow.StateDelivered, accepted: true, held: testPrice, available: 10*credit - testPrice},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			p := setupPair(t)
			p.lock(t, "job-1")
			d, err := p.seller.e.Deliver(ctx, "job-1", []byte("out"))
			require.NoError(t, err)
			also := func(txn kv.Txn) error { return txn.Set([]byte("test/also"), []byte(tc.name)) }
			st, err := p.buyer.e.Decide(ctx, "job-1", d, []byte("out"), tc.verdict, also)
			require.NoError(t, err)
			p.buyer.reopen(t)

			r, err := p.buyer.e.GetRole(ctx, "job-1", escrow.RoleBuyer)
			require.NoError(t, err)
			require.Equal(t, tc.state, r.State)
			require.Equal(t, tc.accepted, r.Accepted)
			require.NotNil(t, r.Delivery, "the delivery is stored as evidence")
			require.Equal(t, d.Signature, r.Delivery.Signature)
			out, err := p.buyer.e.Payload(ctx, escrow.RoleBuyer, "job-1", escrow.PayloadOutput)
			require.NoError(t, err)
			require.Equal(t, "out", string(out))
			b := p.buyer.balance(t)
			require.Equal(t, tc.held, b.Held)
			require.Equal(t, tc.available, b.Available)
			p.buyer.requireInvariant(t)
			requireKV(t, p.buyer, "test/also", tc.name)
			if tc.settle == "" {
				require.Nil(t, st)
				return
			}
			require.Equal(t, tc.settle, st.Decision)
			require.Equal(t, tc.verdict.Reason, st.Reason)
			require.NoError(t, p.seller.e.ApplySettle(ctx, st), "the seller takes the decision")
			// Deciding again returns the stored settle.
			again, err := p.buyer.e.Decide(ctx, "job-1", d, []byte("out"), tc.verdict)
			require.NoError(t, err)
			require.Equal(t, st.Signature, again.Signature)
		})
	}
}

// TestDecideRefusedDelivery: a delivery the escrow refuses comes back as a
// DeliveryError naming why, and the job stays locked with nothing written.
func TestDecideRefusedDelivery(t *testing.T) {
	ctx := context.Background()
	cases := []struct {
		name   string
		mangle func(p *pair, d *escrow.Delivery) *escrow.Delivery
		output string
		want   error
	}{
		{name: "forged signature", output: "out", want: escrow.ErrForged,
			mangle: func(_ *pair, d *escrow.Delivery) *escrow.Delivery { c := *d; c.OutputHash = hashOf("other"); return &c }},
		{name: "past the deadline", output: "out", want: escrow.ErrPastDeadline,
			mangle: func(p *pair, d *escrow.Delivery) *escrow.Delivery { p.clock.Advance(testTimeout + 1); return d }},
		{name: "another job's delivery", output: "out", want: escrow.ErrInvalidMessage,
			mangle: func(p *pair, d *escrow.Delivery) *escrow.Delivery {
				p.lock(t, "job-2")
				d2, err := p.seller.e.Deliver(ctx, "job-2", []byte("out"))
				require.NoError(t, err)
				return d2
			}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := setupPair(t)
			p.lock(t, "job-1")
			d, err := p.seller.e.Deliver(ctx, "job-1", []byte("out"))
			require.NoError(t, err)
			d = tc.mangle(p, d)
			held := p.buyer.balance(t).Held
			wrote := false
			also := func(kv.Txn) error { wrote = true; return nil }
			_, err = p.buyer.e.Decide(ctx, "job-1", d, []byte(tc.output), escrow.Verdict{Decision: escrow.DecisionRelease}, also)
			var de *escrow.DeliveryError
			require.True(t, errors.As(err, &de), "want a DeliveryError, got %v", err)
			require.ErrorIs(t, err, tc.want)
			require.False(t, wrote, "the caller's state is not written with a refused delivery")
			require.Equal(t, escrow.StateLocked, p.buyer.state(t, "job-1", escrow.RoleBuyer))
			require.Equal(t, held, p.buyer.balance(t).Held)
			p.buyer.requireInvariant(t)
		})
	}
}

// TestDecideRecordedBefore: with no delivery, Decide decides the one
// recorded before, as Release would, and a locked job without one cannot
// be released.
func TestDecideRecordedBefore(t *testing.T) {
	ctx := context.Background()
	p := setupPair(t)
	p.lock(t, "job-1")
	_, err := p.buyer.e.Decide(ctx, "job-1", nil, nil, escrow.Verdict{Decision: escrow.DecisionRelease})
	require.ErrorIs(t, err, escrow.ErrBadState)
	var de *escrow.DeliveryError
	require.False(t, errors.As(err, &de), "no delivery was given, so none was refused")
	d, err := p.seller.e.Deliver(ctx, "job-1", []byte("out"))
	require.NoError(t, err)
	require.NoError(t, p.buyer.e.RecordDelivery(ctx, d, []byte("out")))
	st, err := p.buyer.e.Decide(ctx, "job-1", nil, nil, escrow.Verdict{Decision: escrow.DecisionRelease})
	require.NoError(t, err)
	require.Equal(t, escrow.DecisionRelease, st.Decision)
	_, err = p.buyer.e.Decide(ctx, "job-1", nil, nil, escrow.Verdict{Decision: "maybe"})
	require.ErrorIs(t, err, escrow.ErrInvalidMessage)
	p.buyer.requireInvariant(t)
}

// requireKV: key holds want in n's DB.
func requireKV(t *testing.T, n *testNode, key, want string) {
	t.Helper()
	require.NoError(t, n.db.View(func(txn *badgerTxn) error {
		item, err := txn.Get([]byte(key))
		if err != nil {
			return err
		}
		v, err := item.ValueCopy(nil)
		require.Equal(t, want, string(v))
		return err
	}))
}
