package mcp

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/swarmwage/swarmwage/escrow"
	"github.com/swarmwage/swarmwage/node"
)

// Names of the caps, as refusals and the spending document name them.
const (
	capPerHire    = "per-hire"
	capPerSession = "per-session"
	capPerDay     = "per-day"
)

// ErrCapExceeded is returned (as a *CapError) when a hire would pass a
// spending cap.
var ErrCapExceeded = errors.New("spending cap exceeded")

// CapError is a refusal by the spending guard. Its message names the cap
// and says how to raise it.
type CapError struct {
	// Cap is "per-hire", "per-session" or "per-day".
	Cap string
	// Limit is the cap and Left what is left of it, in micro-credits.
	Limit, Left int64
	msg         string
}

var _ error = (*CapError)(nil)

func (e *CapError) Error() string { return e.msg }

// Unwrap makes errors.Is(err, ErrCapExceeded) hold.
func (e *CapError) Unwrap() error { return ErrCapExceeded }

// short is the refusal in a few words, for a seller list.
func (e *CapError) short() string {
	if e.Cap == capPerHire {
		return "over the per-hire cap of " + capText(e.Limit)
	}
	return fmt.Sprintf("over what is left of the %s cap (%s of %s)", e.Cap, escrow.FormatAmount(e.Left), capText(e.Limit))
}

// guard enforces Limits for one Server: the per-hire cap on each hire, the
// per-session cap on the sum of this server's hires, and the per-day cap on
// the node's spend since local midnight. Safe for concurrent use.
//
// While a hire runs, its maximum price is reserved, so concurrent hires of
// one session cannot together pass a cap; a running hire may then count
// twice against the day (reserved here and locked in the daemon's escrow),
// which errs on the side of spending less.
type guard struct {
	limits  Limits
	repoDir string
	now     func() time.Time

	mu      sync.Mutex
	spent   int64 // spent by finished hires of this session
	pending int64 // reserved by hires in flight
}

// grant is what reserve allows one hire.
type grant struct {
	// maxPrice is the most the hire may pay (0: no limit at all).
	maxPrice int64
	// limitedBy names the cap that set maxPrice when the agent gave no
	// max_price ("" when the agent's own max_price applies).
	limitedBy string
	reserved  int64
}

// needsDay reports whether hires need the day's spend from the daemon.
func (g *guard) needsDay() bool { return g.limits.MaxPerDay > 0 }

// dayStart is local midnight of the current day.
func (g *guard) dayStart() time.Time {
	now := g.now()
	y, m, d := now.Date()
	return time.Date(y, m, d, 0, 0, 0, 0, now.Location())
}

// reserve checks a hire that asks to pay at most asked (0: the agent gave
// no max_price) against every cap, given what the node spent today, and
// reserves its maximum price. Refusals wrap ErrCapExceeded.
func (g *guard) reserve(asked, spentToday int64) (grant, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	gr, err := g.plan(asked, spentToday)
	if err != nil {
		return grant{}, err
	}
	if g.limits.MaxPerSession > 0 || g.limits.MaxPerDay > 0 {
		gr.reserved = gr.maxPrice
		g.pending += gr.reserved
	}
	return gr, nil
}

// allows reports (as a refusal error, or nil) whether a hire at price
// would pass the caps now, without reserving anything.
func (g *guard) allows(price, spentToday int64) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	_, err := g.plan(price, spentToday)
	return err
}

// plan is reserve without the reservation; g.mu must be held.
func (g *guard) plan(asked, spentToday int64) (grant, error) {
	l := g.limits
	if l.MaxPerHire > 0 && asked > l.MaxPerHire {
		return grant{}, &CapError{Cap: capPerHire, Limit: l.MaxPerHire, Left: l.MaxPerHire, msg: fmt.Sprintf("Refused: max_price %s is over the per-hire cap of %s. Ask again with max_price at most %s, or have the node's owner raise the cap (%s).",
			escrow.FormatAmount(asked), capText(l.MaxPerHire), escrow.FormatAmount(l.MaxPerHire), g.howToRaise("--max-per-hire", KeyMaxPerHire))}
	}
	sessionUsed := g.spent + g.pending
	dayUsed := spentToday + g.pending
	type capRow struct {
		name, flag, key string
		limit, used     int64
		note            string
	}
	caps := []capRow{
		{capPerSession, "--max-per-session", KeyMaxPerSession, l.MaxPerSession, sessionUsed, "spent or reserved in this MCP session"},
		{capPerDay, "--max-per-day", KeyMaxPerDay, l.MaxPerDay, dayUsed, "spent by this node today, counted from its escrow records, plus hires in flight"},
	}
	gr := grant{maxPrice: asked}
	if asked == 0 && l.MaxPerHire > 0 {
		gr.maxPrice, gr.limitedBy = l.MaxPerHire, capPerHire
	}
	for _, c := range caps {
		if c.limit <= 0 {
			continue
		}
		left := c.limit - c.used
		switch {
		case left <= 0:
			return grant{}, &CapError{Cap: c.name, Limit: c.limit, msg: fmt.Sprintf("Refused: the %s cap of %s is used up (%s %s). %s",
				c.name, capText(c.limit), escrow.FormatAmount(c.used), c.note, g.raiseSentence(c.name, c.flag, c.key))}
		case asked > left:
			return grant{}, &CapError{Cap: c.name, Limit: c.limit, Left: left, msg: fmt.Sprintf("Refused: this hire may cost up to %s (max_price) but only %s of the %s cap of %s is left (%s %s). Ask with max_price at most %s, or %s",
				escrow.FormatAmount(asked), escrow.FormatAmount(left), c.name, capText(c.limit), escrow.FormatAmount(c.used), c.note,
				escrow.FormatAmount(left), lowerFirst(g.raiseSentence(c.name, c.flag, c.key)))}
		case asked == 0 && (gr.maxPrice == 0 || left < gr.maxPrice):
			gr.maxPrice, gr.limitedBy = left, c.name
		}
	}
	return gr, nil
}

// settle ends a reservation: spent is what the hire actually cost (0 when
// refunded or never locked).
func (g *guard) settle(gr grant, spent int64) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.pending -= gr.reserved
	g.spent += spent
}

// sessionSpent is what finished hires of this session cost.
func (g *guard) sessionSpent() int64 {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.spent
}

func (g *guard) howToRaise(flag, key string) string {
	return fmt.Sprintf("restart 'swarmwage mcp' with %s AMOUNT, or set %s in %s/%s", flag, key, g.repoDir, LimitsFile)
}

func (g *guard) riskHint() string {
	return fmt.Sprintf("restart 'swarmwage mcp' with --allow-risk-tier-3, or set %s = true in %s/%s", KeyAllowRiskTier3, g.repoDir, LimitsFile)
}

func (g *guard) raiseSentence(name, flag, key string) string {
	s := "The node's owner can raise the cap: " + g.howToRaise(flag, key) + "."
	if name == capPerDay {
		s += " It resets at local midnight."
	}
	return s
}

func lowerFirst(s string) string {
	if s == "" {
		return s
	}
	return string(s[0]|0x20) + s[1:]
}

// daySpent sums what the node locked for hires since start: buyer escrow
// records created since then that were not refunded.
func daySpent(ctx context.Context, cl *node.Client, start time.Time) (int64, error) {
	recs, err := cl.EscrowList(ctx, escrow.Filter{Role: escrow.RoleBuyer})
	if err != nil {
		return 0, err
	}
	var sum int64
	for _, r := range recs {
		if r.CreatedAt.Before(start) {
			break // newest first
		}
		if r.State != escrow.StateRefunded {
			sum += r.Amount
		}
	}
	return sum, nil
}
