package market

import (
	"encoding/json"
	"math/big"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/swarmwage/swarmwage/escrow"
	"github.com/swarmwage/swarmwage/escrow/evm"
	"github.com/swarmwage/swarmwage/escrow/evm/evmtest"
	"github.com/swarmwage/swarmwage/market/builtin"
)

// evmChain is an anvil with a deployed escrow and test token.
type evmChain struct {
	a        *evmtest.Anvil
	dep      *evm.Deployment
	deployer *evm.Key
}

func newEVMChain(t *testing.T) *evmChain {
	t.Helper()
	a := evmtest.StartAnvil(t)
	k, err := evm.ParseKey(a.Keys[0])
	require.NoError(t, err)
	dep, err := evm.Deploy(t.Context(), a.URL, k, evm.DeployOptions{TestToken: true, Notice: time.Hour})
	require.NoError(t, err)
	return &evmChain{a: a, dep: dep, deployer: k}
}

// setupEVMPeer is setupPeer on the evm rail of c, as node wires it: the
// escrow settles through a Settler with a fresh key that has gas money and
// tokens, and the listings name the escrow and the key's address.
func setupEVMPeer(t *testing.T, boot *testPeer, c *evmChain, tokens int64, opts ...Option) (*testPeer, *evm.Settler) {
	t.Helper()
	ctx := t.Context()
	ek, err := evm.GenerateKey()
	require.NoError(t, err)
	require.NoError(t, evm.SendNative(ctx, c.a.URL, c.deployer, ek.Address(), new(big.Int).Exp(big.NewInt(10), big.NewInt(19), nil)))
	if tokens > 0 {
		require.NoError(t, evm.MintTest(ctx, c.a.URL, c.deployer, c.dep.Token, ek.Address(), tokens))
	}
	st, err := evm.NewSettler(evm.SettlerConfig{
		Config:         evm.Config{RPC: c.a.URL, Escrow: c.dep.Escrow, Token: c.dep.Token, Confirmations: 1, PollInterval: 20 * time.Millisecond, TxTimeout: 20 * time.Second},
		RedeemInterval: 200 * time.Millisecond, ReconcileInterval: 200 * time.Millisecond, LineChunk: tokens / 2,
	}, ek)
	require.NoError(t, err)
	opts = append(opts, ListingSettlement(&Settlement{Rail: escrow.RailEVM, Escrow: c.dep.Escrow.Hex(), PayTo: st.Address()}))
	p := startPeer(t, boot, []escrow.Option{escrow.WithRail(st)}, opts, func(esc *escrow.Escrow) {
		require.NoError(t, st.Start(esc))
		t.Cleanup(func() { st.Close() }) // before the escrow closes
	})
	return p, st
}

// TestEVMReceiptsScoreAsPaidOnTheBuyersChain: hires on the evm rail end in
// receipts whose payment the buyer's own node finds on chain, so find
// shows them released and paid; a buyer on another escrow contract finds
// no such payment and counts none as paid, nor as forged.
func TestEVMReceiptsScoreAsPaidOnTheBuyersChain(t *testing.T) {
	reg, err := builtin.New()
	require.NoError(t, err)
	c := newEVMChain(t)
	boot := setupPeer(t, nil)
	seller, _ := setupEVMPeer(t, boot, c, 0, Builtin(reg))
	buyer, bs := setupEVMPeer(t, boot, c, 2_000_000)
	addListing(t, seller, "compute.statistics.mean", 10_000)
	waitProvided(t, boot, seller, buyer)
	ctx := t.Context()
	_, _, err = bs.Deposit(ctx, 1_000_000)
	require.NoError(t, err)
	for range 3 {
		res, err := buyer.market.Hire(ctx, HireRequest{Capability: "compute.statistics.mean", Input: json.RawMessage(`{"data":[1,2,3]}`), Timeout: 20 * time.Second})
		require.NoError(t, err)
		require.Equal(t, escrow.RailEVM, res.Rail)
	}
	// The seller's receipts carry the payments once its redeem is mined.
	require.Eventually(t, func() bool {
		rs, _, err := seller.market.escrow.Receipts(ctx, escrow.ReceiptFilter{})
		if err != nil || len(rs) != 3 {
			return false
		}
		for _, r := range rs {
			if p, err := evm.DecodePayment(r.Payment); err != nil || p.Outcome != escrow.RailPaid {
				return false
			}
		}
		return true
	}, 30*time.Second, 100*time.Millisecond)

	buyer.market.reps.mu.Lock()
	clear(buyer.market.reps.m) // scored at the first hire, before any receipt
	buyer.market.reps.mu.Unlock()
	rep := buyer.market.reputationOf(ctx, buyer.market.addrsOf(seller.host.ID()))
	require.NotNil(t, rep)
	require.Equal(t, 3, rep.Released, "%+v", rep)
	require.Equal(t, int64(30_000), rep.Volume, "paid on the buyer's own chain: volume")
	require.Zero(t, rep.SelfIssued)
	require.Equal(t, 1, rep.Buyers)
	require.Equal(t, 1, rep.PayingBuyers)
	require.Equal(t, 3, rep.Checked)
	require.Zero(t, rep.Forged)
	require.Zero(t, rep.Unpaid)

	// A node on another escrow contract of the same chain cannot see these
	// payments: none counts as paid, none as forged.
	dep2, err := evm.Deploy(ctx, c.a.URL, c.deployer, evm.DeployOptions{TestToken: true, Notice: time.Hour})
	require.NoError(t, err)
	other, _ := setupEVMPeer(t, boot, &evmChain{a: c.a, dep: dep2, deployer: c.deployer}, 0)
	rep = other.market.reputationOf(ctx, buyer.market.addrsOf(seller.host.ID()))
	require.NotNil(t, rep)
	require.Zero(t, rep.Released, "%+v", rep)
	require.Equal(t, 3, rep.Unpaid)
	require.Zero(t, rep.Forged)
	require.Equal(t, 3, rep.Checked)
}
