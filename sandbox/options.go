package sandbox

import (
	"fmt"
	"path/filepath"
	"runtime"
)

const (
	// DefaultPoolSize is the number of pre-started interpreters. Two keep
	// the warm latency on a small machine while holding only ~2x the
	// interpreter's resident memory idle.
	DefaultPoolSize = 2
	// DefaultMemoryLimitMB caps each instance's linear memory.
	DefaultMemoryLimitMB = 256
	// DefaultOutputLimit caps stdout and stderr of a job, each, in bytes.
	DefaultOutputLimit = 256 << 10

	// maxPoolSize bounds idle instances: each holds its memory while idle.
	maxPoolSize = 64
	// minMemoryLimitMB is about what CPython needs to start (the build
	// asks for ~11 MiB up front, then grows).
	minMemoryLimitMB = 32
	// maxMemoryLimitMB is wasm32's 4 GiB address space.
	maxMemoryLimitMB = 4096
	// maxOutputLimit keeps a Result a reasonable HTTP response.
	maxOutputLimit = 64 << 20

	// maxConcurrentJobs bounds WithMaxConcurrent.
	maxConcurrentJobs = 1024

	wasmPageSize = 65536
)

// config is what the options set; defaultConfig gives its defaults.
type config struct {
	cacheDir    string
	poolSize    int
	memoryMB    int
	outputLimit int
	// maxConcurrent is how many jobs run at once; 0 means GOMAXPROCS.
	maxConcurrent int
	// noTermination runs the build without the countdown of
	// instrumentLoops: what it costs, measured, but timeouts cannot stop a
	// busy guest. Benchmarks only.
	noTermination bool
	// noSnapshot starts every instance with CPython's own start-up
	// instead of restoring the snapshot (snapshot.go). Tests and
	// benchmarks only.
	noSnapshot bool
	// probeStdout is what the snapshot's probe job must print
	// (probeSnapshot); tests change it to make the probe fail.
	probeStdout string
}

func defaultConfig() config {
	return config{
		probeStdout:   "45 probe\n",
		poolSize:      DefaultPoolSize,
		memoryMB:      DefaultMemoryLimitMB,
		outputLimit:   DefaultOutputLimit,
		maxConcurrent: defaultMaxConcurrent(),
	}
}

func (c config) validate() error {
	switch {
	case c.poolSize < 0 || c.poolSize > maxPoolSize:
		return fmt.Errorf("sandbox option WithPoolSize: %d is outside [0, %d]", c.poolSize, maxPoolSize)
	case c.memoryMB < minMemoryLimitMB || c.memoryMB > maxMemoryLimitMB:
		return fmt.Errorf("sandbox option WithMemoryLimitMB: %d is outside [%d, %d]", c.memoryMB, minMemoryLimitMB, maxMemoryLimitMB)
	case c.outputLimit < 1 || c.outputLimit > maxOutputLimit:
		return fmt.Errorf("sandbox option WithOutputLimit: %d is outside [1, %d]", c.outputLimit, maxOutputLimit)
	case c.maxConcurrent < 1 || c.maxConcurrent > maxConcurrentJobs:
		return fmt.Errorf("sandbox option WithMaxConcurrent: %d is outside [1, %d]", c.maxConcurrent, maxConcurrentJobs)
	}
	return nil
}

// Option configures a Sandbox.
type Option func(*config) error

// WithCacheDir keeps the compiled module in dir (created if missing), e.g.
// <repo>/cache/wazero, so a later New skips the several-second compile.
// Defaults to no disk cache: every New compiles.
func WithCacheDir(dir string) Option {
	return func(c *config) error {
		if dir == "" {
			return fmt.Errorf("sandbox option WithCacheDir: empty directory")
		}
		abs, err := filepath.Abs(dir)
		if err != nil {
			return fmt.Errorf("sandbox option WithCacheDir %s: %w", dir, err)
		}
		c.cacheDir = abs
		return nil
	}
}

// WithPoolSize sets how many interpreters wait pre-started for a job; 0
// disables the pool, so each job pays CPython's start-up. Defaults to
// DefaultPoolSize (2).
func WithPoolSize(n int) Option {
	return func(c *config) error {
		c.poolSize = n
		return nil
	}
}

// WithMemoryLimitMB caps each instance's linear memory in MiB: a program
// that allocates more gets MemoryError and exits 1. Defaults to
// DefaultMemoryLimitMB (256).
func WithMemoryLimitMB(n int) Option {
	return func(c *config) error {
		c.memoryMB = n
		return nil
	}
}

// WithOutputLimit caps stdout and stderr of a job at n bytes each (the
// per-listing cap); beyond it output is dropped and Result.Truncated set.
// Defaults to DefaultOutputLimit (256 KiB).
func WithOutputLimit(bytes int) Option {
	return func(c *config) error {
		c.outputLimit = bytes
		return nil
	}
}

// WithMaxConcurrent sets how many jobs execute at once; the others wait
// (their timeout starts when they run, their ctx bounds the wait). More jobs
// than cores only slow each other towards their timeouts. Defaults to
// GOMAXPROCS-1, at least 1: the Go scheduler cannot preempt wasm code, so
// a busy guest holds its P until it calls the host or ends, and the rest of
// the node (network, timers) needs one left free. It is also at most the
// CPU count less one: the binary runs with more Ps than cores (see
// cmd/swarmwage's procs.go), and guests beyond the cores only share them.
func WithMaxConcurrent(n int) Option {
	return func(c *config) error {
		c.maxConcurrent = n
		return nil
	}
}

func defaultMaxConcurrent() int { return max(1, min(runtime.GOMAXPROCS(0), runtime.NumCPU())-1) }
