package node_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/swarmwage/swarmwage/controlapi"
	"github.com/swarmwage/swarmwage/escrow"
	"github.com/swarmwage/swarmwage/market"
)

// TestListsArePagedAndCarryNoOutputs: GET /v1/jobs and GET /v1/escrow
// answer pages that walk every record once, newest first, and job pages
// carry no inputs or outputs; the client pages through all of them.
func TestListsArePagedAndCarryNoOutputs(t *testing.T) {
	boot := startNode(t, newRepo(t, t.TempDir()))
	seller := startNode(t, newRepo(t, t.TempDir()), boot)
	buyer := startNode(t, newRepo(t, t.TempDir()), boot)
	list(t, seller, "compute.statistics.mean", "0.01")
	waitReady(t, boot, seller, buyer)
	ctx := context.Background()
	require.NoError(t, buyer.Escrow.Deposit(ctx, mustAmount(t, "10"), "test"))
	const hires = 23
	for i := range hires {
		_, err := buyer.Market.Hire(ctx, market.HireRequest{
			Capability: "compute.statistics.mean", Input: json.RawMessage(`{"data":[1,2,3,` + strings.Repeat("4,", i) + `5]}`),
			Timeout: 20 * time.Second,
		})
		require.NoError(t, err)
	}
	cl, err := controlapi.Dial(buyer.Repo.Dir)
	require.NoError(t, err)

	var jobs []market.JobRecord
	cursor, pages := "", 0
	for {
		page, err := cl.JobsPage(ctx, controlapi.JobsQuery{Limit: 5, Cursor: cursor})
		require.NoError(t, err)
		require.LessOrEqual(t, len(page.Jobs), 5)
		jobs = append(jobs, page.Jobs...)
		pages++
		if page.NextCursor == "" {
			break
		}
		cursor = page.NextCursor
	}
	require.Equal(t, 5, pages)
	require.Len(t, jobs, hires)
	seen := map[string]bool{}
	for i, j := range jobs {
		require.False(t, seen[j.JobID], "job %s twice", j.JobID)
		seen[j.JobID] = true
		require.Nil(t, j.Input)
		require.Nil(t, j.Output)
		if i > 0 {
			require.False(t, jobs[i].CreatedAt.After(jobs[i-1].CreatedAt), "newest first")
		}
	}
	full, err := cl.Job(ctx, jobs[0].JobID)
	require.NoError(t, err)
	require.NotEmpty(t, full.Output, "one job still has its output")

	all, err := cl.Jobs(ctx, market.RoleBuyer)
	require.NoError(t, err)
	require.Len(t, all.Jobs, hires)
	some, err := cl.ListJobs(ctx, "", 7)
	require.NoError(t, err)
	require.Len(t, some.Jobs, 7)
	require.NotEmpty(t, some.NextCursor)

	recs, err := cl.EscrowList(ctx, escrow.Filter{})
	require.NoError(t, err, "all escrows, page by page")
	require.Len(t, recs, hires)
	p1, err := cl.EscrowPage(ctx, escrow.Filter{Limit: 10}, "")
	require.NoError(t, err)
	require.Len(t, p1.Escrows, 10)
	p2, err := cl.EscrowPage(ctx, escrow.Filter{Limit: 10}, p1.NextCursor)
	require.NoError(t, err)
	require.Len(t, p2.Escrows, 10)
	require.NotEqual(t, p1.Escrows[9].JobID, p2.Escrows[0].JobID)
	require.Equal(t, recs[10].JobID, p2.Escrows[0].JobID)
	lim, err := cl.EscrowList(ctx, escrow.Filter{Limit: 4, State: escrow.StateReleased})
	require.NoError(t, err)
	require.Len(t, lim, 4)

	// Bad requests get a 400 that names what is wrong.
	token, err := os.ReadFile(filepath.Join(buyer.Repo.Dir, "api.token"))
	require.NoError(t, err)
	for path, want := range map[string]string{
		"/v1/jobs?cursor=nope":  "bad list cursor",
		"/v1/jobs?limit=-3":     "limit",
		"/v1/jobs?role=admin":   "role",
		"/v1/escrow?cursor=bad": "bad list cursor",
	} {
		req, err := http.NewRequest(http.MethodGet, buyer.APIURL()+path, nil)
		require.NoError(t, err)
		req.Header.Set("Authorization", "Bearer "+string(token))
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		require.Equal(t, http.StatusBadRequest, resp.StatusCode, path)
		require.Contains(t, string(body), want, path)
	}
}
