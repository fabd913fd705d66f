package escrow_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/swarmwage/swarmwage/escrow"
)

// The escrow steps of a hire, one at a time, each on a real Badger with
// SyncWrites (each step is one commit, durable before it returns): the
// buyer's Lock, the seller's AcceptLock (it checks the lock's signature),
// the seller's Deliver, the buyer's RecordDelivery (it checks the
// delivery's signature), the buyer's Release and the seller's
// ApplySettle (it checks the settle's signature); and the two merged
// steps of a live hire, accept-delivered (AcceptLock with Deliver) and
// decide-release (RecordDelivery with Release). apply-settle commits at
// once here; in a hire it joins the seller's next commit
// (settleCommitWait), which TestApplySettleJoinsTheNextCommit shows. Each
// benchmark prepares
// b.N jobs up to its step outside the timer, then times the step alone:
//
//	go test -run X -bench Step -benchtime 300x ./escrow

// stepJobs brings b.N jobs of p up to (not including) step, with the
// timer stopped, and returns their IDs with the messages the step needs.
func stepJobs(b *testing.B, p *pair, name string, upTo int) (ids []string, locks []*escrow.Lock, deliveries []*escrow.Delivery, settles []*escrow.Settle) {
	b.Helper()
	ctx := context.Background()
	require.NoError(b, p.buyer.e.Deposit(ctx, int64(b.N+1)*testPrice, "bench"))
	for i := range b.N {
		id := fmt.Sprintf("%s-%d", name, i)
		ids = append(ids, id)
		if upTo <= stepLock {
			continue
		}
		l, err := p.buyer.e.Lock(ctx, p.lockParams(id))
		require.NoError(b, err)
		locks = append(locks, l)
		if upTo <= stepAccept {
			continue
		}
		require.NoError(b, acceptLock(p.seller.e, ctx, l))
		if upTo <= stepDeliver {
			continue
		}
		d, err := p.seller.e.Deliver(ctx, id, []byte("output of "+id))
		require.NoError(b, err)
		deliveries = append(deliveries, d)
		if upTo <= stepRecordDelivery {
			continue
		}
		require.NoError(b, p.buyer.e.RecordDelivery(ctx, d, []byte("output of "+id)))
		if upTo <= stepRelease {
			continue
		}
		s, err := p.buyer.e.Release(ctx, id)
		require.NoError(b, err)
		settles = append(settles, s)
	}
	return ids, locks, deliveries, settles
}

const (
	stepLock = iota
	stepAccept
	stepDeliver
	stepRecordDelivery
	stepRelease
	stepApplySettle
)

func BenchmarkStep(b *testing.B) {
	var stopTimer, startTimer func() // of the running sub-benchmark
	steps := []struct {
		name string
		step int
		run  func(p *pair, i int, ids []string, locks []*escrow.Lock, ds []*escrow.Delivery, ss []*escrow.Settle) error
	}{
		{"lock", stepLock, func(p *pair, i int, ids []string, _ []*escrow.Lock, _ []*escrow.Delivery, _ []*escrow.Settle) error {
			_, err := p.buyer.e.Lock(context.Background(), p.lockParams(ids[i]))
			return err
		}},
		{"accept-lock", stepAccept, func(p *pair, i int, _ []string, ls []*escrow.Lock, _ []*escrow.Delivery, _ []*escrow.Settle) error {
			return acceptLock(p.seller.e, context.Background(), ls[i])
		}},
		// accept-lock and deliver in one commit: a job done within the
		// market's grace.
		{"accept-delivered", stepAccept, func(p *pair, i int, ids []string, ls []*escrow.Lock, _ []*escrow.Delivery, _ []*escrow.Settle) error {
			a, _, err := p.seller.e.PrepareAccept(context.Background(), ls[i], nil)
			if err != nil {
				return err
			}
			defer a.Close()
			_, _, err = a.AcceptDelivered(context.Background(), []byte("output of "+ids[i]))
			return err
		}},
		{"deliver", stepDeliver, func(p *pair, i int, ids []string, _ []*escrow.Lock, _ []*escrow.Delivery, _ []*escrow.Settle) error {
			_, err := p.seller.e.Deliver(context.Background(), ids[i], []byte("output of "+ids[i]))
			return err
		}},
		{"record-delivery", stepRecordDelivery, func(p *pair, i int, ids []string, _ []*escrow.Lock, ds []*escrow.Delivery, _ []*escrow.Settle) error {
			return p.buyer.e.RecordDelivery(context.Background(), ds[i], []byte("output of "+ids[i]))
		}},
		// record-delivery and release in one commit: a live hire's
		// decision.
		{"decide-release", stepRecordDelivery, func(p *pair, i int, ids []string, _ []*escrow.Lock, ds []*escrow.Delivery, _ []*escrow.Settle) error {
			_, err := p.buyer.e.Decide(context.Background(), ids[i], ds[i], []byte("output of "+ids[i]), escrow.Verdict{Decision: escrow.DecisionRelease})
			return err
		}},
		// decide-release worked out ahead (Decision.Prepare, outside the
		// timer, as a buyer does while the seller writes its delivery):
		// what is left on the hire's path, the commit.
		{"decide-release-prepared", stepRecordDelivery, func(p *pair, i int, ids []string, _ []*escrow.Lock, ds []*escrow.Delivery, _ []*escrow.Settle) error {
			ctx := context.Background()
			dc, err := p.buyer.e.NewDecision(ctx, ids[i], ds[i], []byte("output of "+ids[i]), escrow.Verdict{Decision: escrow.DecisionRelease})
			if err != nil {
				return err
			}
			stopTimer()
			dc.Prepare(ctx)
			startTimer()
			_, err = dc.Commit(ctx)
			return err
		}},
		{"release", stepRelease, func(p *pair, i int, ids []string, _ []*escrow.Lock, _ []*escrow.Delivery, _ []*escrow.Settle) error {
			_, err := p.buyer.e.Release(context.Background(), ids[i])
			return err
		}},
		{"apply-settle", stepApplySettle, func(p *pair, i int, _ []string, _ []*escrow.Lock, _ []*escrow.Delivery, ss []*escrow.Settle) error {
			return p.seller.e.ApplySettle(context.Background(), ss[i])
		}},
	}
	for _, st := range steps {
		b.Run(st.name, func(b *testing.B) {
			stopTimer, startTimer = b.StopTimer, b.StartTimer
			p := setupPair(b)
			escrow.SetSettleCommitWait(p.seller.e, 0)
			ids, ls, ds, ss := stepJobs(b, p, st.name, st.step)
			b.ReportAllocs()
			b.ResetTimer()
			for i := range b.N {
				if err := st.run(p, i, ids, ls, ds, ss); err != nil {
					b.Fatal(err)
				}
			}
			b.StopTimer()
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "steps/s")
			p.buyer.requireInvariant(b)
			p.seller.requireInvariant(b)
		})
	}
}
