package sandbox

import (
	"bytes"
	"encoding/binary"
	"fmt"
)

// The sandbox stops a busy guest with a countdown of its own instead of
// wazero's WithCloseOnContextDone, which leaves compiled code for Go at
// every loop iteration (wazero issue 2466) and made CPU-bound Python ~1.7x
// slower. instrumentLoops adds to the module one mutable global and, at the
// head of every loop, code that counts it down; every checkPeriod
// iterations it resets it and calls the module's own WASI sched_yield
// import, whose host side (instance.yield) ends the guest once its job's
// context is done. Only the added code touches the global, so a guest that
// corrupts its own linear memory still cannot stop the countdown; wasm has
// no way to run code that the module does not contain.
//
// Termination is as certain as wazero's own check, which also sits at loop
// heads only: code without a loop runs in bounded time.

// checkPeriod is how many loop iterations run between two checks: about
// 0.2 ms of CPython on this engine, so a timeout overshoots by about that
// much and the Go scheduler (a garbage collection's stop-the-world
// included) waits no longer for a busy guest.
const checkPeriod = 1 << 14

// Wasm binary encoding, as much as instrumentLoops needs.
const (
	sectionCustom = 0
	sectionType   = 1
	sectionImport = 2
	sectionGlobal = 6
	sectionCode   = 10

	externFunc   = 0
	externTable  = 1
	externMemory = 2
	externGlobal = 3

	opLoop      = 0x03
	opIf        = 0x04
	opEnd       = 0x0b
	opCall      = 0x10
	opDrop      = 0x1a
	opGlobalGet = 0x23
	opGlobalSet = 0x24
	opI32Const  = 0x41
	opI32Eqz    = 0x45
	opI32Add    = 0x6a
	blockEmpty  = 0x40
	valI32      = 0x7f
)

// instrumentLoops returns a copy of wasm with the countdown at every loop
// head and without its custom sections (debug info nothing reads). It
// accepts the instruction set of WebAssembly 2.0 without SIMD; anything
// else is an error, never a module left partly instrumented.
func instrumentLoops(wasm []byte, period uint32) ([]byte, error) {
	if period == 0 || period > 1<<30 {
		return nil, fmt.Errorf("instrument loops: period %d", period)
	}
	secs, err := splitSections(wasm, false)
	if err != nil {
		return nil, err
	}

	yield, importedGlobals, found := uint32(0), uint32(0), false
	definedGlobals, globalSec, codeSec := uint32(0), -1, -1
	for i, s := range secs {
		switch s.id {
		case sectionImport:
			var err error
			if yield, importedGlobals, found, err = findYield(s.body); err != nil {
				return nil, err
			}
		case sectionGlobal:
			globalSec = i
			definedGlobals = (&wasmReader{b: s.body}).u32()
		case sectionCode:
			codeSec = i
		}
	}
	switch {
	case !found:
		return nil, fmt.Errorf("%w: no import wasi_snapshot_preview1.sched_yield () -> i32 to check termination with", errMalformedWasm)
	case codeSec < 0:
		return nil, fmt.Errorf("%w: no code section", errMalformedWasm)
	}
	counter := importedGlobals + definedGlobals

	// The counter: (global (mut i32) (i32.const period)).
	newGlobal := []byte{valI32, 1, opI32Const}
	newGlobal = appendS32(newGlobal, int32(period))
	newGlobal = append(newGlobal, opEnd)
	if globalSec >= 0 {
		gr := &wasmReader{b: secs[globalSec].body}
		gr.u32()
		body := appendU32(nil, definedGlobals+1)
		body = append(append(body, gr.b...), newGlobal...)
		secs[globalSec].body = body
	} else {
		// Sections are ordered by id; the global section precedes the
		// export (7) and code (10) sections.
		at := len(secs)
		for i, s := range secs {
			if s.id > sectionGlobal {
				at = i
				break
			}
		}
		secs = append(secs[:at], append([]wasmSection{{sectionGlobal, append(appendU32(nil, 1), newGlobal...)}}, secs[at:]...)...)
		if codeSec >= at {
			codeSec++
		}
	}

	check := loopCheck(counter, yield, period)
	code, err := instrumentCode(secs[codeSec].body, check)
	if err != nil {
		return nil, err
	}
	secs[codeSec].body = code
	return joinSections(secs, len(wasm)), nil
}

// wasmSection is one section of a wasm module.
type wasmSection struct {
	id   byte
	body []byte
}

// splitSections checks wasm's header and returns its sections in order;
// custom sections (names, debug info) only if keepCustom.
func splitSections(wasm []byte, keepCustom bool) ([]wasmSection, error) {
	if len(wasm) < 8 || !bytes.Equal(wasm[:8], []byte(wasmHeader)) {
		return nil, fmt.Errorf("%w: bad header", errMalformedWasm)
	}
	var secs []wasmSection
	r := &wasmReader{b: wasm[8:]}
	for len(r.b) > 0 && r.err == nil {
		id := r.byte()
		body := r.bytes(r.u32())
		if keepCustom || id != sectionCustom {
			secs = append(secs, wasmSection{id, body})
		}
	}
	if r.err != nil {
		return nil, r.err
	}
	return secs, nil
}

// wasmHeader is the magic number and version 1 of a wasm module.
const wasmHeader = "\x00asm\x01\x00\x00\x00"

// joinSections is the module of secs; sizeHint is its expected size.
func joinSections(secs []wasmSection, sizeHint int) []byte {
	out := append(make([]byte, 0, sizeHint), wasmHeader...)
	for _, s := range secs {
		out = append(out, s.id)
		out = appendU32(out, uint32(len(s.body)))
		out = append(out, s.body...)
	}
	return out
}

// findYield returns the function index of the sched_yield import and how
// many globals are imported (defined globals are numbered after them).
func findYield(body []byte) (yield, globals uint32, found bool, err error) {
	r := &wasmReader{b: body}
	funcs := uint32(0)
	for n := r.u32(); n > 0 && r.err == nil; n-- {
		mod, name := string(r.bytes(r.u32())), string(r.bytes(r.u32()))
		switch kind := r.byte(); kind {
		case externFunc:
			typ := r.u32()
			if mod == "wasi_snapshot_preview1" && name == "sched_yield" {
				yield, found = funcs, true
				_ = typ // the type is checked by wazero: a wrong one fails instantiation
			}
			funcs++
		case externTable:
			r.byte() // element type
			readLimits(r)
		case externMemory:
			readLimits(r)
		case externGlobal:
			r.byte() // value type
			r.byte() // mutability
			globals++
		default:
			return 0, 0, false, fmt.Errorf("%w: import %s.%s of kind %d", errMalformedWasm, mod, name, kind)
		}
	}
	return yield, globals, found, r.err
}

func readLimits(r *wasmReader) {
	if flags := r.byte(); flags&1 != 0 {
		r.u32()
		r.u32()
	} else {
		r.u32()
	}
}

// loopCheck is the code put at every loop head:
//
//	global.get $c  i32.eqz
//	if  i32.const period  global.set $c  call $sched_yield  drop  end
//	global.get $c  i32.const -1  i32.add  global.set $c
//
// It leaves the operand stack as it found it.
func loopCheck(counter, yield, period uint32) []byte {
	b := appendU32([]byte{opGlobalGet}, counter)
	b = append(b, opI32Eqz, opIf, blockEmpty, opI32Const)
	b = appendS32(b, int32(period))
	b = appendU32(append(b, opGlobalSet), counter)
	b = appendU32(append(b, opCall), yield)
	b = append(b, opDrop, opEnd)
	b = appendU32(append(b, opGlobalGet), counter)
	b = append(b, opI32Const, 0x7f, opI32Add)
	return appendU32(append(b, opGlobalSet), counter)
}

// instrumentCode rewrites a code section body, inserting check after the
// block type of every loop instruction.
func instrumentCode(body []byte, check []byte) ([]byte, error) {
	r := &wasmReader{b: body}
	n := r.u32()
	out := appendU32(make([]byte, 0, len(body)+len(body)/8), n)
	var fn []byte
	for i := uint32(0); i < n; i++ {
		size := r.u32()
		code := r.bytes(size)
		if r.err != nil {
			return nil, fmt.Errorf("function body %d: %w", i, r.err)
		}
		var err error
		if fn, err = instrumentBody(fn[:0], code, check); err != nil {
			return nil, fmt.Errorf("function body %d: %w", i, err)
		}
		out = appendU32(out, uint32(len(fn)))
		out = append(out, fn...)
	}
	if len(r.b) != 0 {
		return nil, fmt.Errorf("%w: %d bytes after the last function body", errMalformedWasm, len(r.b))
	}
	return out, nil
}

// instrumentBody appends to dst the function body code with check inserted
// at every loop head.
func instrumentBody(dst, code, check []byte) ([]byte, error) {
	r := &wasmReader{b: code}
	for groups := r.u32(); groups > 0 && r.err == nil; groups-- {
		r.u32()  // count
		r.byte() // type
	}
	if r.err != nil {
		return nil, r.err
	}
	copied := 0 // code[:copied] is in dst
	depth := 1  // the function's own block
	for len(r.b) > 0 {
		op := r.byte()
		switch op {
		case 0x02, opLoop, opIf: // block, loop, if: a block type
			depth++
			r.s33()
			if op == opLoop && r.err == nil {
				at := len(code) - len(r.b)
				dst = append(append(dst, code[copied:at]...), check...)
				copied = at
			}
		case opEnd:
			depth--
			if depth == 0 && len(r.b) != 0 {
				return nil, fmt.Errorf("%w: code after the function's end", errMalformedWasm)
			}
		case 0x0c, 0x0d, 0x10, 0x12, 0x20, 0x21, 0x22, 0x23, 0x24, 0x25, 0x26, 0xd2:
			// br, br_if, call, return_call, local.*, global.*, table.get/set, ref.func
			r.u32()
		case 0x0e: // br_table
			for k := r.u32(); k > 0 && r.err == nil; k-- {
				r.u32()
			}
			r.u32()
		case 0x11, 0x13: // call_indirect, return_call_indirect: type, table
			r.u32()
			r.u32()
		case 0x1c: // select t*
			for k := r.u32(); k > 0 && r.err == nil; k-- {
				r.byte()
			}
		case 0x3f, 0x40: // memory.size, memory.grow
			r.u32()
		case opI32Const:
			r.s32()
		case 0x42: // i64.const
			r.s64()
		case 0x43: // f32.const
			r.bytes(4)
		case 0x44: // f64.const
			r.bytes(8)
		case 0xd0: // ref.null
			r.byte()
		case 0xfc:
			if err := skipPrefixed(r); err != nil {
				return nil, err
			}
		default:
			switch {
			case op >= 0x28 && op <= 0x3e: // loads and stores: memarg
				r.u32()
				r.u32()
			case op <= 0x01, op == 0x05, op == 0x0f, op == 0x1a, op == 0x1b, op == 0xd1,
				op >= 0x45 && op <= 0xc4: // no immediates
			default:
				return nil, fmt.Errorf("%w: opcode 0x%02x not supported", errMalformedWasm, op)
			}
		}
		if r.err != nil {
			return nil, r.err
		}
	}
	if depth != 0 {
		return nil, fmt.Errorf("%w: function body not ended", errMalformedWasm)
	}
	return append(dst, code[copied:]...), nil
}

// skipPrefixed skips an 0xfc instruction: saturating truncation, bulk
// memory and table operations.
func skipPrefixed(r *wasmReader) error {
	switch sub := r.u32(); {
	case sub <= 7: // trunc_sat
	case sub == 8 || sub == 12 || sub == 14: // memory.init, table.init, table.copy
		r.u32()
		r.u32()
	case sub == 10: // memory.copy
		r.u32()
		r.u32()
	case sub == 9 || sub == 11 || (sub >= 13 && sub <= 17): // data.drop, memory.fill, elem.drop, table.grow/size/fill
		r.u32()
	default:
		return fmt.Errorf("%w: opcode 0xfc %d not supported", errMalformedWasm, sub)
	}
	return nil
}

// s33 reads a block type: 0x40, a value type, or a type index.
func (r *wasmReader) s33() {
	for shift := 0; shift < 35; shift += 7 {
		if c := r.byte(); c < 0x80 {
			return
		}
	}
	r.fail()
}

func (r *wasmReader) s64() {
	for shift := 0; shift < 70; shift += 7 {
		if c := r.byte(); c < 0x80 {
			return
		}
	}
	r.fail()
}

func appendU32(b []byte, v uint32) []byte { return binary.AppendUvarint(b, uint64(v)) }

// appendS32 appends v in signed LEB128.
func appendS32(b []byte, v int32) []byte {
	x := int64(v)
	for {
		c := byte(x & 0x7f)
		x >>= 7
		if (x == 0 && c&0x40 == 0) || (x == -1 && c&0x40 != 0) {
			return append(b, c)
		}
		b = append(b, c|0x80)
	}
}
