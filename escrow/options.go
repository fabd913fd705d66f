package escrow

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"
)

// Defaults of the options.
const (
	// DefaultTimerInterval is how often the timers goroutine looks for due
	// deadlines and windows. Timers fire at most this late.
	DefaultTimerInterval = 500 * time.Millisecond
	// DefaultSettleGrace is how long a seller waits past the buyer's
	// deadline or verification window before it settles on its own. The
	// buyer's clock and the delivery's transit time must fit in it, so that
	// the buyer's own timer (or decision) comes first.
	DefaultSettleGrace = 5 * time.Second
	// DefaultFinality is how long a seller's provisional release (its timer
	// released a delivery its buyer never decided on) waits for the buyer
	// before it is final. A buyer down for longer than this after a job's
	// window can no longer object; an honest buyer that is up decides within
	// the window. Three days covers a node that is off over a weekend.
	DefaultFinality = 72 * time.Hour
	// undecidedRetry is how long a buyer's timer waits before it asks the
	// undecided hook again about a delivery whose verification did not
	// finish (the hook errored or returned without deciding).
	undecidedRetry = 10 * time.Second
)

// Option configures an Escrow.
type Option func(*config) error

type config struct {
	now           func() time.Time
	timerInterval time.Duration
	settleGrace   time.Duration
	finality      time.Duration
	logger        *slog.Logger
	onSettle      func(Record)
	undecided     func(context.Context, Record)
	rail          Rail
	receiptScan   int           // records a page of receipts reads at most
	settleWait    time.Duration // ApplySettle's wait for a batch to join
}

func defaultConfig() config {
	return config{
		now:           time.Now,
		timerInterval: DefaultTimerInterval,
		settleGrace:   DefaultSettleGrace,
		finality:      DefaultFinality,
		logger:        slog.Default(),
		receiptScan:   maxReceiptScan,
		settleWait:    settleCommitWait,
	}
}

func (c *config) apply(opts ...Option) error {
	for _, o := range opts {
		if o == nil {
			continue
		}
		if err := o(c); err != nil {
			return err
		}
	}
	return nil
}

func (c *config) validate() error {
	if c.now == nil {
		return errors.New("escrow option WithClock: clock is nil")
	}
	if c.timerInterval <= 0 {
		return fmt.Errorf("escrow option WithTimerInterval: %s: must be positive", c.timerInterval)
	}
	if c.finality <= 0 {
		return fmt.Errorf("escrow option WithFinality: %s: must be positive", c.finality)
	}
	if c.settleGrace < 0 {
		return fmt.Errorf("escrow option WithSettleGrace: %s: must not be negative", c.settleGrace)
	}
	if c.logger == nil {
		return errors.New("escrow option WithLogger: logger is nil")
	}
	return nil
}

// WithClock sets the clock used for timestamps and timers. Defaults to
// time.Now. Tests inject a fake clock and call FireDue.
func WithClock(now func() time.Time) Option {
	return func(c *config) error {
		c.now = now
		return nil
	}
}

// WithTimerInterval sets how often Start's goroutine fires due timers.
// Defaults to DefaultTimerInterval.
func WithTimerInterval(d time.Duration) Option {
	return func(c *config) error {
		c.timerInterval = d
		return nil
	}
}

// WithSettleGrace sets the seller's grace past the buyer's deadline and
// verification window. Defaults to DefaultSettleGrace.
func WithSettleGrace(d time.Duration) Option {
	return func(c *config) error {
		c.settleGrace = d
		return nil
	}
}

// WithLogger sets the logger. Defaults to slog.Default(), with the
// subsystem attribute "swarmwage/escrow" added either way.
func WithLogger(l *slog.Logger) Option {
	return func(c *config) error {
		c.logger = l
		return nil
	}
}

// WithOnSettle registers a hook called once for each job that reaches a
// final state (released, refunded, disputed, failed), by an explicit call or
// a timer, after the change is committed. It runs synchronously on the
// goroutine that made the change (the timers goroutine for timers), so it
// must not block for long; repeated (idempotent) calls do not call it again.
// The record has its Settle when the job has one; its Lock and Delivery
// may be left out (GetRole has them). Defaults to none.
func WithOnSettle(f func(Record)) Option {
	return func(c *config) error {
		if c.onSettle != nil {
			return errors.New("escrow option WithOnSettle: given twice")
		}
		c.onSettle = f
		return nil
	}
}

// WithFinality sets how long a seller's provisional release waits for the
// buyer's confirmation or refund before it becomes final. Defaults to
// DefaultFinality.
func WithFinality(d time.Duration) Option {
	return func(c *config) error {
		c.finality = d
		return nil
	}
}

// WithUndecided registers the buyer's verifier for deliveries that were
// recorded but never decided (the node stopped between recording a
// delivery and releasing or refunding it). When such a job's verification
// window ends, the timer calls f instead of releasing: a buyer never pays
// for output it has not verified. f verifies the stored output (Payload)
// and calls Release, Refund or Accept; until it does, the timer asks again
// every few seconds. f runs on the timers goroutine. Defaults to none:
// undecided deliveries then wait, with a warning, for a decision by hand.
func WithUndecided(f func(ctx context.Context, r Record)) Option {
	return func(c *config) error {
		c.undecided = f
		return nil
	}
}

// WithRail settles the node's jobs on r instead of in credits (rail.go).
// Defaults to none: the credits rail.
func WithRail(r Rail) Option {
	return func(c *config) error {
		if r == nil {
			return errors.New("escrow option WithRail: rail is nil")
		}
		if r.Name() == "" || r.Name() == RailCredits {
			return fmt.Errorf("escrow option WithRail: %q is no rail name; leave the option out for credits", r.Name())
		}
		c.rail = r
		return nil
	}
}
