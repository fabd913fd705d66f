package escrow_test

import (
	"context"
	"testing"

	"github.com/libp2p/go-libp2p/core/crypto"
	"github.com/libp2p/go-libp2p/core/peer"
	"github.com/stretchr/testify/require"

	"github.com/swarmwage/swarmwage/escrow"
)

func signLock(t testing.TB, key crypto.PrivKey, l *escrow.Lock) *escrow.Lock {
	t.Helper()
	b, err := l.SigningBytes()
	require.NoError(t, err)
	l.Signature, err = key.Sign(b)
	require.NoError(t, err)
	return l
}

func signDelivery(t testing.TB, key crypto.PrivKey, d *escrow.Delivery) *escrow.Delivery {
	t.Helper()
	b, err := d.SigningBytes()
	require.NoError(t, err)
	d.Signature, err = key.Sign(b)
	require.NoError(t, err)
	return d
}

func signSettle(t testing.TB, key crypto.PrivKey, s *escrow.Settle) *escrow.Settle {
	t.Helper()
	b, err := s.SigningBytes()
	require.NoError(t, err)
	s.Signature, err = key.Sign(b)
	require.NoError(t, err)
	return s
}

// snapshot is everything a rejected message must leave alone.
type snapshot struct {
	balances [2]escrow.Balance
	records  [2][]escrow.Record
}

func takeSnapshot(t *testing.T, p *pair) snapshot {
	t.Helper()
	var s snapshot
	for i, n := range []*testNode{p.buyer, p.seller} {
		s.balances[i] = n.balance(t)
		recs, err := n.e.List(context.Background(), escrow.Filter{})
		require.NoError(t, err)
		s.records[i] = recs
	}
	return s
}

// TestRejectedMessagesChangeNothing feeds forged, misdirected, replayed and
// wrong messages to both sides. Each is rejected with its sentinel and
// leaves balances, states and evidence as they were.
func TestRejectedMessagesChangeNothing(t *testing.T) {
	type fixture struct {
		p        *pair
		attacker crypto.PrivKey
		attID    peer.ID
		lockA    *escrow.Lock
		delivA   *escrow.Delivery
		settleA  *escrow.Settle // a valid refund of job A, not applied
	}
	setup := func(t *testing.T) *fixture {
		p := setupPair(t)
		ctx := t.Context()
		f := &fixture{p: p, attacker: newKey(t)}
		var err error
		f.attID, err = peer.IDFromPrivateKey(f.attacker)
		require.NoError(t, err)
		f.lockA = p.lock(t, "job-A")
		f.delivA = p.deliver(t, "job-A")
		params := p.lockParams("job-B")
		params.Amount = 70_000
		lb, err := p.buyer.e.Lock(ctx, params)
		require.NoError(t, err)
		require.NoError(t, acceptLock(p.seller.e, ctx, lb))
		p.deliver(t, "job-B")
		// A valid settle of A that only the attacker has seen: signed by the
		// buyer's key outside the buyer's Escrow.
		f.settleA = signSettle(t, p.buyer.key, &escrow.Settle{
			JobID: "job-A", Decision: escrow.DecisionRefund, Amount: testPrice,
			Reason: "verification failed", Buyer: p.buyer.id, At: p.clock.Now(),
		})
		return f
	}
	copyLock := func(l *escrow.Lock) *escrow.Lock { c := *l; return &c }
	copyDeliv := func(d *escrow.Delivery) *escrow.Delivery { c := *d; return &c }
	copySettle := func(s *escrow.Settle) *escrow.Settle { c := *s; return &c }

	testCases := []struct {
		name string
		run  func(t *testing.T, f *fixture) error
		want error
	}{
		// Locks, seller side.
		{"lock with a tampered job ID", func(t *testing.T, f *fixture) error {
			l := copyLock(f.lockA)
			l.JobID = "job-C"
			return acceptLock(f.p.seller.e, t.Context(), l)
		}, escrow.ErrForged},
		{"lock with a tampered amount", func(t *testing.T, f *fixture) error {
			l := copyLock(f.lockA)
			l.Amount++
			return acceptLock(f.p.seller.e, t.Context(), l)
		}, escrow.ErrForged},
		{"lock signed by another key than the buyer's", func(t *testing.T, f *fixture) error {
			l := copyLock(f.lockA)
			l.JobID = "job-C"
			return acceptLock(f.p.seller.e, t.Context(), signLock(t, f.attacker, l))
		}, escrow.ErrForged},
		{"lock for another seller", func(t *testing.T, f *fixture) error {
			l := copyLock(f.lockA)
			l.JobID, l.Buyer, l.Seller = "job-C", f.attID, f.p.buyer.id
			return acceptLock(f.p.seller.e, t.Context(), signLock(t, f.attacker, l))
		}, escrow.ErrForged},
		{"lock with a zero amount", func(t *testing.T, f *fixture) error {
			l := copyLock(f.lockA)
			l.JobID, l.Buyer, l.Amount = "job-C", f.attID, 0
			return acceptLock(f.p.seller.e, t.Context(), signLock(t, f.attacker, l))
		}, escrow.ErrWrongAmount},
		{"lock reusing a job ID with other terms", func(t *testing.T, f *fixture) error {
			l := copyLock(f.lockA)
			l.Amount = 1
			return acceptLock(f.p.seller.e, t.Context(), signLock(t, f.p.buyer.key, l))
		}, escrow.ErrJobIDReused},
		{"lock reusing a job ID from another buyer", func(t *testing.T, f *fixture) error {
			l := copyLock(f.lockA)
			l.Buyer = f.attID
			return acceptLock(f.p.seller.e, t.Context(), signLock(t, f.attacker, l))
		}, escrow.ErrJobIDReused},
		{"buyer relocks a job ID with other terms", func(t *testing.T, f *fixture) error {
			params := f.p.lockParams("job-A")
			params.Amount = 1
			_, err := f.p.buyer.e.Lock(t.Context(), params)
			return err
		}, escrow.ErrJobIDReused},
		// Deliveries, buyer side.
		{"delivery with a tampered hash", func(t *testing.T, f *fixture) error {
			d := copyDeliv(f.delivA)
			d.JobID = "job-B"
			return f.p.buyer.e.RecordDelivery(t.Context(), d, []byte("output of job-A"))
		}, escrow.ErrForged},
		{"delivery signed by another key than the seller's", func(t *testing.T, f *fixture) error {
			d := copyDeliv(f.delivA)
			d.OutputHash = hashOf("evil")
			return f.p.buyer.e.RecordDelivery(t.Context(), signDelivery(t, f.attacker, d), []byte("output of job-A"))
		}, escrow.ErrForged},
		{"delivery by a peer that is not the job's seller", func(t *testing.T, f *fixture) error {
			d := copyDeliv(f.delivA)
			d.Seller, d.OutputHash = f.attID, hashOf("evil")
			return f.p.buyer.e.RecordDelivery(t.Context(), signDelivery(t, f.attacker, d), []byte("output of job-A"))
		}, escrow.ErrForged},
		{"delivery for an unknown job", func(t *testing.T, f *fixture) error {
			d := copyDeliv(f.delivA)
			d.JobID = "job-Z"
			return f.p.buyer.e.RecordDelivery(t.Context(), signDelivery(t, f.p.seller.key, d), []byte("output of job-A"))
		}, escrow.ErrUnknownJob},
		{"a second, different delivery", func(t *testing.T, f *fixture) error {
			d := copyDeliv(f.delivA)
			d.OutputHash = hashOf("other")
			return f.p.buyer.e.RecordDelivery(t.Context(), signDelivery(t, f.p.seller.key, d), []byte("output of job-A"))
		}, escrow.ErrBadState},
		// Settles, seller side.
		{"settle with a tampered decision", func(t *testing.T, f *fixture) error {
			s := copySettle(f.settleA)
			s.Decision = escrow.DecisionRelease
			return f.p.seller.e.ApplySettle(t.Context(), s)
		}, escrow.ErrForged},
		{"settle signed by another key than the buyer's", func(t *testing.T, f *fixture) error {
			s := copySettle(f.settleA)
			return f.p.seller.e.ApplySettle(t.Context(), signSettle(t, f.attacker, s))
		}, escrow.ErrForged},
		{"settle by a peer that is not the job's buyer", func(t *testing.T, f *fixture) error {
			s := copySettle(f.settleA)
			s.Buyer = f.attID
			return f.p.seller.e.ApplySettle(t.Context(), signSettle(t, f.attacker, s))
		}, escrow.ErrForged},
		{"settle for job A replayed onto job B", func(t *testing.T, f *fixture) error {
			s := copySettle(f.settleA)
			s.JobID = "job-B"
			return f.p.seller.e.ApplySettle(t.Context(), s)
		}, escrow.ErrForged},
		{"settle for job A re-signed for job B with A's amount", func(t *testing.T, f *fixture) error {
			s := copySettle(f.settleA)
			s.JobID = "job-B"
			return f.p.seller.e.ApplySettle(t.Context(), signSettle(t, f.p.buyer.key, s))
		}, escrow.ErrWrongAmount},
		{"release of the wrong amount", func(t *testing.T, f *fixture) error {
			s := copySettle(f.settleA)
			s.Decision, s.Amount = escrow.DecisionRelease, 2*testPrice
			return f.p.seller.e.ApplySettle(t.Context(), signSettle(t, f.p.buyer.key, s))
		}, escrow.ErrWrongAmount},
		{"settle for an unknown job", func(t *testing.T, f *fixture) error {
			s := copySettle(f.settleA)
			s.JobID = "job-Z"
			return f.p.seller.e.ApplySettle(t.Context(), signSettle(t, f.p.buyer.key, s))
		}, escrow.ErrUnknownJob},
		{"settle with no signature", func(t *testing.T, f *fixture) error {
			s := copySettle(f.settleA)
			s.Signature = nil
			return f.p.seller.e.ApplySettle(t.Context(), s)
		}, escrow.ErrForged},
		{"settle with an undecided decision", func(t *testing.T, f *fixture) error {
			s := copySettle(f.settleA)
			s.Decision = "maybe"
			return f.p.seller.e.ApplySettle(t.Context(), signSettle(t, f.p.buyer.key, s))
		}, escrow.ErrInvalidMessage},
		// Operations on unknown jobs.
		{"release an unknown job", func(t *testing.T, f *fixture) error {
			_, err := f.p.buyer.e.Release(t.Context(), "job-Z")
			return err
		}, escrow.ErrUnknownJob},
		{"refund an unknown job", func(t *testing.T, f *fixture) error {
			_, err := f.p.buyer.e.Refund(t.Context(), "job-Z", "x", nil)
			return err
		}, escrow.ErrUnknownJob},
		{"deliver an unknown job", func(t *testing.T, f *fixture) error {
			_, err := f.p.seller.e.Deliver(t.Context(), "job-Z", []byte("x"))
			return err
		}, escrow.ErrUnknownJob},
		{"fail an unknown job", func(t *testing.T, f *fixture) error {
			return f.p.seller.e.FailJob(t.Context(), "job-Z", "x")
		}, escrow.ErrUnknownJob},
		{"release a job this node sold, not bought", func(t *testing.T, f *fixture) error {
			_, err := f.p.seller.e.Release(t.Context(), "job-A")
			return err
		}, escrow.ErrUnknownJob},
		{"a replayed lock with another input", func(t *testing.T, f *fixture) error {
			_, err := f.p.seller.e.AcceptLock(t.Context(), f.lockA, []byte(`{"data":[6,6,6]}`))
			return err
		}, escrow.ErrJobIDReused},
	}
	for _, tc := range testCases {
		t.Run(tc.name, func(t *testing.T) {
			f := setup(t)
			before := takeSnapshot(t, f.p)
			err := tc.run(t, f)
			require.ErrorIs(t, err, tc.want)
			require.Equal(t, before, takeSnapshot(t, f.p))
			f.p.buyer.requireInvariant(t)
			f.p.seller.requireInvariant(t)
		})
	}
}
