package p2p

import (
	"slices"

	"github.com/libp2p/go-libp2p/core/peer"
	ma "github.com/multiformats/go-multiaddr"
	manet "github.com/multiformats/go-multiaddr/net"
)

// Addresses as another node dials them.

// DialableFirst orders a seller's addresses (full multiaddrs) for a buyer
// that listens on own: the seller's loopback addresses (127.0.0.0/8, ::1)
// are its own machine, not the buyer's, so they go last unless the buyer
// itself is on loopback only (both on one machine).
func DialableFirst(addrs []string, own []ma.Multiaddr) []string {
	if onlyLoopback(own) {
		return addrs
	}
	out := slices.Clone(addrs)
	slices.SortStableFunc(out, func(a, b string) int {
		la, lb := isLoopbackAddr(a), isLoopbackAddr(b)
		switch {
		case la == lb:
			return 0
		case lb:
			return -1
		}
		return 1
	})
	return out
}

func onlyLoopback(own []ma.Multiaddr) bool {
	for _, a := range own {
		if !manet.IsIPLoopback(a) {
			return false
		}
	}
	return true
}

func isLoopbackAddr(s string) bool {
	m, err := ma.NewMultiaddr(s)
	return err == nil && manet.IsIPLoopback(m)
}

// Addrs writes ai's addresses as full multiaddrs ending in /p2p/<id>.
func Addrs(ai peer.AddrInfo) []string {
	out := []string{}
	addrs, err := peer.AddrInfoToP2pAddrs(&ai)
	if err != nil {
		return out
	}
	for _, a := range addrs {
		out = append(out, a.String())
	}
	return out
}
