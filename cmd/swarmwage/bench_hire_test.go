package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/swarmwage/swarmwage/escrow/evm/evmtest"
)

// TestBinaryDoesNotImportTesting: the shipping binary links no test code.
// 'bench hire --settlement evm' once imported evmtest (which found
// contracts/ through runtime.Caller and pulled in package testing), so it
// worked only from a source checkout.
func TestBinaryDoesNotImportTesting(t *testing.T) {
	t.Parallel()
	out, err := exec.Command("go", "list", "-deps", ".").Output()
	require.NoError(t, err)
	for _, dep := range strings.Fields(string(out)) {
		require.NotEqual(t, "testing", dep, "package testing is linked into the binary; 'go list -deps -f \"{{.ImportPath}}: {{.Imports}}\" ./cmd/swarmwage' shows who imports it")
		require.NotContains(t, dep, "evmtest")
	}
}

// 'bench hire --settlement evm' starts the anvil given by --anvil, else
// the one on PATH, else the pinned one of the checkout it runs in, and
// says which flag to give when there is none.
func TestBenchHireEVMFindsAnvil(t *testing.T) {
	t.Parallel()
	pinned, err := evmtest.AnvilPath()
	require.NoError(t, err)
	onPath := t.TempDir()
	require.NoError(t, os.Symlink(pinned, filepath.Join(onPath, "anvil")))
	noAnvil := "PATH=" + filepath.Dir(mustLookPath(t, "sh")) // neither anvil nor a checkout
	bench := []string{"bench", "hire", "--settlement", "evm", "--n", "4", "--concurrency", "2", "--json"}
	testCases := []struct {
		name  string
		flags []string
		env   string
		// inCheckout runs it in this source tree, else in a temp dir.
		inCheckout bool
		code       int
		// stderr is what the message says, for a failure.
		stderr []string
	}{
		{name: "flag", flags: []string{"--anvil", pinned}, env: noAnvil},
		{name: "PATH", env: "PATH=" + onPath},
		{name: "checkout", env: noAnvil, inCheckout: true},
		{name: "none", env: noAnvil, code: 1, stderr: []string{"anvil not found", "--anvil PATH", "--rpc URL"}},
		{name: "bad flag", flags: []string{"--anvil", filepath.Join(onPath, "missing")}, env: "PATH=" + onPath, code: 2, stderr: []string{"--anvil", "missing"}},
	}
	for _, tc := range testCases {
		t.Run(tc.name, func(t *testing.T) {
			args := append(append([]string{}, bench[:4]...), tc.flags...)
			args = append(args, bench[4:]...)
			dir := t.TempDir()
			if tc.inCheckout {
				dir = "" // cmd/swarmwage, under contracts/'s parent
			}
			r := runCLI(t, cliRun{args: args, dir: dir, env: []string{tc.env}, limit: 3 * time.Minute})
			require.Equal(t, tc.code, r.Code, r.Stderr)
			for _, s := range tc.stderr {
				require.Contains(t, r.Stderr, s)
			}
			if tc.code != 0 {
				return
			}
			var res struct {
				N          int    `json:"n"`
				Failed     int    `json:"failed"`
				Settlement string `json:"settlement"`
				Chain      *struct {
					ChainID int64 `json:"chain_id"`
				} `json:"chain"`
			}
			require.NoError(t, json.Unmarshal([]byte(r.Stdout), &res), r.Stdout)
			require.Equal(t, 4, res.N)
			require.Zero(t, res.Failed)
			require.Equal(t, "evm", res.Settlement)
			require.NotNil(t, res.Chain)
			require.Equal(t, int64(31337), res.Chain.ChainID)
		})
	}
}

func mustLookPath(t *testing.T, name string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	require.NoError(t, err)
	return p
}
