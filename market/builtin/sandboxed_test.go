package builtin

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/swarmwage/swarmwage/sandbox"
)

// fakeRunner records requests and answers with a fixed result or error; it
// stands in for the sandbox only in these unit tests of the mapping.
type fakeRunner struct {
	res  sandbox.Result
	err  error
	reqs []sandbox.Request
}

func (f *fakeRunner) Run(_ context.Context, req sandbox.Request) (sandbox.Result, error) {
	f.reqs = append(f.reqs, req)
	return f.res, f.err
}

func (f *fakeRunner) Runtime() sandbox.Runtime {
	return sandbox.Runtime{Capability: sandbox.Capability, Language: sandbox.LanguagePython, PythonVersion: "3.12.0"}
}

func TestSandboxedMapsRequestAndResult(t *testing.T) {
	f := &fakeRunner{res: sandbox.Result{Stdout: "hi\n", ExitCode: 0, DurationMS: 3}}
	r := newTestRegistry(t, WithSandbox(f))
	out, err := run(t, r, CapCodeSandboxed, map[string]any{"code": "print('hi')", "language": "python", "stdin": "x", "timeout_ms": 1000})
	require.NoError(t, err)
	require.JSONEq(t, `{"stdout":"hi\n","stderr":"","exit_code":0,"duration_ms":3,"truncated":false}`, string(out))
	require.Equal(t, []sandbox.Request{{Code: "print('hi')", Language: "python", Stdin: "x", TimeoutMS: 1000}}, f.reqs)
	rt, ok := r.SandboxRuntime()
	require.True(t, ok)
	require.Equal(t, "python", rt.Language)
}

func TestSandboxedRejections(t *testing.T) {
	testCases := []struct {
		name   string
		in     map[string]any
		runErr error
	}{
		{"missing code", map[string]any{}, nil},
		{"language mismatch", map[string]any{"code": "1", "language": "javascript"}, nil},
		{"timeout too large", map[string]any{"code": "1", "timeout_ms": sandbox.MaxTimeoutMS + 1}, nil},
		{"timeout zero", map[string]any{"code": "1", "timeout_ms": 0}, nil},
		{"timeout fractional", map[string]any{"code": "1", "timeout_ms": 10.5}, nil},
		{"runner says invalid", map[string]any{"code": "1"}, fmt.Errorf("%w: code is not valid UTF-8", sandbox.ErrInvalidRequest)},
		{"runner says unsupported language", map[string]any{"code": "1"}, sandbox.ErrUnsupportedLanguage},
		{"runner says timeout too large", map[string]any{"code": "1"}, sandbox.ErrTimeoutTooLarge},
	}
	for _, tc := range testCases {
		t.Run(tc.name, func(t *testing.T) {
			r := newTestRegistry(t, WithSandbox(&fakeRunner{err: tc.runErr}))
			_, err := run(t, r, CapCodeSandboxed, tc.in)
			requireInputError(t, err)
		})
	}
	// A sandbox failure that is not the buyer's fault stays a plain error.
	r := newTestRegistry(t, WithSandbox(&fakeRunner{err: sandbox.ErrClosed}))
	_, err := run(t, r, CapCodeSandboxed, map[string]any{"code": "1"})
	require.ErrorIs(t, err, sandbox.ErrClosed)
	var ie *InputError
	require.False(t, errors.As(err, &ie))
}

// realSandbox starts one CPython sandbox for the package's tests. The
// compiled module is cached under the OS temp dir so repeated runs are fast.
var realSandbox = sync.OnceValues(func() (*sandbox.Sandbox, error) {
	dir := filepath.Join(os.TempDir(), "swarmwage-builtin-test-sandbox-cache")
	return sandbox.New(context.Background(), sandbox.WithCacheDir(dir), sandbox.WithPoolSize(1))
})

func TestSandboxedRealPython(t *testing.T) {
	sb, err := realSandbox()
	require.NoError(t, err)
	r := newTestRegistry(t, WithSandbox(sb))
	testCases := []struct {
		name string
		in   map[string]any
		exit int
		out  string
	}{
		{"stdout and stdin", map[string]any{"code": "import sys\nprint(sys.stdin.read().upper())", "stdin": "abc"}, 0, "ABC\n"},
		{"exception", map[string]any{"code": "raise ValueError('x')"}, 1, ""},
		{"timeout", map[string]any{"code": "while True: pass", "timeout_ms": 300}, 124, ""},
	}
	for _, tc := range testCases {
		t.Run(tc.name, func(t *testing.T) {
			out, err := run(t, r, CapCodeSandboxed, tc.in)
			require.NoError(t, err)
			var res sandbox.Result
			require.NoError(t, json.Unmarshal(out, &res))
			require.Equal(t, tc.exit, res.ExitCode, "%+v", res)
			require.Equal(t, tc.out, res.Stdout)
		})
	}
	_, err = run(t, r, CapCodeSandboxed, map[string]any{"code": "print(1)", "language": "ruby"})
	requireInputError(t, err)
}

func TestSandboxedRealJavaScript(t *testing.T) {
	sb, err := realSandbox()
	require.NoError(t, err)
	r := newTestRegistry(t, WithSandbox(sb))
	out, err := run(t, r, CapCodeSandboxed, map[string]any{"code": "console.log(1+1, readStdin())", "language": "javascript", "stdin": "in"})
	require.NoError(t, err)
	var res sandbox.Result
	require.NoError(t, json.Unmarshal(out, &res))
	require.Equal(t, sandbox.Result{Stdout: "2 in\n", DurationMS: res.DurationMS}, res)
	rt, ok := r.SandboxRuntime()
	require.True(t, ok)
	require.Equal(t, []string{"python", "javascript"}, rt.Languages)
}

// A language the runner does not run is a 400 naming the ones it does.
func TestSandboxedLanguageRefusalNamesSupported(t *testing.T) {
	r := newTestRegistry(t, WithSandbox(&fakeRunner{}))
	_, err := run(t, r, CapCodeSandboxed, map[string]any{"code": "1", "language": "javascript"})
	requireInputError(t, err)
	require.ErrorContains(t, err, "runs python")
}
