package escrow_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/swarmwage/swarmwage/escrow"
)

func TestDepositAndBalance(t *testing.T) {
	clock := newClock()
	n := setupNode(t, clock)
	ctx := t.Context()
	require.Equal(t, escrow.Balance{}, n.balance(t))
	require.NoError(t, n.e.Deposit(ctx, 1_500_000, "first"))
	require.NoError(t, n.e.Deposit(ctx, 50_000, ""))
	require.Equal(t, escrow.Balance{Available: 1_550_000, Deposited: 1_550_000}, n.balance(t))
	require.ErrorIs(t, n.e.Deposit(ctx, 0, ""), escrow.ErrWrongAmount)
	require.ErrorIs(t, n.e.Deposit(ctx, -1, ""), escrow.ErrWrongAmount)
	n.requireInvariant(t)

	b, err := json.Marshal(n.balance(t))
	require.NoError(t, err)
	require.JSONEq(t, `{"available":"1.55","held":"0","paid":"0","deposited":"1.55","earned":"0","pending":"0"}`, string(b))
	var back escrow.Balance
	require.NoError(t, json.Unmarshal(b, &back))
	require.Equal(t, n.balance(t), back)
}

func TestDepositSurvivesReopen(t *testing.T) {
	n := setupNode(t, newClock())
	require.NoError(t, n.e.Deposit(t.Context(), 3*credit, "x"))
	n.reopen(t)
	require.Equal(t, escrow.Balance{Available: 3 * credit, Deposited: 3 * credit}, n.balance(t))
	n.requireInvariant(t)
}

// TestTransitions drives each path of the state machine on both sides and
// checks the states, balances and hooks at the end.
func TestTransitions(t *testing.T) {
	const start = 10 * credit
	testCases := []struct {
		name        string
		run         func(t *testing.T, p *pair, jobID string)
		buyerState  escrow.State
		sellerState escrow.State
		buyer       escrow.Balance
		sellerEarn  int64
	}{
		{
			name:        "locked",
			run:         func(t *testing.T, p *pair, id string) { p.lock(t, id) },
			buyerState:  escrow.StateLocked,
			sellerState: escrow.StateLocked,
			buyer:       escrow.Balance{Available: start - testPrice, Held: testPrice, Deposited: start},
		},
		{
			name: "delivered",
			run: func(t *testing.T, p *pair, id string) {
				p.lock(t, id)
				p.deliver(t, id)
			},
			buyerState:  escrow.StateDelivered,
			sellerState: escrow.StateDelivered,
			buyer:       escrow.Balance{Available: start - testPrice, Held: testPrice, Deposited: start},
		},
		{
			name: "verified and released",
			run: func(t *testing.T, p *pair, id string) {
				p.lock(t, id)
				p.deliver(t, id)
				s, err := p.buyer.e.Release(t.Context(), id)
				require.NoError(t, err)
				require.Equal(t, escrow.DecisionRelease, s.Decision)
				require.Equal(t, int64(testPrice), s.Amount)
				require.NoError(t, p.seller.e.ApplySettle(t.Context(), s))
			},
			buyerState:  escrow.StateReleased,
			sellerState: escrow.StateReleased,
			buyer:       escrow.Balance{Available: start - testPrice, Paid: testPrice, Deposited: start},
			sellerEarn:  testPrice,
		},
		{
			name: "verification failed: refunded, seller disputes",
			run: func(t *testing.T, p *pair, id string) {
				p.lock(t, id)
				p.deliver(t, id)
				s, err := p.buyer.e.Refund(t.Context(), id, "verification failed", []string{"mean: want 2, got 3"})
				require.NoError(t, err)
				require.Equal(t, []string{"mean: want 2, got 3"}, s.FailedChecks)
				require.NoError(t, p.seller.e.ApplySettle(t.Context(), s))
			},
			buyerState:  escrow.StateRefunded,
			sellerState: escrow.StateDisputed,
			buyer:       escrow.Balance{Available: start, Deposited: start},
		},
		{
			name: "refunded before delivery",
			run: func(t *testing.T, p *pair, id string) {
				p.lock(t, id)
				s, err := p.buyer.e.Refund(t.Context(), id, "seller unreachable", nil)
				require.NoError(t, err)
				require.NoError(t, p.seller.e.ApplySettle(t.Context(), s))
			},
			buyerState:  escrow.StateRefunded,
			sellerState: escrow.StateRefunded,
			buyer:       escrow.Balance{Available: start, Deposited: start},
		},
		{
			name: "failed at the seller, refunded",
			run: func(t *testing.T, p *pair, id string) {
				p.lock(t, id)
				require.NoError(t, p.seller.e.FailJob(t.Context(), id, "handler exited 1"))
				s, err := p.buyer.e.Refund(t.Context(), id, "job failed at the seller", nil)
				require.NoError(t, err)
				require.NoError(t, p.seller.e.ApplySettle(t.Context(), s))
			},
			buyerState:  escrow.StateRefunded,
			sellerState: escrow.StateFailed,
			buyer:       escrow.Balance{Available: start, Deposited: start},
		},
	}
	for _, tc := range testCases {
		t.Run(tc.name, func(t *testing.T) {
			p := setupPair(t)
			tc.run(t, p, "job-1")
			require.Equal(t, tc.buyerState, p.buyer.state(t, "job-1", escrow.RoleBuyer))
			require.Equal(t, tc.sellerState, p.seller.state(t, "job-1", escrow.RoleSeller))
			require.Equal(t, tc.buyer, p.buyer.balance(t))
			require.Equal(t, escrow.Balance{Available: tc.sellerEarn, Earned: tc.sellerEarn}, p.seller.balance(t))
			p.buyer.requireInvariant(t)
			p.seller.requireInvariant(t)
			// Hooks fire once per job that reached a final state, per side.
			if tc.buyerState.Final() {
				require.Len(t, p.buyer.hooks(), 1)
				require.Equal(t, tc.buyerState, p.buyer.hooks()[0].State)
			} else {
				require.Empty(t, p.buyer.hooks())
			}
			if tc.sellerState.Final() {
				require.Len(t, p.seller.hooks(), 1)
				require.Equal(t, tc.sellerState, p.seller.hooks()[0].State)
			} else {
				require.Empty(t, p.seller.hooks())
			}
		})
	}
}

func TestRecordKeepsEvidence(t *testing.T) {
	p := setupPair(t)
	ctx := t.Context()
	l := p.lock(t, "job-1")
	d := p.deliver(t, "job-1")
	s, err := p.buyer.e.Refund(ctx, "job-1", "verification failed", []string{"schema"})
	require.NoError(t, err)
	require.NoError(t, p.seller.e.ApplySettle(ctx, s))

	for _, n := range []*testNode{p.buyer, p.seller} {
		r, err := n.e.Get(ctx, "job-1")
		require.NoError(t, err)
		require.NotNil(t, r.Lock)
		require.NotNil(t, r.Delivery)
		require.NotNil(t, r.Settle)
		require.NoError(t, r.Lock.Verify())
		require.NoError(t, r.Delivery.Verify())
		require.NoError(t, r.Settle.Verify())
		require.Equal(t, l.Signature, r.Lock.Signature)
		require.Equal(t, d.Signature, r.Delivery.Signature)
		require.Equal(t, s.Signature, r.Settle.Signature)
		require.Equal(t, int64(testPrice), r.Amount)
		require.Equal(t, "compute.statistics.mean", r.Capability)
		require.Equal(t, d.OutputHash, r.OutputHash)
		require.Equal(t, "verification failed", r.Reason)
		require.False(t, r.DeliveredAt.IsZero())
		require.False(t, r.SettledAt.IsZero())
	}
	rb, err := p.buyer.e.Get(ctx, "job-1")
	require.NoError(t, err)
	require.Equal(t, escrow.RoleBuyer, rb.Role)
	require.Equal(t, p.seller.id, rb.Counterparty)
	rs, err := p.seller.e.Get(ctx, "job-1")
	require.NoError(t, err)
	require.Equal(t, escrow.RoleSeller, rs.Role)
	require.Equal(t, escrow.StateDisputed, rs.State)
	require.Equal(t, p.buyer.id, rs.Counterparty)

	// The record's JSON round-trips, with amounts as decimal strings.
	b, err := json.Marshal(rs)
	require.NoError(t, err)
	var m map[string]any
	require.NoError(t, json.Unmarshal(b, &m))
	require.Equal(t, "0.05", m["amount"])
	require.Equal(t, "disputed", m["state"])
	var back escrow.Record
	require.NoError(t, json.Unmarshal(b, &back))
	require.Equal(t, rs.JobID, back.JobID)
	require.Equal(t, rs.Amount, back.Amount)
	require.Equal(t, rs.Counterparty, back.Counterparty)
	require.NoError(t, back.Settle.Verify())

	_, err = p.buyer.e.Get(ctx, "nope")
	require.ErrorIs(t, err, escrow.ErrNotFound)
}

func TestSelfHireKeepsBothRoles(t *testing.T) {
	clock := newClock()
	n := setupNode(t, clock)
	ctx := t.Context()
	require.NoError(t, n.e.Deposit(ctx, credit, ""))
	l, err := n.e.Lock(ctx, escrow.LockParams{JobID: "self", Seller: n.id, Amount: testPrice,
		Deadline: clock.Now().Add(time.Minute), Window: time.Minute})
	require.NoError(t, err)
	require.NoError(t, acceptLock(n.e, ctx, l))
	d, err := n.e.Deliver(ctx, "self", []byte("x"))
	require.NoError(t, err)
	require.NoError(t, n.e.RecordDelivery(ctx, d, []byte("x")))
	s, err := n.e.Release(ctx, "self")
	require.NoError(t, err)
	require.NoError(t, n.e.ApplySettle(ctx, s))
	require.Equal(t, escrow.Balance{Available: credit, Paid: testPrice, Deposited: credit, Earned: testPrice}, n.balance(t))
	n.requireInvariant(t)
	recs, err := n.e.List(ctx, escrow.Filter{})
	require.NoError(t, err)
	require.Len(t, recs, 2)
}

func TestLockInsufficientFunds(t *testing.T) {
	p := setupPair(t)
	params := p.lockParams("big")
	params.Amount = 10*credit + 1
	_, err := p.buyer.e.Lock(t.Context(), params)
	require.ErrorIs(t, err, escrow.ErrInsufficientFunds)
	require.Equal(t, escrow.Balance{Available: 10 * credit, Deposited: 10 * credit}, p.buyer.balance(t))
	_, err = p.buyer.e.Get(t.Context(), "big")
	require.ErrorIs(t, err, escrow.ErrNotFound)
}

func TestLockRejectsBadParams(t *testing.T) {
	p := setupPair(t)
	testCases := []struct {
		name string
		edit func(*escrow.LockParams)
		want error
	}{
		{"zero amount", func(l *escrow.LockParams) { l.Amount = 0 }, escrow.ErrWrongAmount},
		{"negative amount", func(l *escrow.LockParams) { l.Amount = -5 }, escrow.ErrWrongAmount},
		{"deadline in the past", func(l *escrow.LockParams) { l.Deadline = p.clock.Now().Add(-time.Second) }, escrow.ErrInvalidMessage},
		{"no window", func(l *escrow.LockParams) { l.Window = 0 }, escrow.ErrInvalidMessage},
		{"window too long", func(l *escrow.LockParams) { l.Window = 365 * 24 * time.Hour }, escrow.ErrInvalidMessage},
		{"no seller", func(l *escrow.LockParams) { l.Seller = "" }, escrow.ErrInvalidMessage},
		{"bad job ID", func(l *escrow.LockParams) { l.JobID = "a/b" }, escrow.ErrInvalidMessage},
	}
	for _, tc := range testCases {
		t.Run(tc.name, func(t *testing.T) {
			params := p.lockParams("j")
			tc.edit(&params)
			_, err := p.buyer.e.Lock(t.Context(), params)
			require.ErrorIs(t, err, tc.want)
			require.Equal(t, escrow.Balance{Available: 10 * credit, Deposited: 10 * credit}, p.buyer.balance(t))
		})
	}
}

func TestLockGeneratesJobID(t *testing.T) {
	p := setupPair(t)
	params := p.lockParams("")
	l, err := p.buyer.e.Lock(t.Context(), params)
	require.NoError(t, err)
	require.Len(t, l.JobID, 26)
	require.NoError(t, l.Verify())
}

// TestIdempotentTransitions repeats every operation and message and checks
// that the repeat returns nil (or the stored message) and changes nothing.
func TestIdempotentTransitions(t *testing.T) {
	p := setupPair(t)
	ctx := t.Context()
	params := p.lockParams("job-1")
	l1, err := p.buyer.e.Lock(ctx, params)
	require.NoError(t, err)
	l2, err := p.buyer.e.Lock(ctx, params)
	require.NoError(t, err)
	require.Equal(t, l1.Signature, l2.Signature)
	require.NoError(t, acceptLock(p.seller.e, ctx, l1))
	require.NoError(t, acceptLock(p.seller.e, ctx, l1))
	require.Equal(t, int64(testPrice), p.buyer.balance(t).Held, "a repeated lock holds nothing more")

	d1, err := p.seller.e.Deliver(ctx, "job-1", []byte("out"))
	require.NoError(t, err)
	d2, err := p.seller.e.Deliver(ctx, "job-1", []byte("out"))
	require.NoError(t, err)
	require.Equal(t, d1.Signature, d2.Signature)
	require.NoError(t, p.buyer.e.RecordDelivery(ctx, d1, []byte("out")))
	require.NoError(t, p.buyer.e.RecordDelivery(ctx, d1, []byte("out")))

	s1, err := p.buyer.e.Release(ctx, "job-1")
	require.NoError(t, err)
	s2, err := p.buyer.e.Release(ctx, "job-1")
	require.NoError(t, err)
	require.Equal(t, s1.Signature, s2.Signature)
	require.NoError(t, p.seller.e.ApplySettle(ctx, s1))
	require.NoError(t, p.seller.e.ApplySettle(ctx, s1))
	require.NoError(t, p.buyer.e.RecordDelivery(ctx, d1, []byte("out")), "the recorded delivery replayed after release")

	require.Equal(t, escrow.Balance{Available: 10*credit - testPrice, Paid: testPrice, Deposited: 10 * credit}, p.buyer.balance(t))
	require.Equal(t, escrow.Balance{Available: testPrice, Earned: testPrice}, p.seller.balance(t))
	require.Len(t, p.buyer.hooks(), 1)
	require.Len(t, p.seller.hooks(), 1)

	// Refund and FailJob repeat the same way.
	p.lock(t, "job-2")
	require.NoError(t, p.seller.e.FailJob(ctx, "job-2", "boom"))
	require.NoError(t, p.seller.e.FailJob(ctx, "job-2", "boom"))
	r1, err := p.buyer.e.Refund(ctx, "job-2", "failed", nil)
	require.NoError(t, err)
	r2, err := p.buyer.e.Refund(ctx, "job-2", "failed", nil)
	require.NoError(t, err)
	require.Equal(t, r1.Signature, r2.Signature)
	require.NoError(t, p.seller.e.ApplySettle(ctx, r1))
	require.NoError(t, p.seller.e.ApplySettle(ctx, r1))
	require.Equal(t, escrow.StateFailed, p.seller.state(t, "job-2", escrow.RoleSeller))
	p.buyer.requireInvariant(t)
	p.seller.requireInvariant(t)
}

// TestConflictingOperations checks operations a job's state forbids: each is
// rejected with the documented sentinel and changes nothing.
func TestConflictingOperations(t *testing.T) {
	testCases := []struct {
		name string
		run  func(t *testing.T, p *pair) error
		want error
	}{
		{"release before delivery", func(t *testing.T, p *pair) error {
			p.lock(t, "j")
			_, err := p.buyer.e.Release(t.Context(), "j")
			return err
		}, escrow.ErrBadState},
		{"refund after release", func(t *testing.T, p *pair) error {
			p.lock(t, "j")
			p.deliver(t, "j")
			_, err := p.buyer.e.Release(t.Context(), "j")
			require.NoError(t, err)
			_, err = p.buyer.e.Refund(t.Context(), "j", "too late", nil)
			return err
		}, escrow.ErrAlreadySettled},
		{"release after refund", func(t *testing.T, p *pair) error {
			p.lock(t, "j")
			_, err := p.buyer.e.Refund(t.Context(), "j", "x", nil)
			require.NoError(t, err)
			_, err = p.buyer.e.Release(t.Context(), "j")
			return err
		}, escrow.ErrAlreadySettled},
		{"refund after the verification window", func(t *testing.T, p *pair) error {
			p.lock(t, "j")
			p.deliver(t, "j")
			p.clock.Advance(testWindow + time.Millisecond)
			_, err := p.buyer.e.Refund(t.Context(), "j", "late", nil)
			return err
		}, escrow.ErrBadState},
		{"delivery after the deadline", func(t *testing.T, p *pair) error {
			p.lock(t, "j")
			p.clock.Advance(testTimeout + time.Millisecond)
			_, err := p.seller.e.Deliver(t.Context(), "j", []byte("late"))
			return err
		}, escrow.ErrBadState},
		{"buyer records a delivery after the deadline", func(t *testing.T, p *pair) error {
			p.lock(t, "j")
			d, err := p.seller.e.Deliver(t.Context(), "j", []byte("x"))
			require.NoError(t, err)
			p.clock.Advance(testTimeout + time.Millisecond)
			err = p.buyer.e.RecordDelivery(t.Context(), d, []byte("x"))
			require.ErrorIs(t, err, escrow.ErrPastDeadline, "market tells a late delivery from a bad one by it")
			return err
		}, escrow.ErrBadState},
		{"second delivery with another hash", func(t *testing.T, p *pair) error {
			p.lock(t, "j")
			p.deliver(t, "j")
			_, err := p.seller.e.Deliver(t.Context(), "j", []byte("other"))
			return err
		}, escrow.ErrBadState},
		{"fail a delivered job", func(t *testing.T, p *pair) error {
			p.lock(t, "j")
			p.deliver(t, "j")
			return p.seller.e.FailJob(t.Context(), "j", "x")
		}, escrow.ErrBadState},
		{"refund reaches a seller after its release became final", func(t *testing.T, p *pair) error {
			p.lock(t, "j")
			p.deliver(t, "j")
			s, err := p.buyer.e.Refund(t.Context(), "j", "bad", nil)
			require.NoError(t, err)
			p.clock.Advance(testTimeout + testGrace + time.Second)
			n, err := p.seller.e.FireDue(t.Context())
			require.NoError(t, err)
			require.Equal(t, 1, n, "provisional release")
			p.clock.Advance(escrow.DefaultFinality)
			n, err = p.seller.e.FireDue(t.Context())
			require.NoError(t, err)
			require.Equal(t, 1, n, "final release")
			return p.seller.e.ApplySettle(t.Context(), s)
		}, escrow.ErrAlreadySettled},
		{"accept a lock whose deadline passed", func(t *testing.T, p *pair) error {
			l, err := p.buyer.e.Lock(t.Context(), p.lockParams("j"))
			require.NoError(t, err)
			p.clock.Advance(testTimeout)
			return acceptLock(p.seller.e, t.Context(), l)
		}, escrow.ErrBadState},
	}
	for _, tc := range testCases {
		t.Run(tc.name, func(t *testing.T) {
			p := setupPair(t)
			err := tc.run(t, p)
			require.ErrorIs(t, err, tc.want)
			p.buyer.requireInvariant(t)
			p.seller.requireInvariant(t)
		})
	}
	require.ErrorIs(t, escrow.ErrAlreadySettled, escrow.ErrBadState)
}

func TestList(t *testing.T) {
	p := setupPair(t)
	ctx := t.Context()
	for _, id := range []string{"a", "b", "c"} {
		p.lock(t, id)
		p.clock.Advance(time.Second)
	}
	p.deliver(t, "b")
	_, err := p.buyer.e.Release(ctx, "b")
	require.NoError(t, err)

	all, err := p.buyer.e.List(ctx, escrow.Filter{})
	require.NoError(t, err)
	require.Equal(t, []string{"c", "b", "a"}, jobIDs(all), "newest first")
	rel, err := p.buyer.e.List(ctx, escrow.Filter{State: escrow.StateReleased})
	require.NoError(t, err)
	require.Equal(t, []string{"b"}, jobIDs(rel))
	lim, err := p.buyer.e.List(ctx, escrow.Filter{Limit: 1})
	require.NoError(t, err)
	require.Equal(t, []string{"c"}, jobIDs(lim))
	sel, err := p.buyer.e.List(ctx, escrow.Filter{Role: escrow.RoleSeller})
	require.NoError(t, err)
	require.Empty(t, sel)
	sel, err = p.seller.e.List(ctx, escrow.Filter{Role: escrow.RoleSeller, State: escrow.StateLocked})
	require.NoError(t, err)
	require.Equal(t, []string{"c", "a"}, jobIDs(sel))
}

func jobIDs(rs []escrow.Record) []string {
	out := make([]string, len(rs))
	for i, r := range rs {
		out[i] = r.JobID
	}
	return out
}

func TestClosedEscrowRefusesWork(t *testing.T) {
	n := setupNode(t, newClock())
	require.NoError(t, n.e.Start(t.Context()))
	require.NoError(t, n.e.Close())
	require.NoError(t, n.e.Close(), "Close is idempotent")
	require.ErrorIs(t, n.e.Deposit(t.Context(), 1, ""), escrow.ErrClosed)
	_, err := n.e.Balance(t.Context())
	require.ErrorIs(t, err, escrow.ErrClosed)
	_, err = n.e.FireDue(t.Context())
	require.ErrorIs(t, err, escrow.ErrClosed)
}

func TestNewRejectsNewerSchema(t *testing.T) {
	n := setupNode(t, newClock())
	require.NoError(t, n.e.Close())
	require.NoError(t, n.db.Update(func(txn *badgerTxn) error {
		return txn.Set([]byte("escrow/schema"), []byte(`{"v":99}`))
	}))
	_, err := escrow.New(n.db, n.key)
	require.ErrorContains(t, err, "upgrade swarmwage")
}

func TestCheckInvariantDetectsTampering(t *testing.T) {
	p := setupPair(t)
	p.lock(t, "j")
	p.buyer.requireInvariant(t)
	// Move a micro-credit from held to available behind the Escrow's back:
	// the equation still holds, the records no longer agree.
	require.NoError(t, p.buyer.db.Update(func(txn *badgerTxn) error {
		return txn.Set([]byte("acct/balance"), []byte(`{"v":1,"available":9950001,"held":49999,"paid":0,"deposited":10000000,"earned":0}`))
	}))
	err := p.buyer.e.CheckInvariant(t.Context())
	require.ErrorIs(t, err, escrow.ErrInvariant)
	require.ErrorContains(t, err, "held")
	// Break the equation itself.
	require.NoError(t, p.buyer.db.Update(func(txn *badgerTxn) error {
		return txn.Set([]byte("acct/balance"), []byte(`{"v":1,"available":9950001,"held":50000,"paid":0,"deposited":10000000,"earned":0}`))
	}))
	err = p.buyer.e.CheckInvariant(t.Context())
	require.ErrorIs(t, err, escrow.ErrInvariant)
	require.ErrorContains(t, err, "available 9.950001 + held 0.05")
}

func TestOptionsValidate(t *testing.T) {
	clock := newClock()
	n := setupNode(t, clock)
	testCases := []struct {
		name string
		opt  escrow.Option
	}{
		{"nil clock", escrow.WithClock(nil)},
		{"zero interval", escrow.WithTimerInterval(0)},
		{"negative grace", escrow.WithSettleGrace(-time.Second)},
		{"nil logger", escrow.WithLogger(nil)},
	}
	for _, tc := range testCases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := escrow.New(n.db, n.key, tc.opt)
			require.Error(t, err)
		})
	}
	_, err := escrow.New(n.db, n.key, escrow.WithOnSettle(func(escrow.Record) {}), escrow.WithOnSettle(func(escrow.Record) {}))
	require.ErrorContains(t, err, "twice")
	_, err = escrow.New(nil, n.key)
	require.Error(t, err)
	_, err = escrow.New(n.db, nil)
	require.Error(t, err)
	require.True(t, errors.Is(escrow.ErrAlreadySettled, escrow.ErrBadState))
	_ = context.Background
}
