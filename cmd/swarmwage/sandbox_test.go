package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// sandboxCLI runs the binary with a limit long enough for a first compile
// of the interpreter on a busy machine.
func sandboxCLI(t *testing.T, limit time.Duration, args ...string) cliResult {
	t.Helper()
	return sandboxCLIIn(t, limit, "", args...)
}

// sandboxCLIIn is sandboxCLI with stdin.
func sandboxCLIIn(t *testing.T, limit time.Duration, stdin string, args ...string) cliResult {
	t.Helper()
	return runCLI(t, cliRun{args: args, stdin: stdin, limit: limit, env: []string{"XDG_CACHE_HOME="}})
}

func TestSandboxRun(t *testing.T) {
	t.Parallel()
	// One repo for all cases: the first compiles the interpreter into
	// <repo>/cache/wazero, the others load it from there.
	repo := t.TempDir()
	prog := filepath.Join(t.TempDir(), "prog.py")
	require.NoError(t, os.WriteFile(prog, []byte("import sys\nprint(sys.stdin.read().upper())\n"), 0o600))

	testCases := []struct {
		name   string
		args   []string
		code   int
		stdout string
		stderr string // a substring
	}{
		{name: "clean", args: []string{"--code", "print(1)"}, code: 0, stdout: "1\n"},
		{name: "exit code", args: []string{"--code", "import sys; print('x'); sys.exit(3)"}, code: 3, stdout: "x\n"},
		{name: "exception", args: []string{"--code", "1/0"}, code: 1, stderr: "ZeroDivisionError"},
		{name: "timeout", args: []string{"--code", "while True: pass", "--timeout-ms", "200"}, code: 124, stderr: "stopped after --timeout-ms 200"},
		{name: "file and stdin", args: []string{"--file", prog, "--stdin", "abc"}, code: 0, stdout: "ABC\n"},
		{name: "flags after subcommand args order", args: []string{"--timeout-ms", "3000", "--code", "print(2)"}, code: 0, stdout: "2\n"},
		{name: "no program", args: nil, code: 2, stderr: "exactly one of --file FILE or --code STR"},
		{name: "both", args: []string{"--code", "print(1)", "--file", prog}, code: 2, stderr: "exactly one of"},
		{name: "timeout too large", args: []string{"--code", "print(1)", "--timeout-ms", "40000"}, code: 2, stderr: "timeout too large"},
		{name: "missing file", args: []string{"--file", filepath.Join(repo, "nope.py")}, code: 2, stderr: "nope.py"},
		{name: "javascript", args: []string{"--language", "javascript", "--code", "console.log(1+1)"}, code: 0, stdout: "2\n"},
		{name: "javascript exception", args: []string{"--language", "javascript", "--code", "null.x"}, code: 1, stderr: "TypeError"},
		{name: "javascript exit code", args: []string{"--language", "javascript", "--code", "process.exit(7)"}, code: 7},
		{name: "python by name", args: []string{"--language", "python", "--code", "print(3)"}, code: 0, stdout: "3\n"},
		{name: "unknown language", args: []string{"--language", "bash", "--code", "echo 1"}, code: 2, stderr: "want one of python, javascript"},
	}
	for _, tc := range testCases {
		t.Run(tc.name, func(t *testing.T) {
			args := append([]string{"--repo", repo, "sandbox", "run"}, tc.args...)
			res := sandboxCLI(t, 3*time.Minute, args...)
			require.Equal(t, tc.code, res.Code, "stdout %q stderr %q", res.Stdout, res.Stderr)
			require.Equal(t, tc.stdout, res.Stdout)
			require.Contains(t, res.Stderr, tc.stderr)
		})
	}
	entries, err := os.ReadDir(filepath.Join(repo, "cache", "wazero"))
	require.NoError(t, err)
	require.NotEmpty(t, entries, "the compiled module is cached in the repo")

	t.Run("program on stdin", func(t *testing.T) {
		res := sandboxCLIIn(t, 3*time.Minute, "print(6 * 7)\n", "--repo", repo, "sandbox", "run", "--file", "-")
		require.Equal(t, 0, res.Code, res.Stderr)
		require.Equal(t, "42\n", res.Stdout)
	})

	t.Run("json", func(t *testing.T) {
		res := sandboxCLI(t, 3*time.Minute, "--repo", repo, "sandbox", "run", "--json", "--code", "import sys; print('out'); sys.exit(5)")
		require.Equal(t, 0, res.Code, res.Stderr)
		var doc map[string]any
		require.NoError(t, json.Unmarshal([]byte(res.Stdout), &doc))
		require.Equal(t, "out\n", doc["stdout"])
		require.Equal(t, "", doc["stderr"])
		require.EqualValues(t, 5, doc["exit_code"])
		require.Equal(t, false, doc["truncated"])
		require.Contains(t, doc, "duration_ms")
	})
}

func TestBenchSandboxJSON(t *testing.T) {
	t.Parallel()
	res := sandboxCLI(t, 5*time.Minute, "bench", "sandbox", "--n", "3", "--jobs", "6", "--rounds", "2", "--concurrency", "2", "--json")
	require.Equal(t, 0, res.Code, res.Stderr)
	var doc map[string]any
	require.NoError(t, json.Unmarshal([]byte(res.Stdout), &doc))
	for _, key := range []string{"warm_p50_ms", "warm_p95_ms", "jobs_per_s", "cold_first_job_ms", "cold_first_job_cached_ms",
		"timeout_overshoot_max_ms", "rss_pool_full_mib", "pool_instance_rss_mib", "pool_instance_shared_mib"} {
		require.Contains(t, doc, key)
		require.IsType(t, float64(0), doc[key], key)
		require.Positive(t, doc[key], key)
	}
	require.Contains(t, doc, "timeout_overshoot_p50_ms")
	require.Equal(t, true, doc["snapshot"], "instances are restored from the snapshot")
	require.GreaterOrEqual(t, doc["timeout_overshoot_max_ms"], doc["timeout_overshoot_p50_ms"])
	require.EqualValues(t, 6, doc["throughput_jobs"])
	require.EqualValues(t, 2, doc["rounds"])
	require.EqualValues(t, 2, doc["concurrency"])
	require.EqualValues(t, 2, doc["pool_size"])
	require.Contains(t, doc["cpu_loop"], "range(600000)")
	native := []string{"cpu_ratio_vs_python3", "cpu_sandbox_s", "cpu_native_s", "native_jobs_per_s", "jobs_per_s_vs_native"}
	if _, err := exec.LookPath("python3"); err == nil {
		for _, key := range native {
			require.IsType(t, float64(0), doc[key], key)
			require.Positive(t, doc[key], key)
		}
		require.NotEmpty(t, doc["python3"])
		require.NotEmpty(t, doc["python3_version"])
	} else {
		for _, key := range native {
			require.Contains(t, doc, key)
			require.Nil(t, doc[key], "%s is null when python3 is not on the PATH", key)
		}
		require.Empty(t, doc["python3"])
	}
	require.Len(t, doc, 23)
}

func TestBenchNeedsSubcommand(t *testing.T) {
	t.Parallel()
	res := swarmwage(t, "bench")
	require.Equal(t, 2, res.Code)
	require.Contains(t, res.Stderr, "sandbox")
}
