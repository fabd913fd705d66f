package market

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"sort"
	"sync"
	"time"

	"github.com/libp2p/go-libp2p/core/peer"

	"github.com/swarmwage/swarmwage/reputation"
)

// Seller is a seller found for a capability, with its verified listing.
type Seller struct {
	Peer    peer.AddrInfo
	Listing SignedListing
	RTT     time.Duration
	// Reputation is the score of a sample of the seller's receipts; nil if
	// it could not be fetched.
	Reputation *reputation.Summary
}

// FindResult is the answer to a search: verified sellers, cheapest first,
// and how many candidates were rejected (unreachable sellers are not
// counted; sellers whose listing is forged, mis-signed or for something else
// are).
type FindResult struct {
	Capability string
	Sellers    []Seller
	Rejected   int
	// TimedOut: the search was cut short by the caller's deadline, so
	// sellers may be missing.
	TimedOut bool
}

// Find returns up to limit sellers of capID whose signed listings check out,
// cheapest first, then fastest. capID may be a prefix such as "text", which
// finds the sellers of every capability under it.
//
// limit counts live sellers (distinct peers whose listing checked out): the
// DHT is asked for more providers than that, because provider records of
// dead sellers are normal.
func (b *Buyer) Find(ctx context.Context, capID string, limit int) (FindResult, error) {
	if limit <= 0 {
		limit = candidatesPerHire
	}
	cands, err := b.routing.FindSellers(ctx, capID, min(2*limit+5, maxProviders))
	if err != nil {
		return FindResult{}, fmt.Errorf("find %s: %w", capID, err)
	}
	res := FindResult{Capability: capID}
	var mu sync.Mutex
	var wg sync.WaitGroup
	sem := make(chan struct{}, fetchConcurrency)
	for _, c := range cands {
		wg.Add(1)
		go func(c peer.AddrInfo) {
			defer wg.Done()
			select {
			case sem <- struct{}{}:
			case <-ctx.Done():
				return
			}
			defer func() { <-sem }()
			found, rejected := b.checkSeller(ctx, c, capID)
			mu.Lock()
			res.Sellers = append(res.Sellers, found...)
			res.Rejected += rejected
			mu.Unlock()
		}(c)
	}
	wg.Wait()
	res.TimedOut = errors.Is(ctx.Err(), context.DeadlineExceeded)
	sort.SliceStable(res.Sellers, func(i, j int) bool {
		a, b := res.Sellers[i], res.Sellers[j]
		if a.Listing.Listing.Price != b.Listing.Listing.Price {
			return a.Listing.Listing.Price < b.Listing.Listing.Price
		}
		return a.RTT < b.RTT
	})
	res.Sellers = firstPeers(res.Sellers, limit)
	return res, nil
}

// maxProviders caps the providers one search asks the DHT for.
const maxProviders = 200

// firstPeers keeps the listings of the first limit distinct peers.
func firstPeers(sellers []Seller, limit int) []Seller {
	seen := make(map[peer.ID]bool)
	out := sellers[:0]
	for _, s := range sellers {
		if !seen[s.Peer.ID] {
			if len(seen) == limit {
				continue
			}
			seen[s.Peer.ID] = true
		}
		out = append(out, s)
	}
	return out
}

// Peers counts the distinct sellers of a result (one seller may have
// several listings under a prefix).
func (r FindResult) Peers() int {
	seen := make(map[peer.ID]bool, len(r.Sellers))
	for _, s := range r.Sellers {
		seen[s.Peer.ID] = true
	}
	return len(seen)
}

// checkSeller fetches and verifies one candidate's listing(s) of capID.
func (b *Buyer) checkSeller(ctx context.Context, c peer.AddrInfo, capID string) ([]Seller, int) {
	ctx, cancel := context.WithTimeout(ctx, fetchTimeout)
	defer cancel()
	s, rtt, err := b.client.fetchListing(ctx, c, capID)
	if err == nil {
		return []Seller{{Peer: c, Listing: s, RTT: rtt, Reputation: b.reputationOf(ctx, c)}}, 0
	}
	var se *StatusError
	if errors.As(err, &se) && se.Code == http.StatusNotFound {
		// Not sold under this exact ID: capID may be a prefix, or the
		// seller withdrew it and its provider record has not expired.
		list, rejected, rtt, err := b.client.fetchListings(ctx, c, capID)
		if err != nil {
			b.log.Debug("seller unreachable", "remote_peer", c.ID, "err", err)
			return nil, 0
		}
		out := make([]Seller, 0, len(list))
		rep := b.reputationOf(ctx, c)
		for _, l := range list {
			out = append(out, Seller{Peer: c, Listing: l, RTT: rtt, Reputation: rep})
		}
		return out, rejected
	}
	if errors.Is(err, ErrBadSignature) || errors.Is(err, ErrListingMismatch) || errors.Is(err, ErrMalformedListing) {
		b.log.Debug("rejected listing", "remote_peer", c.ID, "capability", capID, "err", err)
		return nil, 1
	}
	b.log.Debug("seller unreachable", "remote_peer", c.ID, "err", err)
	return nil, 0
}

// listingCacheTTL is how long a hire reuses a search's verified listings.
// A seller that changed its price meanwhile quotes its new price, and the
// quote, not the listing, is what the buyer locks.
const listingCacheTTL = 30 * time.Second

type cachedFind struct {
	res FindResult
	at  time.Time
}

// findCached is Find for hires: a search of the last listingCacheTTL is
// reused, so a run of hires does not fetch every listing every time.
func (b *Buyer) findCached(ctx context.Context, capID string) (FindResult, error) {
	b.findMu.Lock()
	c, ok := b.findCache[capID]
	b.findMu.Unlock()
	if ok && b.cfg.now().Sub(c.at) < listingCacheTTL && len(c.res.Sellers) > 0 {
		return c.res, nil
	}
	res, err := b.Find(ctx, capID, candidatesPerHire)
	if err != nil {
		return res, err
	}
	b.findMu.Lock()
	b.findCache[capID] = cachedFind{res: res, at: b.cfg.now()}
	b.findMu.Unlock()
	return res, nil
}

// forgetFind drops capID's cached search after one of its sellers failed a
// quote, so the next hire searches again.
func (b *Buyer) forgetFind(capID string) {
	b.findMu.Lock()
	delete(b.findCache, capID)
	b.findMu.Unlock()
}
