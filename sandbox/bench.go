package sandbox

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"os/exec"
	"runtime"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// cpuLoop is the CPU-bound program behind BenchResult.CPURatioVsPython3
// (BenchResult.CPULoop describes it). It times itself, so interpreter
// start-up is left out on both sides.
const cpuLoop = `import time
t = time.perf_counter()
s = 0
for i in range(600000):
    s += i * i % 7
print(time.perf_counter() - t)
`

const (
	// cpuLoopName is BenchResult.CPULoop.
	cpuLoopName = "for i in range(600000): s += i * i % 7 (plain Python, timed inside with time.perf_counter)"
	// cpuRuns is how many times each side runs cpuLoop; the fastest counts.
	cpuRuns = 3
	// DefaultBenchJobs is how many jobs a throughput round runs: enough
	// that the pre-started interpreters waiting when it begins (the pool,
	// 2 by default) are under 1% of them.
	DefaultBenchJobs = 400
	// defaultBenchRounds is how many throughput rounds run, each of the
	// sandbox and then of native python3.
	defaultBenchRounds = 3
	// overshootRuns is how many timed-out jobs the overshoot figures take.
	overshootRuns = 10
	// overshootTimeout is their timeout.
	overshootTimeout = 100 * time.Millisecond
	// trivialJob is the job of the throughput and latency figures, and
	// the program of the native processes.
	trivialJob = "print(1)"
)

// BenchOptions configures Bench.
type BenchOptions struct {
	// N is the number of warm jobs timed one by one. Defaults to 50.
	N int
	// Jobs is the number of jobs of each throughput round, and of native
	// python3 processes of each native round. Defaults to DefaultBenchJobs.
	Jobs int
	// Rounds is how many throughput rounds run, alternating the sandbox
	// and native python3; the figures are medians. Defaults to 3.
	Rounds int
	// Concurrency is how many jobs are in flight, and may execute at once
	// (WithMaxConcurrent), for the throughput figure; as many native
	// processes run at once. Defaults to GOMAXPROCS.
	Concurrency int
	// Python3 is the native interpreter to compare with. Defaults to
	// python3 on the PATH, resolved to the executable it runs (a pyenv
	// shim is a shell script); none found leaves the native figures nil.
	Python3 string
	// Progress, when set, is told what is being measured.
	Progress func(step string)
}

// BenchResult holds the figures of `swarmwage bench sandbox`; nil means
// not measured.
type BenchResult struct {
	// WarmP50MS is the median latency of print(1), submit to result, with
	// a pre-started interpreter waiting.
	WarmP50MS *float64 `json:"warm_p50_ms"`
	// WarmP95MS is its 95th percentile.
	WarmP95MS *float64 `json:"warm_p95_ms"`
	// JobsPerS is sustained throughput: ThroughputJobs print(1) jobs
	// submitted at once to a Sandbox with the default pool, at most
	// Concurrency executing at a time, divided by the wall time from the
	// first submission to the last result. Every job runs in an instance
	// that no other job touched; all but the PoolSize waiting when the
	// round began were started during it (restored from the snapshot,
	// or CPython's start-up without one), so their start-up is in the
	// figure. The median of Rounds rounds.
	JobsPerS *float64 `json:"jobs_per_s"`
	// NativeJobsPerS is the same for `python3 -c 'print(1)'` processes
	// (Python3), Concurrency at a time, each checked to print 1: the median
	// of Rounds rounds, each run right after a sandbox round.
	NativeJobsPerS *float64 `json:"native_jobs_per_s"`
	// JobsPerSVsNative is the median over rounds of a sandbox round's
	// rate divided by the next native round's.
	JobsPerSVsNative *float64 `json:"jobs_per_s_vs_native"`
	// ThroughputJobs is the number of jobs (and of processes) per round.
	ThroughputJobs int `json:"throughput_jobs"`
	// Rounds is the number of rounds.
	Rounds int `json:"rounds"`
	// Concurrency is the concurrency of the throughput figures.
	Concurrency int `json:"concurrency"`
	// PoolSize is the number of pre-started interpreters.
	PoolSize int `json:"pool_size"`
	// Snapshot is whether the instances were restored from a snapshot of
	// a started interpreter (snapshot.go) rather than each running
	// CPython's start-up.
	Snapshot bool `json:"snapshot"`
	// ColdFirstJobMS is New plus the first job with an empty compile cache.
	ColdFirstJobMS *float64 `json:"cold_first_job_ms"`
	// ColdFirstJobCachedMS is the same with the compile cache filled.
	ColdFirstJobCachedMS *float64 `json:"cold_first_job_cached_ms"`
	// CPURatioVsPython3 is how many times slower CPULoop runs in the
	// sandbox than in native Python3: CPUSandboxS / CPUNativeS.
	CPURatioVsPython3 *float64 `json:"cpu_ratio_vs_python3"`
	// CPUSandboxS is the fastest of 3 runs of CPULoop in the sandbox, in
	// seconds.
	CPUSandboxS *float64 `json:"cpu_sandbox_s"`
	// CPUNativeS is the fastest of 3 runs of CPULoop in Python3.
	CPUNativeS *float64 `json:"cpu_native_s"`
	// CPULoop says what the CPU-bound loop is.
	CPULoop string `json:"cpu_loop"`
	// TimeoutOvershootP50MS is the median time past its 100 ms timeout
	// at which `while True: pass` got its 124, over 10 jobs.
	TimeoutOvershootP50MS *float64 `json:"timeout_overshoot_p50_ms"`
	// TimeoutOvershootMaxMS is the worst of them.
	TimeoutOvershootMaxMS *float64 `json:"timeout_overshoot_max_ms"`
	// PoolInstanceRSSMiB is the memory that one pre-started interpreter
	// holds alone (the mean over the full pool): the resident pages of its
	// linear memory that are its own, from /proc/self/pagemap; nil where
	// that is not known.
	PoolInstanceRSSMiB *float64 `json:"pool_instance_rss_mib"`
	// PoolInstanceSharedMiB is what each also maps of the initial memory
	// image (the snapshot's), resident once for all of them.
	PoolInstanceSharedMiB *float64 `json:"pool_instance_shared_mib"`
	// RSSPoolFullMiB is this process's resident memory with the pool
	// full and no job running, after a garbage collection: what a daemon
	// serving the sandbox holds for it and the interpreters waiting.
	RSSPoolFullMiB *float64 `json:"rss_pool_full_mib"`
	// Python3 is the native executable measured, empty when none was.
	Python3 string `json:"python3"`
	// Python3Version is its version.
	Python3Version string `json:"python3_version"`
}

// Bench measures the sandbox as `swarmwage bench sandbox` reports it. It
// compiles into a fresh temporary cache (the cold figures need an empty
// one) and removes it afterwards.
func Bench(ctx context.Context, opts BenchOptions) (res BenchResult, err error) {
	if opts.N <= 0 {
		opts.N = 50
	}
	if opts.Jobs <= 0 {
		opts.Jobs = DefaultBenchJobs
	}
	if opts.Rounds <= 0 {
		opts.Rounds = defaultBenchRounds
	}
	if opts.Concurrency <= 0 {
		opts.Concurrency = runtime.GOMAXPROCS(0)
	}
	progress := opts.Progress
	if progress == nil {
		progress = func(string) {}
	}
	res.ThroughputJobs, res.Rounds, res.Concurrency, res.CPULoop = opts.Jobs, opts.Rounds, opts.Concurrency, cpuLoopName
	cacheDir, err := os.MkdirTemp("", "swarmwage-bench-wazero-")
	if err != nil {
		return res, fmt.Errorf("bench: temporary compile cache: %w", err)
	}
	defer os.RemoveAll(cacheDir)

	progress("cold first job, empty compile cache")
	if res.ColdFirstJobMS, err = coldFirstJob(ctx, cacheDir); err != nil {
		return res, err
	}
	progress("cold first job, compile cache filled")
	if res.ColdFirstJobCachedMS, err = coldFirstJob(ctx, cacheDir); err != nil {
		return res, err
	}

	s, err := New(ctx, WithCacheDir(cacheDir), WithMaxConcurrent(max(opts.Concurrency, 1)))
	if err != nil {
		return res, err
	}
	defer func() { err = errors.Join(err, s.Close(context.Background())) }()
	res.PoolSize, res.Snapshot = s.cfg.poolSize, s.snap != nil

	progress("memory with the pool full")
	if err := s.WaitReady(ctx); err != nil {
		return res, err
	}
	res.PoolInstanceRSSMiB, res.PoolInstanceSharedMiB, res.RSSPoolFullMiB = poolMemory(s)

	progress(fmt.Sprintf("warm latency, %d jobs one by one", opts.N))
	if res.WarmP50MS, res.WarmP95MS, err = warmLatency(ctx, s, opts.N); err != nil {
		return res, err
	}
	progress(fmt.Sprintf("timeout overshoot, %d jobs", overshootRuns))
	if res.TimeoutOvershootP50MS, res.TimeoutOvershootMaxMS, err = timeoutOvershoot(ctx, s); err != nil {
		return res, err
	}

	python3, version, nativeErr := resolvePython3(ctx, opts.Python3)
	if nativeErr != nil {
		// A missing or broken python3 is not the sandbox's failure.
		progress(fmt.Sprintf("native figures not measured: %v", nativeErr))
	}
	res.Python3, res.Python3Version = python3, version

	var rates, natives, ratios []float64
	for round := range opts.Rounds {
		progress(fmt.Sprintf("throughput round %d/%d, %d jobs at concurrency %d", round+1, opts.Rounds, opts.Jobs, opts.Concurrency))
		rate, err := throughput(ctx, s, opts.Jobs, opts.Concurrency)
		if err != nil {
			return res, err
		}
		rates = append(rates, rate)
		if nativeErr != nil {
			continue
		}
		progress(fmt.Sprintf("native round %d/%d, %d %s processes at concurrency %d", round+1, opts.Rounds, opts.Jobs, python3, opts.Concurrency))
		native, err := nativeThroughput(ctx, python3, opts.Jobs, opts.Concurrency)
		if err != nil {
			progress(fmt.Sprintf("native figures not measured: %v", err))
			nativeErr = err
			natives, ratios = nil, nil
			continue
		}
		natives = append(natives, native)
		ratios = append(ratios, rate/native)
	}
	res.JobsPerS, res.NativeJobsPerS, res.JobsPerSVsNative = median(rates), median(natives), median(ratios)

	if nativeErr == nil {
		progress("CPU-bound loop, sandbox and " + python3)
		var cpuErr error
		res.CPUSandboxS, res.CPUNativeS, cpuErr, err = cpuTimes(ctx, s, python3)
		if err != nil {
			return res, err
		}
		if cpuErr != nil {
			progress(fmt.Sprintf("cpu_ratio_vs_python3 not measured: %v", cpuErr))
		} else {
			r := math.Round(*res.CPUSandboxS / *res.CPUNativeS * 1000) / 1000
			res.CPURatioVsPython3 = &r
		}
	}
	return res, nil
}

func coldFirstJob(ctx context.Context, cacheDir string) (*float64, error) {
	begin := time.Now()
	s, err := New(ctx, WithCacheDir(cacheDir), WithPoolSize(0))
	if err != nil {
		return nil, err
	}
	_, err = benchJob(ctx, s, Request{Code: trivialJob})
	ms := msSince(begin)
	return &ms, errors.Join(err, s.Close(ctx))
}

func warmLatency(ctx context.Context, s *Sandbox, n int) (p50, p95 *float64, err error) {
	lat := make([]float64, 0, n)
	for range n {
		if err := s.WaitReady(ctx); err != nil {
			return nil, nil, err
		}
		begin := time.Now()
		if _, err := benchJob(ctx, s, Request{Code: trivialJob}); err != nil {
			return nil, nil, err
		}
		lat = append(lat, msSince(begin))
	}
	slices.Sort(lat)
	a, b := percentile(lat, 0.50), percentile(lat, 0.95)
	return &a, &b, nil
}

// timeoutOvershoot times how long past its timeout an infinite loop gets
// its 124, each job with an interpreter waiting.
func timeoutOvershoot(ctx context.Context, s *Sandbox) (p50, worst *float64, err error) {
	over := make([]float64, 0, overshootRuns)
	for range overshootRuns {
		if err := s.WaitReady(ctx); err != nil {
			return nil, nil, err
		}
		begin := time.Now()
		res, err := s.Run(ctx, Request{Code: "while True: pass", TimeoutMS: int(overshootTimeout.Milliseconds())})
		if err != nil {
			return nil, nil, fmt.Errorf("bench: %w", err)
		}
		if res.ExitCode != TimeoutExitCode {
			return nil, nil, fmt.Errorf("bench: an infinite loop exited %d, not %d", res.ExitCode, TimeoutExitCode)
		}
		over = append(over, math.Round(float64((time.Since(begin)-overshootTimeout).Microseconds())/10)/100)
	}
	slices.Sort(over)
	a, b := percentile(over, 0.5), over[len(over)-1]
	return &a, &b, nil
}

// throughput runs n trivial jobs, concurrency at a time, and returns jobs
// per second from the first submission to the last result.
func throughput(ctx context.Context, s *Sandbox, n, concurrency int) (float64, error) {
	if err := s.WaitReady(ctx); err != nil {
		return 0, err
	}
	return runParallel(n, concurrency, func() error {
		_, err := benchJob(ctx, s, Request{Code: trivialJob})
		return err
	})
}

// nativeThroughput is throughput for python3 -c 'print(1)' processes.
func nativeThroughput(ctx context.Context, python3 string, n, concurrency int) (float64, error) {
	return runParallel(n, concurrency, func() error {
		out, err := exec.CommandContext(ctx, python3, "-c", trivialJob).Output()
		if err != nil {
			return fmt.Errorf("%s -c %q: %w", python3, trivialJob, err)
		}
		if string(out) != "1\n" {
			return fmt.Errorf("%s -c %q printed %q", python3, trivialJob, out)
		}
		return nil
	})
}

// runParallel calls job n times from concurrency goroutines and returns
// calls per second; the first error ends it.
func runParallel(n, concurrency int, job func() error) (float64, error) {
	jobs := make(chan struct{}, n)
	for range n {
		jobs <- struct{}{}
	}
	close(jobs)
	errs := make(chan error, concurrency)
	var wg sync.WaitGroup
	begin := time.Now()
	for range concurrency {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range jobs {
				if err := job(); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	rate := float64(n) / time.Since(begin).Seconds()
	close(errs)
	if err := <-errs; err != nil {
		return 0, err
	}
	return rate, nil
}

// resolvePython3 returns the executable that python3 (or the given
// command) runs, and its version: a pyenv shim would add a shell and
// pyenv's start-up to every native process.
func resolvePython3(ctx context.Context, python3 string) (exe, version string, err error) {
	if python3 == "" {
		if python3, err = exec.LookPath("python3"); err != nil {
			return "", "", fmt.Errorf("no python3 on the PATH: %w", err)
		}
	}
	out, err := exec.CommandContext(ctx, python3, "-c", "import sys; print(sys.executable); print(sys.version.split()[0])").Output()
	if err != nil {
		return "", "", fmt.Errorf("ask %s for its executable: %w", python3, err)
	}
	exe, version, _ = strings.Cut(strings.TrimSpace(string(out)), "\n")
	if exe == "" {
		return "", "", fmt.Errorf("%s does not know its executable (sys.executable is empty)", python3)
	}
	return exe, strings.TrimSpace(version), nil
}

// cpuRatio is cpuTimes as a ratio, sandbox over native.
func cpuRatio(ctx context.Context, s *Sandbox, python3 string) (ratio *float64, nativeErr, err error) {
	inSandbox, native, nativeErr, err := cpuTimes(ctx, s, python3)
	if err != nil || nativeErr != nil {
		return nil, nativeErr, err
	}
	r := *inSandbox / *native
	return &r, nil, nil
}

// cpuTimes times cpuLoop in the sandbox and in python3, the fastest of
// cpuRuns each. A failure of python3 comes back as nativeErr with nil
// figures; err is the sandbox's.
func cpuTimes(ctx context.Context, s *Sandbox, python3 string) (inSandbox, native *float64, nativeErr, err error) {
	best, bestNative := math.Inf(1), math.Inf(1)
	for range cpuRuns {
		out, err := benchJob(ctx, s, Request{Code: cpuLoop, TimeoutMS: MaxTimeoutMS})
		if err != nil {
			return nil, nil, nil, err
		}
		secs, err := strconv.ParseFloat(strings.TrimSpace(out), 64)
		if err != nil {
			return nil, nil, nil, fmt.Errorf("bench: CPU loop in the sandbox printed %q", out)
		}
		best = min(best, secs)

		raw, err := exec.CommandContext(ctx, python3, "-c", cpuLoop).Output()
		if err != nil {
			return nil, nil, fmt.Errorf("CPU loop in %s: %w", python3, err), nil
		}
		secs, err = strconv.ParseFloat(strings.TrimSpace(string(raw)), 64)
		if err != nil || secs <= 0 {
			return nil, nil, fmt.Errorf("CPU loop in %s printed %q", python3, raw), nil
		}
		bestNative = min(bestNative, secs)
	}
	return &best, &bestNative, nil, nil
}

// poolMemory returns the mean private and shared resident sizes of the
// linear memories alive (with the pool full and no job running: the
// pool's), and this process's
// resident size from /proc after a garbage collection, in MiB. Either is
// nil where the system does not tell.
func poolMemory(s *Sandbox) (perInstance, shared, total *float64) {
	debug.FreeOSMemory()
	alloc := s.alloc
	if s.snapAlloc != nil {
		alloc = s.snapAlloc // the pool's instances are restored from the snapshot
	}
	if r, ok := alloc.resident(); ok && r.memories > 0 {
		v := math.Round(float64(r.private)/float64(r.memories)/(1<<20)*1000) / 1000
		perInstance = &v
		sh := math.Round(float64(r.shared)/float64(r.memories)/(1<<20)*1000) / 1000
		shared = &sh
	}
	if status, err := os.ReadFile("/proc/self/status"); err == nil {
		for line := range strings.Lines(string(status)) {
			if rest, ok := strings.CutPrefix(line, "VmRSS:"); ok {
				if kb, err := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 64); err == nil {
					v := math.Round(kb/1024*100) / 100
					total = &v
				}
			}
		}
	}
	return perInstance, shared, total
}

// benchJob runs req and insists on a clean exit: a benchmark of failing
// jobs would measure the wrong thing.
func benchJob(ctx context.Context, s *Sandbox, req Request) (string, error) {
	res, err := s.Run(ctx, req)
	if err != nil {
		return "", fmt.Errorf("bench: %w", err)
	}
	if res.ExitCode != 0 {
		return "", fmt.Errorf("bench: job exited %d: %s", res.ExitCode, res.Stderr)
	}
	return res.Stdout, nil
}

func msSince(t time.Time) float64 {
	return math.Round(float64(time.Since(t).Microseconds())/10) / 100
}

// percentile of sorted values, nearest rank.
func percentile(sorted []float64, p float64) float64 {
	if len(sorted) == 0 {
		return 0
	}
	i := int(math.Ceil(p*float64(len(sorted)))) - 1
	return sorted[max(0, min(i, len(sorted)-1))]
}

// median of values, nil when there are none.
func median(values []float64) *float64 {
	if len(values) == 0 {
		return nil
	}
	s := slices.Sorted(slices.Values(values))
	m := s[len(s)/2]
	if len(s)%2 == 0 {
		m = (s[len(s)/2-1] + m) / 2
	}
	m = math.Round(m*1000) / 1000
	return &m
}
