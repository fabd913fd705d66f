package market

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/libp2p/go-libp2p/core/host"
	"github.com/libp2p/go-libp2p/core/network"
	"github.com/libp2p/go-libp2p/core/peer"
	libp2phttp "github.com/libp2p/go-libp2p/p2p/http"
)

const (
	// readHeaderTimeout bounds how long a peer may take to send a request's
	// headers: a stream that opens and says nothing is closed.
	readHeaderTimeout = 10 * time.Second
	// idleTimeout closes streams that carry no request.
	idleTimeout = 60 * time.Second
	// maxHeaderBytes caps a request's headers.
	maxHeaderBytes = 16 << 10
)

// peerKey is the context key of the remote peer of an agent-endpoint request.
type peerKey struct{}

// remotePeer is the authenticated peer that sent r over a libp2p stream, or
// "" for requests that came another way.
func remotePeer(r *http.Request) peer.ID {
	p, _ := r.Context().Value(peerKey{}).(peer.ID)
	return p
}

// listenStreams serves the agent endpoint on libp2p streams (HTTP/1.1 over
// the "/http/1.1" protocol, as go-libp2p's p2p/http does) with an
// http.Server of our own, so that every stream gets read-header and idle
// deadlines, which libp2phttp.Host.Serve does not set. The well-known
// resource maps AgentProtocolID to AgentPath for clients that look it up.
func (m *Market) listenStreams() (*http.Server, net.Listener, error) {
	ln := newStreamListener(m.host, m.log)
	var wk libp2phttp.WellKnownHandler
	wk.AddProtocolMeta(AgentProtocolID, libp2phttp.ProtocolMeta{Path: AgentPath + "/"})
	mux := http.NewServeMux()
	mux.Handle(libp2phttp.WellKnownProtocols, &wk)
	mux.Handle(AgentPath+"/", http.StripPrefix(AgentPath, m.server))
	srv := &http.Server{
		Handler:           mux,
		ReadHeaderTimeout: m.cfg.readHeaderTimeout,
		IdleTimeout:       idleTimeout,
		MaxHeaderBytes:    maxHeaderBytes,
		ErrorLog:          nil,
		ConnContext: func(ctx context.Context, c net.Conn) context.Context {
			if id, err := peer.Decode(c.RemoteAddr().String()); err == nil {
				return context.WithValue(ctx, peerKey{}, id)
			}
			return ctx
		},
	}
	return srv, ln, nil
}

// agentStreamMemory is reserved in the resource manager for each inbound
// agent stream: the HTTP server's buffers and headers (maxHeaderBytes).
// Request bodies have caps of their own, per route.
const agentStreamMemory = 64 << 10

// streamListener is a net.Listener of inbound agent streams. Each stream
// joins the agent's resource-manager service (ServiceName) and reserves
// agentStreamMemory before the HTTP server sees it, so a peer that opens
// streams without end hits the service's per-peer limits, not the node's.
// Streams of relayed (limited) connections are served like any other: a
// seller behind NAT is reached that way.
type streamListener struct {
	host    host.Host
	log     *slog.Logger
	streams chan network.Stream
	done    chan struct{}
	once    sync.Once
}

func newStreamListener(h host.Host, log *slog.Logger) *streamListener {
	l := &streamListener{host: h, log: log, streams: make(chan network.Stream), done: make(chan struct{})}
	h.SetStreamHandler(agentProtocol, l.handle)
	return l
}

func (l *streamListener) handle(s network.Stream) {
	if err := s.Scope().SetService(ServiceName); err != nil {
		l.log.Debug("agent stream refused by the resource manager", "remote_peer", s.Conn().RemotePeer(), "err", err)
		_ = s.Reset()
		return
	}
	if err := s.Scope().ReserveMemory(agentStreamMemory, network.ReservationPriorityHigh); err != nil {
		l.log.Debug("agent stream refused: no memory", "remote_peer", s.Conn().RemotePeer(), "err", err)
		_ = s.Reset()
		return
	}
	select {
	case l.streams <- s:
	case <-l.done:
		_ = s.Reset()
	}
}

// Accept returns the next inbound agent stream as a net.Conn.
func (l *streamListener) Accept() (net.Conn, error) {
	select {
	case s := <-l.streams:
		return &streamConn{Stream: s}, nil
	case <-l.done:
		return nil, net.ErrClosed
	}
}

// Close stops accepting streams; it is idempotent.
func (l *streamListener) Close() error {
	l.once.Do(func() {
		l.host.RemoveStreamHandler(agentProtocol)
		close(l.done)
	})
	return nil
}

// Addr is this node's peer ID.
func (l *streamListener) Addr() net.Addr { return peerAddr(l.host.ID()) }

// streamConn is an agent stream as a net.Conn for the HTTP server. It reads
// EOF as "no more data yet": a client closes its write side once the
// request is sent, and the server must still write the response.
type streamConn struct {
	network.Stream
}

func (c *streamConn) Read(b []byte) (int, error) {
	n, err := c.Stream.Read(b)
	if err == io.EOF {
		return n, nil
	}
	return n, err
}

func (c *streamConn) LocalAddr() net.Addr  { return peerAddr(c.Conn().LocalPeer()) }
func (c *streamConn) RemoteAddr() net.Addr { return peerAddr(c.Conn().RemotePeer()) }

// peerAddr is a peer ID as a net.Addr; its String is the peer ID, which
// ConnContext decodes.
type peerAddr peer.ID

func (a peerAddr) Network() string { return "libp2p" }
func (a peerAddr) String() string  { return peer.ID(a).String() }

// serveStreams runs srv on ln until the market closes.
func (m *Market) serveStreams(srv *http.Server, ln net.Listener) {
	defer m.wg.Done()
	go func() {
		<-m.ctx.Done()
		sctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		_ = srv.Shutdown(sctx)
	}()
	if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
		m.log.Error("agent endpoint stopped", "err", err)
	}
}
