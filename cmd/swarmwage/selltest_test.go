package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestCLISellAddResolvesExecPrograms: 'sell add' refuses an exec program
// that does not exist and stores an absolute path, so a daemon started in
// another directory runs the same program (issue 17).
func TestCLISellAddResolvesExecPrograms(t *testing.T) {
	t.Parallel()
	repo := initRepo(t)
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "echo.sh"), []byte("#!/bin/sh\ncat\n"), 0o755))
	r := runCLI(t, cliRun{dir: dir, args: []string{"--repo", repo, "sell", "add", "--price", "0.01", "--handler", "exec:./echo.sh", "custom.test.echo"}})
	require.Equal(t, 0, r.Code, r.Stderr)
	r = swarmwage(t, "--repo", repo, "sell", "list", "--json")
	require.Contains(t, r.Stdout, `"exec:`+filepath.Join(dir, "echo.sh")+`"`)

	r = swarmwage(t, "--repo", repo, "sell", "add", "--price", "0.01", "--handler", "exec:/nonexistent/prog", "custom.test.none")
	require.Equal(t, 2, r.Code)
	require.Contains(t, r.Stderr, "/nonexistent/prog does not exist")
	r = swarmwage(t, "--repo", repo, "sell", "add", "--price", "0.01", "--handler", "exec:no-such-program-here", "custom.test.none")
	require.Equal(t, 2, r.Code)
	require.Contains(t, r.Stderr, "not in PATH")

	// Through a daemon started elsewhere: the relative path was resolved
	// where 'sell add' ran.
	startDaemon(t, repo)
	r = runCLI(t, cliRun{dir: dir, args: []string{"--repo", repo, "sell", "add", "--price", "0.01", "--handler", "exec:./echo.sh", "custom.test.echo2"}})
	require.Equal(t, 0, r.Code, r.Stderr)
	r = swarmwage(t, "--repo", repo, "sell", "test", "--json", "--input-json", `{"a":1}`, "custom.test.echo2")
	require.Equal(t, 0, r.Code, r.Stderr)
	require.Contains(t, r.Stdout, `"passed": true`)
}

// TestCLISellTest: 'sell test' runs a listing's handler and verifies its
// output as a buyer would, offline and through the daemon, with the exit
// codes of 'verify'.
func TestCLISellTest(t *testing.T) {
	t.Parallel()
	repo := initRepo(t)
	for _, l := range [][]string{
		{"--price", "0.01", "compute.statistics.mean"},
		{"--price", "0.01", "--handler", `exec:sh -c "cat >/dev/null; echo '{\"result\": 42}'"`, "compute.statistics.median"},
		{"--price", "0.01", "--handler", `exec:sh -c "echo oops >&2; exit 3"`, "custom.test.fails"},
	} {
		r := swarmwage(t, append([]string{"--repo", repo, "sell", "add"}, l...)...)
		require.Equal(t, 0, r.Code, r.Stderr)
	}
	in := filepath.Join(t.TempDir(), "in.json")
	require.NoError(t, os.WriteFile(in, []byte(`{"data":[1,2,3]}`), 0o644))

	type testJSON struct {
		Output       json.RawMessage `json:"output"`
		Error        string          `json:"error"`
		Passed       bool            `json:"passed"`
		Verification struct {
			Checks []struct {
				Name   string `json:"name"`
				Passed bool   `json:"passed"`
			} `json:"checks"`
		} `json:"verification"`
	}
	check := func(t *testing.T) {
		r := swarmwage(t, "--repo", repo, "sell", "test", "--json", "--input", in, "compute.statistics.mean")
		require.Equal(t, 0, r.Code, r.Stderr)
		var res testJSON
		require.NoError(t, json.Unmarshal([]byte(r.Stdout), &res), r.Stdout)
		require.True(t, res.Passed)
		require.JSONEq(t, `{"result":2}`, string(res.Output))

		r = swarmwage(t, "--repo", repo, "sell", "test", "--input-json", `{"data":[1,2,3]}`, "compute.statistics.median")
		require.Equal(t, 1, r.Code, "a check failed")
		require.Contains(t, r.Stderr, "FAILED  value_matches")
		require.Contains(t, r.Stdout, `"result": 42`, "the output is shown")

		r = swarmwage(t, "--repo", repo, "sell", "test", "--json", "--input-json", `{}`, "custom.test.fails")
		require.Equal(t, 1, r.Code, "the handler failed")
		require.NoError(t, json.Unmarshal([]byte(r.Stdout), &res))
		require.Contains(t, res.Error, "handler failed with exit 3")
		require.Contains(t, res.Error, "oops", "the seller sees the handler's stderr")

		for _, bad := range [][]string{
			{"--input-json", `{"x":1}`, "compute.statistics.mean"},
			{"--input-json", `{}`, "custom.not.listed"},
			{"compute.statistics.mean"},
		} {
			r = swarmwage(t, append([]string{"--repo", repo, "sell", "test"}, bad...)...)
			require.Equal(t, 2, r.Code, "%v: %s", bad, r.Stderr)
		}
		// Nothing was paid or held: there is no escrow in a test.
		r = swarmwage(t, "--repo", repo, "escrow", "list", "--json")
		require.Equal(t, 0, r.Code, r.Stderr)
		require.False(t, strings.Contains(r.Stdout, "job_id"))
	}
	t.Run("offline", check)
	startDaemon(t, repo)
	t.Run("through the daemon", check)
}
