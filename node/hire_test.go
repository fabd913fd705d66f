package node_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/swarmwage/swarmwage/escrow"
	"github.com/swarmwage/swarmwage/market"
)

func TestHireMeanMovesBalancesByThePrice(t *testing.T) {
	boot := startNode(t, newRepo(t, t.TempDir()))
	seller := startNode(t, newRepo(t, t.TempDir()), boot)
	buyer := startNode(t, newRepo(t, t.TempDir()), boot)
	list(t, seller, "compute.statistics.mean", "0.05")
	waitReady(t, boot, seller, buyer)
	ctx := context.Background()
	require.NoError(t, buyer.Escrow.Deposit(ctx, mustAmount(t, "10"), "test"))

	res, err := buyer.Market.Hire(ctx, market.HireRequest{
		Capability: "compute.statistics.mean",
		Input:      json.RawMessage(`{"data":[1,2,3,4]}`),
		MaxPrice:   mustAmount(t, "0.1"),
		Timeout:    20 * time.Second,
	})
	require.NoError(t, err)
	require.Equal(t, escrow.StateReleased, res.State)
	require.True(t, res.Report.Passed)
	require.JSONEq(t, `{"result":2.5}`, string(res.Output))

	bb, err := buyer.Escrow.Balance(ctx)
	require.NoError(t, err)
	require.Equal(t, mustAmount(t, "9.95"), bb.Available)
	require.Zero(t, bb.Held)
	require.Eventually(t, func() bool {
		sb, err := seller.Escrow.Balance(ctx)
		return err == nil && sb.Earned == mustAmount(t, "0.05")
	}, 10*time.Second, 20*time.Millisecond)
	require.NoError(t, buyer.Escrow.CheckInvariant(ctx))
	require.NoError(t, seller.Escrow.CheckInvariant(ctx))
}
