package market

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/libp2p/go-libp2p/core/peer"

	"github.com/swarmwage/swarmwage/internal/kv"
	"github.com/swarmwage/swarmwage/market/route"
)

// Routing: a hire is routed by capability (package route). This file feeds
// route its candidates and keeps what it learns: each seller's job
// durations per capability, as an exponentially weighted average in Badger.

// ErrPolicyHold: a [[policy]] requires confirmation for the capability and
// the hire was not confirmed. Nothing was locked.
var ErrPolicyHold = errors.New("policy requires confirmation")

// PolicyHoldError is the ErrPolicyHold of one hire: which [[policy]] held
// which capability. Only a person confirms such a hold (HireRequest.Confirm:
// 'hire --confirm'); a front end's risk allowance does not.
type PolicyHoldError struct {
	// Policy is the Match of the [[policy]] that holds the hire.
	Policy     string
	Capability string
}

var _ error = (*PolicyHoldError)(nil)

func (e *PolicyHoldError) Error() string {
	return fmt.Sprintf("%s: [[policy]] %s holds every hire of %s until it is confirmed; hire again with --confirm", ErrPolicyHold, e.Policy, e.Capability)
}

// Unwrap makes errors.Is(err, ErrPolicyHold) hold.
func (e *PolicyHoldError) Unwrap() error { return ErrPolicyHold }

// latencyVersion is the schema version of stored latency history.
const latencyVersion = 1

type storedLatency struct {
	V      int     `json:"v"`
	EWMAMS float64 `json:"ewma_ms"`
	Jobs   int     `json:"jobs"`
}

// latencyPersistInterval is how often at most one seller's latency history
// for one capability is written to Badger. A node hiring one seller many
// times a second folds every job into the history in memory at once, and
// writes it once per interval instead of once per job: it is routing data,
// not money, and a crash loses at most this much of it. Close writes what
// is left.
const latencyPersistInterval = time.Second

// latencies is the latency history, read through a memory cache.
type latencies struct {
	db *kv.DB
	mu sync.Mutex
	m  map[string]storedLatency
	// written is when each key was last written; scheduled holds the keys
	// whose latest value a background write will store.
	written   map[string]time.Time
	scheduled map[string]bool
	writeMu   sync.Mutex    // one write at a time: a later value never lands first
	every     time.Duration // latencyPersistInterval; tests set their own
}

func newLatencies(db *kv.DB) *latencies {
	return &latencies{db: db, m: make(map[string]storedLatency), written: make(map[string]time.Time), scheduled: make(map[string]bool), every: latencyPersistInterval}
}

func (l *latencies) get(seller peer.ID, capID string) (storedLatency, bool) {
	k := string(latencyKey(seller, capID))
	l.mu.Lock()
	v, ok := l.m[k]
	l.mu.Unlock()
	if ok {
		return v, v.Jobs > 0
	}
	err := l.db.View(func(txn kv.Reader) error {
		b, err := txn.Get([]byte(k))
		if err != nil {
			return err
		}
		return json.Unmarshal(b, &v)
	})
	if err != nil || v.V != latencyVersion {
		v = storedLatency{V: latencyVersion}
	}
	l.mu.Lock()
	if cur, ok := l.m[k]; ok {
		v = cur // folded meanwhile
	} else {
		l.m[k] = v
	}
	l.mu.Unlock()
	return v, v.Jobs > 0
}

// fold adds one job's duration to seller's history for capID in memory. It
// returns the key and whether the caller must schedule the key's write
// (none is scheduled yet).
func (l *latencies) fold(seller peer.ID, capID string, d time.Duration) (string, bool) {
	l.get(seller, capID) // loads the stored history once
	k := string(latencyKey(seller, capID))
	l.mu.Lock()
	defer l.mu.Unlock()
	cur := l.m[k]
	cur.EWMAMS = route.UpdateEWMA(cur.EWMAMS, float64(d.Microseconds())/1000)
	cur.Jobs++
	l.m[k] = cur
	if l.scheduled[k] {
		return k, false
	}
	l.scheduled[k] = true
	return k, true
}

// due is when the key's scheduled write may run.
func (l *latencies) due(k string) time.Time {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.written[k].Add(l.every)
}

// write stores the key's latest value.
func (l *latencies) write(k string) error {
	l.writeMu.Lock()
	defer l.writeMu.Unlock()
	l.mu.Lock()
	delete(l.scheduled, k)
	cur := l.m[k]
	l.written[k] = time.Now()
	l.mu.Unlock()
	val, err := json.Marshal(cur)
	if err != nil {
		return err
	}
	if err := l.db.Update(func(txn kv.Txn) error { return txn.Set([]byte(k), val) }); err != nil {
		return fmt.Errorf("store latency history %s: %w", k, err)
	}
	return nil
}

// recordLatency folds a job's duration into the history and stores it in
// the background, at most once per latencyPersistInterval for each seller
// and capability (sooner when the market closes): it is routing data, not
// money, and the hire need not wait for its write.
func (b *Buyer) recordLatency(seller peer.ID, capID string, d time.Duration) {
	k, schedule := b.latency.fold(seller, capID, d)
	if !schedule {
		return // the write already scheduled stores this job too
	}
	b.wg.Add(1)
	go func() {
		defer b.wg.Done()
		if wait := time.Until(b.latency.due(k)); wait > 0 {
			t := time.NewTimer(wait)
			select {
			case <-t.C:
			case <-b.ctx.Done(): // closing: write now
				t.Stop()
			}
		}
		if err := b.latency.write(k); err != nil {
			b.log.Warn("record latency", "err", err)
		}
	}()
}

// routeCandidates turns sellers of capID into routing candidates.
func (b *Buyer) routeCandidates(sellers []Seller) []route.Candidate {
	out := make([]route.Candidate, 0, len(sellers))
	for _, s := range sellers {
		c := route.Candidate{
			Peer: s.Peer.ID, Price: int64(s.Listing.Listing.Price),
			RTTMS: float64(s.RTT.Microseconds()) / 1000,
		}
		c.Rating, _ = b.jobs.rating(s.Peer.ID)
		if s.Reputation != nil {
			c.Reputation = s.Reputation.Score
			c.Backing = s.Reputation.Backing()
		}
		if h, ok := b.latency.get(s.Peer.ID, s.Listing.Listing.Capability); ok {
			c.LatencyMS, c.FromHistory = h.EWMAMS, true
		}
		c.Misquotes = b.misquote.get(s.Peer.ID).Count
		out = append(out, c)
	}
	route.Estimate(out)
	return out
}

// Routed is a routing decision: the policy that applied, the QoS class and
// every candidate with why it was chosen, ranked or dropped.
type Routed struct {
	Capability string           `json:"capability"`
	Requested  string           `json:"requested,omitempty"`
	QoS        route.QoS        `json:"qos"`
	Policy     *route.Policy    `json:"policy,omitempty"`
	Candidates []route.Decision `json:"candidates"`
}

// ResolveCapability follows the WCP catalog's tombstones from capID to the
// capability that serves it now (capID itself without a catalog or a
// tombstone).
func (b *Buyer) ResolveCapability(capID string) (string, error) { return b.resolveCapability(capID) }

// Tombstone returns capID's catalog entry if the WCP catalog tombstoned it.
func (b *Buyer) Tombstone(capID string) (route.CatalogEntry, bool) {
	e, ok := b.cfg.catalog.Lookup(capID)
	return e, ok && e.Tombstoned()
}

// resolveCapability follows the WCP catalog's tombstones.
func (b *Buyer) resolveCapability(capID string) (string, error) {
	if b.cfg.catalog == nil {
		return capID, nil
	}
	got, chain, err := b.cfg.catalog.Resolve(capID)
	if err != nil {
		return "", fmt.Errorf("%w: %w", ErrInvalidInput, err)
	}
	if got != capID {
		b.log.Debug("tombstoned capability routed to its successor", "requested", capID, "chain", chain)
	}
	return got, nil
}

// Explain routes a search of capID as a hire would, without hiring: the
// answer to "why this seller" and "why nobody".
func (b *Buyer) Explain(ctx context.Context, capID string, qos route.QoS, maxPrice int64) (Routed, error) {
	resolved, err := b.resolveCapability(capID)
	if err != nil {
		return Routed{}, err
	}
	res, err := b.findCached(ctx, resolved)
	if err != nil {
		return Routed{}, err
	}
	var sellers []Seller
	for _, s := range res.Sellers {
		if s.Listing.Listing.Capability == resolved {
			sellers = append(sellers, s)
		}
	}
	return b.route(resolved, capID, qos, maxPrice, sellers, true), nil
}

// route ranks sellers of capID for a hire.
func (b *Buyer) route(capID, requested string, qos route.QoS, maxPrice int64, sellers []Seller, explain bool) Routed {
	pol := b.cfg.policies.For(capID)
	if qos == "" && pol != nil && pol.QoS != "" {
		qos = pol.QoS
	}
	if qos == "" {
		qos = route.DefaultQoS
	}
	r := Routed{Capability: capID, QoS: qos, Policy: pol}
	if requested != capID {
		r.Requested = requested
	}
	r.Candidates = route.Rank(b.routeCandidates(sellers), route.Request{
		Capability: capID, QoS: qos, MaxPrice: maxPrice, Policy: pol, Explain: explain,
	})
	return r
}

// misquoteVersion is the schema version of a stored misquote count.
const misquoteVersion = 1

// storedMisquote counts a seller's quotes whose terms were not its signed
// listing's (docs/protocol.md: a quote must match its listing).
type storedMisquote struct {
	V     int       `json:"v"`
	Count int       `json:"count"`
	Last  string    `json:"last,omitempty"` // what the latest one got wrong
	At    time.Time `json:"at,omitzero"`
}

// misquotes is the misquote history, read through a memory cache.
type misquotes struct {
	db *kv.DB
	mu sync.Mutex
	m  map[peer.ID]storedMisquote
}

func (q *misquotes) get(seller peer.ID) storedMisquote {
	q.mu.Lock()
	v, ok := q.m[seller]
	q.mu.Unlock()
	if ok {
		return v
	}
	err := q.db.View(func(txn kv.Reader) error {
		b, err := txn.Get(misquoteKey(seller))
		if err != nil {
			return err
		}
		return json.Unmarshal(b, &v)
	})
	if err != nil || v.V != misquoteVersion {
		v = storedMisquote{V: misquoteVersion}
	}
	q.mu.Lock()
	q.m[seller] = v
	q.mu.Unlock()
	return v
}

// record counts one misquote of seller and stores it.
func (q *misquotes) record(seller peer.ID, why string, at time.Time) error {
	cur := q.get(seller)
	cur.Count++
	cur.Last, cur.At = truncateText(why, 200), at.UTC()
	q.mu.Lock()
	q.m[seller] = cur
	q.mu.Unlock()
	val, err := json.Marshal(cur)
	if err != nil {
		return err
	}
	if err := q.db.Update(func(txn kv.Txn) error { return txn.Set(misquoteKey(seller), val) }); err != nil {
		return fmt.Errorf("store misquote of %s: %w", seller, err)
	}
	return nil
}
