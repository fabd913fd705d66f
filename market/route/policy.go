package route

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/libp2p/go-libp2p/core/peer"
)

// Policy is one [[policy]] table: rules for hires of a capability ID or of
// every capability under a prefix. Policy is attached to the capability,
// not the seller (WCP): it applies whoever sells it.
type Policy struct {
	// Match is the capability ID or prefix ("compute.statistics", "cap.db")
	// the policy is for.
	Match string
	// MaxPrice caps what one hire may cost, in micro-credits; 0: no cap.
	MaxPrice int64
	// QoS is the class a hire gets when it names none; "": the default.
	QoS QoS
	// AllowSellers, when not empty, are the only sellers hired.
	AllowSellers []peer.ID
	// DenySellers are never hired.
	DenySellers []peer.ID
	// MinRating drops sellers this node rated lower, or never rated (1..5;
	// 0: none).
	MinRating float64
	// RequireConfirmation stops a hire before any escrow unless it is
	// confirmed (hire --confirm): WCP's steward hold.
	RequireConfirmation bool
}

// ErrBadPolicy is wrapped by every error of Validate.
var ErrBadPolicy = errors.New("invalid policy")

// Validate checks a policy; the error names the key that is wrong.
func (p Policy) Validate() error {
	if p.Match == "" {
		return fmt.Errorf("%w: capability is missing", ErrBadPolicy)
	}
	if strings.HasPrefix(p.Match, ".") || strings.HasSuffix(p.Match, ".") || strings.Contains(p.Match, "..") || strings.ContainsAny(p.Match, " \t/") {
		return fmt.Errorf("%w %s: capability %q is not a capability ID or prefix", ErrBadPolicy, p.Match, p.Match)
	}
	if p.MaxPrice < 0 {
		return fmt.Errorf("%w %s: max_price must not be negative", ErrBadPolicy, p.Match)
	}
	if p.QoS != "" {
		if _, ok := speedWeight[p.QoS]; !ok {
			return fmt.Errorf("%w %s: qos: %w, not %q", ErrBadPolicy, p.Match, ErrBadQoS, p.QoS)
		}
	}
	if p.MinRating < 0 || p.MinRating > 5 {
		return fmt.Errorf("%w %s: min_rating %.1f: want 0 to 5", ErrBadPolicy, p.Match, p.MinRating)
	}
	for _, id := range p.AllowSellers {
		if slices.Contains(p.DenySellers, id) {
			return fmt.Errorf("%w %s: seller %s is in both allow_sellers and deny_sellers", ErrBadPolicy, p.Match, id)
		}
	}
	return nil
}

func (p *Policy) allows(id peer.ID) bool { return slices.Contains(p.AllowSellers, id) }
func (p *Policy) denies(id peer.ID) bool { return slices.Contains(p.DenySellers, id) }

// Policies are a node's [[policy]] tables.
type Policies []Policy

// Validate checks every policy and that no two match the same ID.
func (ps Policies) Validate() error {
	seen := make(map[string]bool, len(ps))
	for _, p := range ps {
		if err := p.Validate(); err != nil {
			return err
		}
		if seen[p.Match] {
			return fmt.Errorf("%w %s: two [[policy]] tables for the same capability", ErrBadPolicy, p.Match)
		}
		seen[p.Match] = true
	}
	return nil
}

// For returns the most specific policy for capID: the one whose Match is
// capID itself, else its longest prefix on a dot boundary; nil if none.
func (ps Policies) For(capID string) *Policy {
	var best *Policy
	for i := range ps {
		m := ps[i].Match
		if m != capID && !strings.HasPrefix(capID, m+".") {
			continue
		}
		if best == nil || len(m) > len(best.Match) {
			best = &ps[i]
		}
	}
	return best
}

// Matches lists every policy's Match, for keeping them warm in the
// prefetch cache.
func (ps Policies) Matches() []string {
	out := make([]string, 0, len(ps))
	for _, p := range ps {
		out = append(out, p.Match)
	}
	return out
}
