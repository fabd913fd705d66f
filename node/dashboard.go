package node

import (
	"context"
	"runtime/debug"
	"strings"
	"sync/atomic"

	"github.com/libp2p/go-libp2p/core/event"

	"github.com/swarmwage/swarmwage/escrow"
	"github.com/swarmwage/swarmwage/node/ui"
)

// dashboardBackend is what package ui reads of the node (ui.Backend).
type dashboardBackend struct {
	n     *Node
	reach *reachability
}

var _ ui.Backend = dashboardBackend{}

func (b dashboardBackend) Records(ctx context.Context) ([]escrow.Record, error) {
	return b.n.Escrow.List(ctx, escrow.Filter{})
}

func (b dashboardBackend) Status(context.Context) ui.Status {
	return ui.Status{Version: Version(), Reachability: b.reach.get()}
}

// Version is the node's version: the protocol's user agent and the module
// version the binary was built from ("(devel)" for a source build).
func Version() string {
	v := "(devel)"
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" {
		v = bi.Main.Version
	}
	return UserAgent + " " + v
}

// reachability follows AutoNAT's verdict on this node from the host's
// event bus ("unknown" until it has one).
type reachability struct {
	v    atomic.Value // string
	sub  event.Subscription
	done chan struct{}
}

func watchReachability(n *Node) *reachability {
	r := &reachability{done: make(chan struct{})}
	r.v.Store("unknown")
	sub, err := n.Host.EventBus().Subscribe(new(event.EvtLocalReachabilityChanged))
	if err != nil {
		n.log.Debug("reachability not watched", "err", err)
		close(r.done)
		return r
	}
	r.sub = sub
	go func() {
		defer close(r.done)
		// Out is closed by sub.Close.
		for e := range sub.Out() {
			if ev, ok := e.(event.EvtLocalReachabilityChanged); ok {
				r.v.Store(strings.ToLower(ev.Reachability.String()))
			}
		}
	}()
	return r
}

func (r *reachability) get() string { return r.v.Load().(string) }

func (r *reachability) close() {
	if r.sub != nil {
		_ = r.sub.Close()
	}
	<-r.done
}
