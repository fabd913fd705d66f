package escrow_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/swarmwage/swarmwage/escrow"
	"github.com/swarmwage/swarmwage/internal/kv"
)

// TestAcceptDelivered: a checked lock and its delivery in one commit leave
// what AcceptLock then Deliver leave, durable across a reopen, with the
// caller's writes of both steps; the buyer can record the delivery.
func TestAcceptDelivered(t *testing.T) {
	ctx := context.Background()
	p := setupPair(t)
	l, err := p.buyer.e.Lock(ctx, p.lockParams("job-1"))
	require.NoError(t, err)
	a, fresh, err := p.seller.e.PrepareAccept(ctx, l, nil)
	require.NoError(t, err)
	require.True(t, fresh)
	defer a.Close()
	_, err = p.seller.e.GetRole(ctx, "job-1", escrow.RoleSeller)
	require.ErrorIs(t, err, escrow.ErrNotFound, "a prepared lock writes nothing")
	set := func(k string) escrow.Also { return func(txn kv.Txn) error { return txn.Set([]byte(k), []byte("yes")) } }
	d, fresh, err := a.AcceptDelivered(ctx, []byte("out"), set("test/accepted"), set("test/delivered"))
	require.NoError(t, err)
	require.True(t, fresh)
	p.seller.reopen(t)

	r, err := p.seller.e.GetRole(ctx, "job-1", escrow.RoleSeller)
	require.NoError(t, err)
	require.Equal(t, escrow.StateDelivered, r.State)
	require.NotNil(t, r.Lock)
	require.Equal(t, l.Signature, r.Lock.Signature)
	require.Equal(t, d.Signature, r.Delivery.Signature)
	requireKV(t, p.seller, "test/accepted", "yes")
	requireKV(t, p.seller, "test/delivered", "yes")
	p.seller.requireInvariant(t)

	// The same lock again is a replay: not fresh, the job must not run.
	_, fresh, err = p.seller.e.PrepareAccept(ctx, l, nil)
	require.NoError(t, err)
	require.False(t, fresh)
	// Another input under the same lock is refused.
	_, _, err = p.seller.e.PrepareAccept(ctx, l, []byte("other"))
	require.ErrorIs(t, err, escrow.ErrJobIDReused)

	require.NoError(t, p.buyer.e.RecordDelivery(ctx, d, []byte("out")))
	st, err := p.buyer.e.Release(ctx, "job-1")
	require.NoError(t, err)
	require.NoError(t, p.seller.e.ApplySettle(ctx, st))
	require.Equal(t, escrow.StateReleased, p.seller.state(t, "job-1", escrow.RoleSeller))
	p.seller.requireInvariant(t)
}

// TestAcceptingRaces: a prepared lock that was accepted meanwhile (Accept,
// or another prepared copy) is not fresh, and AcceptDelivered then writes
// nothing; a lock whose deadline passed before the commit is refused.
func TestAcceptingRaces(t *testing.T) {
	ctx := context.Background()
	cases := []struct {
		name   string
		before func(p *pair, a *escrow.Accepting)
		fresh  bool
		err    error
		state  escrow.State
	}{
		{name: "accepted meanwhile", fresh: false, state: escrow.StateLocked,
			before: func(_ *pair, a *escrow.Accepting) {
				fresh, err := a.Accept(ctx)
				require.NoError(t, err)
				require.True(t, fresh)
			}},
		{name: "deadline passed", err: escrow.ErrBadState,
			before: func(p *pair, _ *escrow.Accepting) { p.clock.Advance(testTimeout + 1) }},
		{name: "nothing meanwhile", fresh: true, state: escrow.StateDelivered, before: func(*pair, *escrow.Accepting) {}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := setupPair(t)
			l, err := p.buyer.e.Lock(ctx, p.lockParams("job-1"))
			require.NoError(t, err)
			a, _, err := p.seller.e.PrepareAccept(ctx, l, nil)
			require.NoError(t, err)
			defer a.Close()
			tc.before(p, a)
			wrote := false
			d, fresh, err := a.AcceptDelivered(ctx, []byte("out"), func(kv.Txn) error { wrote = true; return nil })
			if tc.err != nil {
				require.ErrorIs(t, err, tc.err)
				_, gerr := p.seller.e.GetRole(ctx, "job-1", escrow.RoleSeller)
				require.ErrorIs(t, gerr, escrow.ErrNotFound, "a refused commit writes nothing")
				return
			}
			require.NoError(t, err)
			require.Equal(t, tc.fresh, fresh)
			require.Equal(t, tc.fresh, wrote, "the caller's writes go only with a fresh acceptance")
			require.Equal(t, tc.fresh, d != nil)
			require.Equal(t, tc.state, p.seller.state(t, "job-1", escrow.RoleSeller))
			p.seller.requireInvariant(t)
		})
	}
}
