package node_test

import (
	"context"
	"encoding/json"
	"slices"
	"testing"
	"time"

	"github.com/libp2p/go-libp2p"
	"github.com/libp2p/go-libp2p/core/network"
	"github.com/libp2p/go-libp2p/core/peer"
	"github.com/libp2p/go-libp2p/core/protocol"
	libp2phttp "github.com/libp2p/go-libp2p/p2p/http"
	circuit "github.com/libp2p/go-libp2p/p2p/protocol/circuitv2/proto"
	"github.com/stretchr/testify/require"

	"github.com/swarmwage/swarmwage/controlapi"
	"github.com/swarmwage/swarmwage/market"
	"github.com/swarmwage/swarmwage/node"
	"github.com/swarmwage/swarmwage/node/nodetest"
	"github.com/swarmwage/swarmwage/node/p2p"
)

// speaks reports whether n's host serves proto.
func speaks(n *node.Node, proto protocol.ID) bool {
	return slices.Contains(n.Host.Mux().Protocols(), proto)
}

// TestNoRelayServiceUnlessTold is a regression test: a node with no
// bootstrap peers used to run a relay service, so every default node on
// amino offered itself as a public relay.
func TestNoRelayServiceUnlessTold(t *testing.T) {
	boot := startNode(t, newRepo(t, t.TempDir()))
	other := startNode(t, newRepo(t, t.TempDir()), boot)
	waitReady(t, boot, other)
	require.False(t, speaks(boot, circuit.ProtoIDv2Hop), "a bootstrap node is no relay unless told")
	require.False(t, speaks(other, circuit.ProtoIDv2Hop))

	relay := nodetest.Start(t, newRepo(t, t.TempDir()), node.Options{RelayService: true})
	require.Eventually(t, func() bool { return speaks(relay, circuit.ProtoIDv2Hop) }, 10*time.Second, 20*time.Millisecond,
		"--relay-service on a private network starts the relay at once")
	st, err := relay.Status(t.Context())
	require.NoError(t, err)
	require.Equal(t, p2p.ReachabilityPublic, st.Reachability, "a private network's relay is public by definition")
}

// TestAgentStreamsHavePerPeerLimits: agent streams are in the agent's own
// resource-manager service, which caps one peer's inbound streams.
func TestAgentStreamsHavePerPeerLimits(t *testing.T) {
	seller := startNode(t, newRepo(t, t.TempDir()))
	// The attacker's own host has no limits, so only the seller's count.
	h, err := libp2p.New(libp2p.ListenAddrStrings("/ip4/127.0.0.1/tcp/0"), libp2p.ResourceManager(&network.NullResourceManager{}))
	require.NoError(t, err)
	t.Cleanup(func() { h.Close() })
	ctx := t.Context()
	require.NoError(t, h.Connect(ctx, peer.AddrInfo{ID: seller.Host.ID(), Addrs: seller.Host.Addrs()}))

	const opened, perPeer = 160, 128
	for range opened {
		s, err := h.NewStream(ctx, seller.Host.ID(), libp2phttp.ProtocolIDForMultistreamSelect)
		require.NoError(t, err)
		// Half a request: the stream then waits in the seller's HTTP server
		// for the rest of the headers.
		_, _ = s.Write([]byte("GET /swarmwage/agent/1/capabilities HTTP/1.1\r\n"))
	}
	inbound := func() int {
		var n int
		_ = seller.Host.Network().ResourceManager().ViewService(market.ServiceName, func(s network.ServiceScope) error {
			n = s.Stat().NumStreamsInbound
			return nil
		})
		return n
	}
	require.Eventually(t, func() bool { return inbound() == perPeer }, 10*time.Second, 20*time.Millisecond,
		"the seller holds %d agent streams of one peer, not %d", perPeer, opened)
	// Another peer still gets served.
	buyer := startNode(t, newRepo(t, t.TempDir()), seller)
	list(t, seller, "compute.statistics.mean", "0.01")
	waitReady(t, seller, buyer)
	res, err := buyer.Market.Find(ctx, "compute.statistics.mean", 5)
	require.NoError(t, err)
	require.Len(t, res.Sellers, 1)
}

func TestStatusAndHireConnection(t *testing.T) {
	seller := startNode(t, newRepo(t, t.TempDir()))
	buyer := startNode(t, newRepo(t, t.TempDir()), seller)
	list(t, seller, "compute.statistics.mean", "0.05")
	waitReady(t, seller, buyer)
	ctx := context.Background()
	require.NoError(t, buyer.Escrow.Deposit(ctx, mustAmount(t, "10"), "test"))

	info := buyer.Hire(ctx, market.HireRequest{
		Capability: "compute.statistics.mean", Input: json.RawMessage(`{"data":[1,2,3,4]}`),
		MaxPrice: mustAmount(t, "0.1"), Timeout: 20 * time.Second,
	})
	require.Equal(t, controlapi.OutcomeReleased, info.Outcome, info.Error)
	require.Equal(t, market.ConnDirect, info.Connection, "two nodes on loopback talk directly")

	cl, err := controlapi.Dial(seller.Repo.Dir)
	require.NoError(t, err)
	st, err := cl.Status(ctx)
	require.NoError(t, err)
	require.True(t, st.Online)
	require.Equal(t, seller.Host.ID().String(), st.PeerID)
	require.Equal(t, testNetwork, st.Network)
	require.Equal(t, 1, st.DHTPeers)
	require.GreaterOrEqual(t, st.Peers, 1)
	// On loopback AutoNAT has nothing to go by.
	require.Equal(t, p2p.ReachabilityUnknown, st.Reachability)
	require.Empty(t, st.RelayAddrs)
	require.Zero(t, st.HolePunch.Attempts)
	require.Len(t, st.Listings, 1)
	require.Equal(t, "compute.statistics.mean", st.Listings[0].Capability)
	require.NotEmpty(t, st.Listings[0].LastAnnounced, "announced before waitReady returned")
	require.Zero(t, st.JobsInFlight.Bought+st.JobsInFlight.Sold)
	require.Eventually(t, func() bool {
		st, err := cl.Status(ctx)
		return err == nil && st.Balance.Earned == mustAmount(t, "0.05")
	}, 10*time.Second, 20*time.Millisecond)

	id, err := cl.ID(ctx)
	require.NoError(t, err)
	require.Equal(t, p2p.ReachabilityUnknown, id.Reachability)
	require.NotNil(t, id.RelayAddrs)
}

// TestPrivateNodeReservesOnItsStaticRelay: a node that says it is private
// reserves a slot on its static relay at once and announces the circuit
// address, also when the relay has private addresses only (here loopback).
func TestPrivateNodeReservesOnItsStaticRelay(t *testing.T) {
	relay := nodetest.Start(t, newRepo(t, t.TempDir()), node.Options{RelayService: true})
	require.Eventually(t, func() bool { return speaks(relay, circuit.ProtoIDv2Hop) }, 10*time.Second, 20*time.Millisecond)
	repo := newRepo(t, t.TempDir())
	repo.Config.P2P = node.P2PConfig{Reachability: p2p.ReachabilityPrivate, Relays: p2pAddrs(relay)[:1]}
	seller := nodetest.Start(t, repo, node.Options{}, relay)
	var st controlapi.StatusInfo
	require.Eventually(t, func() bool {
		var err error
		st, err = seller.Status(t.Context())
		return err == nil && len(st.RelayAddrs) > 0
	}, 20*time.Second, 50*time.Millisecond)
	require.Equal(t, p2p.ReachabilityPrivate, st.Reachability)
	for _, a := range st.RelayAddrs {
		require.Contains(t, a, "/p2p/"+relay.Host.ID().String()+"/p2p-circuit/p2p/"+seller.Host.ID().String())
	}
	id, err := seller.ID(t.Context())
	require.NoError(t, err)
	require.Subset(t, id.Addrs, st.RelayAddrs, "announced: AutoRelay alone would not, the relay having no public address")
}
