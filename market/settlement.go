package market

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/swarmwage/swarmwage/escrow"
)

// Settlement is how a seller is paid, as its signed listing says: the
// settlement rail and, on a rail other than credits, the escrow it uses and
// the seller's payout address there. A buyer hires only sellers on its own
// rail and escrow, and its locks pay PayTo. Credits listings carry none, as
// before rails existed.
type Settlement struct {
	// Rail is the rail's name (escrow.RailEVM).
	Rail string `json:"rail"`
	// Escrow is the rail's escrow (on evm: the contract's address).
	Escrow string `json:"escrow,omitempty"`
	// PayTo is the seller's payout address on the rail.
	PayTo string `json:"pay_to"`
}

// ListingSettlement makes this node's listings carry s (signed with them)
// and its hires go only to sellers whose listings name the same rail and
// escrow. Defaults to none: the credits rail.
func ListingSettlement(s *Settlement) Option {
	return func(c *config) error {
		if s != nil && (s.Rail == "" || s.Rail == escrow.RailCredits || s.PayTo == "") {
			return fmt.Errorf("market: ListingSettlement: rail %q with payout address %q: a rail other than credits and an address are needed", s.Rail, s.PayTo)
		}
		c.settlement = s
		return nil
	}
}

// RailOf names a listing's rail: escrow.RailCredits without a settlement.
func RailOf(l Listing) string {
	if l.Settlement == nil || l.Settlement.Rail == "" {
		return escrow.RailCredits
	}
	return l.Settlement.Rail
}

// payable reports why this node cannot pay a seller's listing, or "" if it
// can: the same rail and escrow, and an address to pay.
func (m *shared) payable(l Listing) string {
	mine, theirs := m.cfg.settlement, l.Settlement
	switch {
	case mine == nil && theirs == nil:
		return ""
	case mine == nil:
		return fmt.Sprintf("the seller settles on rail %s, this node in %s", RailOf(l), escrow.RailCredits)
	case theirs == nil:
		return fmt.Sprintf("the seller settles in %s, this node on rail %s", escrow.RailCredits, mine.Rail)
	case theirs.Rail != mine.Rail:
		return fmt.Sprintf("the seller settles on rail %s, this node on %s", theirs.Rail, mine.Rail)
	case !strings.EqualFold(theirs.Escrow, mine.Escrow):
		return fmt.Sprintf("the seller uses escrow %s, this node %s", theirs.Escrow, mine.Escrow)
	case theirs.PayTo == "":
		return "the seller's listing has no payout address"
	}
	return ""
}

func sameSettlement(a, b *Settlement) bool {
	if a == nil || b == nil {
		return a == b
	}
	return *a == *b
}

// resignListings signs again, with this node's settlement and terms, every
// stored listing signed with others (or none): a listing added while no daemon
// ran, or before the node's rail changed. It runs before the listings are
// announced, so buyers only see the payout address of the node's rail. A
// listing signed before listings carried a type tag is signed again with it.
func (m *Market) resignListings(ctx context.Context) error {
	offers, err := m.store.List(ctx)
	if err != nil {
		return err
	}
	terms := m.store.terms.Load()
	for _, o := range offers {
		if !o.Signed.Untagged() && sameSettlement(o.Signed.Listing.Settlement, m.cfg.settlement) && sameTerms(o.Signed.Listing.Terms, terms) {
			continue
		}
		l := o.Signed.Listing
		l.Settlement, l.Terms = m.cfg.settlement, terms
		l.CreatedAt = m.store.now().UTC().Truncate(time.Second)
		if err := m.store.putSigned(l, o.Handler); err != nil {
			return fmt.Errorf("sign listing %s for rail %s: %w", l.Capability, RailOf(l), err)
		}
	}
	return nil
}
