// Package sandbox runs untrusted Python and JavaScript for the
// code.execute.sandboxed capability: CPython 3.11 and QuickJS built for
// WASI (embedded in the binary) on the wazero runtime, with no host
// filesystem, no sockets, no host environment, capped output, a
// wall-clock timeout and a memory cap. Python is the default language;
// javascript.go describes the JavaScript runtime.
//
// # The builds
//
// Both interpreters are built here from pinned sources (sandbox/wasi/SOURCES:
// Debian's python3.11 and quickjs source packages, wasi-libc from
// bookworm, clang-19 and lld-19 from bookworm, binaryen 132 from npm) by
// python/refresh.sh and javascript/refresh.sh: CPython at -O3 with
// pymalloc, QuickJS at -O2, both then wasm-opt -O2, and CPython then
// instrumented with Asyncify for the snapshot. The scripts are
// reproducible (SOURCE_DATE_EPOCH, -ffile-prefix-map, no debug info, a
// stdlib zip with sorted names and fixed times). New checks the sha256 of
// every embedded file against its SHA256 file and refuses a mismatch.
// CI (.ci/sandbox-builds) rebuilds them only when those inputs change: it
// keeps their hash in sandbox/wasi/INPUTS, and a rebuild must reproduce
// the committed bytes. CPython is 3.11, not 3.13: the wasi-libc that
// 3.13's WASI build needs (trixie's 0.0~git20241209) is listed in the
// Debian index but its archives are not served by the mirror here, and
// bookworm's wasi-libc (2022-05, about WASI SDK 16) is the one CPython
// 3.11's Tools/wasm targets.
//
// It implements the sandbox contract of the capability taxonomy
// (docs/specs/capability-taxonomy-v0.1.md, "code.execute.sandboxed"):
// exit code 0 on clean termination, 1 on an uncaught exception, 124 on
// timeout, the guest's own code on sys.exit(n); stdout and stderr are cut at
// the listing's cap with truncated set.
//
// # Exit codes
//
// An exit code is always 0..255, a process exit status. A code the guest
// chooses, by sys.exit(n), raise SystemExit(n), exit(n) or os._exit(n), is
// reduced as a POSIX shell reports a process's status, n & 0xff:
// sys.exit(300) and os._exit(300) give 44, sys.exit(-1) and os._exit(-1)
// give 255, 256 gives 0. sys.exit(None) is 0; sys.exit with any other
// object prints it to stderr and gives 1; so does an uncaught exception
// (and an os._exit argument too large for a C int, which raises
// OverflowError). A crash of the interpreter itself is 1 with a line on
// stderr. 124 is the timeout, as in coreutils timeout(1); a guest may also
// exit with 124 on its own. Only the host's own cancellation is not an exit
// code: Run returns ErrClosed after Close and ctx's error when ctx ends, and
// never mistakes a guest's code (os._exit(-1) reaches wazero as its
// reserved 0xffffffff) for either.
//
// Speed comes from six things. Every instance starts from a snapshot
// (snapshot.go): New starts one interpreter, and when its bootstrap first
// reads stdin for a job, Binaryen's Asyncify (python/refresh.sh instruments
// the build with it) saves the wasm stack into linear memory and returns to
// the host, which keeps that memory and the globals. An instance restored
// from it maps the memory copy-on-write and rewinds into that read: a
// fresh interpreter that no job touched, for ~2.5 ms of CPU instead of
// CPython's ~35 ms start-up. Its one shared random value is CPython's str
// hash secret (see snapshot.go for why that is acceptable); random,
// secrets, uuid and os.urandom differ per job. New probes a restored
// instance with a job and, if that fails, every instance runs CPython's
// start-up itself. The compiled module is cached on disk (WithCacheDir).
// Every linear memory starts as a copy-on-write mapping of an image
// (memory_linux.go): the snapshot's, or the build's data segments, so an
// instance costs the pages its interpreter writes, not a copy. The
// standard library, a zip of .pyc files embedded next to the build
// (python/stdlib.zip), is served from memory as a read-only directory,
// each file inflated on first use, because zipimport is slow in wasm. The bootstrap
// is compiled once per build for start-ups without a snapshot. A small
// pool of interpreters already restored waits for code on stdin; each job
// still gets a fresh instance that no other job touched, and the pool
// refills in the background.
//
// A timeout stops a busy guest through a countdown that New adds at every
// loop head of the build (interrupt.go), which calls the host every
// checkPeriod iterations; wazero's own WithCloseOnContextDone leaves for Go
// at every iteration and cost 1.7x on CPU-bound code.
//
// Layout: sandbox.go (API), options.go, instance.go (one interpreter),
// interrupt.go (the countdown), snapshot.go (the started interpreter
// every instance restores), bootstrap.py and bootstrap.go (the guest side of the job protocol and its
// precompilation), wasm.go (the embedded build and its standard library),
// memory*.go (linear memory that grows in place), javascript.go (the
// QuickJS runtime), bench.go (the figures behind `swarmwage bench
// sandbox`), python/ (the instrumented build, stdlib.zip, VERSION, SHA256,
// ASYNCIFY, LICENSE, refresh.sh, stdlib.py, and the asyncify helper
// refresh.sh runs), javascript/ (quickjs.wasm.zst, main.c, SHA256,
// VERSION, LICENSE, refresh.sh), wasi/ (the pinned SOURCES, the INPUTS
// hash and common.sh, the toolchain part of both refresh scripts).
package sandbox

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/experimental"
	"github.com/tetratelabs/wazero/imports/wasi_snapshot_preview1"
)

// Capability is the capability ID this package serves.
const Capability = "code.execute.sandboxed"

// Languages of code.execute.sandboxed (taxonomy v0.2) this package runs:
// python (the default) and javascript.
const (
	LanguagePython     = "python"
	LanguageJavaScript = "javascript"
)

// Languages lists the languages a Sandbox runs, the default first.
func Languages() []string { return []string{LanguagePython, LanguageJavaScript} }

const (
	// DefaultTimeoutMS is the timeout of a request that names none (taxonomy v0.1).
	DefaultTimeoutMS = 5000
	// MaxTimeoutMS is the largest timeout a request may ask for (taxonomy
	// v0.1); more is ErrTimeoutTooLarge, not silently clipped.
	MaxTimeoutMS = 30000
	// TimeoutExitCode is the exit code of a job killed by its timeout, as
	// coreutils timeout(1) and the taxonomy use it.
	TimeoutExitCode = 124

	// EngineVersion is the wazero release the sandbox runs on (go.mod pins it;
	// a test checks the two agree).
	EngineVersion = "v1.12.0"

	// MaxCodeBytes caps Request.Code: a request body is untrusted and the
	// whole program is copied into the guest's memory.
	MaxCodeBytes = 1 << 20
	// MaxStdinBytes caps Request.Stdin for the same reason.
	MaxStdinBytes = 1 << 20
)

var (
	// ErrInvalidRequest is returned when a Request is malformed: code empty,
	// too large or not UTF-8, a negative timeout, stdin too large. The agent
	// endpoint answers it with HTTP 400.
	ErrInvalidRequest = errors.New("invalid sandbox request")
	// ErrUnsupportedLanguage is returned when Request.Language names a
	// language other than python and javascript. It wraps ErrInvalidRequest.
	ErrUnsupportedLanguage = fmt.Errorf("%w: unsupported language", ErrInvalidRequest)
	// ErrTimeoutTooLarge is returned when Request.TimeoutMS exceeds
	// MaxTimeoutMS. It wraps ErrInvalidRequest.
	ErrTimeoutTooLarge = fmt.Errorf("%w: timeout too large", ErrInvalidRequest)
	// ErrClosed is returned by Run once Close has been called.
	ErrClosed = errors.New("sandbox closed")
)

// Request is the input of code.execute.sandboxed (taxonomy v0.1).
type Request struct {
	// Code is the program: Python run as __main__, or a JavaScript script.
	Code string `json:"code"`
	// Language is "python" (or empty, meaning python) or "javascript".
	Language string `json:"language,omitempty"`
	// Stdin is what the program reads from sys.stdin.
	Stdin string `json:"stdin,omitempty"`
	// TimeoutMS is the wall-clock limit in milliseconds; 0 means
	// DefaultTimeoutMS, more than MaxTimeoutMS is an error.
	TimeoutMS int `json:"timeout_ms,omitempty"`
}

// Result is the output of code.execute.sandboxed (taxonomy v0.1).
type Result struct {
	// Stdout is what the program wrote to stdout, up to the output cap.
	Stdout string `json:"stdout"`
	// Stderr is what the program wrote to stderr (tracebacks included), up
	// to the output cap.
	Stderr string `json:"stderr"`
	// ExitCode is 0 on clean termination, 1 on an uncaught exception (or a
	// crash of the interpreter), 124 on timeout, n & 0xff on sys.exit(n) or
	// os._exit(n); always 0..255 (see "Exit codes" in the package doc).
	ExitCode int `json:"exit_code"`
	// DurationMS is the wall time from handing the code to the interpreter
	// to its exit, in milliseconds.
	DurationMS int64 `json:"duration_ms"`
	// Truncated is set when stdout or stderr exceeded the output cap and was cut.
	Truncated bool `json:"truncated"`
}

// Runtime describes the sandbox to buyers; the agent endpoint serves it at
// GET /capabilities/code.execute.sandboxed/runtime.
type Runtime struct {
	// Capability is always "code.execute.sandboxed".
	Capability string `json:"capability"`
	// Language is the default language, "python".
	Language string `json:"language"`
	// Languages are the languages the sandbox runs, the default first:
	// "python", "javascript".
	Languages []string `json:"languages"`
	// PythonVersion is the CPython version, e.g. "3.11.2".
	PythonVersion string `json:"python_version"`
	// Build names the interpreter build: CPython compiled from Debian's
	// source package by python/refresh.sh.
	Build string `json:"build"`
	// BuildSHA256 is the sha256 of the uncompressed python.wasm as
	// embedded (python/refresh.sh built and instrumented it).
	BuildSHA256 string `json:"build_sha256"`
	// JavaScriptEngine is the JavaScript engine and its version, e.g.
	// "quickjs 2025-04-26".
	JavaScriptEngine string `json:"javascript_engine"`
	// JavaScriptBuildSHA256 is the sha256 of the uncompressed quickjs.wasm
	// as embedded (javascript/refresh.sh built it).
	JavaScriptBuildSHA256 string `json:"javascript_build_sha256"`
	// Engine is the WebAssembly runtime, "wazero".
	Engine string `json:"engine"`
	// EngineVersion is the wazero release, e.g. "v1.12.0".
	EngineVersion string `json:"engine_version"`
	// Limits are the limits every job runs under.
	Limits Limits `json:"limits"`
	// Filesystem is false: the guest sees only the read-only standard library.
	Filesystem bool `json:"filesystem"`
	// Network is false: the guest has no sockets.
	Network bool `json:"network"`
}

// Limits are the per-job limits of a Sandbox.
type Limits struct {
	// TimeoutDefaultMS applies when a request names no timeout.
	TimeoutDefaultMS int `json:"timeout_default_ms"`
	// TimeoutMaxMS is the largest timeout a request may ask for.
	TimeoutMaxMS int `json:"timeout_max_ms"`
	// MemoryMB caps the guest's linear memory.
	MemoryMB int `json:"memory_mb"`
	// OutputBytes caps stdout and stderr, each.
	OutputBytes int `json:"output_bytes"`
	// CodeMaxBytes caps Request.Code.
	CodeMaxBytes int `json:"code_max_bytes"`
	// StdinMaxBytes caps Request.Stdin.
	StdinMaxBytes int `json:"stdin_max_bytes"`
}

// Sandbox runs Python and JavaScript jobs, each in a fresh wazero instance. It is safe for
// concurrent use; Close releases it.
type Sandbox struct {
	cfg     config
	log     *slog.Logger
	runtime wazero.Runtime
	cache   wazero.CompilationCache
	module  wazero.CompiledModule
	guest   wazero.ModuleConfig // shared part of every instance's config
	alloc   memoryAllocator
	info    Runtime
	// snap, when set, is where every instance starts (snapshot.go), from
	// the memory snapAlloc maps; globals are the module's mutable globals.
	snap      *snapshot
	snapAlloc memoryAllocator
	globals   []uint32
	// js runs JavaScript jobs; it compiles on the first one.
	js *jsEngine

	// ctx is the parent of every instance; Close cancels it.
	ctx    context.Context
	cancel context.CancelFunc
	// mu orders wg.Add in start against Close's cancel-then-Wait, so no
	// interpreter starts after Close began waiting.
	mu sync.RWMutex
	wg sync.WaitGroup
	// ready holds pre-started interpreters waiting for code. Its capacity
	// is poolSize-1: the filler holds one more while blocked on the send.
	ready chan *instance
	// running holds a token per goroutine executing wasm: a job, or a
	// start-up in the filler (WithMaxConcurrent).
	running chan struct{}
	// idle counts pre-started interpreters, the one the filler holds included.
	idle atomic.Int64

	closeOnce sync.Once
	closeErr  error
}

// New loads the embedded interpreter, compiles it (or loads it from the
// cache dir) and starts the interpreter pool.
func New(ctx context.Context, opts ...Option) (_ *Sandbox, err error) {
	cfg := defaultConfig()
	for _, opt := range opts {
		if opt == nil {
			continue
		}
		if err := opt(&cfg); err != nil {
			return nil, err
		}
	}
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	build, err := loadBuild()
	if err != nil {
		return nil, err
	}
	if !cfg.noTermination {
		if build.wasm, err = instrumentLoops(build.wasm, checkPeriod); err != nil {
			return nil, fmt.Errorf("instrument python.wasm for timeouts: %w", err)
		}
	}
	var globals []uint32
	if build.wasm, globals, err = exportGlobals(build.wasm); err != nil {
		return nil, fmt.Errorf("export the globals of python.wasm: %w", err)
	}

	s := &Sandbox{
		cfg:     cfg,
		log:     slog.Default().With("logger", "swarmwage/sandbox"),
		running: make(chan struct{}, cfg.maxConcurrent),
		js:      &jsEngine{},
	}
	s.ctx, s.cancel = context.WithCancel(context.Background())
	defer func() {
		if err != nil {
			err = errors.Join(err, s.Close(ctx))
		}
	}()

	// Every memory starts as a copy-on-write mapping of the data segments'
	// image instead of wazero copying them in at each instantiation.
	if stripped, serr := stripData(build.wasm); serr != nil {
		s.log.Warn("keep the data segments in the module; each instance copies them", "err", serr)
		build.image = nil
	} else if alloc, aerr := newMemoryAllocator(build.image); aerr != nil {
		s.log.Warn("map the initial memory image; each instance copies the data segments", "err", aerr)
	} else {
		s.alloc = alloc
		build.wasm = stripped
	}
	if s.alloc == nil {
		if s.alloc, err = newMemoryAllocator(nil); err != nil {
			return nil, err
		}
	}
	build.image = nil // the allocator has its own copy
	if cfg.cacheDir != "" {
		if s.cache, err = wazero.NewCompilationCacheWithDir(cfg.cacheDir); err != nil {
			return nil, fmt.Errorf("open compile cache %s: %w", cfg.cacheDir, err)
		}
	} else {
		s.cache = wazero.NewCompilationCache()
	}
	rc := wazero.NewRuntimeConfig().
		WithCompilationCache(s.cache).
		WithMemoryLimitPages(uint32(cfg.memoryMB) * (1 << 20 / wasmPageSize)).
		// Otherwise every non-zero exit builds a DWARF trace (0.5-6 s).
		WithDebugInfoEnabled(false)
	s.runtime = wazero.NewRuntimeWithConfig(s.ctx, rc)
	if _, err = wasi_snapshot_preview1.Instantiate(ctx, s.runtime); err != nil {
		return nil, fmt.Errorf("instantiate WASI: %w", err)
	}
	// A first compile takes seconds of CPU: spread it over the cores (a
	// cached one only loads).
	cctx := experimental.WithCompilationWorkers(ctx, runtime.GOMAXPROCS(0))
	if s.module, err = s.runtime.CompileModule(cctx, build.wasm); err != nil {
		return nil, fmt.Errorf("compile python.wasm: %w", err)
	}
	boot, err := s.bootstrapPyc(ctx, build.stdlib, build.sha256)
	if err != nil {
		// Still correct, only ~12 ms slower per start-up.
		s.log.Warn("precompile the bootstrap; compiling it at every start-up", "err", err)
	} else {
		build.stdlib[bootModulePath] = eagerNode(boot)
	}
	stdlib := newMemFS(build.stdlib)
	s.guest = guestConfig(stdlib, guestArgs(err == nil))
	s.globals = globals
	if !cfg.noSnapshot {
		// From the bootstrap's source: Asyncify instruments only the C
		// functions on the stack of its first read (python/refresh.sh), and
		// importing the compiled bootstrap would put others there.
		s.startFromSnapshot(ctx, guestConfig(stdlib, guestArgs(false)))
	}
	jsVer, jsSum := jsInfo()
	s.info = Runtime{
		Capability:            Capability,
		Language:              LanguagePython,
		Languages:             Languages(),
		PythonVersion:         build.version,
		Build:                 buildName,
		BuildSHA256:           build.sha256,
		JavaScriptEngine:      "quickjs " + jsVer,
		JavaScriptBuildSHA256: jsSum,
		Engine:                "wazero",
		EngineVersion:         EngineVersion,
		Limits: Limits{
			TimeoutDefaultMS: DefaultTimeoutMS,
			TimeoutMaxMS:     MaxTimeoutMS,
			MemoryMB:         cfg.memoryMB,
			OutputBytes:      cfg.outputLimit,
			CodeMaxBytes:     MaxCodeBytes,
			StdinMaxBytes:    MaxStdinBytes,
		},
	}
	if cfg.poolSize > 0 {
		s.ready = make(chan *instance, cfg.poolSize-1)
		s.wg.Add(1)
		go s.fill()
	}
	return s, nil
}

// startFromSnapshot takes the snapshot every instance will start from.
// Without one (a build without Asyncify, a failure) every instance runs
// CPython's start-up itself, which is correct, only slower.
func (s *Sandbox) startFromSnapshot(ctx context.Context, guest wazero.ModuleConfig) {
	snap, err := s.takeSnapshot(ctx, guest)
	if err != nil {
		s.log.Warn("snapshot the started interpreter; each instance starts CPython itself", "err", err)
		return
	}
	alloc, err := newMemoryAllocator(snap.image)
	if err != nil {
		s.log.Warn("map the snapshot; each instance starts CPython itself", "err", err)
		return
	}
	snap.image = nil // the allocator has its own copy
	s.snap, s.snapAlloc = snap, alloc
	// A build whose instrumented functions are not the stack of the read
	// would rewind wrongly: check a job before trusting it.
	// The probe's memory also teaches the allocator which pages a job
	// writes, so pooled instances copy them ahead of their jobs.
	alloc.learnHot()
	if err := s.probeSnapshot(ctx); err != nil {
		s.log.Warn("an instance restored from the snapshot failed its probe job; each instance starts CPython itself", "err", err)
		s.snap, s.snapAlloc = nil, nil
		_ = alloc.Close()
	}
}

// probeSnapshot runs a job, with its stdin, in an instance restored from
// the snapshot and checks its output.
func (s *Sandbox) probeSnapshot(ctx context.Context) error {
	inst, err := s.start(ctx)
	if err != nil {
		return err
	}
	req := Request{Code: "import sys\nprint(sum(range(10)), sys.stdin.read())", Stdin: "probe"}
	res, err := inst.run(ctx, jobPayload(req), bootCompileTimeout)
	if err != nil {
		return err
	}
	if res.ExitCode != 0 || res.Stdout != s.cfg.probeStdout || res.Stderr != "" {
		return fmt.Errorf("exit %d, stdout %q, stderr %q", res.ExitCode, res.Stdout, res.Stderr)
	}
	return nil
}

// Runtime returns the descriptor served at
// GET /capabilities/code.execute.sandboxed/runtime.
func (s *Sandbox) Runtime() Runtime { return s.info }

// Run executes req in a fresh interpreter and returns its result. A guest
// failure (exception, timeout, memory exhausted) is a Result with a non-zero
// ExitCode, not an error; errors are ErrInvalidRequest (and the errors that
// wrap it), ErrClosed, and ctx's error when ctx ends before the job does.
func (s *Sandbox) Run(ctx context.Context, req Request) (Result, error) {
	timeout, err := checkRequest(req)
	if err != nil {
		return Result{}, err
	}
	if s.ctx.Err() != nil {
		return Result{}, ErrClosed
	}
	// Wait for a core before taking an interpreter: a job's timeout counts
	// from when it runs, and jobs beyond the cores would only slow each
	// other down towards their timeouts.
	select {
	case s.running <- struct{}{}:
		defer func() { <-s.running }()
	case <-ctx.Done():
		return Result{}, ctx.Err()
	case <-s.ctx.Done():
		return Result{}, ErrClosed
	}
	var inst *instance
	if req.Language == LanguageJavaScript {
		inst, err = s.takeJS(ctx)
	} else {
		inst, err = s.take(ctx)
	}
	if err != nil {
		return Result{}, err
	}
	return inst.run(ctx, jobPayload(req), timeout)
}

// takeJS starts a QuickJS instance for a job.
func (s *Sandbox) takeJS(ctx context.Context) (*instance, error) {
	e, err := s.javascript(s.ctx)
	if err != nil {
		if s.ctx.Err() != nil {
			return nil, ErrClosed
		}
		return nil, err
	}
	inst, err := s.startJS(ctx, e)
	if err != nil {
		if s.ctx.Err() != nil {
			return nil, ErrClosed
		}
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, err
	}
	return inst, nil
}

// checkRequest validates req and returns its effective timeout.
func checkRequest(req Request) (time.Duration, error) {
	switch {
	case req.Language != "" && req.Language != LanguagePython && req.Language != LanguageJavaScript:
		return 0, fmt.Errorf("%w: %q (this sandbox runs %s)", ErrUnsupportedLanguage, req.Language, strings.Join(Languages(), ", "))
	case req.TimeoutMS > MaxTimeoutMS:
		return 0, fmt.Errorf("%w: timeout_ms %d > %d", ErrTimeoutTooLarge, req.TimeoutMS, MaxTimeoutMS)
	case req.TimeoutMS < 0:
		return 0, fmt.Errorf("%w: timeout_ms %d is negative", ErrInvalidRequest, req.TimeoutMS)
	case req.Code == "":
		return 0, fmt.Errorf("%w: code is empty", ErrInvalidRequest)
	case len(req.Code) > MaxCodeBytes:
		return 0, fmt.Errorf("%w: code is %d bytes, limit %d", ErrInvalidRequest, len(req.Code), MaxCodeBytes)
	case !utf8.ValidString(req.Code):
		return 0, fmt.Errorf("%w: code is not valid UTF-8", ErrInvalidRequest)
	case len(req.Stdin) > MaxStdinBytes:
		return 0, fmt.Errorf("%w: stdin is %d bytes, limit %d", ErrInvalidRequest, len(req.Stdin), MaxStdinBytes)
	}
	ms := req.TimeoutMS
	if ms == 0 {
		ms = DefaultTimeoutMS
	}
	return time.Duration(ms) * time.Millisecond, nil
}

// take returns a pre-started interpreter, or starts one when the pool is
// empty (or disabled) rather than wait for the filler.
func (s *Sandbox) take(ctx context.Context) (*instance, error) {
	select {
	case inst := <-s.ready:
		s.idle.Add(-1)
		return inst, nil
	default:
	}
	inst, err := s.start(ctx)
	if err != nil {
		if s.ctx.Err() != nil {
			return nil, ErrClosed
		}
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, err
	}
	return inst, nil
}

// fill keeps the pool full until Close.
func (s *Sandbox) fill() {
	defer s.wg.Done()
	for {
		// Start-up runs wasm too: it takes a slot like a job, so a job
		// never shares its core with a start-up and the node keeps a core.
		select {
		case s.running <- struct{}{}:
		case <-s.ctx.Done():
			return
		}
		inst, err := s.start(s.ctx)
		<-s.running
		if err != nil {
			if s.ctx.Err() != nil {
				return
			}
			// A failed start-up is a bug or an exhausted host; retry
			// slowly instead of spinning.
			s.log.Error("start pooled interpreter", "err", err)
			select {
			case <-time.After(time.Second):
				continue
			case <-s.ctx.Done():
				return
			}
		}
		s.idle.Add(1)
		select {
		case s.ready <- inst:
		case <-s.ctx.Done():
			inst.discard()
			return
		}
	}
}

// WaitReady blocks until the pool holds its full complement of pre-started
// interpreters (at once when the pool is disabled). Benchmarks use it to
// measure warm latency; a server need not call it.
func (s *Sandbox) WaitReady(ctx context.Context) error {
	tick := time.NewTicker(time.Millisecond)
	defer tick.Stop()
	for s.idle.Load() < int64(s.cfg.poolSize) {
		select {
		case <-tick.C:
		case <-ctx.Done():
			return ctx.Err()
		case <-s.ctx.Done():
			return ErrClosed
		}
	}
	return nil
}

// Close stops the pool, kills running jobs (their Run returns ErrClosed) and
// releases the runtime. It is idempotent.
func (s *Sandbox) Close(ctx context.Context) error {
	s.closeOnce.Do(func() {
		// Waits for a QuickJS compile under way; none starts after.
		s.js.once.Do(func() { s.js.err = ErrClosed })
		s.mu.Lock()
		s.cancel()
		s.mu.Unlock()
		s.wg.Wait()
		if s.runtime != nil {
			s.closeErr = s.runtime.Close(ctx)
		}
		if s.cache != nil {
			s.closeErr = errors.Join(s.closeErr, s.cache.Close(ctx))
		}
		if s.alloc != nil {
			s.closeErr = errors.Join(s.closeErr, s.alloc.Close())
		}
		if s.snapAlloc != nil {
			s.closeErr = errors.Join(s.closeErr, s.snapAlloc.Close())
		}
		s.closeErr = errors.Join(s.closeErr, s.js.close())
	})
	return s.closeErr
}
