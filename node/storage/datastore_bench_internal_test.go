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
// (each pays one sync of the write-ahead log), one at a time with five
// keys (an escrow change: record, index, sums), and from 32 goroutines,
// where the patched Badger (third_party/PATCHES.md) syncs once for every
// batch of commits that queued while the previous one was written.
func BenchmarkDatastoreSyncCommits(b *testing.B) {
	for _, c := range []struct{ goroutines, keys int }{{1, 1}, {1, 5}, {32, 1}} {
		b.Run(fmt.Sprintf("goroutines=%d/keys=%d", c.goroutines, c.keys), func(b *testing.B) {
			d, err := Open(b.TempDir(), false)
			if err != nil {
				b.Fatal(err)
			}
			defer d.Close()
			db := d.DB
			val := make([]byte, 600) // an escrow record's size
			var n atomic.Int64
			commit := func() error {
				return db.Update(func(txn *badger.Txn) error {
					for range c.keys {
						if err := txn.Set(fmt.Appendf(nil, "bench/%d", n.Add(1)), val); err != nil {
							return err
						}
					}
					return nil
				})
			}
			b.ReportAllocs()
			start := time.Now()
			if c.goroutines == 1 {
				for range b.N {
					if err := commit(); err != nil {
						b.Fatal(err)
					}
				}
			} else {
				b.SetParallelism(max(1, c.goroutines/runtime.GOMAXPROCS(0)))
				b.RunParallel(func(pb *testing.PB) {
					for pb.Next() {
						if err := commit(); err != nil {
							b.Error(err)
							return
						}
					}
				})
			}
			b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "commits/s")
		})
	}
}
