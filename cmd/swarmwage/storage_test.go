//go:build linux

package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/swarmwage/swarmwage/node/nodetest"
)

// fillUntilReserveGone fills disk until the daemon of repo has released
// its reserve, then takes that space too; it returns the fill files.
func fillUntilReserveGone(t *testing.T, disk, repo string) []string {
	t.Helper()
	var fills []string
	require.Eventually(t, func() bool {
		fills = append(fills, nodetest.FillDisk(t, disk))
		_, err := os.Stat(filepath.Join(repo, "data", "swarmwage.reserve"))
		return os.IsNotExist(err)
	}, 20*time.Second, 300*time.Millisecond, "the daemon releases its reserve on a full disk")
	fills = append(fills, nodetest.FillDisk(t, disk))
	require.Less(t, nodetest.FreeBytes(t, disk), uint64(64<<10))
	return fills
}

func removeAll(t *testing.T, files []string) {
	t.Helper()
	for _, f := range files {
		require.NoError(t, os.Remove(f))
	}
}

// TestFullDiskNeverCrashesTheDaemonOrOfflineReads: on a real tmpfs filled
// to the last block, the daemon died with SIGBUS and so did an offline
// 'wallet balance'. Now the daemon refuses hires with the disk-full error,
// keeps answering reads, takes hires again once space is freed (no
// restart), stops cleanly on a full disk, and offline reads work on it.
func TestFullDiskNeverCrashesTheDaemonOrOfflineReads(t *testing.T) {
	t.Parallel()
	disk := nodetest.Tmpfs(t, 256<<20)
	repo := filepath.Join(disk, "repo")
	r := swarmwage(t, "--repo", repo, "init", "--network", "clitest", "--listen", "/ip4/127.0.0.1/tcp/0", "--api", "127.0.0.1:0")
	require.Equal(t, 0, r.Code, r.Stderr)
	f, err := os.OpenFile(filepath.Join(repo, "config.toml"), os.O_APPEND|os.O_WRONLY, 0)
	require.NoError(t, err)
	_, err = f.WriteString("\n[storage]\nmin_free = \"32MiB\"\n")
	require.NoError(t, err)
	require.NoError(t, f.Close())

	daemon := startDaemon(t, repo)
	r = swarmwage(t, "--repo", repo, "wallet", "deposit", "5")
	require.Equal(t, 0, r.Code, r.Stderr)
	require.Eventually(t, func() bool {
		_, err := os.Stat(filepath.Join(repo, "data", "swarmwage.reserve"))
		return err == nil
	}, 10*time.Second, 50*time.Millisecond)
	hire := []string{"--repo", repo, "hire", "--input-json", `{"data":[1,2]}`, "--max-price", "0.1", "--timeout", "3s", "compute.statistics.mean"}

	fills := fillUntilReserveGone(t, disk, repo)
	r = swarmwage(t, hire...)
	require.Equal(t, 1, r.Code, r.Stdout+r.Stderr)
	require.Contains(t, r.Stderr, "disk full")
	require.Contains(t, r.Stderr, "new quotes and hires are refused")
	require.Contains(t, r.Stderr, "Free space on that disk")
	r = swarmwage(t, "--repo", repo, "wallet", "balance", "--json")
	require.Equal(t, 0, r.Code, r.Stderr)
	require.Equal(t, "5", balanceOf(t, r.Stdout)["available"], "reads keep working, and nothing was locked")
	r = swarmwage(t, "--repo", repo, "jobs", "list")
	require.Equal(t, 0, r.Code, r.Stderr)

	removeAll(t, fills)
	r = swarmwage(t, hire...)
	require.Equal(t, 3, r.Code, "past the watermark, without a restart: the hire looks for sellers (none here)\n"+r.Stderr)
	require.NotContains(t, r.Stderr, "disk full")

	// Stopping on a full disk is clean, and offline reads work on it.
	fills = fillUntilReserveGone(t, disk, repo)
	require.NoError(t, daemon.Process.Signal(os.Interrupt))
	err = daemon.Wait()
	require.NoError(t, err, "the daemon exits 0 on a full disk, no SIGBUS")
	require.Equal(t, 0, daemon.ProcessState.ExitCode())
	fills = append(fills, nodetest.FillDisk(t, disk)) // what the stop gave back
	require.Less(t, nodetest.FreeBytes(t, disk), uint64(64<<10))
	for _, args := range [][]string{{"wallet", "balance", "--json"}, {"escrow", "list"}, {"jobs", "list", "--limit", "5"}, {"id"}, {"sell", "list"}} {
		r = swarmwage(t, append([]string{"--repo", repo}, args...)...)
		require.Equal(t, 0, r.Code, "%v on a full disk: %s", args, r.Stderr)
		if args[0] == "wallet" {
			require.Equal(t, "5", balanceOf(t, r.Stdout)["available"])
		}
	}
	r = swarmwage(t, "--repo", repo, "wallet", "deposit", "1")
	require.Equal(t, 1, r.Code, "a write on a full disk is refused, not a crash: %s", r.Stderr)
	require.Contains(t, r.Stderr, "disk full")
	r = runCLI(t, cliRun{args: []string{"--repo", repo, "daemon"}, limit: 20 * time.Second})
	require.Equal(t, 1, r.Code, "the daemon does not start on a full disk: %s", r.Stderr)
	require.Contains(t, r.Stderr, "disk full")
	require.NotContains(t, r.Stderr, "fatal error")

	removeAll(t, fills)
	startDaemon(t, repo)
	r = swarmwage(t, "--repo", repo, "wallet", "deposit", "1")
	require.Equal(t, 0, r.Code, r.Stderr)
}

func balanceOf(t *testing.T, stdout string) map[string]string {
	t.Helper()
	var b map[string]string
	require.NoError(t, json.Unmarshal([]byte(stdout), &b), stdout)
	return b
}
