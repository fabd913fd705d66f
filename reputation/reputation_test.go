package reputation_test

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/dgraph-io/badger/v4"
	"github.com/libp2p/go-libp2p/core/crypto"
	"github.com/libp2p/go-libp2p/core/peer"
	"github.com/stretchr/testify/require"

	"github.com/swarmwage/swarmwage/escrow"
	"github.com/swarmwage/swarmwage/reputation"
)

type node struct {
	e  *escrow.Escrow
	id peer.ID
}

func newNode(t testing.TB) node {
	t.Helper()
	db, err := badger.Open(badger.DefaultOptions(t.TempDir()).WithLogger(nil).WithMemTableSize(1 << 20).WithValueThreshold(1 << 10).
		WithValueLogFileSize(1 << 20).WithNumMemtables(1).WithBlockCacheSize(1 << 20).WithIndexCacheSize(1 << 20))
	require.NoError(t, err)
	t.Cleanup(func() { db.Close() })
	key, _, err := crypto.GenerateEd25519Key(rand.Reader)
	require.NoError(t, err)
	e, err := escrow.New(db, key, escrow.WithLogger(slog.New(slog.DiscardHandler)))
	require.NoError(t, err)
	t.Cleanup(func() { e.Close() })
	require.NoError(t, e.Deposit(context.Background(), 1000*escrow.MicroPerCredit, "test"))
	return node{e: e, id: e.ID()}
}

// job runs one job from buyer to seller through both real escrows and
// settles it with decision.
func job(t testing.TB, buyer, seller node, decision string) {
	t.Helper()
	ctx := context.Background()
	in := []byte(`{"data":[1,2,3]}`)
	l, err := buyer.e.Lock(ctx, escrow.LockParams{
		QuoteID: "q", Capability: "compute.statistics.mean", Seller: seller.id, Amount: 10_000,
		Deadline: time.Now().Add(time.Minute), Window: time.Minute, Input: in,
	})
	require.NoError(t, err)
	_, err = seller.e.AcceptLock(ctx, l, in)
	require.NoError(t, err)
	out := []byte(`{"result":2}`)
	d, err := seller.e.Deliver(ctx, l.JobID, out)
	require.NoError(t, err)
	require.NoError(t, buyer.e.RecordDelivery(ctx, d, out))
	var s *escrow.Settle
	if decision == escrow.DecisionRelease {
		s, err = buyer.e.Release(ctx, l.JobID)
	} else {
		s, err = buyer.e.Refund(ctx, l.JobID, "verification failed", []string{"value_matches"})
	}
	require.NoError(t, err)
	require.NoError(t, seller.e.ApplySettle(ctx, s))
}

func receipts(t testing.TB, seller node) []escrow.Receipt {
	t.Helper()
	var all []escrow.Receipt
	after := ""
	for {
		page, next, err := seller.e.Receipts(context.Background(), escrow.ReceiptFilter{After: after, Limit: 7})
		require.NoError(t, err)
		all = append(all, page...)
		if next == "" {
			return all
		}
		after = next
	}
}

func TestSummarizeCountsWhatChecksOut(t *testing.T) {
	seller := newNode(t)
	b1, b2 := newNode(t), newNode(t)
	job(t, b1, seller, escrow.DecisionRelease)
	job(t, b1, seller, escrow.DecisionRelease)
	job(t, b2, seller, escrow.DecisionRefund)
	rs := receipts(t, seller)
	require.Len(t, rs, 3)
	s := reputation.Summarize(context.Background(), seller.id, rs, func(peer.ID) bool { return true }, nil)
	require.Equal(t, 2, s.Released)
	require.Equal(t, 1, s.Refunded)
	require.Equal(t, 2, s.Buyers)
	require.Equal(t, 3, s.Checked)
	require.Zero(t, s.Forged)
	require.Zero(t, s.Volume, "credits are self-issued: no volume")
	require.Equal(t, int64(20_000), s.SelfIssued)
	require.Zero(t, s.PayingBuyers)
	require.Equal(t, 2, s.KnownBuyers)
	require.Greater(t, s.Score, 0.0)

	// Duplicates count once; a receipt survives its wire form.
	b, err := json.Marshal(rs[0])
	require.NoError(t, err)
	back, err := escrow.DecodeReceipt(b)
	require.NoError(t, err)
	again := reputation.Summarize(context.Background(), seller.id, append(rs, *back), func(peer.ID) bool { return true }, nil)
	require.Equal(t, s, again)
}

// Forged, altered and self-contradictory receipts are counted as forged
// and lower the seller below an honest one with the same history.
func TestForgedReceiptsLowerTheSeller(t *testing.T) {
	seller := newNode(t)
	buyer := newNode(t)
	for range 3 {
		job(t, buyer, seller, escrow.DecisionRelease)
	}
	honest := receipts(t, seller)
	known := func(peer.ID) bool { return true }
	base := reputation.Summarize(context.Background(), seller.id, honest, known, nil)

	tampered := func(f func(*escrow.Receipt)) escrow.Receipt {
		b, err := json.Marshal(honest[0])
		require.NoError(t, err)
		r, err := escrow.DecodeReceipt(b)
		require.NoError(t, err)
		f(r)
		return *r
	}
	testCases := []struct {
		name string
		bad  escrow.Receipt
	}{
		{"amount raised", tampered(func(r *escrow.Receipt) { r.Settle.Amount *= 10 })},
		{"refund turned into release", tampered(func(r *escrow.Receipt) { r.Settle.Decision = escrow.DecisionRefund })},
		{"delivery dropped from a release", tampered(func(r *escrow.Receipt) { r.Delivery = nil })},
		{"another job's settle", tampered(func(r *escrow.Receipt) { r.Settle = honest[1].Settle })},
		{"output that is not the delivered one", tampered(func(r *escrow.Receipt) { r.Output = []byte(`{"result":3}`) })},
		{"credits receipt relabelled evm", tampered(func(r *escrow.Receipt) { r.Rail = escrow.RailEVM })},
	}
	for _, tc := range testCases {
		t.Run(tc.name, func(t *testing.T) {
			require.Error(t, tc.bad.Check())
			sample := append(append([]escrow.Receipt{}, honest[1:]...), tc.bad)
			s := reputation.Summarize(context.Background(), seller.id, sample, known, nil)
			require.Equal(t, 1, s.Forged)
			require.Less(t, s.Score, base.Score)
		})
	}
}

// The paid hook decides what a checked release counts for: paid adds to
// released and volume, a false proof counts as forged, a payment that is
// not shown counts for nothing (and neither does a buyer with only such
// receipts). It sees only checked releases.
func TestPaidHookSortsReleases(t *testing.T) {
	seller := newNode(t)
	paidBuyer, unpaidBuyer, forger := newNode(t), newNode(t), newNode(t)
	job(t, paidBuyer, seller, escrow.DecisionRelease)
	job(t, paidBuyer, seller, escrow.DecisionRelease)
	job(t, unpaidBuyer, seller, escrow.DecisionRelease)
	job(t, forger, seller, escrow.DecisionRelease)
	job(t, forger, seller, escrow.DecisionRefund)
	rs := receipts(t, seller)
	require.Len(t, rs, 5)
	var mu sync.Mutex
	asked := 0
	paid := func(_ context.Context, r *escrow.Receipt) error {
		mu.Lock()
		asked++
		mu.Unlock()
		require.NoError(t, r.Check(), "only checked receipts are asked about")
		require.Equal(t, escrow.DecisionRelease, r.Settle.Decision, "only releases are asked about")
		switch r.Lock.Buyer {
		case unpaidBuyer.id:
			return fmt.Errorf("wait for the batch: %w", escrow.ErrNotPaid)
		case forger.id:
			return fmt.Errorf("no such event: %w", escrow.ErrForged)
		}
		return nil
	}
	known := func(peer.ID) bool { return true }
	s := reputation.Summarize(context.Background(), seller.id, rs, known, paid)
	require.Equal(t, 4, asked)
	require.Equal(t, 2, s.Released)
	require.Equal(t, int64(20_000), s.SelfIssued, "credits receipts: counted, never volume")
	require.Zero(t, s.Volume)
	require.Equal(t, 1, s.Refunded)
	require.Equal(t, 1, s.Unpaid)
	require.Equal(t, 1, s.Forged)
	require.Equal(t, 4, s.Checked, "the forged proof's receipt is not checked")
	require.Equal(t, 2, s.Buyers, "the buyer with only an unpaid release does not count")
	all := reputation.Summarize(context.Background(), seller.id, rs, known, nil)
	require.Equal(t, 4, all.Released)
	require.Less(t, s.Score, all.Score)
}

// A seller that pays itself, through its own key or through a crowd of
// fresh buyer identities, gains little: less than an honest seller with a
// few buyers this node has traded with.
func TestSybilBuyersGainLittle(t *testing.T) {
	sybil := newNode(t)
	job(t, sybil, sybil, escrow.DecisionRelease) // itself
	for range 40 {
		job(t, newNode(t), sybil, escrow.DecisionRelease) // fresh identities
	}
	honest := newNode(t)
	traded := map[peer.ID]bool{}
	for range 3 {
		b := newNode(t)
		traded[b.id] = true
		job(t, b, honest, escrow.DecisionRelease)
	}
	known := func(id peer.ID) bool { return traded[id] }
	s := reputation.Summarize(context.Background(), sybil.id, receipts(t, sybil), known, nil)
	require.Equal(t, 1, s.Self)
	require.Equal(t, 40, s.Buyers)
	h := reputation.Summarize(context.Background(), honest.id, receipts(t, honest), known, nil)
	require.Less(t, s.Score, h.Score, "sybil %+v honest %+v", s, h)

	// Doubling the crowd adds nothing past the cap.
	for range 40 {
		job(t, newNode(t), sybil, escrow.DecisionRelease)
	}
	more := reputation.Summarize(context.Background(), sybil.id, receipts(t, sybil), known, nil)
	require.Equal(t, 80, more.Buyers)
	require.Equal(t, s.Score, more.Score)
	// Receipts served by one seller but naming another are forged.
	other := reputation.Summarize(context.Background(), honest.id, receipts(t, sybil), known, nil)
	require.Equal(t, 81, other.Forged)
}

// Test credits are self-issued: a Sybil buyer that deposits a million
// credits and hires its own seller with them shows a stranger a count of
// jobs, no volume, and a score no higher than a credits-only history
// from strangers may reach (UnknownCreditsCap), whatever the amounts.
func TestCreditsVolumeIsSelfIssued(t *testing.T) {
	ctx := context.Background()
	seller := newNode(t)
	var sybils []node
	for range 12 {
		b := newNode(t)
		require.NoError(t, b.e.Deposit(ctx, 1_000_000*escrow.MicroPerCredit, "test"))
		sybils = append(sybils, b)
		for range 4 {
			job(t, b, seller, escrow.DecisionRelease)
		}
	}
	stranger := func(peer.ID) bool { return false }
	s := reputation.Summarize(ctx, seller.id, receipts(t, seller), stranger, nil)
	require.Equal(t, 48, s.Released)
	require.Zero(t, s.Volume)
	require.Equal(t, int64(48*10_000), s.SelfIssued)
	require.Zero(t, s.PayingBuyers)
	require.Zero(t, s.KnownBuyers)
	require.Equal(t, 12, s.Buyers)
	limit := reputation.UnknownCreditsCap / (reputation.UnknownCreditsCap + 1)
	require.LessOrEqual(t, s.Score, limit)
	require.Contains(t, s.Backing(), "0 of 12 buyers paid on chain")
	require.Contains(t, s.Backing(), "0.48 self-issued credits")

	// The same history from buyers this node traded with counts fully.
	known := reputation.Summarize(ctx, seller.id, receipts(t, seller), func(peer.ID) bool { return true }, nil)
	require.Greater(t, known.Score, limit)
	require.Equal(t, 12, known.KnownBuyers)
	require.Equal(t, "no checked history", reputation.Summary{}.Backing())
}

func FuzzDecodeReceiptNoPanic(f *testing.F) {
	f.Add([]byte(`{"type":"swarmwage/receipt/1","job_id":"j","lock":{},"settle":{}}`))
	f.Add([]byte(`{}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := escrow.DecodeReceipt(data)
		if err == nil {
			_ = r.Check()
			_, _ = json.Marshal(r)
		}
	})
}

// BenchmarkVerify1000Receipts checks and scores a sample of 1,000 receipts.
func BenchmarkVerify1000Receipts(b *testing.B) {
	seller := newNode(b)
	buyers := make([]node, 10)
	for i := range buyers {
		buyers[i] = newNode(b)
	}
	for i := range 1000 {
		job(b, buyers[i%10], seller, escrow.DecisionRelease)
	}
	rs := receipts(b, seller)
	require.Len(b, rs, 1000)
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		s := reputation.Summarize(context.Background(), seller.id, rs, nil, nil)
		if s.Checked != 1000 {
			b.Fatal(fmt.Sprint(s))
		}
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N)/1000, "µs/receipt")
}
