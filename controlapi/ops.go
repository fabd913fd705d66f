package controlapi

import (
	"context"
	"net/http"
)

// Operating a running daemon: POST /v1/peers/connect and POST /v1/shutdown.

// ConnectRequest is the body of POST /v1/peers/connect.
type ConnectRequest struct {
	// Addr is the peer's multiaddr, ending in /p2p/<peer-id>.
	Addr string `json:"addr"`
}

// ShutdownInfo is the answer of POST /v1/shutdown.
type ShutdownInfo struct {
	Stopping bool `json:"stopping"`
}

// Connect has the daemon dial a peer.
func (c *Client) Connect(ctx context.Context, addr string) (PeerInfo, error) {
	var out PeerInfo
	return out, c.do(ctx, http.MethodPost, "/v1/peers/connect", ConnectRequest{Addr: addr}, &out)
}

// Shutdown asks the daemon to stop; it answers before it stops.
func (c *Client) Shutdown(ctx context.Context) (ShutdownInfo, error) {
	var out ShutdownInfo
	return out, c.do(ctx, http.MethodPost, "/v1/shutdown", struct{}{}, &out)
}
