package node_test

import (
	"context"
	"testing"

	"github.com/swarmwage/swarmwage/node"
)

// BenchmarkHireConcurrent32 measures whole hires of compute.statistics.mean
// between two real nodes on loopback, 32 in flight ('swarmwage bench hire'
// prints the same figures with percentiles).
func BenchmarkHireConcurrent32(b *testing.B) {
	res, err := node.BenchHire(context.Background(), max(b.N, 64), 32)
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
	res, err := node.BenchFind(context.Background(), 30, 10, max(1, b.N/10))
	if err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(res.Cold.P50MS, "cold-p50-ms")
	b.ReportMetric(res.Cold.P95MS, "cold-p95-ms")
	b.ReportMetric(res.Warm.P50MS, "warm-p50-ms")
	b.ReportMetric(res.Warm.P95MS, "warm-p95-ms")
}
