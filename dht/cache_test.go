package dht_test

import (
	"context"
	"testing"
	"time"

	"github.com/libp2p/go-libp2p"
	"github.com/libp2p/go-libp2p/core/peer"
	"github.com/stretchr/testify/require"

	"github.com/swarmwage/swarmwage/dht"
)

const testNet = "dhttest"

func setupRouting(t *testing.T, boot *dht.Routing, opts ...dht.Option) *dht.Routing {
	t.Helper()
	h, err := libp2p.New(libp2p.ListenAddrStrings("/ip4/127.0.0.1/tcp/0"))
	require.NoError(t, err)
	t.Cleanup(func() { h.Close() })
	if boot != nil {
		bh := boot.DHT().Host()
		opts = append(opts, dht.BootstrapPeers(peer.AddrInfo{ID: bh.ID(), Addrs: bh.Addrs()}))
	}
	r, err := dht.New(h, testNet, opts...)
	require.NoError(t, err)
	t.Cleanup(func() { r.Close() })
	require.NoError(t, r.Start())
	return r
}

// sellers starts a bootstrap node, two sellers of capID and a buyer, and
// waits until the buyer finds both sellers.
func sellers(t *testing.T, capID string) (buyer *dht.Routing) {
	t.Helper()
	boot := setupRouting(t, nil)
	for range 2 {
		s := setupRouting(t, boot)
		require.NoError(t, s.Announce(context.Background(), capID))
		require.Eventually(t, func() bool { return s.Pending() == 0 }, 20*time.Second, 50*time.Millisecond)
	}
	buyer = setupRouting(t, boot)
	require.Eventually(t, func() bool {
		found, err := buyer.FindSellers(t.Context(), capID, 20)
		if len(found) < 2 {
			buyer.Forget(capID)
		}
		return err == nil && len(found) == 2
	}, 20*time.Second, 100*time.Millisecond)
	buyer.Forget(capID)
	return buyer
}

// Regression: a search with limit 1 filled the prefetch cache with one
// seller, and later searches with limit 20 returned that one seller.
func TestPrefetchCacheHonoursTheLimit(t *testing.T) {
	buyer := sellers(t, "compute.statistics.mean")
	one, err := buyer.FindSellers(t.Context(), "compute.statistics.mean", 1)
	require.NoError(t, err)
	require.Len(t, one, 1)
	all, err := buyer.FindSellers(t.Context(), "compute.statistics.mean", 20)
	require.NoError(t, err)
	require.Len(t, all, 2)
	q := buyer.Queries()
	again, err := buyer.FindSellers(t.Context(), "compute.statistics.mean", 5)
	require.NoError(t, err)
	require.Len(t, again, 2)
	require.Equal(t, q, buyer.Queries(), "a smaller limit is served from the cache")
}

// A prefix kept warm answers searches of the capabilities under it with no
// DHT query.
func TestKeepWarmPrefixServesCapabilitiesUnderIt(t *testing.T) {
	buyer := sellers(t, "compute.statistics.mean")
	buyer.KeepWarm("compute.statistics")
	buyer.RefreshCache()
	require.True(t, buyer.Cached("compute.statistics"))
	q := buyer.Queries()
	found, err := buyer.FindSellers(t.Context(), "compute.statistics.mean", 20)
	require.NoError(t, err)
	require.Len(t, found, 2)
	require.Equal(t, q, buyer.Queries(), "no DHT query on the hot path")
}

// Regression: a kept-warm prefix searched with limit 1 (before its first
// refresh) held one seller, and every capability under it was then served
// that one seller whatever its limit.
func TestKeepWarmPrefixHonoursTheLimit(t *testing.T) {
	buyer := sellers(t, "compute.statistics.mean")
	buyer.KeepWarm("compute.statistics")
	one, err := buyer.FindSellers(t.Context(), "compute.statistics", 1)
	require.NoError(t, err)
	require.Len(t, one, 1)
	all, err := buyer.FindSellers(t.Context(), "compute.statistics.mean", 20)
	require.NoError(t, err)
	require.Len(t, all, 2, "the warm prefix came back full at limit 1: searched again")
	q := buyer.Queries()
	again, err := buyer.FindSellers(t.Context(), "compute.statistics.mean", 1)
	require.NoError(t, err)
	require.Len(t, again, 1)
	require.Equal(t, q, buyer.Queries(), "a limit the prefix covers needs no DHT query")
}
