package node

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/swarmwage/swarmwage/controlapi"
)

// TestMarkPayable: a credits buyer was shown evm sellers first and as if
// it could hire them.
func TestMarkPayable(t *testing.T) {
	sellers := []controlapi.SellerInfo{{PeerID: "a", Rail: RailEVM}, {PeerID: "b", Rail: RailCredits}, {PeerID: "c", Rail: RailCredits}}
	markPayable(sellers, RailCredits)
	require.Equal(t, []controlapi.SellerInfo{{PeerID: "b", Rail: RailCredits, Payable: true}, {PeerID: "c", Rail: RailCredits, Payable: true}, {PeerID: "a", Rail: RailEVM}}, sellers)
}
