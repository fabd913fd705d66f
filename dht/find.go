package dht

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/libp2p/go-libp2p/core/peer"
)

// FindSellers returns up to limit peers that provide capID (a capability or
// a prefix such as "text"). A capability searched within the cache's idle
// time is answered from the prefetch cache with no DHT query; otherwise the
// DHT is searched and the answer cached. limit 0 means DefaultLimit. The
// caller's own peer is never returned.
func (r *Routing) FindSellers(ctx context.Context, capID string, limit int) ([]peer.AddrInfo, error) {
	if limit <= 0 {
		limit = DefaultLimit
	}
	if limit > maxLimit {
		limit = maxLimit
	}
	now := r.cfg.clock.Now()
	r.mu.Lock()
	if r.closed {
		r.mu.Unlock()
		return nil, ErrClosed
	}
	if e, ok := r.cache[capID]; ok && e.covers(limit) {
		e.lastSearch = now
		out := clip(e.sellers, limit)
		r.mu.Unlock()
		return out, nil
	}
	// A warm prefix's sellers include every seller of the capabilities
	// under it (sellers provide their prefixes' keys too): routing a
	// capability under a kept-warm prefix needs no DHT query.
	if e := r.warmPrefix(capID); e != nil && e.covers(limit) {
		out := clip(e.sellers, limit)
		r.mu.Unlock()
		return out, nil
	}
	r.mu.Unlock()

	sellers, err := r.search(ctx, capID, limit)
	if err != nil {
		return nil, err
	}
	r.store(capID, sellers, limit, now)
	return sellers, nil
}

// covers reports whether the entry can answer a search for limit sellers.
// An empty answer is not cached: a capability nobody sold a minute ago may
// have a seller now. An answer to a smaller limit that came back full may
// have missed sellers: search again.
func (e *cacheEntry) covers(limit int) bool {
	return len(e.sellers) > 0 && (len(e.sellers) < e.limit || limit <= e.limit)
}

// warmPrefix is the cache entry of the longest kept-warm strict prefix of
// capID, or nil. r.mu must be held.
func (r *Routing) warmPrefix(capID string) *cacheEntry {
	for id := capID; ; {
		i := strings.LastIndexByte(id, '.')
		if i < 0 {
			return nil
		}
		id = id[:i]
		if e, ok := r.cache[id]; ok && e.warm {
			return e
		}
	}
}

// KeepWarm keeps the sellers of each capability or prefix in the prefetch
// cache, refreshed every cache refresh interval whether or not anyone
// searched them, so that routing them needs no DHT query (WCP's prefetch
// cache). The first fill happens on the next refresh; RefreshCache fills
// them now.
func (r *Routing) KeepWarm(capIDs ...string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, id := range capIDs {
		e, ok := r.cache[id]
		if !ok {
			e = &cacheEntry{}
			r.cache[id] = e
		}
		e.warm = true
	}
}

// Cached reports whether capID is in the prefetch cache.
func (r *Routing) Cached(capID string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	_, ok := r.cache[capID]
	return ok
}

// CachedCapabilities are the capability IDs with at least one seller in
// the prefetch cache, sorted: what this node can hire without a search.
func (r *Routing) CachedCapabilities() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []string
	for id, e := range r.cache {
		if len(e.sellers) > 0 {
			out = append(out, id)
		}
	}
	slices.Sort(out)
	return out
}

func (r *Routing) store(capID string, sellers []peer.AddrInfo, limit int, searched time.Time) {
	r.mu.Lock()
	defer r.mu.Unlock()
	e, ok := r.cache[capID]
	if !ok {
		e = &cacheEntry{}
		r.cache[capID] = e
	}
	e.sellers, e.limit = sellers, limit
	e.fetched = r.cfg.clock.Now()
	if searched.After(e.lastSearch) {
		e.lastSearch = searched
	}
}

// search asks the DHT for providers of capID, with a count and a deadline.
func (r *Routing) search(ctx context.Context, capID string, limit int) ([]peer.AddrInfo, error) {
	key, err := Key(r.network, capID)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, r.cfg.findTimeout)
	defer cancel()
	r.queries.Add(1)
	self := r.host.ID()
	var out []peer.AddrInfo
	for ai := range r.dht.FindProvidersAsync(ctx, key, limit+1) {
		if ai.ID == self || ai.ID == "" {
			continue
		}
		if len(ai.Addrs) == 0 {
			ai.Addrs = r.host.Peerstore().Addrs(ai.ID)
		}
		out = append(out, ai)
		if len(out) == limit {
			break
		}
	}
	if err := ctx.Err(); err != nil && len(out) == 0 && ctx.Err() != context.DeadlineExceeded {
		return nil, fmt.Errorf("find sellers of %s: %w", capID, err)
	}
	return out, nil
}

// refreshLoop re-searches every capability searched within the idle time, so
// repeated searches are answered locally, and drops the others.
func (r *Routing) refreshLoop() {
	defer r.wg.Done()
	t := r.cfg.clock.Ticker(r.cfg.cacheRefresh)
	defer t.Stop()
	for {
		select {
		case <-r.ctx.Done():
			return
		case <-t.C:
			r.refreshCache()
			r.refreshes.Add(1)
		}
	}
}

// RefreshCache refreshes the prefetch cache now (the background loop does
// this every cache refresh interval).
func (r *Routing) RefreshCache() { r.refreshCache() }

func (r *Routing) refreshCache() {
	now := r.cfg.clock.Now()
	r.mu.Lock()
	todo := make(map[string]int)
	for id, e := range r.cache {
		if !e.warm && now.Sub(e.lastSearch) > r.cfg.cacheIdle {
			delete(r.cache, id)
			continue
		}
		todo[id] = max(e.limit, DefaultLimit) // as many as it was searched for
	}
	r.mu.Unlock()
	for id, limit := range todo {
		sellers, err := r.search(r.ctx, id, limit)
		if err != nil {
			r.log.Debug("refresh prefetch cache", "capability", id, "err", err)
			continue
		}
		r.store(id, sellers, limit, time.Time{})
	}
}

func clip(in []peer.AddrInfo, n int) []peer.AddrInfo {
	if len(in) > n {
		in = in[:n]
	}
	return append([]peer.AddrInfo(nil), in...)
}

// Forget drops capID from the prefetch cache, so the next search asks the
// DHT again (benchmarks measure cold searches with it).
func (r *Routing) Forget(capID string) {
	r.mu.Lock()
	delete(r.cache, capID)
	r.mu.Unlock()
}
