package market

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"testing"
	"time"

	"github.com/libp2p/go-libp2p/core/crypto"
	"github.com/libp2p/go-libp2p/core/peer"
	"github.com/stretchr/testify/require"

	"github.com/swarmwage/swarmwage/escrow"
)

// Regression (issue 22): a seller whose accept horizon could not fit a
// job (a short escrow notice, a long window) refused every lock, after the
// buyer had moved money to it. Its listing now states its terms, and a
// buyer does not even quote it; a seller whose terms fit is hired.
func TestSellerWhoseTermsCannotFitTheHireIsNotQuoted(t *testing.T) {
	boot := setupPeer(t, nil)
	short := setupPeer(t, boot, AcceptHorizon(AcceptHorizonOf(30*time.Second))) // window 10m: never fits
	buyer := setupPeer(t, boot)
	ctx := context.Background()
	_, err := short.market.AddListing(ctx, ListingParams{Capability: "custom.test.echo", Price: 10_000, Handler: HandlerConfig{Kind: HandlerExec, Command: []string{"cat"}}})
	require.NoError(t, err)
	o, err := short.market.store.Get(ctx, "custom.test.echo")
	require.NoError(t, err)
	require.Equal(t, &ListingTerms{WindowMS: DefaultWindow.Milliseconds(), MaxDurationMS: DefaultMaxDuration.Milliseconds(), AcceptHorizonMS: 15_000}, o.Signed.Listing.Terms)
	waitProvided(t, boot, short, buyer)
	require.NoError(t, buyer.market.escrow.Deposit(ctx, 10_000_000, "test"))
	require.Eventually(t, func() bool {
		buyer.market.forgetFind("custom.test.echo")
		buyer.routing.Forget("custom.test.echo")
		res, err := buyer.market.findCached(ctx, "custom.test.echo")
		return err == nil && len(res.Sellers) == 1
	}, 20*time.Second, 100*time.Millisecond)

	_, err = hireEcho(t, buyer, HireRequest{})
	require.ErrorIs(t, err, ErrNoSeller)
	require.ErrorContains(t, err, "whose terms fit this hire")
	require.ErrorContains(t, err, "accept horizon 15s cannot fit the job deadline 20s plus its verification window 10m0s")
	_, ok := buyer.market.cachedQuote(short.host.ID(), "custom.test.echo")
	require.False(t, ok, "never quoted")
	recs, err := buyer.market.escrow.List(ctx, escrow.Filter{})
	require.NoError(t, err)
	require.Empty(t, recs, "nothing locked")

	// The same seller with a window that fits is hired, and its quote
	// matches the terms its listing states.
	fits := setupPeer(t, boot, AcceptHorizon(AcceptHorizonOf(time.Hour)), VerificationWindow(time.Minute))
	_, err = fits.market.AddListing(ctx, ListingParams{Capability: "custom.test.echo", Price: 20_000, Handler: HandlerConfig{Kind: HandlerExec, Command: []string{"cat"}}})
	require.NoError(t, err)
	waitProvided(t, boot, fits, buyer)
	require.Eventually(t, func() bool {
		buyer.market.forgetFind("custom.test.echo")
		buyer.routing.Forget("custom.test.echo")
		res, err := buyer.market.findCached(ctx, "custom.test.echo")
		return err == nil && len(res.Sellers) == 2
	}, 20*time.Second, 100*time.Millisecond)
	res, err := hireEcho(t, buyer, HireRequest{})
	require.NoError(t, err)
	require.Equal(t, fits.host.ID(), res.Seller)
}

// Unfit is the rule: the hire's deadline, cut to the seller's maximum job
// duration, plus its window must fit in its accept horizon; a listing
// without terms, or without a horizon, fits any hire.
func TestListingUnfit(t *testing.T) {
	terms := func(window, maxDur, horizon time.Duration) *ListingTerms {
		return &ListingTerms{WindowMS: window.Milliseconds(), MaxDurationMS: maxDur.Milliseconds(), AcceptHorizonMS: horizon.Milliseconds()}
	}
	testCases := []struct {
		name     string
		terms    *ListingTerms
		deadline time.Duration
		fits     bool
	}{
		{"no terms (an older listing)", nil, time.Hour, true},
		{"no horizon (credits)", terms(10*time.Minute, 5*time.Minute, 0), time.Hour, true},
		{"fits", terms(time.Minute, 5*time.Minute, 10*time.Minute), time.Minute, true},
		{"deadline cut to max duration fits", terms(time.Minute, 5*time.Minute, 6*time.Minute), time.Hour, true},
		{"window longer than horizon", terms(10*time.Minute, 5*time.Minute, 30*time.Second), time.Second, false},
		{"deadline plus window over horizon", terms(time.Minute, 5*time.Minute, 90*time.Second), time.Minute, false},
	}
	for _, tc := range testCases {
		t.Run(tc.name, func(t *testing.T) {
			why := Listing{Terms: tc.terms}.Unfit(tc.deadline)
			require.Equal(t, tc.fits, why == "", why)
		})
	}
}

// A listing signed before terms existed (no "terms" key) still verifies:
// an absent field signs as it always did.
func TestListingWithoutTermsStillVerifies(t *testing.T) {
	key, _, err := crypto.GenerateEd25519Key(rand.Reader)
	require.NoError(t, err)
	id, err := peer.IDFromPrivateKey(key)
	require.NoError(t, err)
	l := Listing{Version: listingVersion, Capability: "compute.statistics.mean", Price: 10_000, Handler: HandlerBuiltin, Seller: id, CreatedAt: time.Unix(1_800_000_000, 0).UTC()}
	signed, err := SignListing(key, l)
	require.NoError(t, err)
	raw, err := json.Marshal(signed)
	require.NoError(t, err)
	require.NotContains(t, string(raw), "terms")
	got, err := DecodeSignedListing(raw)
	require.NoError(t, err)
	require.NoError(t, got.Verify(id, "compute.statistics.mean"))
	require.Nil(t, got.Listing.Terms)

	bad := l
	bad.Terms = &ListingTerms{WindowMS: 0, MaxDurationMS: 1}
	signed, err = SignListing(key, bad)
	require.NoError(t, err)
	require.ErrorIs(t, signed.Verify(id, "compute.statistics.mean"), ErrListingMismatch)
	bad.Terms = &ListingTerms{WindowMS: 1, MaxDurationMS: 1 << 62}
	signed, err = SignListing(key, bad)
	require.NoError(t, err)
	require.ErrorIs(t, signed.Verify(id, "compute.statistics.mean"), ErrListingMismatch, "a term that would overflow a duration")
}

// Issue 22: a seller started while its chain was down stated no accept
// horizon until it restarted. Learning it later signs every listing
// again with it.
func TestSetAcceptHorizonSignsTheListingsAgain(t *testing.T) {
	seller := setupPeer(t, nil)
	ctx := context.Background()
	_, err := seller.market.AddListing(ctx, ListingParams{Capability: "custom.test.echo", Price: 10_000, Handler: HandlerConfig{Kind: HandlerExec, Command: []string{"cat"}}})
	require.NoError(t, err)
	o, err := seller.market.store.Get(ctx, "custom.test.echo")
	require.NoError(t, err)
	require.Zero(t, o.Signed.Listing.Terms.AcceptHorizonMS, "unknown at start")

	require.NoError(t, seller.market.SetAcceptHorizon(ctx, AcceptHorizonOf(time.Hour)))
	o, err = seller.market.store.Get(ctx, "custom.test.echo")
	require.NoError(t, err)
	require.Equal(t, AcceptHorizonOf(time.Hour).Milliseconds(), o.Signed.Listing.Terms.AcceptHorizonMS)
	require.NoError(t, o.Signed.Verify(seller.host.ID(), "custom.test.echo"), "signed again")
	// A listing added afterwards states it too.
	_, err = seller.market.AddListing(ctx, ListingParams{Capability: "custom.test.echo2", Price: 10_000, Handler: HandlerConfig{Kind: HandlerExec, Command: []string{"cat"}}})
	require.NoError(t, err)
	o, err = seller.market.store.Get(ctx, "custom.test.echo2")
	require.NoError(t, err)
	require.Equal(t, AcceptHorizonOf(time.Hour).Milliseconds(), o.Signed.Listing.Terms.AcceptHorizonMS)
}
