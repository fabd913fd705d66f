//go:build failpoints

package node

import (
	"encoding/json"
	"fmt"
	"net/http"
	"sync"
	"time"

	"github.com/libp2p/go-libp2p"
	"github.com/libp2p/go-libp2p/core/connmgr"
	"github.com/libp2p/go-libp2p/core/control"
	"github.com/libp2p/go-libp2p/core/network"
	"github.com/libp2p/go-libp2p/core/peer"
	ma "github.com/multiformats/go-multiaddr"
)

// The partition injector of the fault-injection suite (package faults),
// compiled in only under the build tag "failpoints" (faults_off.go is its
// no-op twin). It is the node's connection gater: while a peer is
// partitioned, every dial to it and every connection from it is refused,
// and the connections it had were closed when the partition began. The
// node's own code sees what a cut cable looks like: streams reset, dials
// fail, and when the partition ends everything may reconnect.
//
// Control API (loopback, bearer token like every route):
//
//	POST /v1/debug/partition {"peer": "<peer ID>", "duration": "20s"}
//	  -> 200 {"peer": "...", "until": "<RFC 3339 time>"}
//
// A duration of "0s" ends the partition at once; a new partition of the
// same peer replaces the old one.

// maxPartition bounds one partition: a typo must not cut a test's peers
// apart for a day.
const maxPartition = 10 * time.Minute

// faultInjector partitions this node from peers. Safe for concurrent use;
// the zero value partitions nobody.
type faultInjector struct {
	mu    sync.Mutex
	until map[peer.ID]time.Time
}

var _ connmgr.ConnectionGater = (*faultInjector)(nil)

// hostOptions installs the injector as the host's connection gater.
func (f *faultInjector) hostOptions() []libp2p.Option {
	return []libp2p.Option{libp2p.ConnectionGater(f)}
}

// partition refuses p until now+d and reports when it ends.
func (f *faultInjector) partition(p peer.ID, d time.Duration) time.Time {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.until == nil {
		f.until = make(map[peer.ID]time.Time)
	}
	end := time.Now().Add(d)
	if d <= 0 {
		delete(f.until, p)
	} else {
		f.until[p] = end
	}
	return end
}

// blocked reports whether p is partitioned now.
func (f *faultInjector) blocked(p peer.ID) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	end, ok := f.until[p]
	if ok && !time.Now().Before(end) {
		delete(f.until, p)
		return false
	}
	return ok
}

func (f *faultInjector) InterceptPeerDial(p peer.ID) bool { return !f.blocked(p) }

func (f *faultInjector) InterceptAddrDial(p peer.ID, _ ma.Multiaddr) bool { return !f.blocked(p) }

// InterceptAccept allows every connection: the remote peer is known only
// after the handshake, in InterceptSecured.
func (f *faultInjector) InterceptAccept(network.ConnMultiaddrs) bool { return true }

func (f *faultInjector) InterceptSecured(_ network.Direction, p peer.ID, _ network.ConnMultiaddrs) bool {
	return !f.blocked(p)
}

func (f *faultInjector) InterceptUpgraded(c network.Conn) (bool, control.DisconnectReason) {
	return !f.blocked(c.RemotePeer()), 0
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

// registerFaults adds the injector's control API route.
func (a *apiServer) registerFaults(mux *http.ServeMux) {
	mux.HandleFunc("POST /v1/debug/partition", a.handlePartition)
}

func (a *apiServer) handlePartition(w http.ResponseWriter, r *http.Request) {
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
	if err != nil || d < 0 || d > maxPartition {
		apiError(w, http.StatusBadRequest, fmt.Sprintf("duration %q: want a duration from 0s (heal) to %s", req.Duration, maxPartition))
		return
	}
	end := a.n.faults.partition(p, d)
	if d > 0 {
		// Cut what is open now; the gater refuses what comes next.
		_ = a.n.Host.Network().ClosePeer(p)
		a.n.log.Warn("fault injected: partition", "remote_peer", p, "duration", d)
	}
	apiJSON(w, PartitionInfo{Peer: p.String(), Until: end.UTC()})
}
