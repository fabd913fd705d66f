package storage

import (
	"fmt"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/dgraph-io/badger/v4"
)

// BenchmarkDatastoreSyncCommits measures small SyncWrites transactions on
// the node's Badger, as escrow and job records write them: one at a time
// (each pays one sync of the write-ahead log) and from 32 goroutines, where
// the patched Badger (third_party/PATCHES.md) syncs once for every batch of
// commits that queued while the previous one was written.
func BenchmarkDatastoreSyncCommits(b *testing.B) {
	for _, par := range []int{1, 16} {
		b.Run(fmt.Sprintf("goroutines=%d", runtime.GOMAXPROCS(0)*par), func(b *testing.B) {
			d, err := Open(b.TempDir(), false)
			if err != nil {
				b.Fatal(err)
			}
			defer d.Close()
			db := d.DB
			val := make([]byte, 600) // an escrow record's size
			var n atomic.Int64
			b.ReportAllocs()
			b.SetParallelism(par)
			start := time.Now()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					key := fmt.Appendf(nil, "bench/%d", n.Add(1))
					if err := db.Update(func(txn *badger.Txn) error { return txn.Set(key, val) }); err != nil {
						b.Error(err)
						return
					}
				}
			})
			b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "commits/s")
		})
	}
}
