package node_test

import (
	"context"
	"encoding/json"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/swarmwage/swarmwage/controlapi"
	"github.com/swarmwage/swarmwage/node"
)

// TestEnvIsTheSameOnlineAndOffline: the commands' one way to the node gives
// the same answers from the repo opened here and from a daemon's API, and
// says when a command needs the network.
func TestEnvIsTheSameOnlineAndOffline(t *testing.T) {
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "repo")
	newRepo(t, dir)

	_, err := node.OpenEnv(filepath.Join(t.TempDir(), "none"), node.ReadOnly)
	require.ErrorAs(t, err, new(node.NoRepoError))
	_, err = node.NeedDaemon(dir)
	require.ErrorIs(t, err, node.ErrNotOnline)

	// A read-only Env on a fresh repo: the escrow writes its schema first.
	env, err := node.OpenEnv(dir, node.ReadOnly)
	require.NoError(t, err)
	require.False(t, env.Online())
	b, err := env.Balance(ctx)
	require.NoError(t, err)
	require.Zero(t, b.Available)
	require.NoError(t, env.Close())

	env, err = node.OpenEnv(dir, node.ReadWrite)
	require.NoError(t, err)
	_, err = env.AddListing(ctx, controlapi.AddListingRequest{Capability: "compute.statistics.mean", Price: "0.01"})
	require.NoError(t, err)
	_, err = env.Deposit(ctx, mustAmount(t, "3"), "test")
	require.NoError(t, err)
	res, err := env.TestListing(ctx, controlapi.TestListingRequest{Capability: "compute.statistics.mean", Input: json.RawMessage(`{"data":[2,4]}`)})
	require.NoError(t, err)
	require.True(t, res.Passed)
	offline := snapshot(t, env)
	require.NoError(t, env.Close())

	repo, err := node.Open(dir)
	require.NoError(t, err)
	startNode(t, repo)
	online, err := node.OpenEnv(dir, node.ReadOnly)
	require.NoError(t, err)
	defer online.Close()
	require.True(t, online.Online())
	require.Equal(t, offline, snapshot(t, online))
	need, err := node.NeedDaemon(dir)
	require.NoError(t, err)
	require.NotNil(t, need.Client)
}

type envSnapshot struct {
	Network  string
	Listings []string
	Balance  string
	Hires    int
}

func snapshot(t *testing.T, env *node.Env) envSnapshot {
	t.Helper()
	ctx := context.Background()
	var s envSnapshot
	var err error
	s.Network, err = env.Network(ctx)
	require.NoError(t, err)
	ls, err := env.Listings(ctx)
	require.NoError(t, err)
	for _, l := range ls.Listings {
		s.Listings = append(s.Listings, l.Capability+" "+l.Price)
	}
	b, err := env.Balance(ctx)
	require.NoError(t, err)
	data, err := json.Marshal(b)
	require.NoError(t, err)
	s.Balance = string(data)
	h, err := env.History(ctx, time.Time{})
	require.NoError(t, err)
	s.Hires = h.Total.Hires
	id, err := env.ID(ctx)
	require.NoError(t, err)
	require.Equal(t, env.Repo.ID.String(), id.PeerID)
	return s
}
