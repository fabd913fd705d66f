package bench_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/swarmwage/swarmwage/node/bench"
)

// BenchmarkHireConcurrent32 measures whole hires of compute.statistics.mean
// between two real nodes on loopback, 32 in flight ('swarmwage bench hire'
// prints the same figures with percentiles).
func BenchmarkHireConcurrent32(b *testing.B) { benchHire(b, 32) }

// BenchmarkHireSequential measures whole hires one at a time, the
// latency issue 25 compares with the first release ('swarmwage bench hire
// --concurrency 1'): read p50-ms (ns/op includes starting the nodes).
func BenchmarkHireSequential(b *testing.B) { benchHire(b, 1) }

// benchHire runs at least 64 hires, concurrency in flight, and reports
// their latency and rate.
func benchHire(b *testing.B, concurrency int) {
	res, err := bench.Hire(context.Background(), max(b.N, 64), concurrency)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(res.P50MS, "p50-ms")
	b.ReportMetric(res.P95MS, "p95-ms")
	b.ReportMetric(res.HiresPerSec, "hires/s")
}

// BenchmarkFind30Nodes measures cold and warm find latency on a 30-node
// loopback network.
func BenchmarkFind30Nodes(b *testing.B) {
	res, err := bench.Find(context.Background(), 30, 10, max(1, b.N/10))
	if err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(res.Cold.P50MS, "cold-p50-ms")
	b.ReportMetric(res.Cold.P95MS, "cold-p95-ms")
	b.ReportMetric(res.Warm.P50MS, "warm-p50-ms")
	b.ReportMetric(res.Warm.P95MS, "warm-p95-ms")
}

// bench hire --profile writes a CPU profile whose samples carry the node
// they ran for, and the allocation profiles before and after the hires.
func TestBenchHireWritesProfiles(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "prof")
	res, err := bench.Hire(t.Context(), 20, 4, bench.WithProfile(dir))
	require.NoError(t, err)
	require.Zero(t, res.Failed, res.FirstError)
	for _, name := range []string{"cpu.pprof", "allocs.pprof", "allocs-base.pprof"} {
		fi, err := os.Stat(filepath.Join(dir, name))
		require.NoError(t, err)
		require.NotZero(t, fi.Size(), name)
	}
	for _, cmd := range bench.ProfileFiles(dir) {
		require.Contains(t, cmd, dir)
	}
}
