package node

import (
	"slices"

	ma "github.com/multiformats/go-multiaddr"
	manet "github.com/multiformats/go-multiaddr/net"
)

// What find shows a buyer of a seller: its addresses as the buyer can
// dial them, and whether the buyer can pay it at all.

// dialableFirst orders a seller's addresses (full multiaddrs) for a buyer
// that listens on own: the seller's loopback addresses (127.0.0.0/8, ::1)
// are its own machine, not the buyer's, so they go last unless the buyer
// itself is on loopback only (both on one machine).
func dialableFirst(addrs []string, own []ma.Multiaddr) []string {
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

// markPayable sets each seller's Payable (it settles on rail, this node's)
// and moves the ones this node cannot pay after the others: a hire never
// picks them.
func markPayable(sellers []SellerInfo, rail string) {
	for i := range sellers {
		sellers[i].Payable = sellers[i].Rail == rail
	}
	slices.SortStableFunc(sellers, func(a, b SellerInfo) int {
		switch {
		case a.Payable == b.Payable:
			return 0
		case a.Payable:
			return -1
		}
		return 1
	})
}
