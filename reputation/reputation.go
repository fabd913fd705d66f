// Package reputation turns a seller's published receipts (escrow.Receipt:
// the buyer-signed lock, the seller-signed delivery and the buyer-signed
// settle of each job) into a score a buyer can rank strangers by, and
// states what that score resists.
//
// Threat model. A receipt proves that two keys signed a consistent job,
// not that value changed hands or that the two keys belong to different
// people. So:
//
//   - Forged, altered or self-contradictory receipts (bad signature, a
//     settle not signed by the lock's buyer, amounts that differ, a release
//     of nothing delivered, payloads that do not match their hashes) are
//     counted as forged and weigh heavily against the seller: a seller
//     serves only receipts it holds, so a bad one is its own doing.
//   - Self-dealing: a receipt whose buyer is the seller counts for nothing.
//   - Sybil buyers: on the credits rail a seller can sign receipts with as
//     many buyer keys as it likes, at no cost. So every buyer counts by the
//     square root of its jobs (many jobs from one buyer add little), and
//     buyers this node has no history of its own with (it never sold to or
//     bought from them) count for a quarter each and, all together, for at
//     most UnknownCap buyers' worth. A thousand fresh identities gain a
//     seller no more than two buyers this node has traded with. On the evm
//     rail only receipts whose money moved on chain count as paid, weighted
//     by what they cost.
//   - Duplicates: a job counts once however often it is served.
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
	"errors"
	"math"
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
	// ForgedPenalty is what one forged receipt counts against the seller,
	// in known buyers' worth.
	ForgedPenalty = 3.0
)

// Summary is what a sample of a seller's receipts says about it.
type Summary struct {
	Released int   `json:"released"` // receipts of released jobs that checked out
	Refunded int   `json:"refunded"` // receipts of refunded jobs that checked out
	Volume   int64 `json:"-"`        // micro-credits released
	Buyers   int   `json:"buyers"`   // distinct buyers other than the seller
	Forged   int   `json:"forged"`   // receipts that failed Check or name another seller
	Checked  int   `json:"checked"`  // receipts whose signatures and chain were verified
	Self     int   `json:"self"`     // receipts the seller issued to itself (ignored)
	// FirstAt is the oldest settle in the sample: a rough age.
	FirstAt time.Time `json:"first_at,omitzero"`
	// Score is 0 (nothing, or bad) to 1 (much good history), after the
	// weighting of the threat model.
	Score float64 `json:"score"`
}

// Known reports whether this node has history of its own with a peer (it
// sold to or bought from it), which makes the peer's receipts count fully.
type Known func(peer.ID) bool

// Summarize checks every receipt of seller and scores the sample. paid, if
// not nil, says whether a receipt's money moved on its rail (the evm rail
// checks the chain); nil counts every checked release as paid (credits).
func Summarize(seller peer.ID, receipts []escrow.Receipt, known Known, paid func(escrow.Receipt) bool) Summary {
	return summarize(seller, receipts, 0, known, paid)
}

// SummarizeWire is Summarize of receipts in wire form, as a seller served
// them: one that does not even decode counts as forged.
func SummarizeWire(seller peer.ID, raws [][]byte, known Known, paid func(escrow.Receipt) bool) Summary {
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
	return summarize(seller, rs, garbled, known, paid)
}

func summarize(seller peer.ID, receipts []escrow.Receipt, garbled int, known Known, paid func(escrow.Receipt) bool) Summary {
	s := Summary{Forged: garbled}
	type tally struct{ released, refunded int }
	perBuyer := map[peer.ID]*tally{}
	seen := map[string]bool{}
	for i := range receipts {
		r := &receipts[i]
		if r.Lock == nil || seen[r.Lock.JobID] {
			continue // a job counts once
		}
		seen[r.Lock.JobID] = true
		if err := r.Check(); err != nil || r.Lock.Seller != seller {
			s.Forged++
			continue
		}
		s.Checked++
		if r.Lock.Buyer == seller {
			s.Self++
			continue
		}
		t := perBuyer[r.Lock.Buyer]
		if t == nil {
			t = &tally{}
			perBuyer[r.Lock.Buyer] = t
		}
		if s.FirstAt.IsZero() || r.Settle.At.Before(s.FirstAt) {
			s.FirstAt = r.Settle.At
		}
		switch {
		case r.Settle.Decision == escrow.DecisionRelease && (paid == nil || paid(*r)):
			s.Released++
			s.Volume += r.Lock.Amount
			t.released++
		case r.Settle.Decision == escrow.DecisionRefund:
			s.Refunded++
			t.refunded++
		}
	}
	s.Buyers = len(perBuyer)
	var knownPos, unknownPos, knownNeg, unknownNeg float64
	for id, t := range perBuyer {
		pos, neg := math.Sqrt(float64(t.released)), math.Sqrt(float64(t.refunded))
		if known != nil && known(id) {
			knownPos, knownNeg = knownPos+pos, knownNeg+neg
		} else {
			unknownPos, unknownNeg = unknownPos+UnknownWeight*pos, unknownNeg+UnknownWeight*neg
		}
	}
	pos := knownPos + math.Min(unknownPos, UnknownCap)
	neg := knownNeg + math.Min(unknownNeg, UnknownCap) + ForgedPenalty*float64(s.Forged)
	s.Score = pos / (pos + neg + 1) // +1: a seller with no history scores 0
	return s
}

// ErrNoReceipts is returned by callers that need a sample and got none.
var ErrNoReceipts = errors.New("no receipts")
