package main

import (
	"encoding/json"
	"os"
	"os/exec"
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
	t.Parallel()
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
		"text.rewrite.casual":        "exec:" + python3(t) + " examples/workers/rewrite_casual.py",
		"custom.examples.word-stats": "skillcard",
	}, byCap)

	r = swarmwageAt(t, root, "--repo", repo, "sell", "list", "--json")
	require.Equal(t, 0, r.Code, r.Stderr)
	require.Contains(t, r.Stdout, `"custom.examples.word-stats"`)

	// Issue 29: applying the example rewrote the repo's listen and api.
	other := filepath.Join(t.TempDir(), "other")
	r = swarmwageAt(t, root, "--repo", other, "init", "--network", "local", "--listen", "/ip4/127.0.0.1/tcp/0", "--api", "127.0.0.1:0")
	require.Equal(t, 0, r.Code, r.Stderr)
	r = swarmwageAt(t, root, "--repo", other, "sell", "apply", "examples/seller.toml")
	require.Equal(t, 0, r.Code, r.Stderr)
	cfg, err := os.ReadFile(filepath.Join(other, "config.toml"))
	require.NoError(t, err)
	require.Contains(t, string(cfg), `"/ip4/127.0.0.1/tcp/0"`, "listen kept")
	require.Contains(t, string(cfg), `api = "127.0.0.1:0"`, "api kept")
}

func TestSellApplyNamesWhatIsWrong(t *testing.T) {
	t.Parallel()
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
		require.Contains(t, r.Stdout, `config.toml: network: "clitest" -> "elsewhere" (written to config.toml)`)
		require.NotContains(t, r.Stdout+r.Stderr, "{", "readable notes, no Go structs")
		id := swarmwage(t, "--repo", repo, "id", "--json")
		require.Contains(t, id.Stdout, `"network": "elsewhere"`, "the node key is applied")
	})

	t.Run("daemon running", func(t *testing.T) {
		startDaemon(t, repo)
		r := swarmwage(t, "--repo", repo, "sell", "apply", other)
		require.Equal(t, 2, r.Code, r.Stderr)
		require.Contains(t, r.Stderr, "a daemon runs on")
	})
}

// python3 is the absolute path 'sell add' and 'sell apply' store for
// "python3".
func python3(t *testing.T) string {
	t.Helper()
	p, err := exec.LookPath("python3")
	require.NoError(t, err)
	p, err = filepath.Abs(p)
	require.NoError(t, err)
	return p
}

// TestSellApplyDiffAndPrune: --diff shows what would change and changes
// nothing; without --prune a listing the file lacks is kept, with it the
// listing is removed.
func TestSellApplyDiffAndPrune(t *testing.T) {
	t.Parallel()
	repo := initRepo(t)
	r := swarmwage(t, "--repo", repo, "sell", "add", "--price", "0.5", "compute.statistics.median")
	require.Equal(t, 0, r.Code, r.Stderr)
	file := filepath.Join(t.TempDir(), "seller.toml")
	require.NoError(t, os.WriteFile(file, []byte("[market]\nverification_window = \"1m\"\n[[listing]]\ncapability = \"compute.statistics.mean\"\nprice = \"0.01\"\n"), 0o644))
	before, err := os.ReadFile(filepath.Join(repo, "config.toml"))
	require.NoError(t, err)

	type applyJSON struct {
		Changes []struct {
			Capability string `json:"capability"`
			Action     string `json:"action"`
		} `json:"changes"`
		ConfigChanges []struct {
			Key, From, To string
		} `json:"config_changes"`
		Applied bool `json:"applied"`
	}
	apply := func(args ...string) applyJSON {
		t.Helper()
		r := swarmwage(t, append([]string{"--repo", repo, "sell", "apply", "--json"}, append(args, file)...)...)
		require.Equal(t, 0, r.Code, r.Stderr)
		var out applyJSON
		require.NoError(t, json.Unmarshal([]byte(r.Stdout), &out), r.Stdout)
		return out
	}
	actions := func(a applyJSON) map[string]string {
		m := map[string]string{}
		for _, c := range a.Changes {
			m[c.Capability] = c.Action
		}
		return m
	}
	d := apply("--diff", "--prune")
	require.False(t, d.Applied)
	require.Equal(t, map[string]string{"compute.statistics.mean": "add", "compute.statistics.median": "remove"}, actions(d))
	require.Len(t, d.ConfigChanges, 1)
	require.Equal(t, "market.verification_window", d.ConfigChanges[0].Key)
	after, err := os.ReadFile(filepath.Join(repo, "config.toml"))
	require.NoError(t, err)
	require.Equal(t, string(before), string(after), "--diff writes nothing")
	r = swarmwage(t, "--repo", repo, "sell", "list", "--json")
	require.NotContains(t, r.Stdout, "compute.statistics.mean", "--diff stores nothing")

	text := swarmwage(t, "--repo", repo, "sell", "apply", "--diff", file)
	require.Equal(t, 0, text.Code, text.Stderr)
	require.Contains(t, text.Stdout, "--prune removes them")
	require.Contains(t, text.Stdout, "nothing changed")

	k := apply()
	require.True(t, k.Applied)
	require.Equal(t, "keep", actions(k)["compute.statistics.median"])
	r = swarmwage(t, "--repo", repo, "sell", "list", "--json")
	require.Contains(t, r.Stdout, "compute.statistics.median")
	cfg, err := os.ReadFile(filepath.Join(repo, "config.toml"))
	require.NoError(t, err)
	require.Contains(t, string(cfg), `verification_window = "1m"`)

	p := apply("--prune")
	require.Equal(t, "remove", actions(p)["compute.statistics.median"])
	require.Empty(t, p.ConfigChanges, "already applied")
	r = swarmwage(t, "--repo", repo, "sell", "list", "--json")
	require.NotContains(t, r.Stdout, "compute.statistics.median")
	require.Contains(t, r.Stdout, "compute.statistics.mean")
}
