//go:build failpoints

package node_test

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"github.com/libp2p/go-libp2p/core/peer"
	"github.com/libp2p/go-libp2p/p2p/protocol/ping"
	"github.com/stretchr/testify/require"

	"github.com/swarmwage/swarmwage/node"
)

// connect connects a to b and pings b over the connection: a connection
// the remote gater refuses can look established for a moment on the
// dialing side, but no stream gets through it.
func connect(a, b *node.Node) error {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	if err := a.Host.Connect(ctx, peer.AddrInfo{ID: b.Host.ID(), Addrs: b.Host.Addrs()}); err != nil {
		return err
	}
	res := <-ping.Ping(ctx, a.Host, b.Host.ID())
	return res.Error
}

func TestPartitionCutsAndHeals(t *testing.T) {
	a := startNode(t, newRepo(t, t.TempDir()))
	b := startNode(t, newRepo(t, t.TempDir()))
	require.NoError(t, connect(b, a))
	require.NotEmpty(t, a.Host.Network().ConnsToPeer(b.Host.ID()))

	// Long enough that the checks below run inside it however slow the
	// machine; its end by itself is checked after them with a short one.
	before := time.Now()
	status, body := postAPI(t, a, "/v1/debug/partition", node.PartitionRequest{Peer: b.Host.ID().String(), Duration: "5m"})
	after := time.Now()
	require.Equal(t, http.StatusOK, status, string(body))
	var info node.PartitionInfo
	require.NoError(t, json.Unmarshal(body, &info))
	require.Equal(t, b.Host.ID().String(), info.Peer)
	// Until is the node's now plus the duration, read between before and after.
	require.False(t, info.Until.Before(before.Add(5*time.Minute)), "until %s", info.Until)
	require.False(t, info.Until.After(after.Add(5*time.Minute)), "until %s", info.Until)

	require.Eventually(t, func() bool {
		return len(a.Host.Network().ConnsToPeer(b.Host.ID())) == 0 && len(b.Host.Network().ConnsToPeer(a.Host.ID())) == 0
	}, 5*time.Second, 20*time.Millisecond, "the open connections are closed")
	require.Error(t, connect(a, b), "a dials b: refused by a's gater")
	require.Error(t, connect(b, a), "b dials a: refused by a's gater after the handshake")
	require.Eventually(t, func() bool { return len(b.Host.Network().ConnsToPeer(a.Host.ID())) == 0 }, 5*time.Second, 20*time.Millisecond)

	// A partition ends by itself: a new one for the peer replaces it.
	status, body = postAPI(t, a, "/v1/debug/partition", node.PartitionRequest{Peer: b.Host.ID().String(), Duration: "1s"})
	require.Equal(t, http.StatusOK, status, string(body))
	require.Eventually(t, func() bool { return connect(b, a) == nil }, 30*time.Second, 100*time.Millisecond)
	require.NotEmpty(t, a.Host.Network().ConnsToPeer(b.Host.ID()))
}

func TestPartitionZeroHeals(t *testing.T) {
	a := startNode(t, newRepo(t, t.TempDir()))
	b := startNode(t, newRepo(t, t.TempDir()))
	status, _ := postAPI(t, a, "/v1/debug/partition", node.PartitionRequest{Peer: b.Host.ID().String(), Duration: "5m"})
	require.Equal(t, http.StatusOK, status)
	require.Error(t, connect(a, b))
	status, _ = postAPI(t, a, "/v1/debug/partition", node.PartitionRequest{Peer: b.Host.ID().String(), Duration: "0s"})
	require.Equal(t, http.StatusOK, status)
	require.NoError(t, connect(a, b))
}

func TestPartitionRejectsBadRequests(t *testing.T) {
	a := startNode(t, newRepo(t, t.TempDir()))
	for _, tc := range []struct {
		name string
		body any
		want string
	}{
		{"bad peer", node.PartitionRequest{Peer: "nobody", Duration: "1s"}, "peer"},
		{"bad duration", node.PartitionRequest{Peer: a.Host.ID().String(), Duration: "soon"}, "duration"},
		{"negative", node.PartitionRequest{Peer: a.Host.ID().String(), Duration: "-1s"}, "duration"},
		{"too long", node.PartitionRequest{Peer: a.Host.ID().String(), Duration: "11m"}, "duration"},
		{"not JSON", "[", "decode"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			status, body := postAPI(t, a, "/v1/debug/partition", tc.body)
			require.Equal(t, http.StatusBadRequest, status)
			require.Contains(t, string(body), tc.want)
		})
	}
}
