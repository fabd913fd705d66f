package p2p

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/libp2p/go-libp2p/core/network"
	"github.com/libp2p/go-libp2p/core/peer"
	"github.com/libp2p/go-libp2p/p2p/protocol/holepunch"
	ma "github.com/multiformats/go-multiaddr"
	"github.com/stretchr/testify/require"
)

const (
	relayA = "/ip4/198.20.7.10/tcp/4747/p2p/12D3KooWChckUcyZuyC1rWPPs5BP59KiZTnTLKZv2itsqfPwvAEJ"
	relayB = "/ip4/198.20.7.11/udp/4747/quic-v1/p2p/12D3KooWLu5PxiaMTKAWj69QNmyY4g57WY5ZSKREi1fnUqf8DrXq"
)

func TestReachabilityCombinesAutoNATVerdicts(t *testing.T) {
	pub := ma.StringCast("/ip4/198.20.7.20/tcp/4747")
	testCases := []struct {
		name                   string
		forced                 string
		v1                     network.Reachability
		reachable, unreachable []ma.Multiaddr
		want                   string
	}{
		{name: "nothing known", want: ReachabilityUnknown},
		{name: "v1 private", v1: network.ReachabilityPrivate, want: ReachabilityPrivate},
		{name: "v1 public", v1: network.ReachabilityPublic, want: ReachabilityPublic},
		{name: "v2 dialled an address", v1: network.ReachabilityPrivate, reachable: []ma.Multiaddr{pub}, want: ReachabilityPublic},
		{name: "v2 could not dial", unreachable: []ma.Multiaddr{pub}, want: ReachabilityPrivate},
		{name: "forced wins", forced: ReachabilityPrivate, v1: network.ReachabilityPublic, want: ReachabilityPrivate},
	}
	for _, tc := range testCases {
		t.Run(tc.name, func(t *testing.T) {
			st := &State{forced: tc.forced, autonat: tc.v1, reachable: tc.reachable, unreachable: tc.unreachable}
			require.Equal(t, tc.want, st.Reachability())
		})
	}
}

// TestRelayCandidatesOffersStaticRelaysFirst also covers a data race:
// AutoRelay may ask for candidates while New is still building the DHT, and
// relayCandidates used to read the node's Routing field as New assigned it.
// Run with -race.
func TestRelayCandidatesOffersStaticRelaysFirst(t *testing.T) {
	static, err := relayInfos(relayA, relayB)
	require.NoError(t, err)
	st := newState(Config{Network: "lab", Relays: static, Bootstrap: true}, slog.New(slog.DiscardHandler))
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		size := func() int { return 0 }
		st.dhtPeers.Store(&size) // as SetRouting does, while candidates are asked for
	}()
	var got []peer.ID
	for ai := range st.relayCandidates(context.Background(), 5) {
		got = append(got, ai.ID)
	}
	wg.Wait()
	require.Equal(t, []peer.ID{static[0].ID, static[1].ID}, got, "static relays, in order; no DHT yet")

	got = nil
	for ai := range st.relayCandidates(context.Background(), 1) {
		got = append(got, ai.ID)
	}
	require.Equal(t, []peer.ID{static[0].ID}, got, "no more than asked for")
}

func TestRelayReservationsAreLogged(t *testing.T) {
	var buf bytes.Buffer
	st := newState(Config{Network: "lab", Bootstrap: true}, slog.New(slog.NewTextHandler(&buf, nil)))
	circuit := ma.StringCast(relayA + "/p2p-circuit")
	st.relaysUpdated([]ma.Multiaddr{circuit})
	require.Contains(t, buf.String(), "relay reservation made")
	require.Contains(t, buf.String(), "12D3KooWChckUcyZuyC1rWPPs5BP59KiZTnTLKZv2itsqfPwvAEJ")
	buf.Reset()
	st.relaysUpdated([]ma.Multiaddr{circuit})
	require.Empty(t, buf.String(), "the same reservation again: nothing new")
	st.relaysUpdated(nil)
	require.Contains(t, buf.String(), "relay reservation lost")
}

func TestJoinIsLoggedAndZeroPeersWarned(t *testing.T) {
	testCases := []struct {
		name      string
		bootstrap bool
		want      string
	}{
		{"joins through bootstrap peers", true, "failed to join the network"},
		{"first node of a private network", false, "nobody has joined through this node"},
	}
	for _, tc := range testCases {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				var mu sync.Mutex
				var buf bytes.Buffer
				log := slog.New(slog.NewTextHandler(writerFunc(func(p []byte) (int, error) {
					mu.Lock()
					defer mu.Unlock()
					return buf.Write(p)
				}), nil))
				logged := func() string { mu.Lock(); defer mu.Unlock(); return buf.String() }
				st := newState(Config{Network: "lab", Bootstrap: tc.bootstrap}, log)
				var peers sync.Mutex
				n := 0
				size := func() int { peers.Lock(); defer peers.Unlock(); return n }
				st.dhtPeers.Store(&size)
				ctx, cancel := context.WithCancel(context.Background())
				st.wg.Add(1)
				go st.watchJoin(ctx)

				time.Sleep(joinWarnAfter - 2*joinPoll)
				synctest.Wait()
				require.NotContains(t, logged(), "level=WARN", "too early to warn")
				time.Sleep(3 * joinPoll)
				synctest.Wait()
				require.Contains(t, logged(), tc.want)
				require.Equal(t, 1, strings.Count(logged(), "level=WARN"), "warned once")

				peers.Lock()
				n = 3
				peers.Unlock()
				time.Sleep(joinPoll)
				synctest.Wait()
				require.Contains(t, logged(), `msg="joined the network" network=lab dht_peers=3`)

				peers.Lock()
				n = 0
				peers.Unlock()
				time.Sleep(joinPoll)
				synctest.Wait()
				require.Contains(t, logged(), "lost every DHT peer")
				cancel()
				st.wg.Wait()
			})
		})
	}
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }

func TestHolePunchesCountedAndLastKept(t *testing.T) {
	var buf bytes.Buffer
	h := &holePunches{log: slog.New(slog.NewTextHandler(&buf, nil))}
	static, err := relayInfos(relayA, relayB)
	require.NoError(t, err)
	require.Nil(t, h.info().Last)

	h.Trace(&holepunch.Event{Type: holepunch.StartHolePunchEvtT, Remote: static[0].ID})
	h.HolePunchFinished("initiator", 3, nil, nil, nil)
	info := h.info()
	require.Equal(t, 1, info.Attempts)
	require.Equal(t, 0, info.Successes)
	require.NotNil(t, info.Last)
	require.False(t, info.Last.Success)
	require.Equal(t, static[0].ID.String(), info.Last.Peer, "a failure names the peer of the last event")
	require.Equal(t, 3, info.Last.Attempts)
	require.Contains(t, buf.String(), "hole punch failed")

	h.Trace(&holepunch.Event{Type: holepunch.EndHolePunchEvtT, Remote: static[1].ID})
	h.HolePunchFinished("receiver", 1, nil, nil, fakeConn{remote: static[1].ID})
	info = h.info()
	require.Equal(t, 2, info.Attempts)
	require.Equal(t, 1, info.Successes)
	require.True(t, info.Last.Success)
	require.Equal(t, "receiver", info.Last.Side)
	require.Equal(t, static[1].ID.String(), info.Last.Peer)
	require.Contains(t, buf.String(), "hole punch made a direct connection")

	// A peer that cannot take part yet fails the hole punch before it starts.
	h.Trace(&holepunch.Event{Type: holepunch.ProtocolErrorEvtT, Remote: static[0].ID, Evt: &holepunch.ProtocolErrorEvt{Error: "protocols not supported"}})
	info = h.info()
	require.Equal(t, 3, info.Attempts)
	require.Equal(t, 1, info.Successes)
	require.False(t, info.Last.Success)
	require.Equal(t, static[0].ID.String(), info.Last.Peer)
	require.Equal(t, "protocols not supported", info.Last.Error)
}

// fakeConn is the direct connection a finished hole punch reports.
type fakeConn struct {
	network.Conn
	remote peer.ID
}

func (c fakeConn) RemotePeer() peer.ID { return c.remote }

// relayInfos parses full multiaddrs of relays.
func relayInfos(addrs ...string) ([]peer.AddrInfo, error) {
	var out []peer.AddrInfo
	for _, a := range addrs {
		ai, err := peer.AddrInfoFromString(a)
		if err != nil {
			return nil, err
		}
		out = append(out, *ai)
	}
	return out, nil
}
