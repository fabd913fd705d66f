package node

import (
	"context"
	"fmt"
	"time"

	"github.com/libp2p/go-libp2p/core/peer"
	ma "github.com/multiformats/go-multiaddr"

	"github.com/swarmwage/swarmwage/controlapi"
	"github.com/swarmwage/swarmwage/market"
	"github.com/swarmwage/swarmwage/node/p2p"
	"github.com/swarmwage/swarmwage/verify"
)

// What the node tells of itself and finds on the network: the answers of
// id, peers and find, online and offline.

// ID describes this running node.
func (n *Node) ID(ctx context.Context) (controlapi.IDInfo, error) {
	info := controlapi.IDInfo{
		PeerID:       n.Host.ID().String(),
		Addrs:        p2p.Addrs(peer.AddrInfo{ID: n.Host.ID(), Addrs: n.Host.Addrs()}),
		Network:      n.Config.Network,
		Listings:     []string{},
		Online:       true,
		Reachability: n.net.Reachability(),
		RelayAddrs:   n.net.RelayAddrs(),
		HolePunch:    n.net.HolePunches(),
	}
	offers, err := n.Market.Store().List(ctx)
	if err != nil {
		return controlapi.IDInfo{}, err
	}
	for _, o := range offers {
		info.Listings = append(info.Listings, o.Signed.Listing.Capability)
	}
	return info, nil
}

// Peers lists the connected peers.
func (n *Node) Peers() controlapi.PeersInfo {
	out := controlapi.PeersInfo{Peers: []controlapi.PeerInfo{}, RoutingTable: n.Routing.RoutingTableSize()}
	for _, p := range n.Host.Network().Peers() {
		out.Peers = append(out.Peers, controlapi.PeerInfo{
			PeerID: p.String(),
			Addrs:  p2p.Addrs(peer.AddrInfo{ID: p, Addrs: addrsOf(n, p)}),
		})
	}
	return out
}

func addrsOf(n *Node, p peer.ID) []ma.Multiaddr {
	var out []ma.Multiaddr
	for _, c := range n.Host.Network().ConnsToPeer(p) {
		out = append(out, c.RemoteMultiaddr())
	}
	return out
}

// Find searches the network for verified sellers of capID.
func (n *Node) Find(ctx context.Context, capID string, limit int) (controlapi.FindInfo, error) {
	if err := checkSearchID(capID); err != nil {
		return controlapi.FindInfo{}, err
	}
	resolved, err := n.Market.ResolveCapability(capID)
	if err != nil {
		return controlapi.FindInfo{}, err
	}
	res, err := n.Market.Find(ctx, resolved, limit)
	if err != nil {
		return controlapi.FindInfo{}, err
	}
	info := controlapi.NewFindInfo(res, n.Market.Rating)
	own := n.Host.Addrs()
	for i := range info.Sellers {
		info.Sellers[i].Addrs = p2p.DialableFirst(info.Sellers[i].Addrs, own)
	}
	markPayable(info.Sellers, n.Escrow.RailName())
	if resolved != capID {
		info.Requested = capID
	}
	info.DHTPeers = n.Routing.RoutingTableSize()
	return info, nil
}

// checkSearchID accepts a capability ID or a prefix of one ("text").
func checkSearchID(capID string) error {
	if err := verify.CheckID(capID); err == nil {
		return nil
	} else if perr := verify.CheckPrefix(capID); perr != nil {
		return err
	}
	return nil
}

// OfflineID describes a repo whose daemon is not running: its configured
// listen addresses stand in for the live ones.
func OfflineID(ctx context.Context, repo *Repo, store *market.Store) (controlapi.IDInfo, error) {
	info := controlapi.IDInfo{
		PeerID: repo.ID.String(), Addrs: []string{}, Network: repo.Config.Network, Listings: []string{},
		Reachability: offlineReachability(repo.Config), RelayAddrs: []string{},
	}
	for _, a := range repo.Config.Listen {
		info.Addrs = append(info.Addrs, a+"/p2p/"+repo.ID.String())
	}
	offers, err := store.List(ctx)
	if err != nil {
		return controlapi.IDInfo{}, err
	}
	for _, o := range offers {
		info.Listings = append(info.Listings, o.Signed.Listing.Capability)
	}
	return info, nil
}

// connectTimeout bounds a 'peers connect': a dial and the handshakes.
const connectTimeout = 30 * time.Second

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
