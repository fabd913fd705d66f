package sandbox

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/imports/wasi_snapshot_preview1"
)

// exportGlobals exports the mutable globals, and wazero lets the host set
// them through those exports.
func TestExportGlobals(t *testing.T) {
	ctx := context.Background()
	wasm, globals, err := exportGlobals(spinModule(true))
	require.NoError(t, err)
	require.Equal(t, []uint32{0}, globals)

	r := wazero.NewRuntime(ctx)
	defer r.Close(ctx)
	wasi_snapshot_preview1.MustInstantiate(ctx, r)
	mod, err := r.InstantiateWithConfig(ctx, wasm, wazero.NewModuleConfig().WithStartFunctions())
	require.NoError(t, err)
	g, ok := mod.ExportedGlobal(globalExportPrefix + "0").(api.MutableGlobal)
	require.True(t, ok)
	require.Equal(t, uint64(7), g.Get())
	g.Set(42)
	require.Equal(t, uint64(42), mod.ExportedGlobal(globalExportPrefix+"0").Get())
	require.NotNil(t, mod.ExportedFunction("spin"), "the module's own exports stay")

	// Without globals there is nothing to export; the module still loads.
	wasm, globals, err = exportGlobals(spinModule(false))
	require.NoError(t, err)
	require.Empty(t, globals)
	_, err = r.CompileModule(ctx, wasm)
	require.NoError(t, err)
}

func TestExportGlobalsRejectsBadModules(t *testing.T) {
	good := spinModule(true)
	for name, b := range map[string][]byte{
		"empty":     nil,
		"header":    []byte("\x00asm\x02\x00\x00\x00"),
		"truncated": good[:len(good)-3],
		"no export": []byte("\x00asm\x01\x00\x00\x00"),
	} {
		_, _, err := exportGlobals(b)
		require.ErrorIs(t, err, errMalformedWasm, name)
	}
}

func FuzzExportGlobalsNoPanic(f *testing.F) {
	f.Add(spinModule(true))
	f.Add(spinModule(false))
	f.Fuzz(func(t *testing.T, b []byte) {
		_, _, _ = exportGlobals(b)
	})
}
