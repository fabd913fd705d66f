package node

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/libp2p/go-libp2p/core/peer"

	"github.com/swarmwage/swarmwage/node/p2p"
)

// Operating a running daemon through its control API: POST
// /v1/peers/connect ('peers connect ADDR') and POST /v1/shutdown
// ('shutdown').

// connectTimeout bounds a 'peers connect': a dial and the handshakes.
const connectTimeout = 30 * time.Second

// maxOpsBody caps the body of these requests: one multiaddr.
const maxOpsBody = 8 << 10

// ConnectRequest is the body of POST /v1/peers/connect.
type ConnectRequest struct {
	// Addr is the peer's multiaddr, ending in /p2p/<peer-id>.
	Addr string `json:"addr"`
}

// ShutdownInfo is the answer of POST /v1/shutdown.
type ShutdownInfo struct {
	Stopping bool `json:"stopping"`
}

func (a *apiServer) registerOps(mux *http.ServeMux) {
	mux.HandleFunc("POST /v1/peers/connect", a.handleConnect)
	mux.HandleFunc("POST /v1/shutdown", a.handleShutdown)
}

// Connect dials the peer at addr (a multiaddr ending in /p2p/<peer-id>)
// and returns it as connected; the DHT takes it into its routing table
// once identify says it speaks the network's protocol.
func (n *Node) Connect(ctx context.Context, addr string) (PeerInfo, error) {
	ais, err := ParseBootstrap([]string{addr})
	if err != nil {
		return PeerInfo{}, fmt.Errorf("%w: %w", ErrBadRequest, err)
	}
	ai := ais[0]
	if ai.ID == n.Host.ID() {
		return PeerInfo{}, fmt.Errorf("%w: %s is this node", ErrBadRequest, ai.ID)
	}
	ctx, cancel := context.WithTimeout(ctx, connectTimeout)
	defer cancel()
	if err := n.Host.Connect(ctx, ai); err != nil {
		return PeerInfo{}, fmt.Errorf("connect to %s: %w", addr, err)
	}
	return PeerInfo{PeerID: ai.ID.String(), Addrs: p2p.Addrs(peer.AddrInfo{ID: ai.ID, Addrs: addrsOf(n, ai.ID)})}, nil
}

// ShutdownRequested is closed once a client asked the daemon to stop
// (POST /v1/shutdown): the daemon's main loop then closes the node.
func (n *Node) ShutdownRequested() <-chan struct{} {
	n.stopOnce.Do(func() { n.stopCh = make(chan struct{}) })
	return n.stopCh
}

func (n *Node) requestShutdown() {
	n.ShutdownRequested()
	n.stopReqOnce.Do(func() { close(n.stopCh) })
}

func (a *apiServer) handleConnect(w http.ResponseWriter, r *http.Request) {
	var req ConnectRequest
	if err := json.NewDecoder(io.LimitReader(r.Body, maxOpsBody)).Decode(&req); err != nil {
		apiError(w, http.StatusBadRequest, "decode connect request: "+err.Error())
		return
	}
	info, err := a.n.Connect(r.Context(), req.Addr)
	if err != nil {
		status := statusOf(err)
		if status == http.StatusInternalServerError {
			status = http.StatusBadGateway // the peer did not answer
		}
		apiError(w, status, err.Error())
		return
	}
	apiJSON(w, info)
}

func (a *apiServer) handleShutdown(w http.ResponseWriter, r *http.Request) {
	apiJSON(w, ShutdownInfo{Stopping: true})
	a.n.requestShutdown()
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
