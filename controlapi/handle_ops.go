package controlapi

import (
	"encoding/json"
	"io"
	"net/http"
)

// Operating a running daemon through its control API: POST
// /v1/peers/connect ('peers connect ADDR') and POST /v1/shutdown
// ('shutdown').

// maxOpsBody caps the body of these requests: one multiaddr.
const maxOpsBody = 8 << 10

func (s *Server) registerOps(mux *http.ServeMux) {
	mux.HandleFunc("POST /v1/peers/connect", s.handleConnect)
	mux.HandleFunc("POST /v1/shutdown", s.handleShutdown)
}

func (s *Server) handleConnect(w http.ResponseWriter, r *http.Request) {
	var req ConnectRequest
	if err := json.NewDecoder(io.LimitReader(r.Body, maxOpsBody)).Decode(&req); err != nil {
		apiError(w, http.StatusBadRequest, "decode connect request: "+err.Error())
		return
	}
	info, err := s.b.Connect(r.Context(), req.Addr)
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

func (s *Server) handleShutdown(w http.ResponseWriter, r *http.Request) {
	apiJSON(w, ShutdownInfo{Stopping: true})
	s.b.RequestShutdown()
}
