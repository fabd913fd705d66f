package sandbox

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"strconv"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/experimental"
)

// A snapshot is what an interpreter holds at the moment it first reads
// stdin for the job (the interactive loop's read after the bootstrap,
// bootstrap.py): its linear memory and its globals, with the wasm call
// stack saved into that memory by Binaryen's Asyncify (the build is
// processed with it, python/refresh.sh). An instance restored
// from it maps the memory copy-on-write, sets the globals and rewinds into
// that same read: it is a fresh interpreter that no job touched, as if it
// had run CPython's start-up itself, for the cost of an instantiation.
//
// What a snapshot shares between the jobs restored from it is what
// CPython's start-up computed, and of that only one thing is random: the
// str/bytes hash secret (PYTHONHASHSEED), which CPython draws once at
// start-up and cannot change afterwards (every interned string keeps the
// hash it got). Nothing else random exists yet when the bootstrap reads
// its job: random, secrets, uuid and tempfile are imported by the job and
// seed themselves from os.urandom then, and os.urandom is the host's
// crypto/rand at every call. A new snapshot is taken by every New, so the
// hash secret lives as long as the Sandbox. What it protects against is
// hash flooding by whoever chooses a dict's keys, and in a job that is the
// buyer who sent the job; a job that learns the secret (hash values show
// it) learns nothing about another job's data and cannot reach it. It is
// what a fork server gives its workers (multiprocessing's fork, gunicorn):
// they share the parent's secret.
type snapshot struct {
	image   []byte   // the linear memory, whole
	globals []uint64 // the value of every mutable global, by exportGlobals' names
	// data is the address of Asyncify's data descriptor (where the saved
	// stack is), in the unused part of the C stack (asyncifyData).
	data uint32
}

// Exports Asyncify adds to the module.
const (
	asyncifyStartUnwind = "asyncify_start_unwind"
	asyncifyStopUnwind  = "asyncify_stop_unwind"
	asyncifyStartRewind = "asyncify_start_rewind"
	asyncifyStopRewind  = "asyncify_stop_rewind"
	asyncifyGetState    = "asyncify_get_state"
	// globalExportPrefix names the exports exportGlobals adds, followed by
	// the global's index.
	globalExportPrefix = "swarmwage_global_"
	// stackPointerGlobal is the index of the C stack pointer: wasm-ld's
	// __stack_pointer is the first global of the module it links.
	stackPointerGlobal = 0
	// asyncifyDataSize is how much of the C stack below the read's frames
	// holds the saved stack (a few KiB: about 25 frames, no Python code),
	// and asyncifyDataGap what it leaves below those frames (wasm's
	// 128-byte red zone and more).
	asyncifyDataSize = 64 << 10
	asyncifyDataGap  = 4 << 10
)

// Asyncify's states (asyncify_get_state).
const (
	asyncifyNormal    = 0
	asyncifyUnwinding = 1
)

// hasAsyncify reports whether the module exports Asyncify's functions.
func hasAsyncify(mod api.Module) bool {
	for _, name := range []string{asyncifyStartUnwind, asyncifyStopUnwind, asyncifyStartRewind, asyncifyStopRewind, asyncifyGetState} {
		if mod.ExportedFunction(name) == nil {
			return false
		}
	}
	return true
}

// exportGlobals returns wasm with an export, globalExportPrefix and its
// index, of every mutable global it defines, so that a snapshot can read
// and restore them, and how many there are. An imported global is an
// error: its value would not be the instance's to restore.
func exportGlobals(wasm []byte) ([]byte, []uint32, error) {
	secs, err := splitSections(wasm, true)
	if err != nil {
		return nil, nil, err
	}
	var mutable []uint32
	exportAt := -1
	for i, s := range secs {
		switch s.id {
		case sectionImport:
			if _, globals, _, err := findYield(s.body); err != nil {
				return nil, nil, err
			} else if globals != 0 {
				return nil, nil, fmt.Errorf("%w: imported globals", errMalformedWasm)
			}
		case sectionGlobal:
			var err error
			if mutable, err = mutableGlobals(s.body); err != nil {
				return nil, nil, err
			}
		case sectionExport:
			exportAt = i
		}
	}
	if exportAt < 0 {
		return nil, nil, fmt.Errorf("%w: no export section", errMalformedWasm)
	}
	er := &wasmReader{b: secs[exportAt].body}
	n := er.u32()
	if er.err != nil {
		return nil, nil, er.err
	}
	body := appendU32(nil, n+uint32(len(mutable)))
	body = append(body, er.b...)
	for _, g := range mutable {
		name := globalExportPrefix + strconv.Itoa(int(g))
		body = appendU32(body, uint32(len(name)))
		body = append(body, name...)
		body = append(body, externGlobal)
		body = appendU32(body, g)
	}
	secs[exportAt].body = body
	return joinSections(secs, len(wasm)+len(mutable)*32), mutable, nil
}

// mutableGlobals lists the indices of the mutable globals of a global
// section body.
func mutableGlobals(body []byte) ([]uint32, error) {
	r := &wasmReader{b: body}
	var mutable []uint32
	for i, n := uint32(0), r.u32(); i < n && r.err == nil; i++ {
		r.byte() // value type
		if r.byte() == 1 {
			mutable = append(mutable, i)
		}
		// The init expression: a constant or global.get, then end.
		switch op := r.byte(); op {
		case opI32Const:
			r.s32()
		case 0x42: // i64.const
			r.s64()
		case 0x43:
			r.bytes(4)
		case 0x44:
			r.bytes(8)
		case opGlobalGet:
			r.u32()
		default:
			return nil, fmt.Errorf("%w: global %d: init expression opcode 0x%02x", errMalformedWasm, i, op)
		}
		if r.byte() != opEnd {
			return nil, fmt.Errorf("%w: global %d: init expression not ended", errMalformedWasm, i)
		}
	}
	return mutable, r.err
}

// sectionExport is the export section's id.
const sectionExport = 7

// takeSnapshot starts an interpreter and snapshots it when it first reads
// stdin, after the bootstrap.
func (s *Sandbox) takeSnapshot(ctx context.Context, guest wazero.ModuleConfig) (*snapshot, error) {
	ctx, cancel := context.WithTimeout(ctx, bootCompileTimeout)
	defer cancel()
	stdin := &unwindReader{}
	stderr := newCappedBuffer(64 << 10)
	cfg := guest.WithStartFunctions().
		WithStdin(stdin).
		WithStdout(newCappedBuffer(64<<10)).
		WithStderr(stderr).
		WithNanotime(func() int64 { return 0 }, 1)
	mod, err := s.runtime.InstantiateModule(experimental.WithMemoryAllocator(ctx, s.alloc), s.module, cfg)
	if err != nil {
		return nil, fmt.Errorf("snapshot: instantiate: %w", err)
	}
	defer mod.Close(context.Background())
	if !hasAsyncify(mod) {
		return nil, errors.New("snapshot: the build has no Asyncify exports (python/refresh.sh makes them)")
	}
	stdin.mod, stdin.ctx = mod, ctx
	if stdin.top, err = stackPointer(mod); err != nil {
		return nil, fmt.Errorf("snapshot: %w", err)
	}
	if _, err := mod.ExportedFunction("_start").Call(ctx); err != nil {
		return nil, fmt.Errorf("snapshot: start-up: %w (stderr: %q)", err, stderr.String())
	}
	if stdin.err != nil {
		return nil, fmt.Errorf("snapshot: %w", stdin.err)
	}
	if !stdin.unwound {
		return nil, fmt.Errorf("snapshot: the interpreter returned without reading stdin (stderr: %q)", stderr.String())
	}
	state, err := mod.ExportedFunction(asyncifyGetState).Call(ctx)
	if err != nil || state[0] != asyncifyUnwinding {
		return nil, fmt.Errorf("snapshot: the stack did not unwind (asyncify state %v, %v)", state, err)
	}
	if _, err := mod.ExportedFunction(asyncifyStopUnwind).Call(ctx); err != nil {
		return nil, fmt.Errorf("snapshot: stop unwind: %w", err)
	}
	snap := &snapshot{data: stdin.data}
	for _, g := range s.globals {
		v := mod.ExportedGlobal(globalExportPrefix + strconv.Itoa(int(g)))
		if v == nil {
			return nil, fmt.Errorf("snapshot: global %d is not exported", g)
		}
		snap.globals = append(snap.globals, v.Get())
	}
	mem := mod.Memory()
	buf, ok := mem.Read(0, mem.Size())
	if !ok {
		return nil, errors.New("snapshot: read the linear memory")
	}
	snap.image = append([]byte(nil), buf...)
	return snap, nil
}

// unwindReader is the stdin of the interpreter a snapshot is taken of: at
// its first read it saves the wasm stack (Asyncify) and lets the call
// return, so that _start returns to the host with the interpreter's state
// all in linear memory.
//
// The stack is saved below the C stack pointer of the read: CPython's WASI
// build puts its C stack first in memory (-Wl,--stack-first, 512 KiB), so
// what lies below the deepest frame is stack no frame uses, until the
// rewind of a restored instance has read it back and the job runs.
type unwindReader struct {
	ctx     context.Context
	mod     api.Module
	top     uint32 // the stack pointer before _start: the stack's top
	unwound bool
	data    uint32
	err     error
}

func (r *unwindReader) Read(p []byte) (int, error) {
	if r.unwound || r.mod == nil {
		r.err = errors.New("stdin read again while unwinding")
		return 0, errors.New("unexpected read")
	}
	r.unwound = true
	sp, err := stackPointer(r.mod)
	switch {
	case err != nil:
		r.err = err
		return 0, err
	case sp > r.top || sp < asyncifyDataSize+asyncifyDataGap+wasmPageSize:
		r.err = fmt.Errorf("the stack pointer at the read is %#x (top %#x): not room for the saved stack below it", sp, r.top)
		return 0, r.err
	}
	addr := (sp - asyncifyDataGap - asyncifyDataSize) &^ 15
	desc, ok := r.mod.Memory().Read(addr, 8)
	if !ok {
		r.err = fmt.Errorf("the saved stack's place %#x is outside the memory", addr)
		return 0, r.err
	}
	// Asyncify's descriptor: where the saved stack goes, and its end.
	binary.LittleEndian.PutUint32(desc[0:], addr+8)
	binary.LittleEndian.PutUint32(desc[4:], addr+asyncifyDataSize)
	if _, err := r.mod.ExportedFunction(asyncifyStartUnwind).Call(r.ctx, uint64(addr)); err != nil {
		r.err = fmt.Errorf("start unwind: %w", err)
		return 0, r.err
	}
	r.data = addr
	return 0, nil
}

// stackPointer returns the guest's C stack pointer.
func stackPointer(mod api.Module) (uint32, error) {
	g := mod.ExportedGlobal(globalExportPrefix + strconv.Itoa(stackPointerGlobal))
	if g == nil || g.Type() != api.ValueTypeI32 {
		return 0, fmt.Errorf("global %d is not an exported i32, not the stack pointer", stackPointerGlobal)
	}
	return uint32(g.Get()), nil
}

// restore prepares a fresh instance of the module to continue from snap:
// its memory must already be snap.image (the snapshot allocator maps it);
// restore grows it to the snapshot's size, sets the globals and starts the
// rewind, which the next _start call carries out.
func restore(ctx context.Context, mod api.Module, snap *snapshot, globals []uint32) error {
	mem := mod.Memory()
	if want := uint32(len(snap.image) / wasmPageSize); mem.Size()/wasmPageSize < want {
		if _, ok := mem.Grow(want - mem.Size()/wasmPageSize); !ok {
			return fmt.Errorf("restore: grow memory to %d pages", want)
		}
	}
	for i, g := range globals {
		v, ok := mod.ExportedGlobal(globalExportPrefix + strconv.Itoa(int(g))).(api.MutableGlobal)
		if !ok {
			return fmt.Errorf("restore: global %d is not an exported mutable global", g)
		}
		v.Set(snap.globals[i])
	}
	if _, err := mod.ExportedFunction(asyncifyStartRewind).Call(ctx, uint64(snap.data)); err != nil {
		return fmt.Errorf("restore: start rewind: %w", err)
	}
	return nil
}
