package sandbox_test

import (
	"encoding/json"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/swarmwage/swarmwage/sandbox"
)

// The JavaScript runtime's equivalents of the Python safety tests; the
// table-driven ones (exit codes, the output cap, timeouts) run both
// languages from one table in sandbox_test.go.

func js(code string) sandbox.Request {
	return sandbox.Request{Code: code, Language: sandbox.LanguageJavaScript}
}

func TestJSStdinDelivered(t *testing.T) {
	s := sharedSandbox(t)
	res := run(t, s, sandbox.Request{
		Language: sandbox.LanguageJavaScript,
		Code:     "const first = readline(); const rest = readStdin(); console.log(first.toUpperCase(), rest.split('\\n').filter(Boolean).length, readline())",
		Stdin:    "hello\nb\nc\n",
	})
	require.Equal(t, 0, res.ExitCode, res.Stderr)
	require.Equal(t, "HELLO 2 null\n", res.Stdout)
	res = run(t, s, js("console.log(JSON.stringify(readStdin()), readline())"))
	require.Equal(t, "\"\" null\n", res.Stdout, res.Stderr)
}

// QuickJS runs without its std and os modules: nothing in the guest names
// a file, a socket, a process or the environment.
func TestJSNoHostAccess(t *testing.T) {
	secret := filepath.Join(t.TempDir(), "secret.txt")
	require.NoError(t, os.WriteFile(secret, []byte("host data"), 0o600))
	t.Setenv("SWARMWAGE_SANDBOX_SECRET", "hunter2")
	code := fmt.Sprintf(`
const names = ["std", "os", "require", "fetch", "XMLHttpRequest", "WebSocket", "Deno", "Bun", "scriptArgs", "setTimeout", "load", "read", "readFile"];
console.log(names.filter(n => typeof globalThis[n] !== "undefined").join(",") || "none");
console.log(Object.keys(process).sort().join(","));
for (const spec of ["std", "os", %q]) {
  import(spec).then(() => console.log("IMPORTED", spec), () => console.log("denied"));
}
`, secret)
	res := run(t, sharedSandbox(t), js(code))
	require.Equal(t, 0, res.ExitCode, res.Stderr)
	require.Equal(t, "none\nexit,stderr,stdout\ndenied\ndenied\ndenied\n", res.Stdout, res.Stdout)
	require.NotContains(t, res.Stdout, "IMPORTED")
	require.NotContains(t, res.Stdout+res.Stderr, "hunter2")
	require.NotContains(t, res.Stdout+res.Stderr, "host data")
}

func TestJSNoNetwork(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer ln.Close()
	accepted := make(chan struct{}, 1)
	go func() {
		if c, err := ln.Accept(); err == nil {
			c.Close()
			accepted <- struct{}{}
		}
	}()
	port := ln.Addr().(*net.TCPAddr).Port
	res := run(t, sharedSandbox(t), js(fmt.Sprintf(`
for (const f of ["fetch", "WebSocket", "XMLHttpRequest"]) {
  try { new globalThis[f]("http://127.0.0.1:%d/"); console.log("CONNECTED") } catch (e) { console.log("refused", e.name) }
}`, port)))
	require.Equal(t, 0, res.ExitCode, res.Stderr)
	require.Equal(t, 3, strings.Count(res.Stdout, "refused"), res.Stdout)
	select {
	case <-accepted:
		t.Fatal("the guest reached a host socket")
	case <-time.After(100 * time.Millisecond):
	}
}

func TestJSMemoryBombEndsJobNotProcess(t *testing.T) {
	s := setupSandbox(t, sandbox.WithMemoryLimitMB(64), sandbox.WithPoolSize(0))
	res := run(t, s, sandbox.Request{Language: sandbox.LanguageJavaScript, Code: "const a = []; for (;;) a.push(new ArrayBuffer(1 << 20))", TimeoutMS: 20000})
	require.Equal(t, 1, res.ExitCode, res.Stderr)
	require.Contains(t, res.Stderr, "out of memory")

	res = run(t, s, js("const x = new Uint8Array(16 << 20); console.log(x.length)"))
	require.Equal(t, 0, res.ExitCode, "memory under the cap works: %s", res.Stderr)
	require.Equal(t, "16777216\n", res.Stdout)
}

func TestJSRandomnessDiffersBetweenRuns(t *testing.T) {
	s := sharedSandbox(t)
	code := "console.log(Math.random(), Math.random())"
	a := run(t, s, js(code)).Stdout
	b := run(t, s, js(code)).Stdout
	require.Len(t, strings.Fields(a), 2)
	require.NotEqual(t, a, b)
}

func TestJSStateFreshPerJob(t *testing.T) {
	s := sharedSandbox(t)
	dirty := "globalThis.leak = 1; Object.prototype.polluted = 2; Array.prototype.push = null; console.log('dirty')"
	require.Equal(t, "dirty\n", run(t, s, js(dirty)).Stdout)
	for range 3 {
		res := run(t, s, js("const a = []; a.push(1); console.log(typeof leak, ({}).polluted, a.length)"))
		require.Equal(t, "undefined undefined 1\n", res.Stdout, res.Stderr)
	}
}

func TestJSClockRealAndMonotonic(t *testing.T) {
	res := run(t, sharedSandbox(t), js("const t = Date.now(); let x = 0; for (let i = 0; i < 1e5; i++) x += i; console.log(Math.abs(t - "+
		fmt.Sprint(time.Now().UnixMilli())+") < 600000, Date.now() >= t)"))
	require.Equal(t, "true true\n", res.Stdout, res.Stderr)
}

func TestJSResultDocument(t *testing.T) {
	res := run(t, sharedSandbox(t), js("console.log(JSON.stringify({a: [1, 2]}))"))
	b, err := json.Marshal(res)
	require.NoError(t, err)
	var doc map[string]any
	require.NoError(t, json.Unmarshal(b, &doc))
	for _, k := range []string{"stdout", "stderr", "exit_code", "duration_ms", "truncated"} {
		require.Contains(t, doc, k)
	}
	require.Equal(t, "{\"a\":[1,2]}\n", res.Stdout)
}

func TestLanguagesAdvertisedAndOthersRefused(t *testing.T) {
	s := sharedSandbox(t)
	rt := s.Runtime()
	require.Equal(t, []string{"python", "javascript"}, rt.Languages)
	require.Equal(t, "python", rt.Language, "python stays the default")
	require.Regexp(t, `^quickjs \d{4}-\d{2}-\d{2}$`, rt.JavaScriptEngine)
	require.Len(t, rt.JavaScriptBuildSHA256, 64)
	_, err := s.Run(t.Context(), sandbox.Request{Code: "echo 1", Language: "bash"})
	require.ErrorIs(t, err, sandbox.ErrUnsupportedLanguage)
	require.ErrorContains(t, err, "python, javascript")
	// An empty language is python.
	require.Equal(t, "3\n", run(t, s, sandbox.Request{Code: "print(1 + 2)"}).Stdout)
}

// Whatever program and stdin a buyer sends, a JavaScript job ends with a
// result document: an exit code of 0..255, output within the cap, or a
// request error; never a host error or a hang past its timeout.
func FuzzJavaScriptRun(f *testing.F) {
	for _, seed := range []string{
		"console.log(1+1)", "throw 1", "process.exit(-7)", "for(;;){}", "readline(); readStdin()",
		"'\u0000'.repeat(1e5)", "new Array(1e9)", "Promise.reject()", "import('os')", "\\", "/*",
	} {
		f.Add(seed, "stdin\n")
	}
	f.Fuzz(func(t *testing.T, code, stdin string) {
		s := sharedSandbox(t)
		res, err := s.Run(t.Context(), sandbox.Request{Code: code, Stdin: stdin, Language: sandbox.LanguageJavaScript, TimeoutMS: 500})
		if err != nil {
			require.ErrorIs(t, err, sandbox.ErrInvalidRequest)
			return
		}
		require.GreaterOrEqual(t, res.ExitCode, 0)
		require.LessOrEqual(t, res.ExitCode, 255)
		require.LessOrEqual(t, len(res.Stdout), sandbox.DefaultOutputLimit)
		require.LessOrEqual(t, len(res.Stderr), sandbox.DefaultOutputLimit)
		require.Less(t, res.DurationMS, int64(10000))
	})
}
