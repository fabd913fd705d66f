package market

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"

	"github.com/libp2p/go-libp2p/core/peer"
	libp2phttp "github.com/libp2p/go-libp2p/p2p/http"
	"github.com/libp2p/go-libp2p/p2p/net/gostream"
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
	ln, err := gostream.Listen(m.host, libp2phttp.ProtocolIDForMultistreamSelect, gostream.IgnoreEOF())
	if err != nil {
		return nil, nil, fmt.Errorf("listen for agent streams: %w", err)
	}
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
