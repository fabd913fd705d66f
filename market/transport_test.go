package market

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/libp2p/go-libp2p"
	"github.com/libp2p/go-libp2p/core/host"
	"github.com/libp2p/go-libp2p/core/network"
	"github.com/libp2p/go-libp2p/core/peer"
	"github.com/libp2p/go-libp2p/p2p/net/swarm"
	"github.com/libp2p/go-libp2p/p2p/protocol/circuitv2/client"
	"github.com/libp2p/go-libp2p/p2p/protocol/circuitv2/proto"
	relayv2 "github.com/libp2p/go-libp2p/p2p/protocol/circuitv2/relay"
	ma "github.com/multiformats/go-multiaddr"
	"github.com/stretchr/testify/require"
)

// relayDataLimit is the test relay's data limit per relayed connection.
const relayDataLimit = 32 << 10

// setupRelayed starts a relay with small limits, a seller (a real market)
// holding a reservation on it, and a buyer host connected to the relay
// only. It returns the buyer and the seller as the buyer knows it: by its
// circuit address alone, as a buyer knows a seller behind NAT.
func setupRelayed(t *testing.T) (buyer host.Host, seller *testPeer, sellerInfo peer.AddrInfo) {
	t.Helper()
	rc := relayv2.DefaultResources()
	rc.Limit = &relayv2.RelayLimit{Duration: time.Minute, Data: relayDataLimit}
	relay, err := libp2p.New(
		libp2p.ListenAddrStrings("/ip4/127.0.0.1/tcp/0"),
		libp2p.ForceReachabilityPublic(),
		libp2p.EnableRelayService(relayv2.WithResources(rc), relayv2.WithReservationAddressFilter(func(ma.Multiaddr) bool { return true })),
	)
	require.NoError(t, err)
	t.Cleanup(func() { relay.Close() })
	require.Eventually(t, func() bool { return slices.Contains(relay.Mux().Protocols(), proto.ProtoIDv2Hop) }, 10*time.Second, 20*time.Millisecond,
		"the relay service starts once the host is public")
	relayInfo := peer.AddrInfo{ID: relay.ID(), Addrs: relay.Addrs()}

	seller = setupPeer(t, nil)
	ctx := t.Context()
	require.NoError(t, seller.host.Connect(ctx, relayInfo))
	_, err = client.Reserve(ctx, seller.host, relayInfo)
	require.NoError(t, err)

	buyer, err = libp2p.New(libp2p.ListenAddrStrings("/ip4/127.0.0.1/tcp/0"))
	require.NoError(t, err)
	t.Cleanup(func() { buyer.Close() })
	require.NoError(t, buyer.Connect(ctx, relayInfo))
	circuit := ma.StringCast(relay.Addrs()[0].String() + "/p2p/" + relay.ID().String() + "/p2p-circuit")
	return buyer, seller, peer.AddrInfo{ID: seller.host.ID(), Addrs: []ma.Multiaddr{circuit}}
}

func TestAgentRequestsRunOverARelayedConnection(t *testing.T) {
	buyer, seller, sellerInfo := setupRelayed(t)
	c := &agentClient{host: buyer, holePunchWait: 200 * time.Millisecond}

	// A seller behind NAT is reachable only through its relay: its
	// listings are fetched over the limited connection.
	var kind string
	var resp struct {
		Listings []any `json:"listings"`
	}
	_, _, err := c.do(withConnRecorder(t.Context(), &kind), sellerInfo, http.MethodGet, "/capabilities", nil, maxListingsSize, &resp)
	require.NoError(t, err)
	require.Equal(t, ConnRelayed, kind)
	require.Equal(t, network.Limited, buyer.Network().Connectedness(seller.host.ID()))

	// A job whose request does not fit the relay's data limit is not sent:
	// the relay would cut it off halfway.
	kind = ""
	big := bytes.Repeat([]byte("x"), relayDataLimit)
	_, err = c.stream(withConnRecorder(t.Context(), &kind), sellerInfo, "/jobs", big)
	var se *StatusError
	require.True(t, errors.As(err, &se), "%v", err)
	require.True(t, se.Local)
	require.Equal(t, http.StatusRequestEntityTooLarge, se.Code)
	require.Contains(t, se.Error(), "not sent to the seller")
	require.Empty(t, kind, "nothing was sent")

	// A small job goes over the relay when no direct connection appears.
	resp2, err := c.stream(withConnRecorder(t.Context(), &kind), sellerInfo, "/jobs", []byte(`{}`))
	if err == nil {
		resp2.Body.Close()
	}
	require.True(t, errors.As(err, &se), "the seller refuses the empty job: %v", err)
	require.False(t, se.Local, "it was sent: %v", err)
	require.Equal(t, ConnRelayed, kind)
}

func TestJobWaitsForTheDirectConnectionHolePunchingMakes(t *testing.T) {
	buyer, seller, sellerInfo := setupRelayed(t)
	// The window outlasts the test's deadline: only the direct connection
	// can end the wait in time.
	c := &agentClient{host: buyer, holePunchWait: 10 * time.Minute}
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	var kind string
	_, _, err := c.do(withConnRecorder(ctx, &kind), sellerInfo, http.MethodGet, "/capabilities", nil, maxListingsSize, nil)
	require.NoError(t, err)
	require.Equal(t, ConnRelayed, kind)

	// Hole punching, played by a direct dial, upgrades the connection
	// while the job waits: the job's data goes direct.
	go func() {
		// Either order passes; the pause makes the job wait first.
		time.Sleep(100 * time.Millisecond)
		direct := peer.AddrInfo{ID: seller.host.ID(), Addrs: seller.host.Addrs()}
		_ = buyer.Connect(network.WithForceDirectDial(context.Background(), "test"), direct)
	}()
	resp, err := c.stream(withConnRecorder(ctx, &kind), sellerInfo, "/jobs", []byte(`{}`))
	if err == nil {
		resp.Body.Close()
	}
	var se *StatusError
	require.True(t, errors.As(err, &se), "the seller refuses the empty job: %v", err)
	require.False(t, se.Local)
	require.Equal(t, ConnDirect, kind)
}

// pipeTransport is the agent transport over an in-memory connection whose
// far end reads the request, answers with answer, then closes.
func pipeTransport(answer []byte) *http.Transport {
	return newAgentTransport(func(context.Context, string, string) (net.Conn, error) {
		client, seller := net.Pipe()
		go func() {
			defer seller.Close()
			// The answer follows the request, as a seller's does.
			req, err := http.ReadRequest(bufio.NewReader(seller))
			if err != nil {
				return
			}
			_, _ = io.Copy(io.Discard, req.Body)
			go func() { _, _ = io.Copy(io.Discard, seller) }()
			_, _ = seller.Write(answer)
		}()
		return client, nil
	})
}

// TestRequestDialsThroughAnEarlierDialsBackoff: a dial to a seller that
// failed a moment ago (a DHT query's, cut short) leaves its addresses in
// the swarm's dial backoff; a request to the seller still dials it once
// rather than failing at once (TestOfflineJobsAreTheDaemons failed so on a
// loaded machine: "all dials failed ... dial backoff").
func TestRequestDialsThroughAnEarlierDialsBackoff(t *testing.T) {
	seller := setupPeer(t, nil)
	buyer, err := libp2p.New(libp2p.ListenAddrStrings("/ip4/127.0.0.1/tcp/0"))
	require.NoError(t, err)
	t.Cleanup(func() { buyer.Close() })
	sw, ok := buyer.Network().(*swarm.Swarm)
	require.True(t, ok, "the host's network is go-libp2p's swarm")
	for _, a := range seller.host.Addrs() {
		sw.Backoff().AddBackoff(seller.host.ID(), a)
	}
	info := peer.AddrInfo{ID: seller.host.ID(), Addrs: seller.host.Addrs()}
	require.ErrorIs(t, buyer.Connect(t.Context(), info), swarm.ErrDialBackoff, "the swarm itself refuses to dial")

	c := &agentClient{host: buyer}
	var resp struct {
		Listings []any `json:"listings"`
	}
	_, _, err = c.do(t.Context(), info, http.MethodGet, "/capabilities", nil, maxListingsSize, &resp)
	require.NoError(t, err)
	require.Equal(t, network.Connected, buyer.Network().Connectedness(seller.host.ID()))
}

func TestResponseHeadersAreCapped(t *testing.T) {
	endless := "HTTP/1.1 200 OK\r\nX-Junk: " + string(bytes.Repeat([]byte("a"), maxResponseHeader)) + "\r\n\r\n"
	req, err := http.NewRequest(http.MethodGet, "http://seller/capabilities", nil)
	require.NoError(t, err)
	_, err = pipeTransport([]byte(endless)).RoundTrip(req)
	require.ErrorContains(t, err, "response headers exceeded")

	body := bytes.Repeat([]byte("b"), 2*maxResponseHeader)
	ok := "HTTP/1.1 200 OK\r\nContent-Length: " + strconv.Itoa(len(body)) + "\r\n\r\n" + string(body)
	req, err = http.NewRequest(http.MethodGet, "http://seller/capabilities", nil)
	require.NoError(t, err)
	resp, err := pipeTransport([]byte(ok)).RoundTrip(req)
	require.NoError(t, err)
	got, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	require.NoError(t, resp.Body.Close())
	require.Equal(t, body, got, "the cap is on headers only")
}

// FuzzReadResponseNoPanic: a seller's answer is read from bytes it chose.
func FuzzReadResponseNoPanic(f *testing.F) {
	f.Add([]byte("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n{}"))
	f.Add([]byte("HTTP/1.1 429 Too Many Requests\r\nRetry-After: 3\r\n\r\n"))
	f.Add([]byte("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n"))
	f.Add([]byte("garbage"))
	f.Fuzz(func(t *testing.T, data []byte) {
		req, err := http.NewRequest(http.MethodPost, "http://seller/jobs", bytes.NewReader([]byte(`{}`)))
		require.NoError(t, err)
		tr := pipeTransport(data)
		defer tr.CloseIdleConnections()
		resp, err := tr.RoundTrip(req)
		if err != nil {
			return
		}
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<20))
		resp.Body.Close()
	})
}
