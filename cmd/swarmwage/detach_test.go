package main

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestCLIDetachWatchCancel: hire --detach returns at once with the job ID;
// jobs watch follows the job to its result (NDJSON, the last line the
// result); jobs cancel stops another job before delivery and refunds it,
// and the seller stops too; jobs show keeps the event history.
func TestCLIDetachWatchCancel(t *testing.T) {
	t.Parallel()
	m := startMarket(t, "")
	m.sell(t, "custom.test.slow", "0.25", "--handler", `exec:sh -c "sleep 2; cat"`)

	r := swarmwage(t, "--repo", m.buyer, "hire", "--detach", "--json", "--input-json", `{"a":1}`, "custom.test.slow")
	require.Equal(t, 0, r.Code, r.Stderr)
	var d struct {
		JobID   string `json:"job_id"`
		Outcome string `json:"outcome"`
	}
	require.NoError(t, json.Unmarshal([]byte(r.Stdout), &d), r.Stdout)
	require.Equal(t, "running", d.Outcome)
	require.NotEmpty(t, d.JobID)

	r = swarmwage(t, "--repo", m.buyer, "jobs", "watch", "--json", d.JobID)
	require.Equal(t, 0, r.Code, r.Stderr)
	lines := strings.Split(strings.TrimSpace(r.Stdout), "\n")
	require.GreaterOrEqual(t, len(lines), 2, r.Stdout)
	var last struct {
		JobID   string          `json:"job_id"`
		Outcome string          `json:"outcome"`
		Output  json.RawMessage `json:"output"`
	}
	require.NoError(t, json.Unmarshal([]byte(lines[len(lines)-1]), &last))
	require.Equal(t, d.JobID, last.JobID)
	require.Equal(t, "delivered", last.Outcome)
	require.JSONEq(t, `{"a":1}`, string(last.Output))
	require.Contains(t, r.Stdout, `"type":"accepted"`)

	r = swarmwage(t, "--repo", m.buyer, "jobs", "show", d.JobID)
	require.Equal(t, 0, r.Code, r.Stderr)
	require.Contains(t, r.Stdout, `"events"`)
	// Watching a finished job gives its history and result.
	r = swarmwage(t, "--repo", m.buyer, "jobs", "watch", "--json", d.JobID)
	require.Equal(t, 0, r.Code, r.Stderr)
	require.Contains(t, r.Stdout, `"outcome":"delivered"`)

	// Cancel one that is still running.
	r = swarmwage(t, "--repo", m.buyer, "hire", "--detach", "--json", "--input-json", `{"b":2}`, "custom.test.slow")
	require.Equal(t, 0, r.Code, r.Stderr)
	require.NoError(t, json.Unmarshal([]byte(r.Stdout), &d), r.Stdout)
	r = swarmwage(t, "--repo", m.buyer, "jobs", "cancel", "--json", d.JobID)
	require.Equal(t, 0, r.Code, r.Stderr)
	require.Contains(t, r.Stdout, `"state": "refunded"`)
	require.Eventually(t, func() bool { return escrowState(t, m.seller, d.JobID) == "refunded" }, 10*time.Second, 100*time.Millisecond)
	require.Equal(t, "0.25", balance(t, m.buyer).Held, "only the first, delivered job is held")
	r = swarmwage(t, "--repo", m.buyer, "jobs", "cancel", d.JobID)
	require.Equal(t, 0, r.Code, "cancelling a refunded job again is a no-op")
	r = swarmwage(t, "--repo", m.buyer, "jobs", "watch", "nope")
	require.Equal(t, 2, r.Code)
}
