package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestCLILostIdentityKeepsTheLedger: with identity.key deleted, commands
// said "run swarmwage init" and init said "remove it first": following both
// deleted the ledger. Now both give one message (restore the backup, or
// init --new-identity), and init --new-identity keeps the wallet.
func TestCLILostIdentityKeepsTheLedger(t *testing.T) {
	t.Parallel()
	repo := initRepo(t)
	r := swarmwage(t, "--repo", repo, "wallet", "deposit", "3")
	require.Equal(t, 0, r.Code, r.Stderr)
	r = swarmwage(t, "--repo", repo, "sell", "add", "--price", "0.5", "compute.statistics.mean")
	require.Equal(t, 0, r.Code, r.Stderr)
	old := nodeIDOf(t, repo).PeerID
	require.NoError(t, os.Remove(filepath.Join(repo, "identity.key")))

	var messages []string
	for _, args := range [][]string{{"wallet", "balance"}, {"daemon"}, {"id"}, {"init"}} {
		r := swarmwage(t, append([]string{"--repo", repo}, args...)...)
		require.NotEqual(t, 0, r.Code, "%v", args)
		require.Contains(t, r.Stderr, "Restore it from your backup of identity.key", "%v", args)
		require.Contains(t, r.Stderr, "init --new-identity", "%v", args)
		require.NotContains(t, r.Stderr, "remove it first", "%v", args)
		require.NotContains(t, r.Stderr, "run 'swarmwage init'", "%v", args)
		messages = append(messages, strings.TrimSpace(r.Stderr))
	}
	for _, m := range messages[1:] {
		require.Equal(t, messages[0], m, "one message")
	}

	r = swarmwage(t, "--repo", repo, "init", "--new-identity", "--network", "other")
	require.Equal(t, 2, r.Code, "the config stays as it is: %s", r.Stderr)

	r = swarmwage(t, "--repo", repo, "init", "--new-identity")
	require.Equal(t, 0, r.Code, r.Stderr)
	for _, want := range []string{"new identity for the repo", "the old identity.key was missing", "open jobs: 0", "1 listing(s) signed again", "back up identity.key"} {
		require.Contains(t, r.Stdout, want)
	}
	id := nodeIDOf(t, repo)
	require.NotEqual(t, old, id.PeerID)
	require.Contains(t, r.Stdout, id.PeerID)
	r = swarmwage(t, "--repo", repo, "wallet", "balance", "--json")
	require.Equal(t, 0, r.Code, r.Stderr)
	require.Equal(t, "3", balanceOf(t, r.Stdout)["available"], "the ledger is kept")

	// Deliberately again, with --json: the previous key is kept aside.
	r = swarmwage(t, "--repo", repo, "init", "--new-identity", "--json")
	require.Equal(t, 0, r.Code, r.Stderr)
	var info struct {
		PeerID         string         `json:"peer_id"`
		PreviousPeerID string         `json:"previous_peer_id"`
		OldKeyKept     string         `json:"old_key_kept"`
		OpenJobs       map[string]int `json:"open_jobs"`
		Listings       int            `json:"listings_resigned"`
	}
	require.NoError(t, json.Unmarshal([]byte(r.Stdout), &info), r.Stdout)
	require.Equal(t, id.PeerID, info.PreviousPeerID)
	require.FileExists(t, info.OldKeyKept)
	require.Equal(t, map[string]int{"bought": 0, "sold": 0}, info.OpenJobs)
	require.Equal(t, 1, info.Listings)

	// Not while a daemon runs.
	startDaemon(t, repo)
	r = swarmwage(t, "--repo", repo, "init", "--new-identity")
	require.Equal(t, 1, r.Code, r.Stderr)
	require.Contains(t, r.Stderr, "stop the daemon first")

	r = swarmwage(t, "--repo", filepath.Join(t.TempDir(), "none"), "init", "--new-identity")
	require.Equal(t, 2, r.Code, r.Stderr)
	require.Contains(t, r.Stderr, "no swarmwage repo")
}
