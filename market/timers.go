package market

import (
	"context"
	"errors"
	"sync/atomic"

	"github.com/swarmwage/swarmwage/escrow"
)

// Timers is how the escrow's timer callbacks reach a market. The escrow is
// built before the market (the market needs it), so its hooks cannot name
// the market: they name a Timers instead, and the market registers itself
// with it in New (WithTimers). A callback that comes before the market is
// registered is dropped; the market's start-up reconciliation picks up what
// it would have done (reconcile.go). The zero value is ready to use; it is
// safe for concurrent use and must not be copied.
//
// The node wires it as:
//
//	var t market.Timers
//	escrow.New(db, key, escrow.WithOnSettle(t.Settled), escrow.WithUndecided(t.Undecided))
//	market.New(h, db, key, routing, esc, market.WithTimers(&t))
type Timers struct {
	m atomic.Pointer[Market]
}

// Settled is the escrow's OnSettle hook (escrow.WithOnSettle): a job
// reached a final state. The buyer's timer decisions go to its settle
// outbox, and the job record follows the escrow (Market.SettleDecided).
func (t *Timers) Settled(r escrow.Record) {
	if m := t.m.Load(); m != nil {
		m.SettleDecided(r)
	}
}

// Undecided is the escrow's undecided-delivery hook (escrow.WithUndecided):
// a delivered job's verification window is about to end with no decision,
// so the buyer verifies it again (Buyer.Reverify).
func (t *Timers) Undecided(ctx context.Context, r escrow.Record) {
	if m := t.m.Load(); m != nil {
		m.Reverify(ctx, r)
	}
}

func (t *Timers) register(m *Market) { t.m.Store(m) }

// WithTimers registers the market with t, the escrow's timer callbacks
// (Timers). Defaults to none: the market then hears of no timer decision
// until its next start.
func WithTimers(t *Timers) Option {
	return func(c *config) error {
		if t == nil {
			return errors.New("market option WithTimers: nil Timers")
		}
		if c.timers != nil {
			return errors.New("market option WithTimers: given twice")
		}
		c.timers = t
		return nil
	}
}
