package market

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/swarmwage/swarmwage/escrow"
	"github.com/swarmwage/swarmwage/market/builtin"
)

// okRail is a settlement rail that covers every lock: the market's side of
// rails (which sellers a buyer can pay, what the listing and lock carry) is
// what these tests look at; the evm rail itself is tested against anvil.
type okRail struct{ addr string }

func (r okRail) Name() string                          { return "fake" }
func (r okRail) Address() string                       { return r.addr }
func (r okRail) CheckAddress(a string) (string, error) { return a, nil }
func (r okRail) JobRef(jobID string) string            { return "ref-" + jobID }
func (r okRail) Refund(escrow.LockTerms)               {}
func (r okRail) CheckRelease(context.Context, escrow.LockTerms, json.RawMessage, json.RawMessage) error {
	return nil
}
func (r okRail) PrepareLock(_ context.Context, t escrow.LockTerms, _ int64) (json.RawMessage, error) {
	return json.Marshal(map[string]string{"job": t.JobID, "pay": t.SellerAddress})
}
func (r okRail) CheckLock(context.Context, escrow.LockTerms, json.RawMessage, int64) error {
	return nil
}
func (r okRail) Release(_ context.Context, t escrow.LockTerms, _ json.RawMessage) (json.RawMessage, error) {
	return json.Marshal(map[string]string{"release": t.JobID})
}

// setupRailPeer is setupPeer on a rail: the escrow settles on okRail{addr}
// and the listings name it with escrow contract escrowAddr.
func setupRailPeer(t *testing.T, boot *testPeer, addr, escrowAddr string, opts ...Option) *testPeer {
	t.Helper()
	opts = append(opts, ListingSettlement(&Settlement{Rail: "fake", Escrow: escrowAddr, PayTo: addr}))
	return startPeer(t, boot, []escrow.Option{escrow.WithRail(okRail{addr: addr})}, opts, nil)
}

// TestHireOnlySellersThisNodeCanPay: a listing names its seller's rail,
// escrow and payout address, signed; a buyer hires only sellers on its own
// rail and escrow, says why when there is none, and its lock pays the
// listing's address.
func TestHireOnlySellersThisNodeCanPay(t *testing.T) {
	reg, err := builtin.New()
	require.NoError(t, err)
	boot := setupPeer(t, nil)
	seller := setupRailPeer(t, boot, "addr-seller", "escrow-1", Builtin(reg))
	credits := setupPeer(t, boot)
	other := setupRailPeer(t, boot, "addr-other", "escrow-2")
	buyer := setupRailPeer(t, boot, "addr-buyer", "escrow-1")
	addListing(t, seller, "compute.statistics.mean", 50_000)
	waitProvided(t, boot, seller, credits, other, buyer)
	ctx := context.Background()
	for _, p := range []*testPeer{credits, other, buyer} {
		require.NoError(t, p.market.escrow.Deposit(ctx, 10_000_000, "test"))
	}

	o, err := seller.market.Store().Get(ctx, "compute.statistics.mean")
	require.NoError(t, err)
	require.Equal(t, &Settlement{Rail: "fake", Escrow: "escrow-1", PayTo: "addr-seller"}, o.Signed.Listing.Settlement)
	require.NoError(t, o.Signed.Verify(seller.host.ID(), "compute.statistics.mean"))
	tampered := o.Signed
	st := *tampered.Listing.Settlement
	st.PayTo = "addr-mallory"
	tampered.Listing.Settlement = &st
	require.ErrorIs(t, tampered.Verify(seller.host.ID(), "compute.statistics.mean"), ErrBadSignature, "the payout address is signed")

	req := HireRequest{Capability: "compute.statistics.mean", Input: json.RawMessage(`{"data":[1,2,3]}`), Timeout: 20 * time.Second}
	_, err = credits.market.Hire(ctx, req)
	require.ErrorIs(t, err, ErrNoSeller)
	require.Contains(t, err.Error(), "the seller settles on rail fake, this node in credits")
	_, err = other.market.Hire(ctx, req)
	require.ErrorIs(t, err, ErrNoSeller)
	require.Contains(t, err.Error(), "the seller uses escrow escrow-1, this node escrow-2")

	res, err := buyer.market.Hire(ctx, req)
	require.NoError(t, err)
	require.Equal(t, escrow.StateReleased, res.State)
	require.Equal(t, "fake", res.Rail)
	rec, err := buyer.market.escrow.GetRole(ctx, res.JobID, escrow.RoleBuyer)
	require.NoError(t, err)
	require.Equal(t, "addr-seller", rec.Lock.SellerAddress)
	require.Equal(t, "addr-buyer", rec.Lock.BuyerAddress)
	job, err := buyer.market.Job(ctx, res.JobID)
	require.NoError(t, err)
	require.Equal(t, "fake", job.Rail)
	require.Eventually(t, func() bool {
		r, err := seller.market.escrow.GetRole(ctx, res.JobID, escrow.RoleSeller)
		return err == nil && r.State == escrow.StateReleased && r.Settle != nil && len(r.Settle.RailProof) > 0
	}, 10*time.Second, 50*time.Millisecond, "the seller has the rail's release")
}

// TestListingsAreSignedAgainForTheRail: a listing stored without the node's
// settlement (added while no daemon ran) is signed again with it at start.
func TestListingsAreSignedAgainForTheRail(t *testing.T) {
	boot := setupPeer(t, nil)
	p := setupRailPeer(t, boot, "addr-seller", "escrow-1")
	ctx := context.Background()
	offline, err := newStore(p.market.jobs.db, p.key)
	require.NoError(t, err)
	_, err = offline.Put(ctx, ListingParams{Capability: "compute.statistics.median", Price: 1000, Handler: HandlerConfig{Kind: HandlerBuiltin}})
	require.NoError(t, err)
	o, err := p.market.Store().Get(ctx, "compute.statistics.median")
	require.NoError(t, err)
	require.Nil(t, o.Signed.Listing.Settlement)
	require.NoError(t, p.market.resignListings(ctx))
	o, err = p.market.Store().Get(ctx, "compute.statistics.median")
	require.NoError(t, err)
	require.Equal(t, "addr-seller", o.Signed.Listing.Settlement.PayTo)
	require.NoError(t, o.Signed.Verify(p.host.ID(), "compute.statistics.median"))
}
