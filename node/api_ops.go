package node

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/libp2p/go-libp2p/core/peer"

	"github.com/swarmwage/swarmwage/controlapi"
	"github.com/swarmwage/swarmwage/node/p2p"
)

// Operating a running daemon through its control API: POST
// /v1/peers/connect ('peers connect ADDR') and POST /v1/shutdown
// ('shutdown').

// connectTimeout bounds a 'peers connect': a dial and the handshakes.
const connectTimeout = 30 * time.Second

// maxOpsBody caps the body of these requests: one multiaddr.
const maxOpsBody = 8 << 10

func (a *apiServer) registerOps(mux *http.ServeMux) {
	mux.HandleFunc("POST /v1/peers/connect", a.handleConnect)
	mux.HandleFunc("POST /v1/shutdown", a.handleShutdown)
}

// Connect dials the peer at addr (a multiaddr ending in /p2p/<peer-id>)
// and returns it as connected; the DHT takes it into its routing table
// once identify says it speaks the network's protocol.
func (n *Node) Connect(ctx context.Context, addr string) (controlapi.PeerInfo, error) {
	ais, err := ParseBootstrap([]string{addr})
	if err != nil {
		return controlapi.PeerInfo{}, fmt.Errorf("%w: %w", controlapi.ErrBadRequest, err)
	}
	ai := ais[0]
	if ai.ID == n.Host.ID() {
		return controlapi.PeerInfo{}, fmt.Errorf("%w: %s is this node", controlapi.ErrBadRequest, ai.ID)
	}
	ctx, cancel := context.WithTimeout(ctx, connectTimeout)
	defer cancel()
	if err := n.Host.Connect(ctx, ai); err != nil {
		return controlapi.PeerInfo{}, fmt.Errorf("connect to %s: %w", addr, err)
	}
	return controlapi.PeerInfo{PeerID: ai.ID.String(), Addrs: p2p.Addrs(peer.AddrInfo{ID: ai.ID, Addrs: addrsOf(n, ai.ID)})}, nil
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
	var req controlapi.ConnectRequest
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
	apiJSON(w, controlapi.ShutdownInfo{Stopping: true})
	a.n.requestShutdown()
}
