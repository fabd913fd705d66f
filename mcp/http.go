package mcp

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/swarmwage/swarmwage/gateway"
)

// MCP over Streamable HTTP ('swarmwage mcp --http ADDR'): the same tools,
// at the revision the Go SDK speaks, behind the gateway's bearer token.

// HTTPPath is where the Streamable HTTP endpoint is served.
const HTTPPath = "/mcp"

const (
	// maxHTTPBody caps a request body: a hire's input with its envelope.
	maxHTTPBody = 8 << 20
	// httpReadHeaderTimeout bounds the arrival of a request's headers and
	// httpReadTimeout of a whole request with its body.
	httpReadHeaderTimeout = 10 * time.Second
	httpReadTimeout       = time.Minute
	// httpIdleTimeout closes idle keep-alive connections.
	httpIdleTimeout = 2 * time.Minute
	// httpSessionIdle ends a session that sent nothing for this long.
	httpSessionIdle = time.Hour
)

// HTTPHandler serves the tools over Streamable HTTP at HTTPPath, to
// callers that send "Authorization: Bearer <token>" (every caller when
// token is empty; the token of gateway.EnsureToken). All sessions share this Server, so its per-session cap
// counts what every client of one 'swarmwage mcp --http' run spent.
// Requests to a localhost address with another Host are refused (DNS
// rebinding protection, the SDK's default).
func (s *Server) HTTPHandler(token string) http.Handler {
	h := sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return s.mcp }, &sdk.StreamableHTTPOptions{
		Logger:              s.log,
		SessionTimeout:      httpSessionIdle,
		MaxRequestBodyBytes: maxHTTPBody,
	})
	var hh http.Handler = h
	if token != "" {
		hh = gateway.RequireToken(token, h)
	}
	mux := http.NewServeMux()
	mux.Handle(HTTPPath, gateway.BufferBody(maxHTTPBody, httpReadTimeout, hh))
	return mux
}

// CloseSessions ends every session of the server and waits for them: the
// Streamable HTTP sessions outlive their requests until the client ends
// them or they idle out.
func (s *Server) CloseSessions() {
	var all []*sdk.ServerSession
	for ss := range s.mcp.Sessions() {
		all = append(all, ss)
	}
	for _, ss := range all {
		_ = ss.Close()
		_ = ss.Wait()
	}
}

// ServeHTTP serves HTTPHandler(token) on ln until ctx ends, then shuts
// down (open streams are cut after a second).
func (s *Server) ServeHTTP(ctx context.Context, ln net.Listener, token string) error {
	srv := &http.Server{
		Handler:           s.HTTPHandler(token),
		ReadHeaderTimeout: httpReadHeaderTimeout, // the body's deadline: BufferBody
		IdleTimeout:       httpIdleTimeout,
		MaxHeaderBytes:    16 << 10,
	}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return fmt.Errorf("mcp http server: %w", err)
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil {
		_ = srv.Close()
	}
	s.CloseSessions()
	if err := <-errc; err != nil && !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("mcp http server: %w", err)
	}
	return nil
}
