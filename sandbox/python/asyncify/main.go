// Command asyncify helps python/refresh.sh instrument the CPython build
// with Binaryen's Asyncify for the sandbox's snapshot (sandbox/snapshot.go).
//
//	asyncify stack python.wasm bootstrap.py HOME
//
// runs `python -S -B -i -c <bootstrap.py>` on wazero (the sandbox's
// arguments, sandbox/bootstrap.go), with the directory
// HOME (lib/pythonX.Y inside) mounted read-only as PYTHONHOME /python the
// way the sandbox serves its standard library, and prints, comma
// separated, the names (f<index>) of the functions on the wasm stack when
// the interpreter first reads stdin: the functions Asyncify must
// instrument (its onlylist) to unwind and rewind from there.
//
//	asyncify names in.wasm out.wasm
//
// writes in.wasm with a name section that names every function f<index>,
// so that the onlylist can name them (the build has no names).
package main

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/experimental"
	"github.com/tetratelabs/wazero/imports/wasi_snapshot_preview1"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "asyncify:", err)
		os.Exit(1)
	}
}

func run(args []string) error {
	switch {
	case len(args) == 4 && args[0] == "stack":
		names, err := readStack(args[1], args[2], args[3])
		if err != nil {
			return err
		}
		fmt.Println(strings.Join(names, ","))
		return nil
	case len(args) == 3 && args[0] == "names":
		wasm, err := os.ReadFile(args[1])
		if err != nil {
			return err
		}
		out, err := addNames(wasm)
		if err != nil {
			return err
		}
		return os.WriteFile(args[2], out, 0o644)
	}
	return errors.New("usage: asyncify stack python.wasm bootstrap.py HOME | asyncify names in.wasm out.wasm")
}

// readStack returns the stack at the first read of stdin. A listener on
// every function records the functions that return after that read
// (the inner frames) until one makes a call, whose stack iterator gives
// the outer frames.
func readStack(wasmPath, bootstrapPath, home string) ([]string, error) {
	ctx := context.Background()
	wasm, err := os.ReadFile(wasmPath)
	if err != nil {
		return nil, err
	}
	boot, err := os.ReadFile(bootstrapPath)
	if err != nil {
		return nil, err
	}
	rec := &recorder{}
	r := wazero.NewRuntime(ctx)
	defer r.Close(ctx)
	wasi_snapshot_preview1.MustInstantiate(ctx, r)
	mod, err := r.CompileModule(experimental.WithFunctionListenerFactory(ctx, rec), wasm)
	if err != nil {
		return nil, fmt.Errorf("compile %s: %w", wasmPath, err)
	}
	cfg := wazero.NewModuleConfig().
		WithArgs("python", "-S", "-B", "-i", "-c", string(boot)).
		WithEnv("PYTHONHOME", "/python").
		WithFSConfig(wazero.NewFSConfig().WithReadOnlyDirMount(home, "/python")).
		WithStdin(armReader{rec}).
		WithStderr(os.Stderr)
	_, err = r.InstantiateModule(ctx, mod, cfg)
	if !rec.done {
		return nil, fmt.Errorf("the interpreter never read stdin: %v", err)
	}
	// Outermost first, as a stack trace reads bottom up.
	slices.Reverse(rec.outer)
	return append(rec.outer, rec.inner...), nil
}

type recorder struct {
	armed, done  bool
	inner, outer []string
}

func name(def api.FunctionDefinition) string { return "f" + strconv.Itoa(int(def.Index())) }

func (r *recorder) NewFunctionListener(api.FunctionDefinition) experimental.FunctionListener {
	return r
}

func (r *recorder) Before(_ context.Context, _ api.Module, _ api.FunctionDefinition, _ []uint64, si experimental.StackIterator) {
	if !r.armed || r.done {
		return
	}
	r.done = true
	si.Next() // the function being called, not on the read's stack
	for si.Next() {
		r.outer = append(r.outer, name(si.Function().Definition()))
	}
	panic("stack recorded")
}

func (r *recorder) After(_ context.Context, _ api.Module, def api.FunctionDefinition, _ []uint64) {
	if r.armed && !r.done {
		// Innermost first; the outer frames come after in reverse.
		r.inner = append([]string{name(def)}, r.inner...)
	}
}

func (r *recorder) Abort(context.Context, api.Module, api.FunctionDefinition, error) {}

// armReader is stdin: its first read arms the recorder and ends the input.
type armReader struct{ rec *recorder }

func (a armReader) Read([]byte) (int, error) {
	a.rec.armed = true
	return 0, io.EOF
}

// addNames appends a name section naming every function f<index>.
func addNames(wasm []byte) ([]byte, error) {
	if len(wasm) < 8 || string(wasm[:8]) != "\x00asm\x01\x00\x00\x00" {
		return nil, errors.New("not a wasm module")
	}
	imported, defined := uint64(0), uint64(0)
	for b := wasm[8:]; len(b) > 0; {
		id := b[0]
		size, n := binary.Uvarint(b[1:])
		if n <= 0 || uint64(len(b)-1-n) < size {
			return nil, errors.New("truncated section")
		}
		body := b[1+n : 1+n+int(size)]
		b = b[1+n+int(size):]
		switch id {
		case 2: // imports: count the functions
			count, k := binary.Uvarint(body)
			p := body[k:]
			for range count {
				for range 2 { // module and field names
					l, k := binary.Uvarint(p)
					p = p[k+int(l):]
				}
				if p[0] != 0 {
					return nil, fmt.Errorf("import of kind %d (only functions expected)", p[0])
				}
				_, k := binary.Uvarint(p[1:])
				p = p[1+k:]
				imported++
			}
		case 3: // functions
			defined, _ = binary.Uvarint(body)
		}
	}
	total := imported + defined
	sub := binary.AppendUvarint(nil, total)
	for i := range total {
		nm := "f" + strconv.FormatUint(i, 10)
		sub = binary.AppendUvarint(sub, i)
		sub = binary.AppendUvarint(sub, uint64(len(nm)))
		sub = append(sub, nm...)
	}
	body := append(binary.AppendUvarint(nil, 4), "name"...)
	body = append(body, 1) // function names
	body = binary.AppendUvarint(body, uint64(len(sub)))
	body = append(body, sub...)
	out := append(append([]byte(nil), wasm...), 0)
	out = binary.AppendUvarint(out, uint64(len(body)))
	return append(out, body...), nil
}
