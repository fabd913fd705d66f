package main

import (
	"encoding/json"
	"fmt"
	"os"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestCLIJobsAndEscrowListsHonourLimit: 'jobs list --limit N' and
// 'escrow list --limit N' through the daemon, page by page; job lists are
// summaries, 'jobs show' has the output. Then the same lists offline.
func TestCLIJobsAndEscrowListsHonourLimit(t *testing.T) {
	t.Parallel()
	m := startMarket(t, "")
	m.sell(t, "compute.statistics.mean", "0.01")
	for i := range 3 {
		_, r := hire(t, m.buyer, "--input-json", fmt.Sprintf(`{"data":[%d]}`, i), "compute.statistics.mean")
		require.Equal(t, 0, r.Code, r.Stderr)
	}
	type jobsJSON struct {
		Jobs       []map[string]any `json:"jobs"`
		NextCursor string           `json:"next_cursor"`
	}
	list := func(args ...string) jobsJSON {
		t.Helper()
		r := swarmwage(t, append([]string{"--repo", m.buyer, "jobs", "list", "--json"}, args...)...)
		require.Equal(t, 0, r.Code, r.Stderr)
		var out jobsJSON
		require.NoError(t, json.Unmarshal([]byte(r.Stdout), &out), r.Stdout)
		return out
	}
	two := list("--limit", "2")
	require.Len(t, two.Jobs, 2)
	require.NotEmpty(t, two.NextCursor, "says that there are more")
	all := list("--limit", "0")
	require.Len(t, all.Jobs, 3)
	require.Empty(t, all.NextCursor)
	require.Equal(t, all.Jobs[0]["job_id"], two.Jobs[0]["job_id"], "newest first")
	for _, j := range all.Jobs {
		require.NotContains(t, j, "output", "a list carries no outputs")
		require.NotContains(t, j, "input")
	}
	r := swarmwage(t, "--repo", m.buyer, "jobs", "list")
	require.Equal(t, 0, r.Code, r.Stderr)
	require.NotContains(t, r.Stdout, "--limit 0 lists all", "3 jobs fit the default page")
	r = swarmwage(t, "--repo", m.buyer, "jobs", "list", "--limit", "1")
	require.Equal(t, 0, r.Code, r.Stderr)
	require.Contains(t, r.Stdout, "(the newest 1; --limit 0 lists all)")
	r = swarmwage(t, "--repo", m.buyer, "jobs", "show", "--json", two.Jobs[0]["job_id"].(string))
	require.Equal(t, 0, r.Code, r.Stderr)
	require.Contains(t, r.Stdout, `"output"`)

	r = swarmwage(t, "--repo", m.buyer, "escrow", "list", "--json", "--limit", "2")
	require.Equal(t, 0, r.Code, r.Stderr)
	var esc struct {
		Escrows []map[string]any `json:"escrows"`
	}
	require.NoError(t, json.Unmarshal([]byte(r.Stdout), &esc))
	require.Len(t, esc.Escrows, 2)

	// Offline: the same lists from the repo, read-only.
	require.NoError(t, m.buyerCmd.Process.Signal(os.Interrupt))
	require.NoError(t, m.buyerCmd.Wait())
	require.Len(t, list("--limit", "2").Jobs, 2)
	require.NotEmpty(t, list("--limit", "2").NextCursor)
	require.Len(t, list("--limit", "0").Jobs, 3)
	r = swarmwage(t, "--repo", m.buyer, "escrow", "list", "--json", "--limit", "0")
	require.Equal(t, 0, r.Code, r.Stderr)
	require.NoError(t, json.Unmarshal([]byte(r.Stdout), &esc))
	require.Len(t, esc.Escrows, 3)
}
