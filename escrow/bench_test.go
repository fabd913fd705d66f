package escrow_test

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/swarmwage/swarmwage/escrow"
)

// buyerHire is the buyer's half of a hire: Lock, RecordDelivery (signed by
// the seller's key outside its Escrow) and Release, three transactions.
func buyerHire(b *testing.B, p *pair, id string) {
	ctx := context.Background()
	_, err := p.buyer.e.Lock(ctx, escrow.LockParams{JobID: id, Seller: p.seller.id, Amount: 1,
		Deadline: p.clock.Now().Add(time.Hour), Window: time.Minute})
	if err != nil {
		b.Fatal(err)
	}
	d := signDelivery(b, p.seller.key, &escrow.Delivery{JobID: id, OutputHash: hashOf(id), Seller: p.seller.id, DeliveredAt: p.clock.Now()})
	if err := p.buyer.e.RecordDelivery(ctx, d, []byte(id)); err != nil {
		b.Fatal(err)
	}
	if _, err := p.buyer.e.Release(ctx, id); err != nil {
		b.Fatal(err)
	}
}

// BenchmarkLockRelease measures the buyer's Lock + RecordDelivery + Release
// with SyncWrites on a real Badger DB, one hire at a time.
func BenchmarkLockRelease(b *testing.B) {
	p := setupPair(b)
	require.NoError(b, p.buyer.e.Deposit(context.Background(), 1_000_000*credit, "bench"))
	b.ReportAllocs()
	b.ResetTimer()
	start := time.Now()
	for i := 0; b.Loop(); i++ {
		buyerHire(b, p, fmt.Sprintf("b-%d", i))
	}
	b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "hires/s")
	require.NoError(b, p.buyer.e.CheckInvariant(context.Background()))
}

// BenchmarkLockReleaseParallel is BenchmarkLockRelease from GOMAXPROCS
// goroutines at once (the market runs hires concurrently).
func BenchmarkLockReleaseParallel(b *testing.B) {
	p := setupPair(b)
	require.NoError(b, p.buyer.e.Deposit(context.Background(), 1_000_000*credit, "bench"))
	var n atomic.Int64
	b.ReportAllocs()
	b.ResetTimer()
	start := time.Now()
	b.SetParallelism(16) // 32 goroutines on 2 cores, like `bench hire --concurrency 32`
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			buyerHire(b, p, fmt.Sprintf("p-%d", n.Add(1)))
		}
	})
	b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "hires/s")
}

// BenchmarkHireBothSides measures a whole hire through both Escrows: Lock,
// AcceptLock, Deliver, RecordDelivery, Release, ApplySettle.
func BenchmarkHireBothSides(b *testing.B) {
	p := setupPair(b)
	require.NoError(b, p.buyer.e.Deposit(context.Background(), 1_000_000*credit, "bench"))
	b.ReportAllocs()
	b.ResetTimer()
	start := time.Now()
	for i := 0; b.Loop(); i++ {
		id := fmt.Sprintf("h-%d", i)
		p.lock(b, id)
		p.deliver(b, id)
		s, err := p.buyer.e.Release(context.Background(), id)
		if err != nil {
			b.Fatal(err)
		}
		if err := p.seller.e.ApplySettle(context.Background(), s); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "hires/s")
}
