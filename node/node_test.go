package node_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/libp2p/go-libp2p/core/peer"
	"github.com/stretchr/testify/require"

	"github.com/swarmwage/swarmwage/market"
	"github.com/swarmwage/swarmwage/node"
	"github.com/swarmwage/swarmwage/node/nodetest"
)

// testNetwork is the private network of these tests: never amino, never
// dialing out.
const testNetwork = "nodetest"

func init() { nodetest.RaiseFileLimit() }

func newRepo(t testing.TB, dir string) *node.Repo { return nodetest.NewRepoAt(t, dir, testNetwork) }

func startNode(t testing.TB, repo *node.Repo, boot ...*node.Node) *node.Node {
	return nodetest.Start(t, repo, node.Options{}, boot...)
}

var (
	waitReady  = nodetest.WaitReady
	mustAmount = nodetest.Amount
	p2pAddrs   = nodetest.Addrs
)

func list(t testing.TB, n *node.Node, capID, price string) {
	t.Helper()
	_, err := n.Market.AddListing(context.Background(), market.ListingParams{
		Capability: capID, Price: mustAmount(t, price), Handler: market.HandlerConfig{Kind: market.HandlerBuiltin},
	})
	require.NoError(t, err)
}

func TestBuyerFindsBothListingsOfSeller(t *testing.T) {
	boot := startNode(t, newRepo(t, t.TempDir()))
	seller := startNode(t, newRepo(t, t.TempDir()), boot)
	buyer := startNode(t, newRepo(t, t.TempDir()), boot)
	list(t, seller, "compute.statistics.mean", "0.05")
	list(t, seller, "custom.acme.ocr", "1.5")
	waitReady(t, boot, seller, buyer)

	testCases := []struct {
		capID, price string
	}{
		{"compute.statistics.mean", "0.05"},
		{"custom.acme.ocr", "1.5"},
	}
	for _, tc := range testCases {
		t.Run(tc.capID, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			res, err := buyer.Market.Find(ctx, tc.capID, 10)
			require.NoError(t, err)
			require.Zero(t, res.Rejected)
			require.Len(t, res.Sellers, 1)
			s := res.Sellers[0]
			require.Equal(t, seller.Host.ID(), s.Peer.ID)
			require.Equal(t, market.Credits(mustAmount(t, tc.price)), s.Listing.Listing.Price)
			require.NoError(t, s.Listing.Verify(seller.Host.ID(), tc.capID), "the signature must check out")
		})
	}
}

func TestRemovedListingIsNotFoundAfterCacheRefresh(t *testing.T) {
	boot := startNode(t, newRepo(t, t.TempDir()))
	seller := startNode(t, newRepo(t, t.TempDir()), boot)
	buyer := startNode(t, newRepo(t, t.TempDir()), boot)
	list(t, seller, "compute.statistics.median", "0.01")
	waitReady(t, boot, seller, buyer)
	ctx := context.Background()

	res, err := buyer.Market.Find(ctx, "compute.statistics.median", 10)
	require.NoError(t, err)
	require.Len(t, res.Sellers, 1)

	require.NoError(t, seller.Market.RemoveListing(ctx, "compute.statistics.median"))
	buyer.Routing.RefreshCache()
	res, err = buyer.Market.Find(ctx, "compute.statistics.median", 10)
	require.NoError(t, err)
	require.Empty(t, res.Sellers, "a withdrawn listing must not be returned")
	require.Zero(t, res.Rejected)
}

func TestRestartKeepsIdentityAndListings(t *testing.T) {
	dir := t.TempDir()
	boot := startNode(t, newRepo(t, t.TempDir()))
	repo := newRepo(t, dir)
	first := startNode(t, repo, boot)
	id := first.Host.ID()
	list(t, first, "compute.statistics.stddev", "0.02")
	require.NoError(t, first.Close())

	repo2, err := node.Open(dir)
	require.NoError(t, err)
	require.Equal(t, id, repo2.ID)
	second := startNode(t, repo2, boot)
	require.Equal(t, id, second.Host.ID())
	info, err := node.Listings(context.Background(), second.Market.Store())
	require.NoError(t, err)
	require.Len(t, info.Listings, 1)
	require.Equal(t, "compute.statistics.stddev", info.Listings[0].Capability)
	require.Equal(t, "0.02", info.Listings[0].Price)

	// The restarted node announces its stored listing again.
	buyer := startNode(t, newRepo(t, t.TempDir()), boot)
	waitReady(t, boot, second, buyer)
	res, err := buyer.Market.Find(context.Background(), "compute.statistics.stddev", 5)
	require.NoError(t, err)
	require.Len(t, res.Sellers, 1)
	require.Equal(t, id, res.Sellers[0].Peer.ID)
}

func TestSecondSearchIsServedFromPrefetchCache(t *testing.T) {
	boot := startNode(t, newRepo(t, t.TempDir()))
	seller := startNode(t, newRepo(t, t.TempDir()), boot)
	buyer := startNode(t, newRepo(t, t.TempDir()), boot)
	list(t, seller, "compute.statistics.variance", "0.03")
	waitReady(t, boot, seller, buyer)
	ctx := context.Background()

	before := buyer.Routing.Queries()
	res, err := buyer.Market.Find(ctx, "compute.statistics.variance", 5)
	require.NoError(t, err)
	require.Len(t, res.Sellers, 1)
	require.Equal(t, before+1, buyer.Routing.Queries(), "the first search asks the DHT")

	res, err = buyer.Market.Find(ctx, "compute.statistics.variance", 5)
	require.NoError(t, err)
	require.Len(t, res.Sellers, 1)
	require.Equal(t, before+1, buyer.Routing.Queries(), "the second search must not query the DHT")
}

// TestThirtyNodesFindEverySeller: 30 nodes, each selling one of 10
// capabilities; every node finds every other seller of every capability.
func TestThirtyNodesFindEverySeller(t *testing.T) {
	if testing.Short() {
		t.Skip("30-node network: skipped in -short mode")
	}
	const nodes, caps = 30, 10
	capID := func(i int) string { return fmt.Sprintf("custom.net%d.cap", i%caps) }
	all := make([]*node.Node, nodes)
	all[0] = startNode(t, newRepo(t, t.TempDir()))
	var wg sync.WaitGroup
	for i := 1; i < nodes; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			all[i] = startNode(t, newRepo(t, t.TempDir()), all[0])
		}(i)
	}
	wg.Wait()
	sellers := map[string][]peer.ID{}
	for i, n := range all {
		list(t, n, capID(i), "0.01")
		sellers[capID(i)] = append(sellers[capID(i)], n.Host.ID())
	}
	waitReady(t, all...)

	errs := make(chan error, nodes*caps)
	for _, n := range all {
		wg.Add(1)
		go func(n *node.Node) {
			defer wg.Done()
			for c := 0; c < caps; c++ {
				errs <- checkFinds(n, capID(c), sellers[capID(c)])
			}
		}(n)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}
}

func checkFinds(n *node.Node, capID string, sellers []peer.ID) error {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	res, err := n.Market.Find(ctx, capID, 20)
	if err != nil {
		return err
	}
	var want, got []string
	for _, s := range sellers {
		if s != n.Host.ID() {
			want = append(want, s.String())
		}
	}
	for _, s := range res.Sellers {
		got = append(got, s.Peer.ID.String())
	}
	sort.Strings(want)
	sort.Strings(got)
	if fmt.Sprint(want) != fmt.Sprint(got) {
		return fmt.Errorf("node %s, %s: found %v, want %v", n.Host.ID(), capID, got, want)
	}
	return nil
}

// TestAgentEndpointOverPlainHTTP: with agent_http set, buyers without
// libp2p can browse listings and schemas; hiring needs a libp2p peer ID.
func TestAgentEndpointOverPlainHTTP(t *testing.T) {
	seller := nodetest.Start(t, newRepo(t, t.TempDir()), node.Options{AgentHTTP: "127.0.0.1:0"})
	list(t, seller, "compute.statistics.mean", "0.05")
	base := "http://" + seller.AgentHTTPAddr()

	resp, err := http.Get(base + "/capabilities/compute.statistics.mean")
	require.NoError(t, err)
	defer resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)
	var l market.SignedListing
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&l))
	require.NoError(t, l.Verify(seller.Host.ID(), "compute.statistics.mean"), "the listing is signed as over libp2p")

	resp2, err := http.Post(base+"/quotes", "application/json", strings.NewReader(`{"capability":"compute.statistics.mean"}`))
	require.NoError(t, err)
	defer resp2.Body.Close()
	require.Equal(t, http.StatusUnauthorized, resp2.StatusCode)
}
