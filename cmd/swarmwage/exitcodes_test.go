package main

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// exitCase is one command line and the exit code the README's table gives
// it.
type exitCase struct {
	name string
	args []string
	code int
	// stderr must contain this.
	stderr string
}

func runExitCases(t *testing.T, cases []exitCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := swarmwage(t, tc.args...)
			require.Equal(t, tc.code, r.Code, "stdout=%s stderr=%s", r.Stdout, r.Stderr)
			require.Contains(t, r.Stderr, tc.stderr)
			if tc.code != 0 && tc.stderr != "" {
				require.Equal(t, 1, strings.Count(r.Stderr, "Error:"), "the error is printed once: %s", r.Stderr)
			}
		})
	}
}

// TestCLIExitCodesOffline: the exit codes of the README's table for
// commands that need no daemon, through the built binary. Issue 17 found an
// unknown config key, 'sell add --price 0' and 'mcp' on a missing repo
// exiting 1 or 0.
func TestCLIExitCodesOffline(t *testing.T) {
	t.Parallel()
	repo := initRepo(t)
	badConfig := initRepo(t)
	setConfig(t, badConfig, "bogus_key = 1")
	missing := filepath.Join(t.TempDir(), "missing")
	tmp := t.TempDir()
	notJSON := filepath.Join(tmp, "not.json")
	require.NoError(t, os.WriteFile(notJSON, []byte("nope"), 0o600))
	wrongMean := filepath.Join(tmp, "out.json")
	require.NoError(t, os.WriteFile(wrongMean, []byte(`{"result": 42}`), 0o600))
	in := filepath.Join(tmp, "in.json")
	require.NoError(t, os.WriteFile(in, []byte(`{"data": [1, 2, 3]}`), 0o600))
	goodMean := filepath.Join(tmp, "good.json")
	require.NoError(t, os.WriteFile(goodMean, []byte(`{"result": 2}`), 0o600))

	runExitCases(t, []exitCase{
		{"unknown config key", []string{"--repo", badConfig, "sell", "list"}, 2, `unknown key "bogus_key"`},
		{"unknown config key, daemon", []string{"--repo", badConfig, "daemon"}, 2, `unknown key "bogus_key"`},
		{"unknown config key, mcp", []string{"--repo", badConfig, "mcp"}, 2, `unknown key "bogus_key"`},
		{"mcp on a missing repo", []string{"--repo", missing, "mcp"}, 2, "run 'swarmwage init'"},
		{"price 0", []string{"--repo", repo, "sell", "add", "--price", "0", "compute.statistics.mean"}, 2, "positive"},
		{"price not a number", []string{"--repo", repo, "sell", "add", "--price", "abc", "compute.statistics.mean"}, 2, "--price"},
		{"exec program missing", []string{"--repo", repo, "sell", "add", "--price", "1", "--handler", "exec:/nonexistent/prog", "custom.a.b"}, 2, "/nonexistent/prog"},
		{"init over a repo", []string{"--repo", repo, "init"}, 2, "repo already exists"},
		{"new identity without a repo", []string{"--repo", missing, "init", "--new-identity"}, 2, "run 'swarmwage init'"},
		{"daemon without a repo", []string{"--repo", missing, "daemon"}, 2, "run 'swarmwage init'"},
		{"daemon, bad network", []string{"--repo", repo, "daemon", "--network", "Bad!"}, 2, "network"},
		{"id without a repo", []string{"--repo", missing, "id"}, 2, "run 'swarmwage init'"},
		{"peers without a daemon", []string{"--repo", repo, "peers"}, 1, "start 'swarmwage daemon'"},
		{"find without a daemon", []string{"--repo", repo, "find", "compute.statistics.mean"}, 1, "start 'swarmwage daemon'"},
		{"find, bad ID", []string{"--repo", repo, "find", "bad..id"}, 2, "dot-separated"},
		{"hire, input not matching the schema", []string{"--repo", repo, "hire", "--input-json", `{"x":1}`, "compute.statistics.mean"}, 2, "does not match its schema"},
		{"hire, input not JSON", []string{"--repo", repo, "hire", "--input-json", "nope", "compute.statistics.mean"}, 2, "not valid JSON"},
		{"jobs show, unknown job", []string{"--repo", repo, "jobs", "show", "nope"}, 2, "no job"},
		{"rate, bad rating", []string{"--repo", repo, "rate", "nope", "9"}, 2, "1 to 5"},
		{"rate without a daemon", []string{"--repo", repo, "rate", "nope", "5"}, 1, "start 'swarmwage daemon'"},
		{"deposit, negative", []string{"--repo", repo, "wallet", "deposit", "-5"}, 2, "the amount must be positive"},
		{"deposit, zero", []string{"--repo", repo, "wallet", "deposit", "0"}, 2, "the amount must be positive"},
		{"escrow list, bad role", []string{"--repo", repo, "escrow", "list", "--role", "x"}, 2, "--role"},
		{"escrow show, no such escrow", []string{"--repo", repo, "escrow", "show", "nope"}, 1, "no escrow"},
		{"escrow refund without a daemon", []string{"--repo", repo, "escrow", "refund", "--reason", "x", "nope"}, 1, "start 'swarmwage daemon'"},
		{"caps show, unknown", []string{"caps", "show", "text.nope.nope"}, 2, "unknown capability"},
		{"verify passes", []string{"verify", "--input", in, "--output", goodMean, "compute.statistics.mean"}, 0, ""},
		{"verify, a check fails", []string{"verify", "--input", in, "--output", wrongMean, "compute.statistics.mean"}, 1, ""},
		{"verify, output not JSON", []string{"verify", "--input", in, "--output", notJSON, "compute.statistics.mean"}, 2, ""},
		{"skillcard validate, not JSON", []string{"skillcard", "validate", notJSON}, 2, "not JSON"},
		{"sandbox run, no program", []string{"sandbox", "run"}, 2, "--file"},
		{"mcp, bad cap", []string{"--repo", repo, "mcp", "--max-per-hire", "abc"}, 2, "--max-per-hire"},
		{"unknown command", []string{"sel", "list"}, 2, "did you mean 'sell'?"},
		{"unknown subcommand", []string{"sell", "ad", "--price", "1"}, 2, "did you mean 'add'?"},
		{"unknown flag", []string{"--repo", repo, "hire", "--max-prise", "1", "compute.statistics.mean"}, 2, "did you mean --max-price?"},
		{"--json before the command", []string{"--repo", repo, "--json", "wallet", "balance"}, 0, ""},
	})
	// mcp on a missing repo never started serving.
	r := swarmwage(t, "--repo", missing, "mcp")
	require.NotContains(t, r.Stderr, "serving")
	require.Empty(t, r.Stdout)
}

// TestCLIExitCodesOnline: the exit codes of commands that use a daemon,
// hire's 3 to 6 and 130 among them, through the built binary.
func TestCLIExitCodesOnline(t *testing.T) {
	t.Parallel()
	m := startMarket(t, "")
	m.sell(t, "custom.test.fails", "0.01", "--handler", `exec:sh -c "cat >/dev/null; exit 3"`)
	m.sell(t, "custom.test.slow", "0.01", "--handler", `exec:sh -c "cat >/dev/null; sleep 30"`)
	m.sell(t, "compute.statistics.mean", "0.05", "--handler", `exec:sh -c "cat >/dev/null; echo '{\"result\": 42}'"`)
	seller := m.seller
	tmp := t.TempDir()
	sellerFile := filepath.Join(tmp, "seller.toml")
	require.NoError(t, os.WriteFile(sellerFile, []byte("[[listing]]\ncapability = \"compute.statistics.median\"\nprice = \"0.01\"\n"), 0o600))

	runExitCases(t, []exitCase{
		{"a second daemon on the repo", []string{"--repo", seller, "daemon"}, 2, "in use"},
		{"sell apply while the daemon runs", []string{"--repo", seller, "sell", "apply", sellerFile}, 2, "stop it"},
		{"sell add, price 0, through the daemon", []string{"--repo", seller, "sell", "add", "--price", "0", "compute.statistics.median"}, 2, "positive"},
		{"jobs show, unknown job", []string{"--repo", m.buyer, "jobs", "show", "nope"}, 2, "nope"},
		{"jobs cancel, unknown job", []string{"--repo", m.buyer, "jobs", "cancel", "nope"}, 2, "nope"},
		{"jobs watch, unknown job", []string{"--repo", m.buyer, "jobs", "watch", "nope"}, 2, "nope"},
		{"rate, unknown job", []string{"--repo", m.buyer, "rate", "nope", "5"}, 2, "nope"},
		{"escrow refund, unknown job", []string{"--repo", m.buyer, "escrow", "refund", "--reason", "x", "nope"}, 2, "nope"},
		{"hire: no seller at the price", []string{"--repo", m.buyer, "hire", "--max-price", "0.001", "--input-json", `{"a":1}`, "custom.test.fails"}, 3, ""},
		{"hire: the job failed", []string{"--repo", m.buyer, "hire", "--input-json", `{"a":1}`, "custom.test.fails"}, 4, "exit 3"},
		{"hire: verification failed", []string{"--repo", m.buyer, "hire", "--input-json", `{"data":[1,2,3]}`, "compute.statistics.mean"}, 5, "verification failed"},
		{"hire: no result within --timeout", []string{"--repo", m.buyer, "hire", "--timeout", "2s", "--input-json", `{"a":1}`, "custom.test.slow"}, 6, "--timeout"},
	})
	require.Equal(t, "10", balance(t, m.buyer).Available, "every failed hire was refunded")

	// Ctrl-C during a hire: the undelivered job is cancelled and refunded.
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, binPath, "--repo", m.buyer, "hire", "--json", "--input-json", `{"b":1}`, "custom.test.slow")
	cmd.Env = append(os.Environ(), "HOME="+t.TempDir())
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	require.Eventually(t, func() bool {
		r := swarmwage(t, "--repo", seller, "escrow", "list", "--json", "--state", "locked")
		return strings.Contains(r.Stdout, "custom.test.slow")
	}, 20*time.Second, 50*time.Millisecond)
	require.NoError(t, cmd.Process.Signal(syscall.SIGINT))
	var doc map[string]any
	_ = json.NewDecoder(out).Decode(&doc)
	err = cmd.Wait()
	var ee *exec.ExitError
	require.ErrorAs(t, err, &ee, stderr.String())
	require.Equal(t, 130, ee.ExitCode(), stderr.String())
	require.Contains(t, stderr.String(), "refunded")
	require.Eventually(t, func() bool { return balance(t, m.buyer).Held == "0" }, 10*time.Second, 100*time.Millisecond)
}
