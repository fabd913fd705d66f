package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// swarmwageAt runs the binary in dir (seller files name paths relative to
// the working directory).
func swarmwageAt(t *testing.T, dir string, args ...string) cliResult {
	t.Helper()
	return runCLI(t, cliRun{args: args, dir: dir})
}

func TestSellApplyStoresTheExampleSellerFile(t *testing.T) {
	root, err := filepath.Abs("../..")
	require.NoError(t, err)
	repo := filepath.Join(t.TempDir(), "seller")
	r := swarmwageAt(t, root, "--repo", repo, "init", "--network", "local", "--listen", "/ip4/127.0.0.1/tcp/4801", "--api", "127.0.0.1:5801")
	require.Equal(t, 0, r.Code, r.Stderr)

	r = swarmwageAt(t, root, "--repo", repo, "sell", "apply", "--json", "examples/seller.toml")
	require.Equal(t, 0, r.Code, r.Stderr)
	var res struct {
		Listings []struct {
			Capability    string `json:"capability"`
			Price         string `json:"price"`
			Handler       string `json:"handler"`
			SkillCardHash string `json:"skillcard_hash"`
		} `json:"listings"`
		ConfigNotes []string `json:"config_notes"`
	}
	require.NoError(t, json.Unmarshal([]byte(r.Stdout), &res))
	require.Empty(t, res.ConfigNotes, "the README's init flags match the file")
	byCap := map[string]string{}
	for _, l := range res.Listings {
		byCap[l.Capability] = l.Handler
	}
	require.Equal(t, map[string]string{
		"compute.statistics.mean":    "builtin",
		"chart.generate.from-data":   "builtin",
		"text.summarize.short":       "builtin",
		"text.rewrite.casual":        "exec:python3 examples/workers/rewrite_casual.py",
		"custom.examples.word-stats": "skillcard",
	}, byCap)

	r = swarmwageAt(t, root, "--repo", repo, "sell", "list", "--json")
	require.Equal(t, 0, r.Code, r.Stderr)
	require.Contains(t, r.Stdout, `"custom.examples.word-stats"`)
}

func TestSellApplyNamesWhatIsWrong(t *testing.T) {
	repo := initRepo(t)
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p, []byte(body), 0o644))
		return p
	}
	other := write("other.toml", "network = \"elsewhere\"\n[[listing]]\ncapability = \"compute.statistics.mean\"\nprice = \"0.01\"\n")
	testCases := []struct {
		name string
		args []string
		code int
		want string
	}{
		{"no file", []string{"sell", "apply"}, 2, "needs exactly one seller file"},
		{"missing file", []string{"sell", "apply", filepath.Join(dir, "nope.toml")}, 2, "nope.toml"},
		{"bad price", []string{"sell", "apply", write("bad.toml", "[[listing]]\ncapability = \"compute.statistics.mean\"\nprice = \"cheap\"\n")}, 2, `price "cheap"`},
		{"no repo", []string{"--repo", filepath.Join(dir, "norepo"), "sell", "apply", other}, 2, "swarmwage init"},
	}
	for _, tc := range testCases {
		t.Run(tc.name, func(t *testing.T) {
			args := tc.args
			if args[0] != "--repo" {
				args = append([]string{"--repo", repo}, args...)
			}
			r := swarmwage(t, args...)
			require.Equal(t, tc.code, r.Code, r.Stderr)
			require.Contains(t, r.Stderr, tc.want)
		})
	}

	t.Run("config differs", func(t *testing.T) {
		r := swarmwage(t, "--repo", repo, "sell", "apply", other)
		require.Equal(t, 0, r.Code, r.Stderr)
		require.Contains(t, r.Stderr, `note: network: the seller file says elsewhere, the repo's config.toml has clitest`)
	})

	t.Run("daemon running", func(t *testing.T) {
		startDaemon(t, repo)
		r := swarmwage(t, "--repo", repo, "sell", "apply", other)
		require.Equal(t, 2, r.Code, r.Stderr)
		require.Contains(t, r.Stderr, "a daemon runs on")
	})
}
