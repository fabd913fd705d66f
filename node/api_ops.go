package node

import (
	"encoding/json"
	"io"
	"net/http"

	"github.com/swarmwage/swarmwage/controlapi"
)

// Operating a running daemon through its control API: POST
// /v1/peers/connect ('peers connect ADDR') and POST /v1/shutdown
// ('shutdown').

// maxOpsBody caps the body of these requests: one multiaddr.
const maxOpsBody = 8 << 10

func (a *apiServer) registerOps(mux *http.ServeMux) {
	mux.HandleFunc("POST /v1/peers/connect", a.handleConnect)
	mux.HandleFunc("POST /v1/shutdown", a.handleShutdown)
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
