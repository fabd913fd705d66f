package node

import (
	"context"
	"log/slog"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/swarmwage/swarmwage/escrow/evm"
	"github.com/swarmwage/swarmwage/escrow/evm/evmtest"
	"github.com/swarmwage/swarmwage/internal/lockedbuf"
	"github.com/swarmwage/swarmwage/market"
)

// Issue 22: a seller started while its chain was down stated no accept
// horizon in its listings until it restarted with the chain up. A seller
// that never reached its chain says so at start, retries, and signs its
// listings with the horizon once the chain answers; started again with
// the chain down, it states the horizon from the notice it stored.
func TestSellerStartedWithTheChainDownStatesItsHorizon(t *testing.T) {
	ctx := context.Background()
	a := evmtest.StartAnvil(t)
	k, err := evm.ParseKey(a.Keys[0])
	require.NoError(t, err)
	dep, err := evm.Deploy(ctx, a.URL, k, evm.DeployOptions{TestToken: true, Notice: 2 * time.Hour, Logger: discardLogger()})
	require.NoError(t, err)
	p := evmtest.StartProxy(t, a.URL)
	p.Down()

	cfg := DefaultConfig("horizontest")
	cfg.Listen = []string{"/ip4/127.0.0.1/tcp/0"}
	cfg.API = "127.0.0.1:0"
	repo, err := Init(filepath.Join(t.TempDir(), "seller"), cfg)
	require.NoError(t, err)
	repo.Config.Settlement = SettlementConfig{Rail: RailEVM, RPC: p.URL, Escrow: dep.Escrow.Hex(), Token: dep.Token.Hex(), Confirmations: 1, RPCTimeout: "500ms"}
	_, _, err = evm.LoadOrCreateKey(filepath.Join(repo.Dir, evm.KeyFileName))
	require.NoError(t, err)

	logs := &lockedbuf.Buffer{}
	n, err := New(ctx, repo, Options{Logger: slog.New(slog.NewTextHandler(logs, nil))})
	require.NoError(t, err)
	require.True(t, n.horizonPending)
	require.Contains(t, logs.String(), "the escrow's notice is unknown")
	require.Contains(t, logs.String(), "retrying every")
	n.horizonEvery = 100 * time.Millisecond
	require.NoError(t, n.Start(ctx))
	_, err = n.Market.AddListing(ctx, market.ListingParams{Capability: "compute.statistics.mean", Price: 1000, Handler: market.HandlerConfig{Kind: market.HandlerBuiltin}})
	require.NoError(t, err)
	horizon := func() int64 {
		o, err := n.Market.Store().Get(ctx, "compute.statistics.mean")
		require.NoError(t, err)
		return o.Signed.Listing.Terms.AcceptHorizonMS
	}
	require.Zero(t, horizon(), "unknown while the chain is down")

	require.NoError(t, p.Up())
	want := market.AcceptHorizonOf(time.Hour).Milliseconds()
	require.Eventually(t, func() bool { return horizon() == want }, 30*time.Second, 50*time.Millisecond)
	require.Contains(t, logs.String(), "now state its accept horizon")
	require.NoError(t, n.Close())

	// Started again with the chain down: the stored notice.
	p.Down()
	logs2 := &lockedbuf.Buffer{}
	n2, err := New(ctx, repo, Options{Logger: slog.New(slog.NewTextHandler(logs2, nil))})
	require.NoError(t, err)
	t.Cleanup(func() { n2.Close() })
	require.False(t, n2.horizonPending)
	require.Contains(t, logs2.String(), "from the escrow's notice learned when it last reached the chain")
	require.NoError(t, n2.Start(ctx))
	o, err := n2.Market.Store().Get(ctx, "compute.statistics.mean")
	require.NoError(t, err)
	require.Equal(t, want, o.Signed.Listing.Terms.AcceptHorizonMS)
}
