package market

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/libp2p/go-libp2p/core/peer"
	"github.com/stretchr/testify/require"

	"github.com/swarmwage/swarmwage/escrow"
	"github.com/swarmwage/swarmwage/market/route"
)

// routingMarket is a buyer and two sellers of custom.test.echo: one fast
// and dear (0.05), one slow (300 ms) and cheap (0.01).
func routingMarket(t *testing.T, buyerOpts ...Option) (buyer, fast, slow *testPeer) {
	t.Helper()
	boot := setupPeer(t, nil)
	fast = setupPeer(t, boot)
	slow = setupPeer(t, boot)
	buyer = setupPeer(t, boot, buyerOpts...)
	ctx := context.Background()
	_, err := fast.market.AddListing(ctx, ListingParams{Capability: "custom.test.echo", Price: 50_000, Handler: HandlerConfig{Kind: HandlerExec, Command: []string{"cat"}}})
	require.NoError(t, err)
	_, err = slow.market.AddListing(ctx, ListingParams{Capability: "custom.test.echo", Price: 10_000, Handler: HandlerConfig{Kind: HandlerExec, Command: []string{"sh", "-c", "sleep 0.3; cat"}}})
	require.NoError(t, err)
	waitProvided(t, boot, fast, slow, buyer)
	require.NoError(t, buyer.market.escrow.Deposit(ctx, 10_000_000, "test"))
	require.Eventually(t, func() bool {
		buyer.market.forgetFind("custom.test.echo")
		buyer.routing.Forget("custom.test.echo")
		res, err := buyer.market.findCached(ctx, "custom.test.echo")
		return err == nil && len(res.Sellers) == 2
	}, 20*time.Second, 100*time.Millisecond)
	return buyer, fast, slow
}

func hireEcho(t *testing.T, buyer *testPeer, req HireRequest) (HireResult, error) {
	t.Helper()
	if req.Capability == "" {
		req.Capability = "custom.test.echo"
	}
	req.Input, req.Timeout = json.RawMessage(`{"x":1}`), 20*time.Second
	return buyer.market.Hire(context.Background(), req)
}

// P3 takes the cheapest seller; once this node has timed both, P0 takes the
// fastest, and --explain says why for each candidate.
func TestQoSRoutesByPriceOrByMeasuredSpeed(t *testing.T) {
	buyer, fast, slow := routingMarket(t)
	res, err := hireEcho(t, buyer, HireRequest{QoS: route.P3, Explain: true})
	require.NoError(t, err)
	require.Equal(t, slow.host.ID(), res.Seller)
	require.Len(t, res.Routing.Candidates, 2)
	require.True(t, res.Routing.Candidates[0].Chosen)
	require.Contains(t, res.Routing.Candidates[0].Reason, "chosen")

	// History: one job of each, timed by this node.
	_, err = hireEcho(t, buyer, HireRequest{Seller: fast.host.ID()})
	require.NoError(t, err)
	require.Eventually(t, func() bool {
		_, okF := buyer.market.latency.get(fast.host.ID(), "custom.test.echo")
		_, okS := buyer.market.latency.get(slow.host.ID(), "custom.test.echo")
		return okF && okS
	}, 5*time.Second, 20*time.Millisecond)

	res, err = hireEcho(t, buyer, HireRequest{QoS: route.P0, Explain: true})
	require.NoError(t, err)
	require.Equal(t, fast.host.ID(), res.Seller)
	for _, d := range res.Routing.Candidates {
		require.True(t, d.FromHistory, "latency from this node's own jobs")
	}
	res, err = hireEcho(t, buyer, HireRequest{QoS: route.P3})
	require.NoError(t, err)
	require.Equal(t, slow.host.ID(), res.Seller)
	require.Nil(t, res.Routing.Candidates, "candidates only with Explain")
}

// A [[policy]] for the capability's prefix denies a seller and caps the
// price; one that requires confirmation holds the hire before any escrow.
func TestPoliciesApplyToHires(t *testing.T) {
	buyer, fast, slow := routingMarket(t)
	// Hires run one at a time here, so the test may swap the policies.
	buyer.market.cfg.policies = route.Policies{{Match: "custom.test", DenySellers: []peer.ID{fast.host.ID()}, QoS: route.P0}}

	res, err := hireEcho(t, buyer, HireRequest{Explain: true})
	require.NoError(t, err)
	require.Equal(t, slow.host.ID(), res.Seller, "the fast seller is denied")
	require.Equal(t, route.P0, res.Routing.QoS, "the policy's class")
	require.Equal(t, "custom.test", res.Routing.Policy.Match)

	buyer.market.cfg.policies = route.Policies{{Match: "custom.test.echo", MaxPrice: 5_000}}
	_, err = hireEcho(t, buyer, HireRequest{})
	require.ErrorIs(t, err, ErrNoSeller)
	require.Contains(t, err.Error(), "policy")

	buyer.market.cfg.policies = route.Policies{{Match: "custom", RequireConfirmation: true}}
	before, err := buyer.market.escrow.Balance(context.Background())
	require.NoError(t, err)
	_, err = hireEcho(t, buyer, HireRequest{})
	require.ErrorIs(t, err, ErrPolicyHold)
	require.Contains(t, err.Error(), "custom")
	after, err := buyer.market.escrow.Balance(context.Background())
	require.NoError(t, err)
	require.Equal(t, before, after, "nothing locked")
	_, err = hireEcho(t, buyer, HireRequest{Confirm: true})
	require.NoError(t, err)
}

// A hire of a tombstoned ID is served by sellers of its successor, and the
// result says what was asked and what ran.
func TestTombstonedCapabilityRoutesToItsSuccessor(t *testing.T) {
	cat, err := route.ParseCatalog([]byte(`{"capabilities":[
		{"id":"custom.test.old","status":"deprecated","superseded_by":"custom.test.mid"},
		{"id":"custom.test.mid","status":"deprecated","superseded_by":"custom.test.echo"}]}`))
	require.NoError(t, err)
	buyer, _, _ := routingMarket(t, Catalog(cat))
	res, err := hireEcho(t, buyer, HireRequest{Capability: "custom.test.old"})
	require.NoError(t, err)
	require.Equal(t, "custom.test.echo", res.Capability)
	require.Equal(t, "custom.test.old", res.Requested)
	er, err := buyer.market.escrow.GetRole(context.Background(), res.JobID, escrow.RoleBuyer)
	require.NoError(t, err)
	require.Equal(t, "custom.test.echo", er.Capability, "the lock names what ran")
}
