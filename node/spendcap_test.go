package node_test

import (
	"context"
	"encoding/json"
	"net/http"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/swarmwage/swarmwage/controlapi"
	"github.com/swarmwage/swarmwage/escrow"
	"github.com/swarmwage/swarmwage/market"
	"github.com/swarmwage/swarmwage/node"
)

// The control API carries a hire's spend caps to the escrow lock and its
// risk policy to the market, and serves the spent totals.
func TestControlAPIHireCarriesSpendCapsAndRiskPolicy(t *testing.T) {
	boot := startNode(t, newRepo(t, t.TempDir()))
	seller := startNode(t, newRepo(t, t.TempDir()), boot)
	cfg := node.DefaultConfig(testNetwork)
	cfg.Listen = []string{"/ip4/127.0.0.1/tcp/0"}
	cfg.API = "127.0.0.1:0"
	cfg.Market.AllowRiskTier3 = true
	repo, err := node.Init(filepath.Join(t.TempDir(), "buyer"), cfg)
	require.NoError(t, err)
	buyer := startNode(t, repo, boot)
	list(t, seller, "compute.statistics.mean", "0.05")
	_, err = seller.Market.AddListing(context.Background(), market.ListingParams{
		Capability: "compute.statistics.median", Price: mustAmount(t, "0.05"),
		Handler: market.HandlerConfig{Kind: market.HandlerBuiltin}, RiskTier: 3, RequiredPermissions: []string{"shell"},
	})
	require.NoError(t, err)
	waitReady(t, boot, seller, buyer)
	ctx := t.Context()
	require.NoError(t, buyer.Escrow.Deposit(ctx, mustAmount(t, "10"), "test"))
	cl, err := controlapi.Dial(buyer.Repo.Dir)
	require.NoError(t, err)

	since := time.Now().Add(-time.Minute)
	day := controlapi.SpendCap{Name: "per-day", Since: since, Limit: "0.08"}
	hire := func(capID string, mod func(*controlapi.HireRequest)) controlapi.HireInfo {
		t.Helper()
		req := controlapi.HireRequest{Capability: capID, Input: json.RawMessage(`{"data":[1,2,3]}`), MaxPrice: "0.05"}
		mod(&req)
		info, err := cl.Hire(ctx, req, nil)
		require.NoError(t, err)
		return info
	}

	info := hire("compute.statistics.mean", func(r *controlapi.HireRequest) { r.SpendCaps = []controlapi.SpendCap{day} })
	require.Equal(t, controlapi.OutcomeReleased, info.Outcome, info.Error)
	require.Nil(t, info.SpendCap)

	info = hire("compute.statistics.mean", func(r *controlapi.HireRequest) { r.SpendCaps = []controlapi.SpendCap{day} })
	require.Equal(t, controlapi.OutcomeSpendCap, info.Outcome, info.Error)
	require.Empty(t, info.JobID, "nothing was locked")
	require.Equal(t, &controlapi.SpendCapRefusal{Name: "per-day", Since: since.UTC(), Limit: "0.08", Used: "0.05", Left: "0.03", Amount: "0.05"},
		withUTC(info.SpendCap))
	b, err := buyer.Escrow.Balance(ctx)
	require.NoError(t, err)
	require.Equal(t, escrow.Balance{Available: mustAmount(t, "9.95"), Paid: mustAmount(t, "0.05"), Deposited: mustAmount(t, "10")}, b)

	// A scope with limit 0 only tags the hire; GET /v1/wallet/spent sums it.
	info = hire("compute.statistics.mean", func(r *controlapi.HireRequest) {
		r.SpendCaps = []controlapi.SpendCap{{Name: "per-session", Scope: "session-1", Since: since, Limit: "0"}}
	})
	require.Equal(t, controlapi.OutcomeReleased, info.Outcome, info.Error)
	for _, tc := range []struct {
		scope string
		since time.Time
		want  int64
	}{
		{"", since, mustAmount(t, "0.1")},
		{"", time.Time{}, mustAmount(t, "0.1")},
		{"", time.Now().Add(time.Hour), 0},
		{"session-1", since, mustAmount(t, "0.05")},
		{"session-2", since, 0},
	} {
		spent, err := cl.Spent(ctx, tc.scope, tc.since)
		require.NoError(t, err)
		require.Equal(t, tc.want, spent, "scope %q since %s", tc.scope, tc.since)
	}

	// The node allows risk tier 3 (config), unless the request requires
	// its own confirmation.
	info = hire("compute.statistics.median", func(*controlapi.HireRequest) {})
	require.Equal(t, controlapi.OutcomeReleased, info.Outcome, info.Error)
	info = hire("compute.statistics.median", func(r *controlapi.HireRequest) { r.RequireConfirm = true })
	require.Equal(t, controlapi.OutcomeNeedsConfirm, info.Outcome, info.Error)
	require.Empty(t, info.JobID)
	info = hire("compute.statistics.median", func(r *controlapi.HireRequest) { r.RequireConfirm, r.Confirm = true, true })
	require.Equal(t, controlapi.OutcomeReleased, info.Outcome, info.Error)

	// Bad caps are the client's fault, refused before anything is sent.
	tooMany := make([]controlapi.SpendCap, 9)
	for i := range tooMany {
		tooMany[i] = controlapi.SpendCap{Name: "c", Limit: "1"}
	}
	for _, caps := range [][]controlapi.SpendCap{{{Name: "per-day", Limit: "lots"}}, {{Limit: "1"}}, tooMany} {
		_, err := cl.Hire(ctx, controlapi.HireRequest{Capability: "compute.statistics.mean", Input: json.RawMessage(`{"data":[1]}`), SpendCaps: caps}, nil)
		var ae *controlapi.APIError
		require.ErrorAs(t, err, &ae)
		require.Equal(t, http.StatusBadRequest, ae.Status)
		require.Contains(t, ae.Message, "spend")
	}
	// A bad scope reaches the escrow, which refuses it before any lock.
	info = hire("compute.statistics.mean", func(r *controlapi.HireRequest) {
		r.SpendCaps = []controlapi.SpendCap{{Name: "per-session", Scope: string(make([]byte, 200)), Limit: "1"}}
	})
	require.Equal(t, controlapi.OutcomeError, info.Outcome)
	require.Contains(t, info.Error, "scope over 128 bytes")
	require.Empty(t, info.JobID)
	_, err = cl.Spent(ctx, string(make([]byte, 200)), time.Time{})
	var ae *controlapi.APIError
	require.ErrorAs(t, err, &ae)
	require.Equal(t, http.StatusBadRequest, ae.Status)
	require.NoError(t, buyer.Escrow.CheckInvariant(ctx))
}

func withUTC(r *controlapi.SpendCapRefusal) *controlapi.SpendCapRefusal {
	if r == nil {
		return nil
	}
	c := *r
	c.Since = c.Since.UTC()
	return &c
}
