package node

import (
	"context"
	"time"

	"github.com/swarmwage/swarmwage/controlapi"
	"github.com/swarmwage/swarmwage/escrow"
	"github.com/swarmwage/swarmwage/internal/kv"
	"github.com/swarmwage/swarmwage/market"
	"github.com/swarmwage/swarmwage/node/p2p"
)

// Status describes this running node: network, peers, reachability, relay
// addresses, hole punches, listings, balance and jobs in flight.
func (n *Node) Status(ctx context.Context) (controlapi.StatusInfo, error) {
	info := controlapi.StatusInfo{
		PeerID:       n.Host.ID().String(),
		Version:      n.version,
		Network:      n.Config.Network,
		Online:       true,
		Peers:        len(n.Host.Network().Peers()),
		DHTPeers:     n.Routing.RoutingTableSize(),
		Reachability: n.net.Reachability(),
		RelayAddrs:   n.net.RelayAddrs(),
		HolePunch:    n.net.HolePunches(),
	}
	return info, fillStatus(ctx, &info, n.Market.Store(), n.Market.Jobs(), n.Escrow, n.Routing.LastProvided)
}

// Status describes the node: the daemon's own account when one runs,
// else the repo's, with version, the binary's, as its version.
func (e *Env) Status(ctx context.Context, version string) (controlapi.StatusInfo, error) {
	if e.Client != nil {
		return e.Client.Status(ctx)
	}
	esc, err := e.escrow()
	if err != nil {
		return controlapi.StatusInfo{}, err
	}
	info := controlapi.StatusInfo{
		PeerID:       e.Repo.ID.String(),
		Version:      version,
		Network:      e.Repo.Config.Network,
		Reachability: offlineReachability(e.Repo.Config),
		RelayAddrs:   []string{},
	}
	return info, fillStatus(ctx, &info, e.local.Store, market.OpenJobView(kv.OpenReadOnly(e.local.DB), esc), esc, nil)
}

// offlineReachability is what a node that is not running can say: what
// its config forces, else unknown.
func offlineReachability(cfg Config) string {
	if r := cfg.P2P.reachability(cfg.Network); r != p2p.ReachabilityAuto {
		return r
	}
	return p2p.ReachabilityUnknown
}

// fillStatus adds the listings, the balance and the jobs in flight to info.
// lastProvided, when set, dates each listing's last announcement.
func fillStatus(ctx context.Context, info *controlapi.StatusInfo, store *market.Store, jobs *market.JobView, esc *escrow.Escrow, lastProvided func(string) time.Time) error {
	offers, err := store.List(ctx)
	if err != nil {
		return err
	}
	info.Listings = []controlapi.StatusListing{}
	for _, o := range offers {
		l := controlapi.StatusListing{Capability: o.Signed.Listing.Capability, Price: o.Signed.Listing.Price.String()}
		if lastProvided != nil {
			if t := lastProvided(l.Capability); !t.IsZero() {
				l.LastAnnounced = t.UTC().Format(time.RFC3339)
			}
		}
		info.Listings = append(info.Listings, l)
	}
	if info.Balance, err = esc.Balance(ctx); err != nil {
		return err
	}
	info.JobsInFlight.Bought, info.JobsInFlight.Sold, err = jobs.InFlight(ctx)
	return err
}
