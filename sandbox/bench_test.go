//go:build unix

package sandbox_test

import (
	"context"
	"math"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/swarmwage/swarmwage/sandbox"
)

// BenchmarkRunPrintWarm is the latency of print(1) from submit to result
// with a pre-started interpreter waiting (the pool refills between jobs,
// outside the timer).
func BenchmarkRunPrintWarm(b *testing.B) {
	s := sharedSandbox(b)
	b.ReportAllocs()
	var total time.Duration
	for b.Loop() {
		b.StopTimer()
		require.NoError(b, s.WaitReady(b.Context()))
		b.StartTimer()
		begin := time.Now()
		res, err := s.Run(b.Context(), sandbox.Request{Code: "print(1)"})
		total += time.Since(begin)
		require.NoError(b, err)
		require.Equal(b, 0, res.ExitCode)
	}
	b.ReportMetric(float64(total.Microseconds())/1000/float64(b.N), "ms/job")
}

// BenchmarkRunPrintSustained is print(1) back to back, so each job waits for
// an interpreter to start: the sustained rate per core.
func BenchmarkRunPrintSustained(b *testing.B) {
	s := sharedSandbox(b)
	b.ReportAllocs()
	begin, cpu := time.Now(), cpuTime(b)
	for b.Loop() {
		res, err := s.Run(b.Context(), sandbox.Request{Code: "print(1)"})
		require.NoError(b, err)
		require.Equal(b, 0, res.ExitCode)
	}
	b.ReportMetric(float64(b.N)/time.Since(begin).Seconds(), "jobs/sec")
	// CPU per job is what bounds jobs/sec per core on a busy machine.
	b.ReportMetric(float64((cpuTime(b)-cpu).Microseconds())/1000/float64(b.N), "cpu-ms/job")
}

// BenchmarkTimeoutOvershoot is how long after its 100 ms deadline an
// infinite loop is stopped: median and worst (the worst is mostly the
// machine's scheduling when it is busy).
func BenchmarkTimeoutOvershoot(b *testing.B) {
	s := sharedSandbox(b)
	var over []float64
	for b.Loop() {
		b.StopTimer()
		require.NoError(b, s.WaitReady(b.Context()))
		b.StartTimer()
		begin := time.Now()
		res, err := s.Run(b.Context(), sandbox.Request{Code: "while True: pass", TimeoutMS: 100})
		over = append(over, float64((time.Since(begin)-100*time.Millisecond).Microseconds())/1000)
		require.NoError(b, err)
		require.Equal(b, sandbox.TimeoutExitCode, res.ExitCode)
	}
	slices.Sort(over)
	b.ReportMetric(over[len(over)/2], "ms-overshoot-p50")
	b.ReportMetric(over[len(over)-1], "ms-overshoot-max")
}

// cpuTime is the CPU time (user+system) this process has used.
func cpuTime(tb testing.TB) time.Duration {
	var ru syscall.Rusage
	require.NoError(tb, syscall.Getrusage(syscall.RUSAGE_SELF, &ru))
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkCPULoop runs Bench's CPU-bound loop with and without the
// countdown at every loop head (instrumentLoops) that lets a timeout stop
// an infinite loop: the difference is what termination costs.
func BenchmarkCPULoop(b *testing.B) {
	for _, tc := range []struct {
		name string
		opts []sandbox.Option
	}{
		{name: "checks=on"},
		{name: "checks=off", opts: []sandbox.Option{sandbox.WithoutTerminationForTest(b)}},
	} {
		b.Run(tc.name, func(b *testing.B) {
			s := sharedSandbox(b)
			if tc.opts != nil {
				var err error
				s, err = sandbox.New(b.Context(), append(tc.opts, sandbox.WithCacheDir(env.cacheDir), sandbox.WithPoolSize(0))...)
				require.NoError(b, err)
				defer func() { require.NoError(b, s.Close(context.Background())) }()
			}
			best := math.Inf(1)
			for b.Loop() {
				res, err := s.Run(b.Context(), sandbox.Request{Code: sandbox.CPULoop, TimeoutMS: sandbox.MaxTimeoutMS})
				require.NoError(b, err)
				require.Equal(b, 0, res.ExitCode, res.Stderr)
				secs, err := strconv.ParseFloat(strings.TrimSpace(res.Stdout), 64)
				require.NoError(b, err)
				best = min(best, secs)
			}
			b.ReportMetric(best, "s/loop-best")
		})
	}
}
