package sandbox

import (
	"context"
	"crypto/rand"
	_ "embed"
	"fmt"
	"runtime"
	"strings"
	"sync"

	"github.com/klauspost/compress/zstd"
	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/experimental"
)

// JavaScript jobs run on QuickJS built for WASI (javascript/refresh.sh
// builds it from Debian's quickjs source with javascript/main.c, the guest
// side of the job protocol). The guest has no std or os module: no files,
// no sockets, no environment, no timers; console.log and print write to
// stdout, console.error to stderr, readline() and readStdin() read the
// job's stdin, process.exit(n) exits with n & 0xff, an uncaught exception
// or unhandled rejection exits 1. The same countdown as Python's
// (interrupt.go) stops a busy guest at its timeout, the same memory cap
// and output caps apply, and every job gets a fresh instance whose memory
// starts as a copy-on-write mapping of the build's data segments. There is
// no snapshot and no pool: QuickJS starts in about a millisecond, so each
// job starts its own. The module is compiled on the first JavaScript job.

var (
	//go:embed javascript/quickjs.wasm.zst
	jsWasmZst []byte
	//go:embed javascript/SHA256
	jsSHA256 string
	//go:embed javascript/VERSION
	jsVersion string
)

// maxJSWasmBytes bounds the decompressed QuickJS build (about 1 MiB today).
const maxJSWasmBytes = 32 << 20

// jsEngine is the compiled QuickJS build, made once on first use.
type jsEngine struct {
	once   sync.Once
	err    error
	module wazero.CompiledModule
	alloc  memoryAllocator
}

// loadJSBuild decompresses the embedded quickjs.wasm and checks it against
// javascript/SHA256.
func loadJSBuild() ([]byte, error) {
	dec, err := zstd.NewReader(nil, zstd.WithDecoderConcurrency(1),
		zstd.WithDecoderMaxMemory(maxJSWasmBytes), zstd.WithDecoderMaxWindow(maxJSWasmBytes))
	if err != nil {
		return nil, fmt.Errorf("open embedded quickjs.wasm.zst: %w", err)
	}
	defer dec.Close()
	wasm, err := dec.DecodeAll(jsWasmZst, nil)
	if err != nil {
		return nil, fmt.Errorf("decompress embedded quickjs.wasm.zst: %w", err)
	}
	if err := checkSum("quickjs.wasm", wasm, parseSums(jsSHA256)["quickjs.wasm"]); err != nil {
		return nil, err
	}
	return wasm, nil
}

// jsInfo describes the QuickJS build for Runtime without loading it.
func jsInfo() (version, sha string) {
	return strings.TrimSpace(jsVersion), parseSums(jsSHA256)["quickjs.wasm"]
}

// javascript returns the compiled QuickJS engine, compiling it on the
// first call.
func (s *Sandbox) javascript(ctx context.Context) (*jsEngine, error) {
	e := s.js
	e.once.Do(func() { e.err = s.compileJS(ctx) })
	return e, e.err
}

func (s *Sandbox) compileJS(ctx context.Context) error {
	wasm, err := loadJSBuild()
	if err != nil {
		return err
	}
	if !s.cfg.noTermination {
		if wasm, err = instrumentLoops(wasm, checkPeriod); err != nil {
			return fmt.Errorf("instrument quickjs.wasm for timeouts: %w", err)
		}
	}
	image, err := memoryImage(wasm)
	if err != nil {
		return fmt.Errorf("read quickjs.wasm data segments: %w", err)
	}
	if stripped, serr := stripData(wasm); serr == nil {
		if alloc, aerr := newMemoryAllocator(image); aerr == nil {
			s.js.alloc, wasm = alloc, stripped
		}
	}
	if s.js.alloc == nil {
		if s.js.alloc, err = newMemoryAllocator(nil); err != nil {
			return err
		}
	}
	cctx := experimental.WithCompilationWorkers(ctx, runtime.GOMAXPROCS(0))
	if s.js.module, err = s.runtime.CompileModule(cctx, wasm); err != nil {
		return fmt.Errorf("compile quickjs.wasm: %w", err)
	}
	return nil
}

// jsGuestConfig is the module config of every QuickJS instance: no
// filesystem, no environment, no sockets, the real wall clock and real
// entropy (Math.random is seeded from it).
func jsGuestConfig() wazero.ModuleConfig {
	return wazero.NewModuleConfig().
		WithName("").
		WithArgs("qjs").
		WithRandSource(rand.Reader).
		WithSysWalltime().
		WithStartFunctions("_start")
}

// close releases the engine's memory image.
func (e *jsEngine) close() error {
	if e == nil || e.alloc == nil {
		return nil
	}
	return e.alloc.Close()
}
