package main

import (
	"encoding/json"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/swarmwage/swarmwage/demo"
)

// runDemoCLI runs 'swarmwage demo' with HOME and TMPDIR in fresh
// directories, so the test sees everything the demo writes.
func runDemoCLI(t *testing.T, home, tmp string, args ...string) cliResult {
	t.Helper()
	return runCLI(t, cliRun{args: append([]string{"demo"}, args...), limit: 3 * time.Minute, env: []string{"HOME=" + home, "TMPDIR=" + tmp}})
}

func TestDemoHiresEveryCapabilityAndLeavesOnlyTheChart(t *testing.T) {
	t.Parallel()
	home, tmp, out := t.TempDir(), t.TempDir(), t.TempDir()
	r := runDemoCLI(t, home, tmp, "--json", "--out", out)
	require.Equal(t, 0, r.Code, "stdout:\n%s\nstderr:\n%s", r.Stdout, r.Stderr)
	require.Empty(t, r.Stderr, "piped: no progress on stderr")

	var res demo.Result
	require.NoError(t, json.Unmarshal([]byte(r.Stdout), &res))
	require.True(t, res.OK)
	require.Equal(t, demo.Network, res.Network)
	require.Len(t, res.Hires, len(demo.Jobs()))
	var paid float64
	for i, h := range res.Hires {
		require.Equal(t, demo.Jobs()[i].Capability, h.Capability)
		require.Equal(t, "released", h.Escrow, h.Capability)
		require.Equal(t, "passed", h.Verification, h.Capability)
		require.Equal(t, h.Checks, h.ChecksPassed, h.Capability)
		require.Equal(t, res.Seller, h.Seller)
		require.Equal(t, demo.Jobs()[i].Price, h.Price)
		paid += mustFloat(t, h.Price)
	}
	require.InDelta(t, paid, mustFloat(t, res.BuyerBalance.Paid), 1e-9)
	require.InDelta(t, paid, mustFloat(t, res.SellerBalance.Earned), 1e-9)
	require.InDelta(t, 10-paid, mustFloat(t, res.BuyerBalance.Available), 1e-9)

	// The chart is a PNG of the size the demo asked for.
	require.Equal(t, filepath.Join(out, demo.ChartFile), res.ChartPath)
	f, err := os.Open(res.ChartPath)
	require.NoError(t, err)
	defer f.Close()
	cfg, err := png.DecodeConfig(f)
	require.NoError(t, err)
	require.Equal(t, 640, cfg.Width)
	require.Equal(t, 400, cfg.Height)

	// The temporary repos are gone and nothing was written to HOME.
	requireEmptyDir(t, tmp)
	requireEmptyDir(t, home)
}

func TestDemoPrintsATableOfHires(t *testing.T) {
	t.Parallel()
	out := filepath.Join(t.TempDir(), "new", "charts") // --out DIR is created

	r := runDemoCLI(t, t.TempDir(), t.TempDir(), "--out", out, "--only", "compute.statistics.mean", "--only", "chart.generate.from-data")
	require.Equal(t, 0, r.Code, r.Stderr)
	lines := strings.Split(r.Stdout, "\n")
	var header string
	for _, l := range lines {
		if strings.HasPrefix(l, "CAPABILITY") {
			header = l
		}
	}
	require.Equal(t, []string{"CAPABILITY", "SELLER", "PRICE", "VERIFICATION", "ESCROW", "TIME"}, strings.Fields(header))
	require.Regexp(t, `(?m)^compute\.statistics\.mean\s+12D3Koo…\S+\s+0\.01\s+passed 3/3\s+released\s+\d`, r.Stdout)
	require.Regexp(t, `(?m)^chart\.generate\.from-data\s+12D3Koo…\S+\s+0\.02\s+passed 6/6\s+released\s+\d`, r.Stdout)
	require.Contains(t, r.Stdout, "chart:  "+filepath.Join(out, demo.ChartFile))
	require.FileExists(t, filepath.Join(out, demo.ChartFile))
}

func TestDemoBadUsage(t *testing.T) {
	t.Parallel()
	file := filepath.Join(t.TempDir(), "file")
	require.NoError(t, os.WriteFile(file, nil, 0o600))
	testCases := []struct {
		name string
		args []string
		want string
	}{
		{"out cannot be a directory", []string{"--out", filepath.Join(file, "dir")}, "--out " + filepath.Join(file, "dir") + ": cannot create the directory"},
		{"argument", []string{"now"}, "demo takes no arguments"},
		{"unknown capability", []string{"--only", "text.translate.en.it.fluent"}, "the demo does not hire \"text.translate.en.it.fluent\"; it hires compute.statistics.mean"},
	}
	for _, tc := range testCases {
		t.Run(tc.name, func(t *testing.T) {
			r := runDemoCLI(t, t.TempDir(), t.TempDir(), tc.args...)
			require.Equal(t, 2, r.Code, r.Stderr)
			require.Contains(t, r.Stderr, tc.want)
		})
	}
}

func requireEmptyDir(t *testing.T, dir string) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	require.Empty(t, names, "%s should be empty", dir)
}

func mustFloat(t *testing.T, s string) float64 {
	t.Helper()
	var f float64
	require.NoError(t, json.Unmarshal([]byte(s), &f), s)
	return f
}
