package market

import (
	"context"
	"fmt"
	"time"

	"github.com/swarmwage/swarmwage/escrow"
)

// ListingTerms are the terms a seller accepts, signed in its listing so
// that a buyer knows before it quotes (or, on a rail, allocates money to
// the seller) whether a hire can fit them. A listing signed before terms
// existed has none; a buyer then learns them from the quote, as before.
type ListingTerms struct {
	// WindowMS is the verification window the seller quotes.
	WindowMS int64 `json:"window_ms"`
	// MaxDurationMS is the longest job deadline the seller accepts.
	MaxDurationMS int64 `json:"max_duration_ms"`
	// AcceptHorizonMS is the seller's accept horizon: the longest job
	// deadline (from when the buyer locks) plus verification window that
	// it accepts a lock for. On the evm rail a lock's not-before (deadline
	// plus window plus the settle grace) must lie within half the escrow's
	// notice (escrow/evm Rail.AcceptHorizon); the seller states that less
	// the settle grace and a margin for clocks. 0: no limit but
	// MaxDurationMS and WindowMS.
	AcceptHorizonMS int64 `json:"accept_horizon_ms,omitempty"`
}

// maxTermMS bounds each of a peer's terms (a year), so that sums of them
// in time.Duration cannot overflow.
const maxTermMS = 365 * 24 * 3600 * 1000

// acceptHorizonMargin is taken off a rail's accept horizon, besides the
// settle grace, before a seller states it: the buyer's clock may run ahead
// of the seller's, and the lock travels before the seller checks it.
const acceptHorizonMargin = 10 * time.Second

// AcceptHorizonOf is what a seller states as its accept horizon on a rail
// whose locks' not-before must lie within railHorizon of now: railHorizon
// less the settle grace and a margin for clocks (0 or less: no lock can be
// accepted).
func AcceptHorizonOf(railHorizon time.Duration) time.Duration {
	return railHorizon - escrow.DefaultSettleGrace - acceptHorizonMargin
}

// AcceptHorizon sets the accept horizon this seller signs into its
// listings (ListingTerms.AcceptHorizonMS; see AcceptHorizonOf). Defaults to
// none: the credits rail has no horizon.
func AcceptHorizon(d time.Duration) Option {
	return func(c *config) error {
		if d < 0 {
			d = 0 // a horizon no lock fits: stated as the least there is
		}
		c.acceptHorizon, c.acceptHorizonSet = d, true
		return nil
	}
}

// SetAcceptHorizon states d as this seller's accept horizon from now on
// (see AcceptHorizon) and signs every listing again with it: for a seller
// that learns its rail's horizon after it started (its chain was down).
func (m *Market) SetAcceptHorizon(ctx context.Context, d time.Duration) error {
	t := ListingTerms{WindowMS: m.cfg.window.Milliseconds(), MaxDurationMS: m.cfg.maxDuration.Milliseconds()}
	if cur := m.store.terms.Load(); cur != nil {
		t = *cur
	}
	t.AcceptHorizonMS = max(d.Milliseconds(), 1) // 0 would read as no limit
	m.store.terms.Store(&t)
	if err := m.resignListings(ctx); err != nil {
		return fmt.Errorf("sign the listings with the accept horizon %s: %w", d, err)
	}
	return nil
}

// terms are the terms this seller signs into its listings.
func (c *config) terms() *ListingTerms {
	t := &ListingTerms{WindowMS: c.window.Milliseconds(), MaxDurationMS: c.maxDuration.Milliseconds()}
	if c.acceptHorizonSet {
		t.AcceptHorizonMS = max(c.acceptHorizon.Milliseconds(), 1) // 0 would read as no limit
	}
	return t
}

func sameTerms(a, b *ListingTerms) bool {
	if a == nil || b == nil {
		return a == b
	}
	return *a == *b
}

// check says what is wrong with terms read from a peer, or nil.
func (t *ListingTerms) check() error {
	if t == nil {
		return nil
	}
	if t.WindowMS <= 0 || t.MaxDurationMS <= 0 || t.AcceptHorizonMS < 0 {
		return fmt.Errorf("terms: window_ms and max_duration_ms must be positive, accept_horizon_ms not negative")
	}
	if t.WindowMS > maxTermMS || t.MaxDurationMS > maxTermMS || t.AcceptHorizonMS > maxTermMS {
		return fmt.Errorf("terms: a term over %d ms (a year)", int64(maxTermMS))
	}
	return nil
}

// Unfit says why a hire whose job deadline is at most deadline from now
// cannot fit a seller's terms, or "" when it can (or the listing states
// none). The deadline is the hire's timeout, cut to the seller's maximum
// job duration as the lock will be; with the seller's window it must fit in
// its accept horizon, or the seller refuses every lock.
func (l Listing) Unfit(deadline time.Duration) string {
	t := l.Terms
	if t == nil || t.AcceptHorizonMS == 0 {
		return ""
	}
	d := min(deadline, time.Duration(t.MaxDurationMS)*time.Millisecond)
	w := time.Duration(t.WindowMS) * time.Millisecond
	if h := time.Duration(t.AcceptHorizonMS) * time.Millisecond; d+w > h {
		return fmt.Sprintf("its accept horizon %s cannot fit the job deadline %s plus its verification window %s", h, d, w)
	}
	return ""
}
