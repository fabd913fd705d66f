package market

import (
	"context"
	"encoding/json"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/libp2p/go-libp2p"
	"github.com/libp2p/go-libp2p/core/network"
	"github.com/libp2p/go-libp2p/core/peer"
	"github.com/stretchr/testify/require"

	"github.com/swarmwage/swarmwage/escrow"
)

// agentStreams counts the agent streams from h to p that are open.
func agentStreams(h interface {
	Network() network.Network
}, p peer.ID) int {
	n := 0
	for _, c := range h.Network().ConnsToPeer(p) {
		for _, s := range c.GetStreams() {
			if s.Protocol() == agentProtocol {
				n++
			}
		}
	}
	return n
}

func TestAgentStreamsAreKeptAliveBetweenRequests(t *testing.T) {
	seller := setupPeer(t, nil)
	buyer, err := libp2p.New(libp2p.ListenAddrStrings("/ip4/127.0.0.1/tcp/0"))
	require.NoError(t, err)
	t.Cleanup(func() { buyer.Close() })
	c := &agentClient{host: buyer, holePunchWait: HolePunchWait}
	t.Cleanup(c.closeIdle)
	info := peer.AddrInfo{ID: seller.host.ID(), Addrs: seller.host.Addrs()}

	// One request at a time uses one stream. Requests at once may open
	// more than their number: net/http's Transport dials for a request that
	// finds no idle stream, and when another stream comes free first the
	// request takes that one and the dialled stream joins the idle pool.
	// What the pool promises then is its bound per seller.
	tests := []struct {
		name      string
		inFlight  int
		maxStream int
	}{
		{name: "one at a time: one stream", inFlight: 1, maxStream: 1},
		{name: "four at once: kept, within the pool's bound", inFlight: 4, maxStream: maxIdleStreamsPerSeller},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var wg sync.WaitGroup
			for range tt.inFlight {
				wg.Go(func() {
					for range 5 {
						var kind string
						_, _, err := c.do(withConnRecorder(t.Context(), &kind), info, http.MethodGet, "/capabilities", nil, maxListingsSize, nil)
						require.NoError(t, err)
						require.Equal(t, ConnDirect, kind)
					}
				})
			}
			wg.Wait()
			// The streams stay open, idle, for the next requests.
			n := agentStreams(buyer, seller.host.ID())
			require.GreaterOrEqual(t, n, 1)
			require.LessOrEqual(t, n, tt.maxStream)
		})
	}

	// Closing the idle streams closes them on both sides.
	c.closeIdle()
	require.Eventually(t, func() bool {
		return agentStreams(buyer, seller.host.ID()) == 0 && agentStreams(seller.host, buyer.ID()) == 0
	}, 5*time.Second, 10*time.Millisecond)
}

// A hire's requests (listing, quote, job, settle) go over streams kept
// alive between hires: hiring the same seller again opens no new stream.
func TestHiresReuseTheirStreams(t *testing.T) {
	boot := setupPeer(t, nil)
	seller := setupPeer(t, boot, withHandler(t, func(context.Context, json.RawMessage) (json.RawMessage, error) {
		return json.RawMessage(`{"result":2}`), nil
	}))
	buyer := setupPeer(t, boot)
	addListing(t, seller, "compute.statistics.mean", 10_000)
	waitProvided(t, boot, seller, buyer)
	ctx := context.Background()
	require.NoError(t, buyer.market.escrow.Deposit(ctx, 1_000_000, "test"))

	opened := countDials(buyer.market.client)
	hire := func() {
		res, err := buyer.market.Hire(ctx, HireRequest{
			Capability: "compute.statistics.mean", Input: json.RawMessage(`{"data":[1,2,3]}`), Seller: seller.host.ID(), Timeout: 30 * time.Second,
		})
		require.NoError(t, err)
		require.Equal(t, escrow.StateReleased, res.State)
		require.Equal(t, ConnDirect, res.Connection)
	}
	hire()
	// The settle message may still be on its way after Hire returns.
	require.Eventually(t, func() bool { return agentStreams(buyer.host, seller.host.ID()) > 0 }, 5*time.Second, 5*time.Millisecond)
	time.Sleep(100 * time.Millisecond)
	first := opened.Load()
	require.NotZero(t, first)
	for range 5 {
		hire()
	}
	time.Sleep(100 * time.Millisecond)
	// One hire at a time needs a stream or two at once (the settle may
	// overlap the next hire's job), three on a loaded machine (the last
	// job's stream still draining as well); five more hires open fewer
	// than one each, not two or more each (job and settle) as a stream
	// per request did. Quiet or under two busy loops it is 0-2.
	t.Logf("streams opened: first hire %d, five more %d", first, opened.Load()-first)
	require.Less(t, opened.Load()-first, int64(5), "streams opened by five more hires")
}

// countDials counts the agent streams c opens from now on; call it before
// c makes its first request.
func countDials(c *agentClient) *atomic.Int64 {
	var n atomic.Int64
	tr := c.transport()
	dial := tr.DialContext
	tr.DialContext = func(ctx context.Context, network, addr string) (net.Conn, error) {
		n.Add(1)
		return dial(ctx, network, addr)
	}
	return &n
}
