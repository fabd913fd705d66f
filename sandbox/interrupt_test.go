package sandbox

import (
	"bytes"
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/sys"
)

// spinModule is
//
//	(import "wasi_snapshot_preview1" "sched_yield" (func (result i32)))
//	(global (mut i32) (i32.const 7))
//	(func (export "spin") (loop (br 0)))
//	(func (export "nested") (result i32)
//	  (loop (loop (br 1))) (i32.const 1))
//
// with a custom section that instrumentLoops must drop.
func spinModule(withGlobal bool) []byte {
	m := []byte("\x00asm\x01\x00\x00\x00")
	m = append(m, 0, 4, 1, 'x', 0xaa, 0xbb) // custom section "x"
	m = append(m, sectionType, 5, 1, 0x60, 0, 1, valI32)
	imp := []byte{1, 22}
	imp = append(imp, "wasi_snapshot_preview1"...)
	imp = append(imp, 11)
	imp = append(imp, "sched_yield"...)
	imp = append(imp, externFunc, 0)
	m = append(m, sectionImport, byte(len(imp)))
	m = append(m, imp...)
	// Two functions; types: () -> i32 (type 0) for both is simplest, so
	// spin ends its body with unreachable to type-check.
	m = append(m, 3, 3, 2, 0, 0) // function section
	if withGlobal {
		m = append(m, sectionGlobal, 6, 1, valI32, 1, opI32Const, 7, opEnd)
	}
	exp := []byte{2, 4, 's', 'p', 'i', 'n', externFunc, 1, 6, 'n', 'e', 's', 't', 'e', 'd', externFunc, 2}
	m = append(m, 7, byte(len(exp)))
	m = append(m, exp...)
	spin := []byte{0, opLoop, blockEmpty, 0x0c, 0, opEnd, 0x00, opEnd}
	nested := []byte{0, opLoop, blockEmpty, opLoop, blockEmpty, 0x0c, 1, opEnd, opEnd, opI32Const, 1, opEnd}
	code := []byte{2, byte(len(spin))}
	code = append(code, spin...)
	code = append(code, byte(len(nested)))
	code = append(code, nested...)
	m = append(m, sectionCode, byte(len(code)))
	return append(m, code...)
}

// The countdown calls sched_yield every period iterations, and a yield
// that panics with an exit error stops the loop.
func TestInstrumentLoopsStopsBusyLoop(t *testing.T) {
	for _, withGlobal := range []bool{false, true} {
		ctx := context.Background()
		wasm, err := instrumentLoops(spinModule(withGlobal), 4)
		require.NoError(t, err)
		require.False(t, bytes.Contains(wasm, []byte{0xaa, 0xbb}), "custom section dropped")

		r := wazero.NewRuntime(ctx)
		yields := 0
		_, err = r.NewHostModuleBuilder("wasi_snapshot_preview1").
			NewFunctionBuilder().WithFunc(func(context.Context, api.Module) int32 {
			yields++
			if yields == 3 {
				panic(sys.NewExitError(sys.ExitCodeContextCanceled))
			}
			return 0
		}).Export("sched_yield").Instantiate(ctx)
		require.NoError(t, err)
		mod, err := r.Instantiate(ctx, wasm)
		require.NoError(t, err)
		for _, fn := range []string{"spin", "nested"} {
			yields = 0
			_, err = mod.ExportedFunction(fn).Call(ctx)
			var exit *sys.ExitError
			require.True(t, errors.As(err, &exit), "%s: %v", fn, err)
			require.Equal(t, sys.ExitCodeContextCanceled, exit.ExitCode())
			require.Equal(t, 3, yields)
		}
		require.NoError(t, r.Close(ctx))
	}
}

// The embedded build instruments: a check at each of its loops (4,973,
// as binaryen's wasm-opt --metrics counts them), deterministically, since
// the compile cache keys on the result.
func TestInstrumentLoopsEmbeddedBuild(t *testing.T) {
	b, err := loadBuild()
	require.NoError(t, err)
	out, err := instrumentLoops(b.wasm, checkPeriod)
	require.NoError(t, err)
	r := &wasmReader{b: b.wasm[8:]}
	var yield, globals uint32
	for len(r.b) > 0 {
		id := r.byte()
		body := r.bytes(r.u32())
		require.NoError(t, r.err)
		switch id {
		case sectionImport:
			var found bool
			yield, _, found, err = findYield(body)
			require.NoError(t, err)
			require.True(t, found)
		case sectionGlobal:
			globals = (&wasmReader{b: body}).u32()
		}
	}
	require.Equal(t, 4973, bytes.Count(out, loopCheck(globals, yield, checkPeriod)))

	again, err := instrumentLoops(b.wasm, checkPeriod)
	require.NoError(t, err)
	require.Equal(t, out, again)
}

func TestInstrumentLoopsRejectsBadModules(t *testing.T) {
	good := spinModule(true)
	for name, bad := range map[string][]byte{
		"empty":          nil,
		"truncated":      good[:len(good)-3],
		"no yield":       bytes.Replace(good, []byte("sched_yield"), []byte("sched_yielx"), 1),
		"simd opcode":    bytes.Replace(good, []byte{opI32Const, 1, opEnd}, []byte{0xfd, 1, opEnd}, 1),
		"code after end": append(bytes.Clone(good[:len(good)-1]), opEnd, 0x01),
	} {
		_, err := instrumentLoops(bad, 4)
		require.ErrorIs(t, err, errMalformedWasm, name)
	}
}

func FuzzInstrumentLoopsNoPanic(f *testing.F) {
	f.Add(spinModule(true))
	f.Add(spinModule(false))
	f.Fuzz(func(t *testing.T, b []byte) {
		out, err := instrumentLoops(b, 3)
		if err == nil {
			require.GreaterOrEqual(t, len(out), 8)
		}
	})
}
