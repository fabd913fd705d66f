package market

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptrace"
	"strings"
	"time"

	"github.com/libp2p/go-libp2p/core/event"
	"github.com/libp2p/go-libp2p/core/network"
	"github.com/libp2p/go-libp2p/core/peer"
	libp2phttp "github.com/libp2p/go-libp2p/p2p/http"
	"github.com/libp2p/go-libp2p/p2p/net/swarm"
	circuit "github.com/libp2p/go-libp2p/p2p/protocol/circuitv2/client"
)

// The kinds of connection a job ran over (HireResult.Connection).
const (
	// ConnDirect: a direct connection, dialled or made by hole punching.
	ConnDirect = "direct"
	// ConnRelayed: a limited connection through a circuit relay v2.
	ConnRelayed = "relayed"
)

const (
	// newStreamTimeout bounds opening one agent stream (dial and protocol
	// negotiation), as libp2phttp.DefaultNewStreamTimeout does; the
	// request's own deadline bounds the rest.
	newStreamTimeout = 15 * time.Second

	// HolePunchWait is how long a job whose only connection to the seller
	// is relayed waits for hole punching (DCUtR) to add a direct one,
	// counted from when the relayed connection opened. The NAT'd side
	// starts hole punching as soon as the relayed connection is
	// identified; where NATs allow it, it succeeds within a few round
	// trips, so a wait of seconds covers it, and a job whose NATs do not
	// allow it is not delayed longer than that.
	HolePunchWait = 3 * time.Second

	// relayRequestSlack is what a job's request needs on a relayed
	// connection beyond its body: headers, and the other requests of the
	// hire that used the same circuit (a signed listing with its schemas, a
	// quote), a few KiB each.
	relayRequestSlack = 16 << 10

	// idleStreamTimeout is how long an agent stream with no request in
	// flight is kept for the next request to the same seller. It is below
	// the seller's idleTimeout, so that the buyer, not the seller, closes
	// an idle stream, and a request is not sent on a stream the seller is
	// closing at the same moment.
	idleStreamTimeout = idleTimeout / 2
	// maxIdleStreamsPerSeller bounds the idle streams kept per seller and
	// kind of connection: as many as a buyer hiring 32 at once uses. The
	// seller holds agentStreamMemory for each, within its per-peer limits.
	maxIdleStreamsPerSeller = 32
	// maxIdleStreams bounds the idle streams kept for all sellers.
	maxIdleStreams = 256
)

// agentProtocol is the libp2p protocol of agent streams: go-libp2p's
// HTTP/1.1 over streams.
const agentProtocol = libp2phttp.ProtocolIDForMultistreamSelect

// connRecorderKey is the context key of a *string that records the kind of
// connection (ConnDirect, ConnRelayed) of the agent requests made with the
// context.
type connRecorderKey struct{}

// withConnRecorder returns a context whose agent requests record in *kind
// the kind of connection each used; the last request wins. The caller reads
// *kind after the requests returned.
func withConnRecorder(ctx context.Context, kind *string) context.Context {
	return context.WithValue(ctx, connRecorderKey{}, kind)
}

// connKind names the kind of c.
func connKind(c network.Conn) string {
	if c.Stat().Limited {
		return ConnRelayed
	}
	return ConnDirect
}

// newAgentTransport is the HTTP/1.1 client transport of agent requests:
// net/http's Transport over the connections dial returns (agent streams),
// so that a stream is kept alive between requests to the same seller, as
// a TCP connection is between requests to the same web server, and a
// request does not pay for opening a stream and negotiating its protocol.
// It caps a response's headers at maxResponseHeader; bodies have caps of
// their own, per call.
func newAgentTransport(dial func(ctx context.Context, network, addr string) (net.Conn, error)) *http.Transport {
	return &http.Transport{
		DialContext:            dial,
		MaxIdleConns:           maxIdleStreams,
		MaxIdleConnsPerHost:    maxIdleStreamsPerSeller,
		IdleConnTimeout:        idleStreamTimeout,
		MaxResponseHeaderBytes: maxResponseHeader,
		// Agent bodies are JSON and NDJSON a seller sends as they are; a
		// gzip body would only move the caps after decompression.
		DisableCompression: true,
	}
}

// transport is c's agent transport, made on first use.
func (c *agentClient) transport() *http.Transport {
	c.trOnce.Do(func() { c.tr = newAgentTransport(c.dialAgent) })
	return c.tr
}

// closeIdle closes the agent streams kept for later requests.
func (c *agentClient) closeIdle() {
	c.trOnce.Do(func() {})
	if c.tr != nil {
		c.tr.CloseIdleConnections()
	}
}

// Agent requests carry the kind of connection their stream must be on in
// the host part of their URL, so that the transport keeps the streams of
// relayed and direct connections apart: once hole punching has made a
// direct connection, requests go on it, not on a stream of the relay's.
const (
	directHost  = "direct."
	relayedHost = "relayed."
)

// roundTrip sends req to seller over an agent stream, one kept from an
// earlier request to seller when there is one, and returns the response;
// closing its body once read returns the stream for the next request.
// Relayed (limited) connections are allowed, since a seller behind NAT is
// reachable only through its relay. A job (job set) whose only connection
// is relayed first waits for hole punching (HolePunchWait), and is not sent
// when its body does not fit the relay's data limit: that error is a local
// *StatusError (413), so the hire refunds the lock and tries the next
// seller.
func (c *agentClient) roundTrip(req *http.Request, seller peer.AddrInfo, job bool) (*http.Response, error) {
	ctx := req.Context()
	relayed, err := c.route(ctx, seller, job, req.ContentLength)
	if err != nil {
		return nil, err
	}
	req.Host = seller.ID.String()
	req.URL.Host = directHost + req.Host
	if relayed {
		req.URL.Host = relayedHost + req.Host
	}
	if kind, ok := ctx.Value(connRecorderKey{}).(*string); ok {
		req = req.WithContext(httptrace.WithClientTrace(ctx, &httptrace.ClientTrace{
			GotConn: func(info httptrace.GotConnInfo) {
				if ac, ok := info.Conn.(*agentConn); ok {
					*kind = connKind(ac.Conn())
				}
			},
		}))
	}
	// The transport writes the request while it reads the response (a
	// seller may answer 400 or 413 before it has read the whole body),
	// and a cancelled request closes (resets) its stream, so that a read
	// or write blocked on a silent seller returns.
	return c.transport().RoundTrip(req)
}

// route makes sure a connection to seller exists and reports whether the
// request must go over a relayed one, because it is the only kind there
// is. For a job on a relayed connection it applies upgradeOrFit.
func (c *agentClient) route(ctx context.Context, seller peer.AddrInfo, job bool, size int64) (relayed bool, err error) {
	nw := c.host.Network()
	switch nw.Connectedness(seller.ID) {
	case network.Connected:
		return false, nil
	case network.Limited:
	default:
		// The seller's addresses are added only when no connection
		// exists: adding them on every request would rewrite the
		// peerstore, which is on disk.
		cctx, cancel := context.WithTimeout(ctx, newStreamTimeout)
		err := c.connect(network.WithAllowLimitedConn(cctx, "swarmwage agent"), seller)
		cancel()
		if err != nil {
			return false, err
		}
		if nw.Connectedness(seller.ID) != network.Limited {
			return false, nil
		}
	}
	if !job {
		return true, nil
	}
	return c.upgradeOrFit(ctx, seller, size)
}

// connect connects to seller. A dial of this node's that failed a moment
// ago (a DHT query's, cut short on a loaded machine, say) puts the seller's
// addresses in the swarm's dial backoff, and for seconds every dial to them
// then fails at once without trying. A hire means to reach this seller now,
// so, as Kubo's 'swarm connect' does, connect clears the seller's backoff
// and dials once more: one real attempt per request, not one per backoff.
func (c *agentClient) connect(ctx context.Context, seller peer.AddrInfo) error {
	err := c.host.Connect(ctx, seller)
	if !errors.Is(err, swarm.ErrDialBackoff) {
		return err
	}
	sw, ok := c.host.Network().(interface{ Backoff() *swarm.DialBackoff })
	if !ok {
		return err
	}
	sw.Backoff().Clear(seller.ID)
	return c.host.Connect(ctx, seller)
}

// upgradeOrFit is called for a job of size bytes to a seller whose only
// connections are relayed. It waits for a direct connection until
// holePunchWait after the relayed one opened and reports false if one
// appeared; else it reports true if the job fits the relay's data limit,
// else it returns a local *StatusError.
func (c *agentClient) upgradeOrFit(ctx context.Context, seller peer.AddrInfo, size int64) (relayed bool, err error) {
	var opened time.Time
	var limit uint64
	for _, conn := range c.host.Network().ConnsToPeer(seller.ID) {
		stat := conn.Stat()
		if !stat.Limited {
			return false, nil
		}
		if stat.Opened.After(opened) {
			opened = stat.Opened
		}
		if l, _ := stat.Extra[circuit.StatLimitData].(uint64); l > 0 && (limit == 0 || l < limit) {
			limit = l
		}
	}
	if c.waitDirect(ctx, seller.ID, opened.Add(c.holePunchWait)) {
		return false, nil
	}
	if limit == 0 || size >= 0 && uint64(size)+relayRequestSlack <= limit {
		return true, nil
	}
	return false, &StatusError{
		Code:  http.StatusRequestEntityTooLarge,
		Local: true,
		Message: fmt.Sprintf("the job's request (%d bytes) does not fit the data limit (%d bytes) of the relay that is the only way to %s, and hole punching made no direct connection",
			size, limit, seller.ID),
	}
}

// waitDirect reports whether a direct (not limited) connection to p exists
// or appears before until.
func (c *agentClient) waitDirect(ctx context.Context, p peer.ID, until time.Time) bool {
	sub, err := c.host.EventBus().Subscribe(new(event.EvtPeerConnectednessChanged))
	if err != nil {
		return false
	}
	defer sub.Close()
	if c.host.Network().Connectedness(p) == network.Connected {
		return true
	}
	t := time.NewTimer(time.Until(until))
	defer t.Stop()
	for {
		select {
		case e, ok := <-sub.Out():
			if !ok {
				return false
			}
			if ev := e.(event.EvtPeerConnectednessChanged); ev.Peer == p && ev.Connectedness == network.Connected {
				return true
			}
		case <-t.C:
			return c.host.Network().Connectedness(p) == network.Connected
		case <-ctx.Done():
			return false
		}
	}
}

// dialAgent opens an agent stream, in the agent's resource-manager
// service, to the seller addr names ("direct.<peer ID>:80" or
// "relayed.<peer ID>:80", see roundTrip). A stream for a direct host is
// opened on a direct connection only.
func (c *agentClient) dialAgent(ctx context.Context, _, addr string) (net.Conn, error) {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, fmt.Errorf("agent address %q: %w", addr, err)
	}
	id, relayed := strings.CutPrefix(host, relayedHost)
	if !relayed {
		id = strings.TrimPrefix(host, directHost)
	}
	p, err := peer.Decode(id)
	if err != nil {
		return nil, fmt.Errorf("agent address %q: %w", addr, err)
	}
	sctx, cancel := context.WithTimeout(ctx, newStreamTimeout)
	defer cancel()
	if relayed {
		sctx = network.WithAllowLimitedConn(sctx, "swarmwage agent")
	}
	s, err := c.host.NewStream(sctx, p, agentProtocol)
	if err != nil {
		return nil, err
	}
	if err := s.Scope().SetService(ServiceName); err != nil {
		_ = s.Reset()
		return nil, fmt.Errorf("agent stream to %s: %w", p, err)
	}
	return &agentConn{Stream: s}, nil
}

// maxResponseHeader caps the status line and headers of a seller's answer:
// a seller that sends headers without end is cut off. Bodies have caps of
// their own, per call.
const maxResponseHeader = 64 << 10

// agentConn is an outbound agent stream as a net.Conn for the transport.
type agentConn struct {
	network.Stream
}

// Close resets the stream. The transport closes a stream when it is done
// with it: idle for idleStreamTimeout, answered with "Connection: close",
// or its request cancelled or broken. In the last case the seller must
// see the request end, not a half-closed stream.
func (c *agentConn) Close() error { return c.Reset() }

func (c *agentConn) LocalAddr() net.Addr  { return peerAddr(c.Conn().LocalPeer()) }
func (c *agentConn) RemoteAddr() net.Addr { return peerAddr(c.Conn().RemotePeer()) }
