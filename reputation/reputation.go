// Package reputation turns a seller's published receipts (escrow.Receipt:
// the buyer-signed lock, the seller-signed delivery and the buyer-signed
// settle of each job, plus the rail's payment proof) into a score a buyer
// can rank strangers by, and states what that score resists.
//
// Threat model. A receipt's signatures prove that two keys signed a
// consistent job, not that value changed hands or that the two keys belong
// to different people. So:
//
//   - Forged, altered or self-contradictory receipts (bad signature, a
//     settle not signed by the lock's buyer, amounts that differ, a release
//     of nothing delivered, payloads that do not match their hashes, a
//     receipt relabelled with another rail than its lock's) are counted as
//     forged and weigh heavily against the seller: a seller serves only
//     receipts it holds, so a bad one is its own doing.
//   - Self-dealing: a receipt whose buyer is the seller counts for nothing.
//   - Sybil buyers: on the credits rail a seller can sign receipts with as
//     many buyer keys as it likes, at no cost. So every buyer counts by the
//     square root of its jobs (many jobs from one buyer add little), and
//     buyers this node has no history of its own with (it never sold to or
//     bought from them) count for a quarter each and, all together, for at
//     most UnknownCap buyers' worth. A thousand fresh identities gain a
//     seller no more than two buyers this node has traded with.
//   - Unpaid releases: on the evm rail a release counts (and adds to the
//     volume) only if its money moved on chain, as the buyer's own node
//     sees it (the paid hook; escrow.Escrow.CheckPayment): the receipt's
//     payment proof names a transaction whose Paid event, final on the
//     chain and escrow contract this node uses, pays the lock's job, buyer,
//     seller and amount, and the buyer's vouchers in the receipt are signed
//     for that chain and contract. A proof the receipt or the chain
//     contradicts (another amount, seller or job, no such transaction or
//     event, a reverted transaction, vouchers of another contract) is
//     counted as forged. A proof on another chain or contract, one not
//     final yet, a release not yet redeemed, or a chain this node cannot
//     reach leaves the release unpaid (Unpaid): it counts for nothing, and
//     neither does its buyer. So a seller cannot invent paid history or
//     volume on evm: every paid release cost a real transfer from a buyer's
//     line, and a self-dealing seller pays gas and ties up the amount for a
//     while to fake one, and its identities still count as unknown buyers.
//   - Volume: only value paid on a rail this node checks counts as volume
//     (Summary.Volume). Credits releases show as a count and as
//     SelfIssued, never as volume, and rank for less (UnknownCreditsCap):
//     anyone can issue a million test credits to a Sybil buyer and hire
//     itself with them.
//   - Duplicates: a job counts once however often it is served.
//
// What a Sybil costs, per rail. On credits: nothing but CPU; so a seller's
// credits history from buyers this node does not know scores at most 1/2
// whatever its size, and find shows it as self-issued. On evm: every paid
// release is a real token transfer from a buyer's line, final on chain,
// plus gas (an allocation and a share of a redeem batch); the money goes
// back to the Sybil's own seller address, so the lasting cost is gas and
// the time the amount is tied up, and strangers' paid history still
// counts for at most UnknownCap buyers' worth (a score of at most 2/3).
// Only buyers this node has traded with itself lift a seller beyond that.
//   - Hiding refunds: a seller may omit receipts; sampling cannot detect
//     that. Refunds it does serve lower its score, and the buyer's own
//     ratings and history come first in ranking.
//
// What it does not resist: a seller that pays real money through
// identities this node has traded with, or one that buys history with
// honest work for a long time and then cheats. Reputation ranks strangers;
// verification, not reputation, protects each payment.
package reputation

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"sync"
	"time"

	"github.com/libp2p/go-libp2p/core/peer"

	"github.com/swarmwage/swarmwage/escrow"
)

const (
	// UnknownWeight is what one buyer this node has no history with counts,
	// against 1 for a buyer it has traded with.
	UnknownWeight = 0.25
	// UnknownCap caps what all unknown buyers together count, in buyers'
	// worth: past it, more identities add nothing.
	UnknownCap = 2.0
	// UnknownCreditsCap caps what unknown buyers whose every release was
	// on the credits rail count together: credits are self-issued, so such
	// history costs nothing to make, and it weighs half what paid history
	// from unknown buyers may. A credits-only seller of strangers scores at
	// most 1/2; one with paid evm history from strangers at most 2/3.
	UnknownCreditsCap = 1.0
	// ForgedPenalty is what one forged receipt counts against the seller,
	// in known buyers' worth.
	ForgedPenalty = 3.0
	// paidConcurrency is how many payment checks run at once (each may
	// read the chain).
	paidConcurrency = 8
)

// Summary is what a sample of a seller's receipts says about it.
type Summary struct {
	Released int `json:"released"` // receipts of released, paid jobs that checked out
	Refunded int `json:"refunded"` // receipts of refunded jobs that checked out
	// Volume is what releases paid on a rail this node checked (evm: a
	// final Paid event on its own chain and contract), in token base
	// units. Credits releases are not in it: see SelfIssued.
	Volume int64 `json:"-"`
	// SelfIssued is what credits releases moved, in micro-credits. Test
	// credits are issued by each node to itself ('wallet deposit
	// --test-credits'), so this is a count of work, not of value, and
	// ranks nothing.
	SelfIssued int64 `json:"-"`
	Buyers     int   `json:"buyers"` // distinct buyers other than the seller whose receipts count
	// PayingBuyers is how many distinct buyers paid at least one release
	// on a checked rail (Volume's releases).
	PayingBuyers int `json:"paying_buyers"`
	// KnownBuyers is how many of Buyers this node has history of its own
	// with; the others ("no other history" as far as this node can tell)
	// count for UnknownWeight each, under a cap.
	KnownBuyers int `json:"known_buyers"`
	Forged      int `json:"forged"`  // receipts that failed Check, name another seller, or carry a false payment proof
	Checked     int `json:"checked"` // receipts whose signatures, messages and payment were verified
	Self        int `json:"self"`    // receipts the seller issued to itself (ignored)
	// Unpaid counts checked releases whose payment the rail does not show
	// (yet): they count for nothing.
	Unpaid int `json:"unpaid"`
	// FirstAt is the oldest settle in the sample: a rough age.
	FirstAt time.Time `json:"first_at,omitzero"`
	// Score is 0 (nothing, or bad) to 1 (much good history), after the
	// weighting of the threat model.
	Score float64 `json:"score"`
}

// Known reports whether this node has history of its own with a peer (it
// sold to or bought from it), which makes the peer's receipts count fully.
type Known func(peer.ID) bool

// Paid checks that a receipt's money moved on its rail: nil if it did, an
// error wrapping escrow.ErrForged if its payment proof is false (the
// receipt counts as forged), any other error if it cannot be shown (the
// release counts for nothing). escrow.Escrow.CheckPayment is one. It must
// be safe for concurrent use.
type Paid func(ctx context.Context, r *escrow.Receipt) error

// Summarize checks every receipt of seller and scores the sample. paid,
// if not nil, is asked about every checked release; nil counts each as
// paid (credits only).
func Summarize(ctx context.Context, seller peer.ID, receipts []escrow.Receipt, known Known, paid Paid) Summary {
	return summarize(ctx, seller, receipts, 0, known, paid)
}

// SummarizeWire is Summarize of receipts in wire form, as a seller served
// them: one that does not even decode counts as forged.
func SummarizeWire(ctx context.Context, seller peer.ID, raws [][]byte, known Known, paid Paid) Summary {
	rs := make([]escrow.Receipt, 0, len(raws))
	garbled := 0
	for _, raw := range raws {
		r, err := escrow.DecodeReceipt(raw)
		if err != nil {
			garbled++
			continue
		}
		rs = append(rs, *r)
	}
	return summarize(ctx, seller, rs, garbled, known, paid)
}

// Verdicts of one receipt.
type verdict int

const (
	vSkipped verdict = iota // a duplicate, or not looked at
	vForged
	vSelfDealt
	vReleased // a release, paid
	vUnpaid   // a release, its payment not shown
	vRefunded
	vOther // checked, neither release nor refund
)

// verdicts checks each receipt once and asks paid about the releases,
// paidConcurrency at a time.
func verdicts(ctx context.Context, seller peer.ID, receipts []escrow.Receipt, paid Paid) []verdict {
	out := make([]verdict, len(receipts))
	seen := map[string]bool{}
	var pending []int
	for i := range receipts {
		r := &receipts[i]
		if r.Lock == nil || seen[r.Lock.JobID] {
			continue // a job counts once
		}
		seen[r.Lock.JobID] = true
		switch {
		case r.Check() != nil || r.Lock.Seller != seller:
			out[i] = vForged
		case r.Lock.Buyer == seller:
			out[i] = vSelfDealt
		case r.Settle.Decision == escrow.DecisionRefund:
			out[i] = vRefunded
		case r.Settle.Decision != escrow.DecisionRelease:
			out[i] = vOther
		case paid == nil:
			out[i] = vReleased
		default:
			pending = append(pending, i)
		}
	}
	var wg sync.WaitGroup
	sem := make(chan struct{}, paidConcurrency)
	for _, i := range pending {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			switch err := paid(ctx, &receipts[i]); {
			case err == nil:
				out[i] = vReleased
			case errors.Is(err, escrow.ErrForged):
				out[i] = vForged
			default:
				out[i] = vUnpaid
			}
		}()
	}
	wg.Wait()
	return out
}

func summarize(ctx context.Context, seller peer.ID, receipts []escrow.Receipt, garbled int, known Known, paid Paid) Summary {
	s := Summary{Forged: garbled}
	type tally struct{ released, paid, refunded int }
	perBuyer := map[peer.ID]*tally{}
	for i, v := range verdicts(ctx, seller, receipts, paid) {
		r := &receipts[i]
		switch v {
		case vSkipped:
			continue
		case vForged:
			s.Forged++
			continue
		case vSelfDealt:
			s.Checked++
			s.Self++
			continue
		case vUnpaid:
			s.Checked++
			s.Unpaid++
			continue
		}
		s.Checked++
		if s.FirstAt.IsZero() || r.Settle.At.Before(s.FirstAt) {
			s.FirstAt = r.Settle.At
		}
		t := perBuyer[r.Lock.Buyer]
		if t == nil {
			t = &tally{}
			perBuyer[r.Lock.Buyer] = t
		}
		switch v {
		case vReleased:
			s.Released++
			t.released++
			if paidOnRail(r, paid) {
				s.Volume += r.Lock.Amount
				t.paid++
			} else {
				s.SelfIssued += r.Lock.Amount
			}
		case vRefunded:
			s.Refunded++
			t.refunded++
		}
	}
	s.Buyers = len(perBuyer)
	var knownPos, unknownPaidPos, unknownCreditsPos, knownNeg, unknownNeg float64
	for id, t := range perBuyer {
		pos, neg := math.Sqrt(float64(t.released)), math.Sqrt(float64(t.refunded))
		if t.paid > 0 {
			s.PayingBuyers++
		}
		switch {
		case known != nil && known(id):
			s.KnownBuyers++
			knownPos, knownNeg = knownPos+pos, knownNeg+neg
		case t.paid > 0:
			unknownPaidPos, unknownNeg = unknownPaidPos+UnknownWeight*pos, unknownNeg+UnknownWeight*neg
		default:
			unknownCreditsPos, unknownNeg = unknownCreditsPos+UnknownWeight*pos, unknownNeg+UnknownWeight*neg
		}
	}
	unknownPos := math.Min(unknownPaidPos+math.Min(unknownCreditsPos, UnknownCreditsCap), UnknownCap)
	pos := knownPos + unknownPos
	neg := knownNeg + math.Min(unknownNeg, UnknownCap) + ForgedPenalty*float64(s.Forged)
	s.Score = pos / (pos + neg + 1) // +1: a seller with no history scores 0
	return s
}

// paidOnRail reports whether a checked release's money moved on a rail
// the observer verified: a rail other than credits whose payment the paid
// hook confirmed. Credits releases are self-issued.
func paidOnRail(r *escrow.Receipt, paid Paid) bool {
	return paid != nil && r.Rail != "" && r.Rail != escrow.RailCredits
}

// Backing says in a few words what backs the score, for find and
// --explain: how many distinct buyers paid on a checked rail and how
// much, and how much of the history is self-issued credits.
func (s Summary) Backing() string {
	if s.Released+s.Refunded == 0 {
		return "no checked history"
	}
	parts := []string{fmt.Sprintf("%d of %d buyers paid on chain", s.PayingBuyers, s.Buyers)}
	if s.Volume > 0 {
		parts[0] += " (" + escrow.FormatAmount(s.Volume) + ")"
	}
	if s.SelfIssued > 0 {
		parts = append(parts, fmt.Sprintf("%s self-issued credits", escrow.FormatAmount(s.SelfIssued)))
	}
	parts = append(parts, fmt.Sprintf("%d known to this node", s.KnownBuyers))
	return strings.Join(parts, ", ")
}

// ErrNoReceipts is returned by callers that need a sample and got none.
var ErrNoReceipts = errors.New("no receipts")
