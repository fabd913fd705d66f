//go:build failpoints

package controlapi

import (
	"encoding/json"
	"fmt"
	"net/http"
	"time"

	"github.com/libp2p/go-libp2p/core/peer"
)

// The control API route of the partition injector of the fault-injection
// suite (package faults), compiled in only under the build tag
// "failpoints" (faults_off.go is its no-op twin):
//
//	POST /v1/debug/partition {"peer": "<peer ID>", "duration": "20s"}
//	  -> 200 {"peer": "...", "until": "<RFC 3339 time>"}
//
// A duration of "0s" ends the partition at once; a new partition of the
// same peer replaces the old one.

// MaxPartition bounds one partition: a typo must not cut a test's peers
// apart for a day.
const MaxPartition = 10 * time.Minute

// Partitioner is the backend of the partition route: a backend that meets
// it (a node built with failpoints) gets the route.
type Partitioner interface {
	// Partition refuses every connection to and from p for d (0 heals)
	// and reports when the partition ends.
	Partition(p peer.ID, d time.Duration) time.Time
}

// PartitionRequest is the body of POST /v1/debug/partition.
type PartitionRequest struct {
	Peer     string `json:"peer"`
	Duration string `json:"duration"`
}

// PartitionInfo is its answer.
type PartitionInfo struct {
	Peer  string    `json:"peer"`
	Until time.Time `json:"until"`
}

// registerFaults adds the injector's route when the backend has one.
func (s *Server) registerFaults(mux *http.ServeMux) {
	if p, ok := s.b.(Partitioner); ok {
		mux.HandleFunc("POST /v1/debug/partition", func(w http.ResponseWriter, r *http.Request) { handlePartition(p, w, r) })
	}
}

func handlePartition(pt Partitioner, w http.ResponseWriter, r *http.Request) {
	var req PartitionRequest
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		apiError(w, http.StatusBadRequest, "decode partition request: "+err.Error())
		return
	}
	p, err := peer.Decode(req.Peer)
	if err != nil {
		apiError(w, http.StatusBadRequest, fmt.Sprintf("peer %q: %v", req.Peer, err))
		return
	}
	d, err := time.ParseDuration(req.Duration)
	if err != nil || d < 0 || d > MaxPartition {
		apiError(w, http.StatusBadRequest, fmt.Sprintf("duration %q: want a duration from 0s (heal) to %s", req.Duration, MaxPartition))
		return
	}
	end := pt.Partition(p, d)
	apiJSON(w, PartitionInfo{Peer: p.String(), Until: end.UTC()})
}
