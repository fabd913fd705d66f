package mcp

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"time"

	"github.com/swarmwage/swarmwage/controlapi"
	"github.com/swarmwage/swarmwage/escrow"
)

// Names of the caps, as refusals and the spending document name them.
const (
	capPerHire    = "per-hire"
	capPerSession = "per-session"
	capPerDay     = "per-day"
)

// sessionScopePrefix starts the escrow spend scope of an MCP session.
const sessionScopePrefix = "mcp-session/"

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

// guard enforces Limits for one Server. The per-hire cap is the hire's
// maximum price. The per-session and per-day caps are enforced by the
// daemon: each hire request carries them as spend caps, and the escrow
// lock checks them in its own transaction, so hires running at once, from
// this server or any other on the same daemon, cannot together pass one.
// The guard checks them first too, against what the daemon reports, to
// refuse early and to cap the price of a hire without max_price. Safe for
// concurrent use (it holds no mutable state).
type guard struct {
	limits  Limits
	repoDir string
	now     func() time.Time
	// session is this server's spend scope in the daemon's escrow, and
	// start when the session began.
	session string
	start   time.Time
}

func newGuard(l Limits, repoDir string, now func() time.Time) *guard {
	b := make([]byte, 12)
	_, _ = rand.Read(b) // crypto/rand.Read never fails on supported platforms
	return &guard{limits: l, repoDir: repoDir, now: now, session: sessionScopePrefix + hex.EncodeToString(b), start: now()}
}

// usage is what counts against the caps, as the daemon's escrow reports
// it: locked and not refunded, in micro-credits.
type usage struct {
	session int64 // by this session's hires
	day     int64 // by the node's hires since local midnight
}

// grant is what plan allows one hire.
type grant struct {
	// maxPrice is the most the hire may pay (0: no limit at all).
	maxPrice int64
	// limitedBy names the cap that set maxPrice when the agent gave no
	// max_price ("" when the agent's own max_price applies).
	limitedBy string
}

// dayStart is local midnight of the current day.
func (g *guard) dayStart() time.Time {
	now := g.now()
	y, m, d := now.Date()
	return time.Date(y, m, d, 0, 0, 0, 0, now.Location())
}

// usage asks the daemon what counts against the caps now.
func (g *guard) usage(ctx context.Context, cl *controlapi.Client) (usage, error) {
	var u usage
	var err error
	if u.session, err = cl.Spent(ctx, g.session, g.start); err != nil {
		return u, err
	}
	if u.day, err = cl.Spent(ctx, "", g.dayStart()); err != nil {
		return u, err
	}
	return u, nil
}

// spendCaps are the caps a hire request carries to the daemon. The session
// scope is always sent, so the session's spend can be read back even
// without a per-session cap.
func (g *guard) spendCaps() []controlapi.SpendCap {
	caps := []controlapi.SpendCap{{Name: capPerSession, Scope: g.session, Since: g.start, Limit: escrow.FormatAmount(g.limits.MaxPerSession)}}
	if g.limits.MaxPerDay > 0 {
		caps = append(caps, controlapi.SpendCap{Name: capPerDay, Since: g.dayStart(), Limit: escrow.FormatAmount(g.limits.MaxPerDay)})
	}
	return caps
}

// capRow is one of the caps that add up over hires.
type capRow struct {
	name, flag, key string
	limit, used     int64
	note            string
}

func (g *guard) rows(u usage) []capRow {
	return []capRow{
		{capPerSession, "--max-per-session", KeyMaxPerSession, g.limits.MaxPerSession, u.session, "locked by this MCP session and not refunded"},
		{capPerDay, "--max-per-day", KeyMaxPerDay, g.limits.MaxPerDay, u.day, "locked by this node today, counted from its escrow records, and not refunded"},
	}
}

// plan checks a hire that asks to pay at most asked (0: the agent gave no
// max_price) against every cap, given u, and says the most it may pay.
// Refusals wrap ErrCapExceeded.
func (g *guard) plan(asked int64, u usage) (grant, error) {
	l := g.limits
	if l.MaxPerHire > 0 && asked > l.MaxPerHire {
		return grant{}, &CapError{Cap: capPerHire, Limit: l.MaxPerHire, Left: l.MaxPerHire, msg: fmt.Sprintf("Refused: max_price %s is over the per-hire cap of %s. Ask again with max_price at most %s, or have the node's owner raise the cap (%s).",
			escrow.FormatAmount(asked), capText(l.MaxPerHire), escrow.FormatAmount(l.MaxPerHire), g.howToRaise("--max-per-hire", KeyMaxPerHire))}
	}
	gr := grant{maxPrice: asked}
	if asked == 0 && l.MaxPerHire > 0 {
		gr.maxPrice, gr.limitedBy = l.MaxPerHire, capPerHire
	}
	for _, c := range g.rows(u) {
		if c.limit <= 0 {
			continue
		}
		left := c.limit - c.used
		switch {
		case left <= 0 || asked > left:
			return grant{}, g.refusal(c, asked)
		case asked == 0 && (gr.maxPrice == 0 || left < gr.maxPrice):
			gr.maxPrice, gr.limitedBy = left, c.name
		}
	}
	return gr, nil
}

// refusal is the CapError of cap c for a hire that may cost asked.
func (g *guard) refusal(c capRow, asked int64) *CapError {
	left := max(0, c.limit-c.used)
	if left == 0 {
		return &CapError{Cap: c.name, Limit: c.limit, msg: fmt.Sprintf("Refused: the %s cap of %s is used up (%s %s). %s",
			c.name, capText(c.limit), escrow.FormatAmount(c.used), c.note, g.raiseSentence(c.name, c.flag, c.key))}
	}
	return &CapError{Cap: c.name, Limit: c.limit, Left: left, msg: fmt.Sprintf("Refused: this hire may cost up to %s (max_price) but only %s of the %s cap of %s is left (%s %s). Ask with max_price at most %s, or %s",
		escrow.FormatAmount(asked), escrow.FormatAmount(left), c.name, capText(c.limit), escrow.FormatAmount(c.used), c.note,
		escrow.FormatAmount(left), lowerFirst(g.raiseSentence(c.name, c.flag, c.key)))}
}

// fromDaemon turns the daemon's refusal of a hire by a spend cap (another
// hire got there first) into the same CapError plan gives.
func (g *guard) fromDaemon(r *controlapi.SpendCapRefusal) *CapError {
	limit, _ := escrow.ParseAmount(r.Limit)
	used, _ := escrow.ParseAmount(r.Used)
	amount, _ := escrow.ParseAmount(r.Amount)
	u := usage{session: used, day: used}
	for _, c := range g.rows(u) {
		if c.name == r.Name {
			c.limit = limit
			return g.refusal(c, amount)
		}
	}
	return &CapError{Cap: r.Name, Limit: limit, msg: fmt.Sprintf("Refused by the daemon's %s spend cap of %s: %s left, the hire needs %s.", r.Name, r.Limit, r.Left, r.Amount)}
}

// allows reports (as a refusal error, or nil) whether a hire at price
// would pass the caps now.
func (g *guard) allows(price int64, u usage) error {
	_, err := g.plan(price, u)
	return err
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
