package sandbox

import "testing"

// WithoutTerminationForTest runs the build without the countdown that
// stops a busy guest (instrumentLoops), so a benchmark can measure what it
// costs. A timeout cannot stop such a
// sandbox's guest: never use it outside benchmarks.
func WithoutTerminationForTest(tb testing.TB) Option {
	tb.Helper()
	return func(c *config) error {
		c.noTermination = true
		return nil
	}
}

// WithoutSnapshotForTest starts every instance with CPython's own start-up
// instead of restoring the snapshot, so tests can compare the two.
func WithoutSnapshotForTest(tb testing.TB) Option {
	tb.Helper()
	return func(c *config) error {
		c.noSnapshot = true
		return nil
	}
}

// WithFailingProbeForTest makes the snapshot's probe job expect another
// output, as a build whose instrumented stack no longer matches the
// bootstrap would fail it, so tests can see New fall back.
func WithFailingProbeForTest(tb testing.TB) Option {
	tb.Helper()
	return func(c *config) error {
		c.probeStdout = "not what the probe prints"
		return nil
	}
}

// Snapshotted reports whether s restores its instances from a snapshot.
func (s *Sandbox) Snapshotted() bool { return s.snap != nil }

// CPULoop is the CPU-bound program of Bench.
const CPULoop = cpuLoop

// CPURatio is Bench's CPU-bound comparison.
var CPURatio = cpuRatio
