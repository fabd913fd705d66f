package sandbox

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// cpuLoop is the CPU-bound program behind BenchResult.CPURatioVsPython3. It
// times itself, so interpreter start-up is left out on both sides.
const cpuLoop = `import time
t = time.perf_counter()
s = 0
for i in range(600000):
    s += i * i % 7
print(time.perf_counter() - t)
`

// cpuRuns is how many times each side runs cpuLoop; the fastest counts.
const cpuRuns = 3

// BenchOptions configures Bench.
type BenchOptions struct {
	// N is the number of warm jobs timed one by one and of jobs run for
	// the throughput figure. Defaults to 50.
	N int
	// Concurrency is how many jobs are in flight, and may execute at once
	// (WithMaxConcurrent), for the throughput figure. Defaults to
	// GOMAXPROCS.
	Concurrency int
	// Python3 is the native interpreter to compare CPU-bound speed with.
	// Defaults to python3 on the PATH; none found leaves the ratio nil.
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
	// JobsPerS is sustained print(1) jobs per second at Concurrency.
	JobsPerS *float64 `json:"jobs_per_s"`
	// ColdFirstJobMS is New plus the first job with an empty compile cache.
	ColdFirstJobMS *float64 `json:"cold_first_job_ms"`
	// ColdFirstJobCachedMS is the same with the compile cache filled.
	ColdFirstJobCachedMS *float64 `json:"cold_first_job_cached_ms"`
	// CPURatioVsPython3 is how many times slower cpuLoop runs in the
	// sandbox than in native python3.
	CPURatioVsPython3 *float64 `json:"cpu_ratio_vs_python3"`
}

// Bench measures the sandbox as `swarmwage bench sandbox` reports it. It
// compiles into a fresh temporary cache (the cold figures need an empty
// one) and removes it afterwards.
func Bench(ctx context.Context, opts BenchOptions) (res BenchResult, err error) {
	if opts.N <= 0 {
		opts.N = 50
	}
	if opts.Concurrency <= 0 {
		opts.Concurrency = runtime.GOMAXPROCS(0)
	}
	progress := opts.Progress
	if progress == nil {
		progress = func(string) {}
	}
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

	progress(fmt.Sprintf("warm latency, %d jobs one by one", opts.N))
	if res.WarmP50MS, res.WarmP95MS, err = warmLatency(ctx, s, opts.N); err != nil {
		return res, err
	}
	progress(fmt.Sprintf("throughput, %d jobs at concurrency %d", opts.N, opts.Concurrency))
	if res.JobsPerS, err = throughput(ctx, s, opts.N, opts.Concurrency); err != nil {
		return res, err
	}
	python3 := opts.Python3
	if python3 == "" {
		python3, _ = exec.LookPath("python3")
	}
	if python3 != "" {
		progress("CPU-bound loop, sandbox and " + python3)
		var nativeErr error
		res.CPURatioVsPython3, nativeErr, err = cpuRatio(ctx, s, python3)
		if err != nil {
			return res, err
		}
		if nativeErr != nil {
			// A broken python3 on the PATH is not the sandbox's failure.
			progress(fmt.Sprintf("cpu_ratio_vs_python3 not measured: %v", nativeErr))
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
	_, err = benchJob(ctx, s, Request{Code: "print(1)"})
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
		if _, err := benchJob(ctx, s, Request{Code: "print(1)"}); err != nil {
			return nil, nil, err
		}
		lat = append(lat, msSince(begin))
	}
	slices.Sort(lat)
	a, b := percentile(lat, 0.50), percentile(lat, 0.95)
	return &a, &b, nil
}

func throughput(ctx context.Context, s *Sandbox, n, concurrency int) (*float64, error) {
	if err := s.WaitReady(ctx); err != nil {
		return nil, err
	}
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
				if _, err := benchJob(ctx, s, Request{Code: "print(1)"}); err != nil {
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
		return nil, err
	}
	return &rate, nil
}

// cpuRatio times cpuLoop in the sandbox and in python3. A failure of
// python3 comes back as nativeErr with a nil ratio; err is the sandbox's.
func cpuRatio(ctx context.Context, s *Sandbox, python3 string) (ratio *float64, nativeErr, err error) {
	inSandbox, native := math.Inf(1), math.Inf(1)
	for range cpuRuns {
		out, err := benchJob(ctx, s, Request{Code: cpuLoop, TimeoutMS: MaxTimeoutMS})
		if err != nil {
			return nil, nil, err
		}
		secs, err := strconv.ParseFloat(strings.TrimSpace(out), 64)
		if err != nil {
			return nil, nil, fmt.Errorf("bench: CPU loop in the sandbox printed %q", out)
		}
		inSandbox = min(inSandbox, secs)

		raw, err := exec.CommandContext(ctx, python3, "-c", cpuLoop).Output()
		if err != nil {
			return nil, fmt.Errorf("CPU loop in %s: %w", python3, err), nil
		}
		secs, err = strconv.ParseFloat(strings.TrimSpace(string(raw)), 64)
		if err != nil || secs <= 0 {
			return nil, fmt.Errorf("CPU loop in %s printed %q", python3, raw), nil
		}
		native = min(native, secs)
	}
	r := inSandbox / native
	return &r, nil, nil
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
