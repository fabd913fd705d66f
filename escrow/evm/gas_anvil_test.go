package evm

import (
	"math/big"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/accounts/abi/bind"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/stretchr/testify/require"
)

// A transaction's gas is estimated on the chain as it is when the
// transaction is built; a transaction of another party mined before it
// may make it dearer. Here the buyer's allocate is estimated while its
// line holds 40,000 and the seller redeems all of that before the
// allocate is sent, so the allocate writes an empty slot (17,100 gas
// more). With the bare estimate as its limit it reverted, out of gas
// (TestSettlerWithdraw failed so on a loaded machine: a background top-up
// raced the seller's redeem).
func TestSendLeavesGasHeadroom(t *testing.T) {
	n := newAnvilNet(t, time.Hour, 1)
	ctx := t.Context()
	seller := n.seller.Address()
	n.deposited(t, 10_000_000, 5_000_000)
	_, err := n.buyer.Allocate(ctx, seller, 40_000)
	require.NoError(t, err)
	l, err := n.buyer.SignLock("job-gas", seller, 40_000, n.chainNow(t).Add(10*time.Minute))
	require.NoError(t, err)
	release, err := n.buyer.SignRelease(l)
	require.NoError(t, err)

	builds := 0
	res, rc, err := n.buyer.send(ctx, "allocate to a line emptied after the estimate", func(o *bind.TransactOpts) (*types.Transaction, error) {
		tx, err := n.buyer.esc.Allocate(o, seller, big.NewInt(1_000_000))
		if builds++; builds == 1 {
			red, err := n.seller.Redeem(ctx, []Voucher{{Release: release}})
			require.NoError(t, err)
			require.Equal(t, int64(40_000), red.Total, "the seller emptied the line")
		}
		return tx, err
	})
	require.NoError(t, err)
	require.Equal(t, types.ReceiptStatusSuccessful, rc.Status)
	require.Greater(t, res.GasUsed, uint64(0))
	line, err := n.buyer.LineOf(ctx, n.buyer.Address(), seller)
	require.NoError(t, err)
	require.Equal(t, int64(1_000_000), line.Balance)
}

func TestWithHeadroom(t *testing.T) {
	for _, tc := range []struct{ gas, want uint64 }{
		{gas: 0, want: 34_200},
		{gas: 21_000, want: 21_000 + 5_250 + 34_200},
		{gas: 100_000, want: 159_200},
	} {
		require.Equal(t, tc.want, withHeadroom(tc.gas), "gas %d", tc.gas)
	}
}
