package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// inRepo runs the binary with $SWARMWAGE_REPO set to repo, so the command
// line is exactly what a user types: swarmwage config get KEY.
func inRepo(t *testing.T, repo string, args ...string) cliResult {
	t.Helper()
	return runCLI(t, cliRun{args: args, env: []string{"SWARMWAGE_REPO=" + repo}})
}

// config get and config set, as Kubo's ipfs config: a value set is the
// value read back, in text and as JSON, and the node runs with it.
func TestCLIConfigGetSet(t *testing.T) {
	t.Parallel()
	repo := initRepo(t)

	r := inRepo(t, repo, "config", "get", "api")
	require.Equal(t, 0, r.Code, r.Stderr)
	require.Equal(t, "127.0.0.1:0\n", r.Stdout)

	r = inRepo(t, repo, "config", "get", "listen")
	require.Equal(t, 0, r.Code, r.Stderr)
	require.Equal(t, "/ip4/127.0.0.1/tcp/0\n", r.Stdout, "a list: one item a line")

	r = inRepo(t, repo, "config", "get", "--json", "market.max_price")
	require.Equal(t, 0, r.Code, r.Stderr)
	require.JSONEq(t, `{"key": "market.max_price", "value": "", "set": false}`, r.Stdout)

	r = inRepo(t, repo, "config", "set", "market.max_price", "0.25")
	require.Equal(t, 0, r.Code, r.Stderr)
	require.Contains(t, r.Stdout, `market.max_price = "0.25"`)
	require.NotContains(t, r.Stderr, "restart", "no daemon runs")

	r = inRepo(t, repo, "config", "get", "market.max_price")
	require.Equal(t, 0, r.Code, r.Stderr)
	require.Equal(t, "0.25\n", r.Stdout)

	r = inRepo(t, repo, "config", "get", "--json", "market.max_price")
	require.Equal(t, 0, r.Code, r.Stderr)
	require.JSONEq(t, `{"key": "market.max_price", "value": "0.25", "set": true}`, r.Stdout)

	r = inRepo(t, repo, "config", "get", "--json", "--jq", ".value", "market.max_price")
	require.Equal(t, 0, r.Code, r.Stderr)
	require.Equal(t, "0.25\n", r.Stdout)

	// --repo works as for every command, and set --json says what it did.
	r = swarmwage(t, "--repo", repo, "config", "set", "--json", "market.concurrency", "6")
	require.Equal(t, 0, r.Code, r.Stderr)
	var set struct {
		Key           string `json:"key"`
		Value         int    `json:"value"`
		Changed       bool   `json:"changed"`
		RestartNeeded bool   `json:"restart_needed"`
	}
	require.NoError(t, json.Unmarshal([]byte(r.Stdout), &set), r.Stdout)
	require.Equal(t, "market.concurrency", set.Key)
	require.Equal(t, 6, set.Value)
	require.True(t, set.Changed)
	require.False(t, set.RestartNeeded)

	// The node reads what was set: a new network shows in 'id'.
	r = inRepo(t, repo, "config", "set", "network", "cfgnet2")
	require.Equal(t, 0, r.Code, r.Stderr)
	require.Equal(t, "cfgnet2", nodeIDOf(t, repo).Network)

	// The file keeps the header comment init wrote.
	raw, err := os.ReadFile(filepath.Join(repo, "config.toml"))
	require.NoError(t, err)
	require.Contains(t, string(raw), "# swarmwage node config.")
}

// A bad key or value exits 2 with a message naming the key and what is
// wrong, and config.toml is left byte for byte as it was.
func TestCLIConfigSetRefusesBadValues(t *testing.T) {
	t.Parallel()
	repo := initRepo(t)
	path := filepath.Join(repo, "config.toml")
	before, err := os.ReadFile(path)
	require.NoError(t, err)
	testCases := []struct {
		name    string
		args    []string
		message string
	}{
		{"not an amount", []string{"config", "set", "market.max_price", "cheap"}, `config market.max_price = "cheap": want a positive amount`},
		{"a negative amount", []string{"config", "set", "market.max_price", "-1"}, `config market.max_price = "-1": want a positive amount`},
		{"an unknown key", []string{"config", "set", "market.max_prize", "1"}, `unknown key "market.max_prize"; did you mean`},
		{"api off loopback", []string{"config", "set", "api", "0.0.0.0:5001"}, "config api: "},
		{"not an integer", []string{"config", "set", "market.queue", "lots"}, `config market.queue = "lots": want an integer`},
		{"a table", []string{"config", "set", "market", "x"}, "config market is a table"},
		{"no value", []string{"config", "set", "market.max_price"}, "config set needs KEY and VALUE"},
		{"get of an unknown key", []string{"config", "get", "nosuch"}, `unknown key "nosuch"`},
	}
	for _, tc := range testCases {
		t.Run(tc.name, func(t *testing.T) {
			r := inRepo(t, repo, tc.args...)
			require.Equal(t, 2, r.Code, r.Stdout+r.Stderr)
			require.Contains(t, r.Stderr, tc.message)
			after, err := os.ReadFile(path)
			require.NoError(t, err)
			require.Equal(t, string(before), string(after))
		})
	}
	// --json gets a document on stdout for the refusal too.
	r := inRepo(t, repo, "config", "set", "--json", "market.max_price", "cheap")
	require.Equal(t, 2, r.Code)
	var doc struct {
		Error    string `json:"error"`
		ExitCode int    `json:"exit_code"`
	}
	require.NoError(t, json.Unmarshal([]byte(r.Stdout), &doc), r.Stdout)
	require.Contains(t, doc.Error, "market.max_price")
	require.Equal(t, 2, doc.ExitCode)
}

// A running daemon read its config at start: set says it needs a restart,
// and the restarted daemon runs with the new value.
func TestCLIConfigSetTellsARunningDaemonNeedsARestart(t *testing.T) {
	t.Parallel()
	repo := initRepo(t)
	d := startDaemon(t, repo)
	r := inRepo(t, repo, "config", "set", "--json", "network", "cfgnet3")
	require.Equal(t, 0, r.Code, r.Stderr)
	require.Contains(t, r.Stderr, "once restarted: swarmwage shutdown, then swarmwage daemon")
	var set struct {
		DaemonRunning bool `json:"daemon_running"`
		RestartNeeded bool `json:"restart_needed"`
	}
	require.NoError(t, json.Unmarshal([]byte(r.Stdout), &set))
	require.True(t, set.DaemonRunning)
	require.True(t, set.RestartNeeded)
	require.Equal(t, "clitest", nodeIDOf(t, repo).Network, "the running daemon keeps its config")

	r = inRepo(t, repo, "shutdown")
	require.Equal(t, 0, r.Code, r.Stderr)
	_ = d.Wait()
	startDaemon(t, repo)
	require.Equal(t, "cfgnet3", nodeIDOf(t, repo).Network)
}
