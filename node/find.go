package node

import (
	"slices"

	"github.com/swarmwage/swarmwage/controlapi"
)

// What find shows a buyer of a seller: whether the buyer can pay it at all.

// markPayable sets each seller's Payable (it settles on rail, this node's)
// and moves the ones this node cannot pay after the others: a hire never
// picks them.
func markPayable(sellers []controlapi.SellerInfo, rail string) {
	for i := range sellers {
		sellers[i].Payable = sellers[i].Rail == rail
	}
	slices.SortStableFunc(sellers, func(a, b controlapi.SellerInfo) int {
		switch {
		case a.Payable == b.Payable:
			return 0
		case a.Payable:
			return -1
		}
		return 1
	})
}
