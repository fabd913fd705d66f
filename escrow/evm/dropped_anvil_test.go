package evm

import (
	"math/big"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/accounts/abi/bind"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/stretchr/testify/require"
)

// TestSendGivesUpOnADroppedTransaction: a transaction that is neither
// mined nor pending (a reorg took its block and no pool has it; anvil's
// evm_revert drops it so) ends its send with ErrReorg after droppedPolls
// polls, not after TxTimeout, and the rail's sender is free for the next
// one. Found by the fault suite's reorgs during hires (issue 22): a
// dropped allocation held the buyer's sender for TxTimeout (2 min), so a
// refund's cancel queued behind it was mined after the job's not-before,
// when a cancel no longer counts, and the job stayed claimable on chain.
func TestSendGivesUpOnADroppedTransaction(t *testing.T) {
	n := newAnvilNet(t, time.Hour, 1)
	ctx := t.Context()
	n.deposited(t, 1_000_000, 500_000)
	require.NoError(t, n.rpc.CallContext(ctx, nil, "evm_setAutomine", false))

	done := make(chan error, 1)
	go func() {
		_, err := n.buyer.Allocate(ctx, n.seller.Address(), 100_000)
		done <- err
	}()
	// Drop it from the pool once it is there.
	var hash string
	require.Eventually(t, func() bool {
		var pool struct {
			Pending map[string]map[string]struct {
				Hash string `json:"hash"`
			} `json:"pending"`
		}
		if err := n.rpc.CallContext(ctx, &pool, "txpool_content"); err != nil {
			return false
		}
		for from, byNonce := range pool.Pending {
			if !strings.EqualFold(from, n.buyer.Address().Hex()) {
				continue
			}
			for _, tx := range byNonce {
				hash = tx.Hash
			}
		}
		return hash != ""
	}, 10*time.Second, 10*time.Millisecond, "the allocation reaches the pool")
	dropped := time.Now()
	require.NoError(t, n.rpc.CallContext(ctx, nil, "anvil_dropTransaction", hash))
	select {
	case err := <-done:
		require.ErrorIs(t, err, ErrReorg)
		require.Contains(t, err.Error(), "neither mined nor pending")
		require.Less(t, time.Since(dropped), n.buyer.cfg.TxTimeout, "it gave up before TxTimeout")
	case <-time.After(n.buyer.cfg.TxTimeout):
		t.Fatalf("send still waits for the dropped transaction %s after TxTimeout", hash)
	}

	// The sender is free: the next transaction goes through.
	require.NoError(t, n.rpc.CallContext(ctx, nil, "evm_setAutomine", true))
	_, err := n.buyer.Allocate(ctx, n.seller.Address(), 100_000)
	require.NoError(t, err)
	line, err := n.buyer.LineOf(ctx, n.buyer.Address(), n.seller.Address())
	require.NoError(t, err)
	require.Equal(t, int64(100_000), line.Balance, "allocated once")
}

// TestSendFillsANonceGapAReorgLeft: a send whose nonce was read before a
// reorg dropped the key's last mined transaction holds a nonce above the
// chain's next one; no node mines it while the gap is open. The send fills
// the gap with an empty transfer and its transaction is mined, well before
// TxTimeout, exactly once. Found by the fault suite's reorgs during hires
// under load (issue 23): the buyer's sender waited TxTimeout (2 min) for an
// allocation anvil kept queued, and every hire behind it timed out.
func TestSendFillsANonceGapAReorgLeft(t *testing.T) {
	n := newAnvilNet(t, time.Hour, 1)
	ctx := t.Context()
	n.deposited(t, 1_000_000, 500_000)
	snap := n.snapshot(t)
	_, err := n.buyer.Allocate(ctx, n.seller.Address(), 100_000)
	require.NoError(t, err)
	stale, err := n.buyer.eth.PendingNonceAt(ctx, n.buyer.Address())
	require.NoError(t, err)
	var reverted bool
	require.NoError(t, n.rpc.CallContext(ctx, &reverted, "evm_revert", snap.id))
	require.True(t, reverted)
	next, err := n.buyer.eth.PendingNonceAt(ctx, n.buyer.Address())
	require.NoError(t, err)
	require.Less(t, next, stale, "the revert dropped the allocation, so the stale nonce is above the chain's next")

	// Without the fill this send waits out TxTimeout and fails "chain unreachable".
	_, _, err = n.buyer.send(ctx, "allocate at the stale nonce", func(o *bind.TransactOpts) (*types.Transaction, error) {
		if o.Nonce == nil { // the estimate's build has none; the sent one gets the stale nonce
			o.Nonce = new(big.Int).SetUint64(stale)
		}
		return n.buyer.esc.Allocate(o, n.seller.Address(), big.NewInt(1))
	})
	require.NoError(t, err, "the gapped send is mined once the gap is filled")

	_, err = n.buyer.Allocate(ctx, n.seller.Address(), 7)
	require.NoError(t, err, "the sender is free for the next send")
	mined, err := n.buyer.eth.NonceAt(ctx, n.buyer.Address(), nil)
	require.NoError(t, err)
	require.Equal(t, stale+2, mined, "the filler, the gapped send and the next one are mined, nothing more")
	line, err := n.buyer.LineOf(ctx, n.buyer.Address(), n.seller.Address())
	require.NoError(t, err)
	require.Equal(t, int64(8), line.Balance, "the gapped allocation counted once, the dropped one not at all")
}
