//go:build failpoints

package node

import (
	"sync"
	"time"

	"github.com/libp2p/go-libp2p"
	"github.com/libp2p/go-libp2p/core/connmgr"
	"github.com/libp2p/go-libp2p/core/control"
	"github.com/libp2p/go-libp2p/core/network"
	"github.com/libp2p/go-libp2p/core/peer"
	ma "github.com/multiformats/go-multiaddr"

	"github.com/swarmwage/swarmwage/controlapi"
)

// The partition injector of the fault-injection suite (package faults),
// compiled in only under the build tag "failpoints" (faults_off.go is its
// no-op twin). It is the node's connection gater: while a peer is
// partitioned, every dial to it and every connection from it is refused,
// and the connections it had were closed when the partition began. The
// node's own code sees what a cut cable looks like: streams reset, dials
// fail, and when the partition ends everything may reconnect.
//
// Its control API route, POST /v1/debug/partition, is in package
// controlapi (Partitioner), which node meets with Node.Partition.

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
type PartitionRequest = controlapi.PartitionRequest

// PartitionInfo is its answer.
type PartitionInfo = controlapi.PartitionInfo

var _ controlapi.Partitioner = (*Node)(nil)

// Partition cuts this node off from p for d (0 heals): the route
// POST /v1/debug/partition (controlapi.Partitioner).
func (n *Node) Partition(p peer.ID, d time.Duration) time.Time {
	end := n.faults.partition(p, d)
	if d > 0 {
		// Cut what is open now; the gater refuses what comes next.
		_ = n.Host.Network().ClosePeer(p)
		n.log.Warn("fault injected: partition", "remote_peer", p, "duration", d)
	}
	return end
}
