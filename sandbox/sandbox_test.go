package sandbox_test

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/swarmwage/swarmwage/sandbox"
)

// testEnv is shared by the tests of this file: compiling python.wasm takes
// seconds, so they share one compile cache and, when the default options
// do, one Sandbox.
type testEnv struct {
	cacheDir string
	once     sync.Once
	shared   *sandbox.Sandbox
	err      error
}

var env testEnv

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "sandbox-test-cache-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	env.cacheDir = dir
	code := m.Run()
	if env.shared != nil {
		if err := env.shared.Close(context.Background()); err != nil {
			fmt.Fprintln(os.Stderr, "close shared sandbox:", err)
			code = 1
		}
	}
	os.RemoveAll(dir)
	// Every interpreter goroutine ends with Close.
	if err := goleak.Find(); err != nil && code == 0 {
		fmt.Fprintln(os.Stderr, "goroutine leak:", err)
		code = 1
	}
	os.Exit(code)
}

// sharedSandbox returns the Sandbox with default options (and the test
// cache dir) that most tests use.
func sharedSandbox(tb testing.TB) *sandbox.Sandbox {
	tb.Helper()
	env.once.Do(func() {
		env.shared, env.err = sandbox.New(context.Background(), sandbox.WithCacheDir(env.cacheDir))
	})
	require.NoError(tb, env.err)
	return env.shared
}

// setupSandbox returns a Sandbox of its own, closed when the test ends.
func setupSandbox(t *testing.T, opts ...sandbox.Option) *sandbox.Sandbox {
	t.Helper()
	sharedSandbox(t) // fills the compile cache first
	s, err := sandbox.New(t.Context(), append([]sandbox.Option{sandbox.WithCacheDir(env.cacheDir)}, opts...)...)
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, s.Close(context.Background())) })
	return s
}

func run(t *testing.T, s *sandbox.Sandbox, req sandbox.Request) sandbox.Result {
	t.Helper()
	res, err := s.Run(t.Context(), req)
	require.NoError(t, err)
	return res
}

// TestExitCodes runs one table for both languages: a row's language is
// Python unless it says JavaScript.
func TestExitCodes(t *testing.T) {
	s := sharedSandbox(t)
	const js = sandbox.LanguageJavaScript
	testCases := []struct {
		lang   string
		name   string
		code   string
		exit   int
		stdout string
		stderr string // a substring
	}{
		{name: "clean", code: "print(1)", exit: 0, stdout: "1\n"},
		{name: "uncaught exception", code: "print('a')\n1/0", exit: 1, stdout: "a\n", stderr: "ZeroDivisionError: division by zero"},
		{name: "syntax error", code: "def (", exit: 1, stderr: "SyntaxError"},
		{name: "sys.exit(n)", code: "import sys\nprint('bye')\nsys.exit(3)", exit: 3, stdout: "bye\n"},
		{name: "sys.exit()", code: "import sys; sys.exit()", exit: 0},
		{name: "sys.exit(message)", code: "import sys; sys.exit('fatal: x')", exit: 1, stderr: "fatal: x"},
		{name: "exit builtin", code: "exit(7)", exit: 7},
		{name: "atexit runs", code: "import atexit; atexit.register(print, 'atexit')", exit: 0, stdout: "atexit\n"},
		{name: "unicode", code: "print('héllo ✓')", exit: 0, stdout: "héllo ✓\n"},
		{name: "stderr", code: "import sys; print('warn', file=sys.stderr)", exit: 0, stderr: "warn\n"},
		{lang: js, name: "clean", code: "console.log(1 + 1)", exit: 0, stdout: "2\n"},
		{lang: js, name: "print and console.info", code: "print('a', 1); console.info('b')", exit: 0, stdout: "a 1\nb\n"},
		{lang: js, name: "stdout.write", code: "process.stdout.write('no newline')", exit: 0, stdout: "no newline"},
		{lang: js, name: "stderr", code: "console.error('warn')", exit: 0, stderr: "warn\n"},
		{lang: js, name: "uncaught exception", code: "console.log('before'); throw new TypeError('boom')", exit: 1, stdout: "before\n", stderr: "TypeError: boom"},
		{lang: js, name: "thrown non-error", code: "throw 42", exit: 1, stderr: "Uncaught 42"},
		{lang: js, name: "syntax error", code: "let x = ;", exit: 1, stderr: "SyntaxError"},
		{lang: js, name: "unhandled rejection", code: "Promise.reject(new Error('late'))", exit: 1, stderr: "Error: late"},
		{lang: js, name: "rejection handled later", code: "const p = Promise.reject(new Error('x')); p.catch(e => console.log('caught', e.message))", exit: 0, stdout: "caught x\n"},
		{lang: js, name: "promise jobs run", code: "Promise.resolve(3).then(v => console.log('then', v)); console.log('sync')", exit: 0, stdout: "sync\nthen 3\n"},
		{lang: js, name: "async function", code: "(async () => { await null; console.log('awaited') })()", exit: 0, stdout: "awaited\n"},
		{lang: js, name: "process.exit(n)", code: "console.log('bye'); process.exit(3); console.log('no')", exit: 3, stdout: "bye\n"},
		{lang: js, name: "process.exit()", code: "process.exit()", exit: 0},
		{lang: js, name: "process.exit(300)", code: "process.exit(300)", exit: 44},
		{lang: js, name: "process.exit(-1)", code: "process.exit(-1)", exit: 255},
		{lang: js, name: "process.exit(256)", code: "process.exit(256)", exit: 0},
		{lang: js, name: "deep recursion", code: "function f() { return f() }\nf()", exit: 1, stderr: "stack overflow"},
	}
	for _, tc := range testCases {
		t.Run(cmp.Or(tc.lang, sandbox.LanguagePython)+"/"+tc.name, func(t *testing.T) {
			res := run(t, s, sandbox.Request{Code: tc.code, Language: tc.lang})
			require.Equal(t, tc.exit, res.ExitCode, "stderr: %s", res.Stderr)
			require.Equal(t, tc.stdout, res.Stdout)
			require.Contains(t, res.Stderr, tc.stderr)
			require.False(t, res.Truncated)
		})
	}
}

// Whatever a guest passes to os._exit or sys.exit, the exit code is 0..255
// as a POSIX shell reports it (code & 0xff), and no value is mistaken for
// the host's own cancellation codes (wazero's 0xffffffff and 0xefffffff,
// which os._exit(-1) and os._exit(-268435457) produce): such a job is not
// reported as "sandbox closed" or as a timeout.
func TestGuestExitCodesAreShellStatuses(t *testing.T) {
	s := sharedSandbox(t)
	testCases := []struct {
		name string
		code string
		exit int
	}{
		{"os._exit(0)", "import os; os._exit(0)", 0},
		{"os._exit(3)", "import os; os._exit(3)", 3},
		{"os._exit(255)", "import os; os._exit(255)", 255},
		{"os._exit(256)", "import os; os._exit(256)", 0},
		{"os._exit(300)", "import os; os._exit(300)", 44},
		{"os._exit(-1) is wazero's cancel code", "import os; os._exit(-1)", 255},
		{"os._exit(-2)", "import os; os._exit(-2)", 254},
		{"os._exit(-268435457) is wazero's deadline code", "import os; os._exit(-268435457)", 255},
		{"os._exit(2**31-1)", "import os; os._exit(2**31-1)", 255},
		{"os._exit too large for a C int", "import os; os._exit(2**40)", 1},
		{"posix._exit(-1)", "import posix; posix._exit(-1)", 255},
		{"sys.exit(300)", "import sys; sys.exit(300)", 44},
		{"sys.exit(-1)", "import sys; sys.exit(-1)", 255},
		{"sys.exit(-256)", "import sys; sys.exit(-256)", 0},
		{"sys.exit(2**64+3)", "import sys; sys.exit(2**64+3)", 3},
		{"sys.exit(True)", "import sys; sys.exit(True)", 1},
		{"sys.exit('msg')", "import sys; sys.exit('msg')", 1},
		{"raise SystemExit(-1)", "raise SystemExit(-1)", 255},
		{"exit(1000)", "exit(1000)", 232},
	}
	for _, tc := range testCases {
		t.Run(tc.name, func(t *testing.T) {
			res, err := s.Run(t.Context(), sandbox.Request{Code: "print('ran', flush=True)\n" + tc.code})
			require.NoError(t, err, "a guest's exit is a result, never an error such as sandbox closed")
			require.Equal(t, tc.exit, res.ExitCode, "stderr: %s", res.Stderr)
			require.GreaterOrEqual(t, res.ExitCode, 0)
			require.LessOrEqual(t, res.ExitCode, 255)
			require.Equal(t, "ran\n", res.Stdout)
		})
	}
	// The sandbox is still open and serves the next job.
	res := run(t, s, sandbox.Request{Code: "print(1)"})
	require.Equal(t, 0, res.ExitCode, res.Stderr)
}

// A guest that exits with wazero's cancel code while a timeout is pending
// is not a timeout; an infinite loop cut by the timeout still is (124).
func TestGuestCancelCodeIsNotATimeout(t *testing.T) {
	s := sharedSandbox(t)
	res := run(t, s, sandbox.Request{Code: "import os; os._exit(-1)", TimeoutMS: 2000})
	require.Equal(t, 255, res.ExitCode)
	res = run(t, s, sandbox.Request{Code: "while True: pass", TimeoutMS: 200})
	require.Equal(t, sandbox.TimeoutExitCode, res.ExitCode)
}

// The traceback must start in the job's code: the bootstrap's frame would
// confuse the buyer and leak the job protocol.
func TestTracebackHidesBootstrap(t *testing.T) {
	res := run(t, sharedSandbox(t), sandbox.Request{Code: "def f():\n    raise ValueError('x')\nf()"})
	require.Equal(t, 1, res.ExitCode)
	require.Contains(t, res.Stderr, "in f")
	require.NotContains(t, res.Stderr, "_boot")
}

func TestStdinDelivered(t *testing.T) {
	s := sharedSandbox(t)
	res := run(t, s, sandbox.Request{
		Code:  "import sys\nfirst = input()\nrest = sys.stdin.read()\nprint(first.upper(), len(rest.splitlines()))",
		Stdin: "hello\nb\nc\n",
	})
	require.Equal(t, 0, res.ExitCode, res.Stderr)
	require.Equal(t, "HELLO 2\n", res.Stdout)

	res = run(t, s, sandbox.Request{Code: "import sys; print(repr(sys.stdin.read()))"})
	require.Equal(t, "''\n", res.Stdout, "no stdin reads as EOF")
}

func TestNoHostFilesystem(t *testing.T) {
	// A file the guest would find if any host directory were mounted.
	secret := filepath.Join(t.TempDir(), "secret.txt")
	require.NoError(t, os.WriteFile(secret, []byte("host data"), 0o600))
	code := fmt.Sprintf(`
import os
for path in ["/etc/passwd", %q, "/proc/self/environ", "./secret.txt"]:
    try:
        open(path).read()
        print("READ", path)
    except OSError as e:
        print("denied", type(e).__name__)
for path in ["/tmp/x", "/python/x", "/x"]:
    try:
        open(path, "w").write("x")
        print("WROTE", path)
    except OSError as e:
        print("denied", type(e).__name__)
try:
    print("root", sorted(os.listdir("/")))
except OSError as e:
    print("no root", type(e).__name__)
`, secret)
	res := run(t, sharedSandbox(t), sandbox.Request{Code: code})
	require.Equal(t, 0, res.ExitCode, res.Stderr)
	require.NotContains(t, res.Stdout, "READ")
	require.NotContains(t, res.Stdout, "WROTE")
	require.Equal(t, 7, strings.Count(res.Stdout, "denied"), res.Stdout)
	require.NotContains(t, res.Stdout, "host data")
}

func TestNoNetwork(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer ln.Close()
	port := ln.Addr().(*net.TCPAddr).Port
	accepted := make(chan struct{}, 1)
	go func() {
		if c, err := ln.Accept(); err == nil {
			c.Close()
			accepted <- struct{}{}
		}
	}()

	code := fmt.Sprintf(`
import socket
try:
    socket.create_connection(("127.0.0.1", %d), timeout=1)
    print("CONNECTED")
except Exception as e:
    print("refused", type(e).__name__)
try:
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.bind(("127.0.0.1", 0))
    s.listen()
    print("LISTENING")
except Exception as e:
    print("refused", type(e).__name__)
`, port)
	res := run(t, sharedSandbox(t), sandbox.Request{Code: code})
	require.Equal(t, 0, res.ExitCode, res.Stderr)
	require.Equal(t, 2, strings.Count(res.Stdout, "refused"), res.Stdout)
	select {
	case <-accepted:
		t.Fatal("the guest reached a host socket")
	case <-time.After(100 * time.Millisecond):
	}
}

func TestNoHostEnvironment(t *testing.T) {
	t.Setenv("SWARMWAGE_SANDBOX_SECRET", "hunter2")
	s := setupSandbox(t, sandbox.WithPoolSize(0)) // started after Setenv
	res := run(t, s, sandbox.Request{Code: "import os; print(dict(os.environ)); print(os.getenv('HOME'), os.getenv('PYTHONHOME'))"})
	require.Equal(t, 0, res.ExitCode, res.Stderr)
	require.Equal(t, "{}\nNone None\n", res.Stdout)
}

func TestOutputCapTruncates(t *testing.T) {
	const limit = 1000
	s := setupSandbox(t, sandbox.WithOutputLimit(limit), sandbox.WithPoolSize(0))
	testCases := []struct {
		name       string
		python     string
		javascript string
		stdout     int
		stderr     int
		truncated  bool
	}{
		{name: "under the cap", python: "print('x' * 998)", javascript: "console.log('x'.repeat(998))", stdout: 999},
		{name: "exactly the cap", python: "print('x' * 999)", javascript: "console.log('x'.repeat(999))", stdout: 1000},
		{name: "stdout over", python: "print('x' * 10**6)", javascript: "console.log('x'.repeat(1e6))", stdout: limit, truncated: true},
		{
			name: "stderr over", python: "import sys\nfor _ in range(1000): print('e' * 100, file=sys.stderr)",
			javascript: "for (let i = 0; i < 1000; i++) console.error('e'.repeat(100))", stderr: limit, truncated: true,
		},
		// 999 bytes of 'x' then a 3-byte character cut after its first byte.
		{name: "cut inside a character", python: "print('x' * 999 + '✓' * 10)", javascript: "console.log('x'.repeat(999) + '✓'.repeat(10))", stdout: 999, truncated: true},
	}
	for _, tc := range testCases {
		for _, req := range []sandbox.Request{{Code: tc.python}, {Code: tc.javascript, Language: sandbox.LanguageJavaScript}} {
			t.Run(cmp.Or(req.Language, sandbox.LanguagePython)+"/"+tc.name, func(t *testing.T) {
				res := run(t, s, req)
				require.Equal(t, 0, res.ExitCode, res.Stderr)
				require.Len(t, res.Stdout, tc.stdout)
				require.Len(t, res.Stderr, tc.stderr)
				require.Equal(t, tc.truncated, res.Truncated)
				_, err := json.Marshal(res)
				require.NoError(t, err)
			})
		}
	}
}

// cutBound is how long a job cut by its timeout may take at most in these
// tests: half the 60 s sleep of the longest program they cut (the others
// run for hours or forever), so only a cut that never came fails it, not a
// slow or loaded machine. BenchmarkTimeoutOvershoot measures the real cut.
const cutBound = 30 * time.Second

func TestTimeoutKillsInfiniteLoop(t *testing.T) {
	s := sharedSandbox(t)
	begin := time.Now()
	res := run(t, s, sandbox.Request{Code: "print('started', flush=True)\nwhile True:\n    pass", TimeoutMS: 200})
	elapsed := time.Since(begin)
	require.Equal(t, sandbox.TimeoutExitCode, res.ExitCode)
	require.Equal(t, "started\n", res.Stdout, "output before the kill is kept")
	require.GreaterOrEqual(t, res.DurationMS, int64(200))
	// Not a timing assertion (BenchmarkTimeoutOvershoot measures the
	// overshoot): only a kill that never came fails it, whatever the load.
	require.Less(t, time.Duration(res.DurationMS)*time.Millisecond, cutBound)
	require.Less(t, elapsed, cutBound)

	// The sandbox still works afterwards.
	require.Equal(t, "ok\n", run(t, s, sandbox.Request{Code: "print('ok')"}).Stdout)
}

// A timeout stops a guest busy inside one long C call of the interpreter
// too (the countdown sits at every loop head of the build, not only in
// the bytecode loop), and nothing the guest does after it counts. A row
// without code for a language is not run for it.
func TestTimeoutStopsBusyCode(t *testing.T) {
	s := sharedSandbox(t)
	testCases := []struct {
		name       string
		python     string
		javascript string
	}{
		{name: "sum in C", python: "print(sum(range(10**15)))"},
		{name: "infinite loop", javascript: "for (;;) {}"},
		{name: "regex backtracking", python: "import re\nprint(re.match(r'(a*)*b', 'a' * 64))", javascript: "console.log(/(a*)*b/.test('a'.repeat(64)))"},
		{name: "big integer", python: "print(len(str(7 ** (10 ** 8))))", javascript: "console.log((7n ** (10n ** 7n)).toString().length)"},
		{
			name:       "exponential recursion",
			python:     "def f(n):\n    return 1 if n == 0 else f(n - 1) + f(n - 1)\nprint(f(60))",
			javascript: "function f(n) { return n == 0 ? 1 : f(n - 1) + f(n - 1) }\nconsole.log(f(60))",
		},
		{name: "output after a cut sleep", python: "import time\ntime.sleep(60)\nprint('late')"},
		{name: "exit after a cut sleep", python: "import time, os\ntime.sleep(60)\nos._exit(0)"},
		{name: "promise loop", javascript: "function spin() { return Promise.resolve().then(spin) }\nspin()"},
	}
	for _, tc := range testCases {
		for _, req := range []sandbox.Request{{Code: tc.python}, {Code: tc.javascript, Language: sandbox.LanguageJavaScript}} {
			if req.Code == "" {
				continue
			}
			req.TimeoutMS = 300
			t.Run(cmp.Or(req.Language, sandbox.LanguagePython)+"/"+tc.name, func(t *testing.T) {
				res := run(t, s, req)
				require.Equal(t, sandbox.TimeoutExitCode, res.ExitCode, res.Stderr)
				require.Empty(t, res.Stdout)
				require.GreaterOrEqual(t, res.DurationMS, int64(300))
				require.Less(t, time.Duration(res.DurationMS)*time.Millisecond, cutBound, "cut by the timeout, not run to its end")
			})
		}
	}
	require.Equal(t, "ok\n", run(t, s, sandbox.Request{Code: "print('ok')"}).Stdout, "the sandbox still works afterwards")
	require.Equal(t, "ok\n", run(t, s, sandbox.Request{Code: "console.log('ok')", Language: sandbox.LanguageJavaScript}).Stdout)
}

func TestSleepWorksAndIsCutByTimeout(t *testing.T) {
	s := sharedSandbox(t)
	res := run(t, s, sandbox.Request{Code: "import time\nt = time.monotonic()\ntime.sleep(0.05)\nprint(time.monotonic() - t >= 0.05)"})
	require.Equal(t, 0, res.ExitCode, res.Stderr)
	require.Equal(t, "True\n", res.Stdout)
	require.GreaterOrEqual(t, res.DurationMS, int64(50))

	res = run(t, s, sandbox.Request{Code: "import time; time.sleep(-1)"})
	require.Equal(t, 1, res.ExitCode)
	require.Contains(t, res.Stderr, "ValueError")

	begin := time.Now()
	res = run(t, s, sandbox.Request{Code: "import time; time.sleep(60)", TimeoutMS: 200})
	require.Equal(t, sandbox.TimeoutExitCode, res.ExitCode)
	require.Less(t, time.Duration(res.DurationMS)*time.Millisecond, cutBound, "cut, not slept to its end")
	require.Less(t, time.Since(begin), cutBound)
}

func TestMemoryBombEndsJobNotProcess(t *testing.T) {
	s := setupSandbox(t, sandbox.WithMemoryLimitMB(64), sandbox.WithPoolSize(1))
	require.Equal(t, 64, s.Runtime().Limits.MemoryMB)
	res := run(t, s, sandbox.Request{Code: "a = []\nwhile True:\n    a.append(bytearray(1 << 20))", TimeoutMS: 20000})
	require.Equal(t, 1, res.ExitCode)
	require.Contains(t, res.Stderr, "MemoryError")

	res = run(t, s, sandbox.Request{Code: "x = bytearray(100 << 20)", TimeoutMS: 20000})
	require.Equal(t, 1, res.ExitCode)
	require.Contains(t, res.Stderr, "MemoryError")

	res = run(t, s, sandbox.Request{Code: "x = bytearray(16 << 20); print(len(x))"})
	require.Equal(t, 0, res.ExitCode, "memory under the cap works: %s", res.Stderr)
	require.Equal(t, "16777216\n", res.Stdout)
}

func TestRandomnessDiffersBetweenRuns(t *testing.T) {
	s := sharedSandbox(t)
	require.True(t, s.Snapshotted(), "the shared sandbox restores its instances from a snapshot")
	code := "import random, os, uuid, secrets, tempfile\n" +
		"print(random.random(), os.urandom(16).hex(), uuid.uuid4(), secrets.token_hex(16), next(tempfile._get_candidate_names()))"
	a := strings.Fields(run(t, s, sandbox.Request{Code: code}).Stdout)
	b := strings.Fields(run(t, s, sandbox.Request{Code: code}).Stdout)
	require.Len(t, a, 5)
	require.Len(t, b, 5)
	for i, what := range []string{"random.random", "os.urandom", "uuid4", "secrets", "tempfile names"} {
		require.NotEqual(t, a[i], b[i], what)
	}
}

// The str hash secret is CPython's one random choice at start-up, which
// the jobs restored from one snapshot share (see the package doc): it
// differs between Sandboxes, and between jobs without a snapshot.
func TestHashSecretPerSnapshot(t *testing.T) {
	code := "print(hash('salt'))"
	shared := sharedSandbox(t)
	other := setupSandbox(t, sandbox.WithPoolSize(0))
	require.True(t, other.Snapshotted())
	require.NotEqual(t, run(t, shared, sandbox.Request{Code: code}).Stdout, run(t, other, sandbox.Request{Code: code}).Stdout)

	plain := setupSandbox(t, sandbox.WithPoolSize(0), sandbox.WithoutSnapshotForTest(t))
	require.False(t, plain.Snapshotted())
	require.NotEqual(t, run(t, plain, sandbox.Request{Code: code}).Stdout, run(t, plain, sandbox.Request{Code: code}).Stdout)
}

// Nothing a job does reaches the next job's interpreter, whether it starts
// from the snapshot or runs CPython's start-up.
func TestStateFreshPerJob(t *testing.T) {
	for _, tc := range []struct {
		name string
		s    *sandbox.Sandbox
	}{
		{"snapshot", sharedSandbox(t)},
		{"no snapshot", setupSandbox(t, sandbox.WithoutSnapshotForTest(t))},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dirty := "import builtins, sys, os, json\n" +
				"builtins.leak = 1; os.leak = 2; sys.path.append('/leak'); sys.setrecursionlimit(77)\n" +
				"import gc; gc.disable()\n" +
				"print('dirty')"
			require.Equal(t, "dirty\n", run(t, tc.s, sandbox.Request{Code: dirty}).Stdout)
			check := "import builtins, sys, os, gc\n" +
				"print(hasattr(builtins, 'leak'), hasattr(os, 'leak'), '/leak' in sys.path, sys.getrecursionlimit(), gc.isenabled(), 'json' in sys.modules)"
			for range 3 {
				res := run(t, tc.s, sandbox.Request{Code: check})
				require.Equal(t, "False False False 1000 True False\n", res.Stdout, res.Stderr)
			}
		})
	}
}

// The job runs in a __main__ of its own: nothing of the bootstrap, or of
// the interactive loop it waits in (bootstrap.py), is in its namespace.
func TestJobMainHasNothingOfTheBootstrap(t *testing.T) {
	for _, tc := range []struct {
		name string
		s    *sandbox.Sandbox
	}{
		{"snapshot", sharedSandbox(t)},
		{"no snapshot", setupSandbox(t, sandbox.WithoutSnapshotForTest(t), sandbox.WithPoolSize(0))},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := run(t, tc.s, sandbox.Request{Code: "import sys\nprint(sorted(globals()), __name__, hasattr(sys, 'ps1'), hasattr(sys, 'ps2'))"})
			require.Equal(t, 0, res.ExitCode, res.Stderr)
			require.Equal(t, "['__builtins__', '__doc__', '__loader__', '__name__', '__package__', '__spec__', 'sys'] __main__ False False\n", res.Stdout)
		})
	}
}

// A job that replaces the exit functions still ends when its code does:
// the interactive loop the interpreter waited in never reads its stdin as
// code.
func TestJobEndsWhenItsCodeDoes(t *testing.T) {
	res := run(t, sharedSandbox(t), sandbox.Request{
		Code:  "import os, posix, sys\nos._exit = posix._exit = sys.exit = lambda *a: None\nprint('job')",
		Stdin: "print('stdin ran as code')\n",
	})
	require.Equal(t, 0, res.ExitCode, res.Stderr)
	require.Equal(t, "job\n", res.Stdout)
	require.Empty(t, res.Stderr)
}

func TestClocks(t *testing.T) {
	s := sharedSandbox(t)
	require.NoError(t, s.WaitReady(t.Context()))
	time.Sleep(1500 * time.Millisecond) // the interpreter idles in the pool
	res := run(t, s, sandbox.Request{Code: "import time; print(time.monotonic(), time.perf_counter(), time.time())"})
	require.Equal(t, 0, res.ExitCode, res.Stderr)
	f := strings.Fields(res.Stdout)
	require.Len(t, f, 3)
	mono, err := strconv.ParseFloat(f[0], 64)
	require.NoError(t, err)
	perf, err := strconv.ParseFloat(f[1], 64)
	require.NoError(t, err)
	wall, err := strconv.ParseFloat(f[2], 64)
	require.NoError(t, err)
	// Near zero: neither the host's uptime nor the 1.5 s in the pool.
	require.Less(t, mono, 1.0)
	require.Less(t, perf, 1.0)
	require.InDelta(t, float64(time.Now().UnixNano())/1e9, wall, 5, "the wall clock is real")
}

func TestConcurrentJobsAllFinish(t *testing.T) {
	s := sharedSandbox(t)
	const jobs = 16
	var wg sync.WaitGroup
	results := make([]sandbox.Result, jobs)
	errs := make([]error, jobs)
	for i := range jobs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i], errs[i] = s.Run(t.Context(), sandbox.Request{
				Code:      fmt.Sprintf("import sys\nn = int(sys.stdin.read())\nprint(n, sum(range(n * 1000)))"),
				Stdin:     strconv.Itoa(i),
				TimeoutMS: 30000,
			})
		}()
	}
	// The node stays responsive: a Go timer keeps firing on time while the
	// jobs run.
	var late time.Duration
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	for waiting := true; waiting; {
		tick := time.Now()
		select {
		case <-done:
			waiting = false
		case <-time.After(10 * time.Millisecond):
			late = max(late, time.Since(tick)-10*time.Millisecond)
		}
	}
	for i := range jobs {
		require.NoError(t, errs[i])
		require.Equal(t, 0, results[i].ExitCode, results[i].Stderr)
		n := i * 1000
		require.Equal(t, fmt.Sprintf("%d %d\n", i, n*(n-1)/2), results[i].Stdout)
	}
	t.Logf("largest timer delay while 16 jobs ran: %v", late)
	// A sanity bound, not a speed figure (BenchmarkTimeoutOvershoot has
	// those): without the concurrency limit the guests pin every P and
	// timers stall for the length of a job; on a loaded CI machine the OS
	// alone can delay a timer by a good fraction of a second.
	require.Less(t, late, 5*time.Second)
}

func TestRequestValidation(t *testing.T) {
	s := sharedSandbox(t)
	testCases := []struct {
		name string
		req  sandbox.Request
		err  error
	}{
		{name: "language", req: sandbox.Request{Code: "print(1)", Language: "bash"}, err: sandbox.ErrUnsupportedLanguage},
		{name: "timeout too large", req: sandbox.Request{Code: "print(1)", TimeoutMS: sandbox.MaxTimeoutMS + 1}, err: sandbox.ErrTimeoutTooLarge},
		{name: "negative timeout", req: sandbox.Request{Code: "print(1)", TimeoutMS: -1}, err: sandbox.ErrInvalidRequest},
		{name: "empty code", req: sandbox.Request{}, err: sandbox.ErrInvalidRequest},
		{name: "code too large", req: sandbox.Request{Code: strings.Repeat("#", 2<<20)}, err: sandbox.ErrInvalidRequest},
		{name: "code not UTF-8", req: sandbox.Request{Code: "print('\xff')"}, err: sandbox.ErrInvalidRequest},
		{name: "stdin too large", req: sandbox.Request{Code: "print(1)", Stdin: strings.Repeat("x", 2<<20)}, err: sandbox.ErrInvalidRequest},
	}
	for _, tc := range testCases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := s.Run(t.Context(), tc.req)
			require.ErrorIs(t, err, tc.err)
			require.ErrorIs(t, err, sandbox.ErrInvalidRequest, "the agent endpoint maps it to 400")
		})
	}
	res := run(t, s, sandbox.Request{Code: "print(1)", Language: "python", TimeoutMS: sandbox.MaxTimeoutMS})
	require.Equal(t, 0, res.ExitCode)
}

func TestCallerCancelStopsJob(t *testing.T) {
	s := sharedSandbox(t)
	ctx, cancel := context.WithTimeout(t.Context(), 200*time.Millisecond)
	defer cancel()
	begin := time.Now()
	_, err := s.Run(ctx, sandbox.Request{Code: "while True: pass", TimeoutMS: 30000})
	require.ErrorIs(t, err, context.DeadlineExceeded)
	require.Less(t, time.Since(begin), sandbox.MaxTimeoutMS*time.Millisecond, "before the job's own 30 s timeout")
}

func TestCloseIsIdempotentAndStopsJobs(t *testing.T) {
	// One core: while the job runs, the pool cannot start the next
	// interpreter, so an empty pool says the job has taken its interpreter
	// and its core.
	s, err := sandbox.New(t.Context(), sandbox.WithCacheDir(env.cacheDir), sandbox.WithPoolSize(1), sandbox.WithMaxConcurrent(1))
	require.NoError(t, err)
	require.NoError(t, s.WaitReady(t.Context()))
	errc := make(chan error, 1)
	go func() {
		_, err := s.Run(context.Background(), sandbox.Request{Code: "while True: pass", TimeoutMS: 30000})
		errc <- err
	}()
	require.Eventually(t, func() bool {
		ctx, cancel := context.WithTimeout(t.Context(), time.Millisecond)
		defer cancel()
		return s.WaitReady(ctx) != nil // the pool is empty: the job runs
	}, 20*time.Second, time.Millisecond)
	require.NoError(t, s.Close(t.Context()))
	require.NoError(t, s.Close(t.Context()))
	require.ErrorIs(t, <-errc, sandbox.ErrClosed)
	_, err = s.Run(t.Context(), sandbox.Request{Code: "print(1)"})
	require.ErrorIs(t, err, sandbox.ErrClosed)
}

func TestOptionsValidated(t *testing.T) {
	testCases := []struct {
		name string
		opt  sandbox.Option
		want string
	}{
		{name: "pool", opt: sandbox.WithPoolSize(-1), want: "WithPoolSize"},
		{name: "memory", opt: sandbox.WithMemoryLimitMB(1), want: "WithMemoryLimitMB"},
		{name: "output", opt: sandbox.WithOutputLimit(0), want: "WithOutputLimit"},
		{name: "concurrency", opt: sandbox.WithMaxConcurrent(0), want: "WithMaxConcurrent"},
		{name: "cache dir", opt: sandbox.WithCacheDir(""), want: "WithCacheDir"},
	}
	for _, tc := range testCases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := sandbox.New(t.Context(), tc.opt)
			require.ErrorContains(t, err, tc.want)
		})
	}
}

func TestRuntimeDescriptor(t *testing.T) {
	rt := sharedSandbox(t).Runtime()
	require.Equal(t, "python", rt.Language)
	require.Equal(t, "3.11.2", rt.PythonVersion)
	require.Equal(t, "wazero", rt.Engine)
	require.Equal(t, sandbox.DefaultTimeoutMS, rt.Limits.TimeoutDefaultMS)
	require.Equal(t, sandbox.MaxTimeoutMS, rt.Limits.TimeoutMaxMS)
	require.Equal(t, sandbox.DefaultMemoryLimitMB, rt.Limits.MemoryMB)
	require.Equal(t, sandbox.DefaultOutputLimit, rt.Limits.OutputBytes)
	require.False(t, rt.Network)
	require.False(t, rt.Filesystem)

	b, err := json.Marshal(rt)
	require.NoError(t, err)
	require.Contains(t, string(b), `"python_version":"3.11.2"`)
	require.Contains(t, string(b), `"languages":["python","javascript"]`)
	require.Contains(t, string(b), `"timeout_max_ms":30000`)

	// The guest reports the version the descriptor claims.
	res := run(t, sharedSandbox(t), sandbox.Request{Code: "import platform; print(platform.python_version())"})
	require.Equal(t, rt.PythonVersion+"\n", res.Stdout, res.Stderr)
}

// EngineVersion must follow go.mod when wazero is upgraded.
func TestEngineVersionMatchesGoMod(t *testing.T) {
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Version}}", "github.com/tetratelabs/wazero").Output()
	require.NoError(t, err)
	require.Equal(t, sandbox.EngineVersion, strings.TrimSpace(string(out)))
}

// The committed builds must be what their SHA256 and VERSION files say;
// New checks the hashes, this checks the files agree with each other in form.
func TestBuildFilesWellFormed(t *testing.T) {
	sum, err := os.ReadFile("python/SHA256")
	require.NoError(t, err)
	require.Regexp(t, regexp.MustCompile(`^[0-9a-f]{64}  python.wasm\n[0-9a-f]{64}  stdlib.zip\n$`), string(sum))
	jsSum, err := os.ReadFile("javascript/SHA256")
	require.NoError(t, err)
	require.Regexp(t, regexp.MustCompile(`^[0-9a-f]{64}  quickjs.wasm\n$`), string(jsSum))
	require.Equal(t, strings.Fields(string(jsSum))[0], sharedSandbox(t).Runtime().JavaScriptBuildSHA256)
	version, err := os.ReadFile("python/VERSION")
	require.NoError(t, err)
	require.Equal(t, sharedSandbox(t).Runtime().PythonVersion+"\n", string(version))
	require.Equal(t, strings.Fields(string(sum))[0], sharedSandbox(t).Runtime().BuildSHA256)
}

// The bootstrap is compiled once per build and kept in the cache dir; a
// damaged cached copy is replaced, not trusted.
func TestBootstrapCachedInCacheDir(t *testing.T) {
	sharedSandbox(t)
	paths, err := filepath.Glob(filepath.Join(env.cacheDir, "python-bootstrap-*.pyc"))
	require.NoError(t, err)
	require.Len(t, paths, 1)
	good, err := os.ReadFile(paths[0])
	require.NoError(t, err)

	require.NoError(t, os.WriteFile(paths[0], []byte("junk"), 0o600))
	s := setupSandbox(t, sandbox.WithPoolSize(0))
	require.Equal(t, "ok\n", run(t, s, sandbox.Request{Code: "print('ok')"}).Stdout)
	again, err := os.ReadFile(paths[0])
	require.NoError(t, err)
	require.Equal(t, good, again)
}

// A python3 on the PATH that does not work leaves the ratio unmeasured
// instead of failing the whole benchmark.
func TestBenchCPURatioSurvivesBrokenPython3(t *testing.T) {
	broken := filepath.Join(t.TempDir(), "python3")
	require.NoError(t, os.WriteFile(broken, []byte("#!/bin/sh\nexit 3\n"), 0o755))
	ratio, nativeErr, err := sandbox.CPURatio(t.Context(), sharedSandbox(t), broken)
	require.NoError(t, err)
	require.Error(t, nativeErr)
	require.Nil(t, ratio)
}

// TestFailedProbeFallsBackToFullStartUps: when an instance restored from
// the snapshot fails the probe job (a build whose instrumented stack no
// longer matches the bootstrap), New drops the snapshot and every job
// still runs, each in an interpreter that started itself.
func TestFailedProbeFallsBackToFullStartUps(t *testing.T) {
	s := setupSandbox(t, sandbox.WithPoolSize(1), sandbox.WithFailingProbeForTest(t))
	require.False(t, s.Snapshotted(), "a failed probe must drop the snapshot")
	for range 3 {
		res := run(t, s, sandbox.Request{Code: "import sys\nprint(sys.stdin.read() * 2)", Stdin: "ab"})
		require.Equal(t, 0, res.ExitCode, res.Stderr)
		require.Equal(t, "abab\n", res.Stdout)
	}
}
