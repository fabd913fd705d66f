package market

import (
	"context"
	"testing"
	"time"

	"github.com/libp2p/go-libp2p/core/peer"
	"github.com/stretchr/testify/require"

	"github.com/swarmwage/swarmwage/escrow"
	"github.com/swarmwage/swarmwage/market/route"
)

// misquoteMarket is a buyer and two sellers of custom.test.echo: a liar that
// lists it at 0.01 and quotes 3.00, and an honest one at 0.05.
func misquoteMarket(t *testing.T) (buyer, liar, honest *testPeer) {
	t.Helper()
	boot := setupPeer(t, nil)
	liar = setupPeer(t, boot, withQuotePrice(t, func(Credits) Credits { return 3_000_000 }))
	honest = setupPeer(t, boot)
	buyer = setupPeer(t, boot)
	ctx := context.Background()
	for _, s := range []struct {
		p     *testPeer
		price int64
	}{{liar, 10_000}, {honest, 50_000}} {
		_, err := s.p.market.AddListing(ctx, ListingParams{Capability: "custom.test.echo", Price: s.price, Handler: HandlerConfig{Kind: HandlerExec, Command: []string{"cat"}}})
		require.NoError(t, err)
	}
	waitProvided(t, boot, liar, honest, buyer)
	require.NoError(t, buyer.market.escrow.Deposit(ctx, 10_000_000, "test"))
	require.Eventually(t, func() bool {
		buyer.market.forgetFind("custom.test.echo")
		buyer.routing.Forget("custom.test.echo")
		res, err := buyer.market.findCached(ctx, "custom.test.echo")
		return err == nil && len(res.Sellers) == 2
	}, 20*time.Second, 100*time.Millisecond)
	return buyer, liar, honest
}

// Regression (issue 22): a seller listing a capability at 0.01 that quoted
// 3.00 was hired with --qos P3 (cheapest) and paid 3.00. The buyer must
// lock only a quote whose price is the signed listing's it ranked: the
// liar's quote is refused before any lock, counted against it (it ranks
// last from then on, and --explain says why), and the next seller is hired.
func TestQuoteAboveItsListingIsRefusedAndCounted(t *testing.T) {
	buyer, liar, honest := misquoteMarket(t)
	ctx := context.Background()
	before, err := buyer.market.escrow.Balance(ctx)
	require.NoError(t, err)

	res, err := hireEcho(t, buyer, HireRequest{QoS: route.P3, Explain: true})
	require.NoError(t, err)
	require.Equal(t, honest.host.ID(), res.Seller, "the liar's quote is refused; the next candidate is hired")
	require.Equal(t, Credits(50_000), res.Price)
	require.Equal(t, liar.host.ID(), res.Routing.Candidates[0].Peer, "the liar was ranked first, by its listing")
	after, err := buyer.market.escrow.Balance(ctx)
	require.NoError(t, err)
	require.Equal(t, before.Available-50_000, after.Available, "only the honest seller's listed price left the wallet")
	require.Equal(t, int64(50_000), after.Held+after.Paid, "held for its window (no standard verifier), never more")
	mq := buyer.market.misquote.get(liar.host.ID())
	require.Equal(t, 1, mq.Count)
	require.Contains(t, mq.Last, "3")
	recs, err := liar.market.escrow.List(ctx, escrow.Filter{})
	require.NoError(t, err)
	require.Empty(t, recs, "the liar never saw a lock")

	// From now on the liar ranks after the honest seller, whatever the
	// class, and --explain says why.
	res, err = hireEcho(t, buyer, HireRequest{QoS: route.P3, Explain: true})
	require.NoError(t, err)
	require.Equal(t, honest.host.ID(), res.Seller)
	require.Equal(t, honest.host.ID(), res.Routing.Candidates[0].Peer)
	last := res.Routing.Candidates[1]
	require.Equal(t, liar.host.ID(), last.Peer)
	require.Equal(t, 1, last.Misquotes)
	require.Contains(t, last.Reason, "quoted off its listing 1 time(s)")
	require.Equal(t, 1, buyer.market.misquote.get(liar.host.ID()).Count, "not quoted again: the honest seller came first")

	// The count is in Badger: it outlives the memory cache.
	fresh := &misquotes{db: buyer.market.misquote.db, m: map[peer.ID]storedMisquote{}}
	require.Equal(t, 1, fresh.get(liar.host.ID()).Count)

	// Only the liar: no seller, nothing locked, counted again.
	_, err = hireEcho(t, buyer, HireRequest{Seller: liar.host.ID()})
	require.ErrorIs(t, err, ErrNoSeller)
	require.ErrorContains(t, err, "does not match the seller's listing")
	require.Equal(t, 2, buyer.market.misquote.get(liar.host.ID()).Count)
	end, err := buyer.market.escrow.Balance(ctx)
	require.NoError(t, err)
	require.Equal(t, before.Available-100_000, end.Available, "two honest jobs, nothing for the liar")
	require.Equal(t, int64(100_000), end.Held+end.Paid)
	require.Equal(t, end.Deposited+end.Earned, end.Available+end.Held+end.Paid, "the ledger invariant")
}

// A seller that raised its price after this node ranked it (a stale find
// cache) quotes its new listing: the quote is refused (it is not the price
// ranked) but not counted against it, and the next hire ranks it at its new
// price.
func TestQuoteOfAChangedListingIsRefusedNotCounted(t *testing.T) {
	buyer, fast, slow := routingMarket(t)
	ctx := context.Background()
	_, err := slow.market.AddListing(ctx, ListingParams{Capability: "custom.test.echo", Price: 90_000, Handler: HandlerConfig{Kind: HandlerExec, Command: []string{"cat"}}})
	require.NoError(t, err)
	res, err := hireEcho(t, buyer, HireRequest{QoS: route.P3})
	require.NoError(t, err)
	require.Equal(t, fast.host.ID(), res.Seller, "the stale cheap price is not paid")
	require.Equal(t, Credits(50_000), res.Price)
	require.Zero(t, buyer.market.misquote.get(slow.host.ID()).Count)
	res, err = hireEcho(t, buyer, HireRequest{QoS: route.P3, Explain: true})
	require.NoError(t, err)
	require.Equal(t, fast.host.ID(), res.Seller, "re-ranked at its new price, the former cheap seller is dearer now")
}

// A hire without its own MaxPrice pays at most the node's limit (the
// MaxPrice option, [market] max_price); a [[policy]] max_price for the
// capability replaces it, and the hire's own MaxPrice may pass it.
func TestHireWithoutMaxPricePaysAtMostTheNodesLimit(t *testing.T) {
	buyer, fast, slow := routingMarket(t, MaxPrice(20_000))
	res, err := hireEcho(t, buyer, HireRequest{QoS: route.P0, Explain: true})
	require.NoError(t, err)
	require.Equal(t, slow.host.ID(), res.Seller, "the fast seller at 0.05 is over the limit 0.02")
	require.Contains(t, res.Routing.Candidates[1].Reason, "over the maximum 0.02")

	buyer.market.cfg.policies = route.Policies{{Match: "custom.test.echo", MaxPrice: 10_000}}
	_, err = hireEcho(t, buyer, HireRequest{Seller: fast.host.ID()})
	require.ErrorIs(t, err, ErrNoSeller)
	require.ErrorContains(t, err, "within the price limit 0.01 ([[policy]] custom.test.echo max_price; raise it in config.toml)")

	buyer.market.cfg.policies = route.Policies{{Match: "custom.test", MaxPrice: 60_000}}
	res, err = hireEcho(t, buyer, HireRequest{Seller: fast.host.ID()})
	require.NoError(t, err, "the policy's limit replaces the node's")
	require.Equal(t, fast.host.ID(), res.Seller)

	buyer.market.cfg.policies = nil
	_, err = hireEcho(t, buyer, HireRequest{Seller: fast.host.ID()})
	require.ErrorContains(t, err, "no seller within the price limit 0.02 ([market] max_price; raise it or pass --max-price)")
	res, err = hireEcho(t, buyer, HireRequest{Seller: fast.host.ID(), MaxPrice: 50_000})
	require.NoError(t, err, "the hire's own limit may pass the node's")
	require.Equal(t, Credits(50_000), res.Price)
}
