package node_test

import (
	"context"
	"encoding/json"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/swarmwage/swarmwage/escrow"
	"github.com/swarmwage/swarmwage/market"
	"github.com/swarmwage/swarmwage/node"
)

// TestOfflineJobsAreTheDaemons: 'jobs show', 'jobs list' and status read
// a job through the same service methods offline (the repo opened
// read-only here) as the daemon does: the same record, input and output
// (from the escrow's own API, not its keys) and state.
func TestOfflineJobsAreTheDaemons(t *testing.T) {
	ctx := context.Background()
	boot := startNode(t, newRepo(t, t.TempDir()))
	seller := startNode(t, newRepo(t, t.TempDir()), boot)
	dir := filepath.Join(t.TempDir(), "buyer")
	buyer := startNode(t, newRepo(t, dir), boot)
	list(t, seller, "compute.statistics.mean", "0.05")
	waitReady(t, boot, seller, buyer)
	require.NoError(t, buyer.Escrow.Deposit(ctx, mustAmount(t, "1"), "test"))
	res, err := buyer.Market.Hire(ctx, market.HireRequest{
		Capability: "compute.statistics.mean", Input: json.RawMessage(`{"data":[1,2,3,4]}`), MaxPrice: mustAmount(t, "0.1"), Timeout: 20 * time.Second,
	})
	require.NoError(t, err)
	require.Equal(t, escrow.StateReleased, res.State)
	// The hire returns once the job is released; the seller's
	// acknowledgement of the settle is recorded after that. Compare the
	// two views once the record has stopped changing.
	require.Eventually(t, func() bool {
		r, err := buyer.Market.Job(ctx, res.JobID)
		return err == nil && r.SettleSent
	}, 30*time.Second, 10*time.Millisecond, "the seller acknowledges the settle")

	online, err := node.OpenEnv(dir, node.ReadOnly)
	require.NoError(t, err)
	require.True(t, online.Online())
	onJob, err := online.Job(ctx, res.JobID)
	require.NoError(t, err)
	onJobs, err := online.Jobs(ctx, "", 0)
	require.NoError(t, err)
	onStatus, err := online.Status(ctx, "test")
	require.NoError(t, err)
	require.NoError(t, online.Close())
	require.JSONEq(t, `{"data":[1,2,3,4]}`, string(onJob.Input))
	require.JSONEq(t, `{"result":2.5}`, string(onJob.Output))
	require.Equal(t, market.JobReleased, onJob.State)
	require.NoError(t, buyer.Close())

	offline, err := node.OpenEnv(dir, node.ReadOnly)
	require.NoError(t, err)
	defer offline.Close()
	require.False(t, offline.Online())
	offJob, err := offline.Job(ctx, res.JobID)
	require.NoError(t, err)
	require.Equal(t, asJSON(t, onJob), asJSON(t, offJob))
	offJobs, err := offline.Jobs(ctx, "", 0)
	require.NoError(t, err)
	require.Equal(t, asJSON(t, onJobs), asJSON(t, offJobs))
	offStatus, err := offline.Status(ctx, "test")
	require.NoError(t, err)
	require.Equal(t, onStatus.JobsInFlight, offStatus.JobsInFlight)
	_, err = offline.Job(ctx, "no-such-job")
	require.ErrorIs(t, err, market.ErrJobNotFound)
}

func asJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	require.NoError(t, err)
	return string(b)
}
