// Package route is the buyer's Hall (WCP, docs/specs/
// wcp-capabilities.md): it decides which seller serves a hire of a
// capability, against candidates the node already knows (the prefetch
// cache), with no registry call on the hot path. It owns
//
//   - [[policy]] tables: rules attached to a capability ID or a prefix
//     (price cap, QoS class, allow and deny lists, minimum rating, a
//     confirmation hold like WCP's steward hold); the most specific wins;
//   - QoS classes P0-P3 and the ranking rule behind them;
//   - the WCP catalog's tombstones: a retired ID routes to its successor;
//   - the reasons behind every decision (hire --explain, find --explain).
//
// It is pure logic over values; the market feeds it candidates and keeps
// the latency history in Badger.
package route

import (
	"errors"
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/libp2p/go-libp2p/core/peer"
)

// QoS is a request's quality-of-service class: P0 is the fastest seller
// whatever it costs, P3 the cheapest whatever it takes.
type QoS string

// QoS classes.
const (
	P0 QoS = "P0"
	P1 QoS = "P1"
	P2 QoS = "P2"
	P3 QoS = "P3"
	// DefaultQoS is the class of a hire that names none.
	DefaultQoS = P2
)

// speedWeight is how much each class weighs speed against price in a
// candidate's score (see Rank): P0 only speed, P3 only price, P1 and P2 in
// between, leaning to speed and to price.
var speedWeight = map[QoS]float64{P0: 1, P1: 2.0 / 3, P2: 1.0 / 3, P3: 0}

// ErrBadQoS is returned for a QoS class other than P0..P3.
var ErrBadQoS = errors.New("QoS class must be P0, P1, P2 or P3")

// ParseQoS parses "P0".."P3" (case-insensitive); "" is the default.
func ParseQoS(s string) (QoS, error) {
	if s == "" {
		return DefaultQoS, nil
	}
	q := QoS(strings.ToUpper(s))
	if _, ok := speedWeight[q]; !ok {
		return "", fmt.Errorf("%w, not %q", ErrBadQoS, s)
	}
	return q, nil
}

// Candidate is a seller that offers the capability, as this node knows it.
type Candidate struct {
	Peer  peer.ID
	Price int64 // micro-credits, from its signed listing
	// Rating is this node's average rating of the seller (1..5), 0 if none.
	Rating float64
	// LatencyMS is the expected time of a job in milliseconds: this node's
	// own history of the seller's jobs of the capability (an exponentially
	// weighted average) or, without one, the round-trip time plus the
	// median of the others' processing time.
	LatencyMS float64
	// FromHistory says LatencyMS comes from this node's own jobs.
	FromHistory bool
	// RTTMS is the round-trip time of fetching its listing.
	RTTMS float64
	// Reputation is the 0..1 score of the seller's receipts (package
	// reputation); it ranks after this node's own rating.
	Reputation float64
	// Backing says what backs Reputation (paying buyers, on-chain value,
	// self-issued credits), for --explain; "" when there is none.
	Backing string
	// Misquotes is how often the seller's quote did not match its signed
	// listing (a price above it): each was refused before any lock.
	Misquotes int
}

// Decision is what routing made of one candidate.
type Decision struct {
	Candidate
	Chosen bool    // the first choice of the hire
	Rank   int     // 1-based position among the eligible; 0 if dropped
	Score  float64 // lower is better; 0..1
	Reason string
}

// Request is what a hire asks of routing.
type Request struct {
	Capability string
	QoS        QoS
	MaxPrice   int64   // micro-credits; 0: none (the policy's still applies)
	Policy     *Policy // the policy that applies, or nil
	// Explain fills the reason of every eligible candidate too (dropped
	// ones always get theirs: they answer "why did my hire find nobody").
	Explain bool
}

// Rank orders candidates for req: those that pass the price cap and the
// policy come first, best first, each with its reason; the dropped follow,
// each with why. The rule: each eligible candidate's price and latency are
// scaled to 0..1 across the eligible (cheapest 0, dearest 1; fastest 0,
// slowest 1), and its score is w*latency + (1-w)*price with w = 1 for P0,
// 2/3 for P1, 1/3 for P2 and 0 for P3. Lower scores win; ties go to the
// better rated by this node, then the better reputed (receipts), then the
// cheaper, then the faster. A seller that ever quoted off its signed
// listing (Misquotes) ranks after every one that did not, whatever its
// score: its listing cannot be taken at its word.
func Rank(cands []Candidate, req Request) []Decision {
	q := req.QoS
	if _, ok := speedWeight[q]; !ok {
		q = DefaultQoS
	}
	maxPrice := req.MaxPrice
	if p := req.Policy; p != nil && p.MaxPrice > 0 && (maxPrice == 0 || p.MaxPrice < maxPrice) {
		maxPrice = p.MaxPrice
	}
	var ok, dropped []Decision
	for _, c := range cands {
		if why := drop(c, req.Policy, maxPrice); why != "" {
			dropped = append(dropped, Decision{Candidate: c, Reason: why})
			continue
		}
		ok = append(ok, Decision{Candidate: c})
	}
	score(ok, speedWeight[q])
	sort.SliceStable(ok, func(i, j int) bool { return better(ok[i], ok[j]) })
	for i := range ok {
		ok[i].Rank = i + 1
		if req.Explain {
			ok[i].Reason = reason(ok, i, q)
		}
	}
	if len(ok) > 0 {
		ok[0].Chosen = true
	}
	return append(ok, dropped...)
}

// drop says why a candidate may not serve the request, or "".
func drop(c Candidate, p *Policy, maxPrice int64) string {
	if maxPrice > 0 && c.Price > maxPrice {
		return fmt.Sprintf("price %s is over the maximum %s", credits(c.Price), credits(maxPrice))
	}
	if p == nil {
		return ""
	}
	if p.denies(c.Peer) {
		return fmt.Sprintf("denied by policy %s (deny_sellers)", p.Match)
	}
	if len(p.AllowSellers) > 0 && !p.allows(c.Peer) {
		return fmt.Sprintf("not in policy %s's allow_sellers", p.Match)
	}
	if p.MinRating > 0 && c.Rating < p.MinRating {
		if c.Rating == 0 {
			return fmt.Sprintf("unrated; policy %s needs min_rating %.1f", p.Match, p.MinRating)
		}
		return fmt.Sprintf("rating %.1f is under policy %s's min_rating %.1f", c.Rating, p.Match, p.MinRating)
	}
	return ""
}

// score sets each decision's score with speed weight w.
func score(ds []Decision, w float64) {
	if len(ds) == 0 {
		return
	}
	minP, maxP := math.Inf(1), math.Inf(-1)
	minL, maxL := math.Inf(1), math.Inf(-1)
	for _, d := range ds {
		p := float64(d.Price)
		minP, maxP = math.Min(minP, p), math.Max(maxP, p)
		minL, maxL = math.Min(minL, d.LatencyMS), math.Max(maxL, d.LatencyMS)
	}
	for i := range ds {
		ds[i].Score = w*scale(ds[i].LatencyMS, minL, maxL) + (1-w)*scale(float64(ds[i].Price), minP, maxP)
	}
}

func scale(v, lo, hi float64) float64 {
	if hi <= lo {
		return 0
	}
	return (v - lo) / (hi - lo)
}

func better(a, b Decision) bool {
	if (a.Misquotes > 0) != (b.Misquotes > 0) {
		return a.Misquotes == 0
	}
	if a.Score != b.Score {
		return a.Score < b.Score
	}
	if a.Rating != b.Rating {
		return a.Rating > b.Rating
	}
	if a.Reputation != b.Reputation {
		return a.Reputation > b.Reputation
	}
	if a.Price != b.Price {
		return a.Price < b.Price
	}
	return a.LatencyMS < b.LatencyMS
}

// reason explains the place of ds[i] among the eligible.
func reason(ds []Decision, i int, q QoS) string {
	d := ds[i]
	lat := fmt.Sprintf("%.0f ms (%s)", d.LatencyMS, latencySource(d.Candidate))
	what := fmt.Sprintf("price %s, latency %s, score %.2f under %s", credits(d.Price), lat, d.Score, q)
	if d.Rating > 0 {
		what += fmt.Sprintf(", rated %.1f", d.Rating)
	}
	if d.Reputation > 0 {
		what += fmt.Sprintf(", reputation %.2f", d.Reputation)
		if d.Backing != "" {
			what += " (" + d.Backing + ")"
		}
	}
	if d.Misquotes > 0 {
		what += fmt.Sprintf(", quoted off its listing %d time(s) (ranked after sellers that never did)", d.Misquotes)
	}
	if i == 0 {
		return "chosen: best " + what
	}
	return fmt.Sprintf("ranked %d: %s; tried if the ones before it fail", i+1, what)
}

func latencySource(c Candidate) string {
	if c.FromHistory {
		return "this node's jobs"
	}
	return "estimated from round-trip time"
}

// credits renders micro-credits as a decimal string (as escrow does; route
// does not import escrow).
func credits(micro int64) string {
	s := fmt.Sprintf("%d.%06d", micro/1_000_000, micro%1_000_000)
	s = strings.TrimRight(s, "0")
	return strings.TrimSuffix(s, ".")
}

// Estimate fills LatencyMS for candidates without history: their RTT plus
// the median processing time (latency minus RTT) of those with history, or
// the RTT alone when none has any. A seller never hired is then neither
// favoured nor punished for lack of data.
func Estimate(cands []Candidate) {
	var proc []float64
	for _, c := range cands {
		if c.FromHistory {
			proc = append(proc, math.Max(0, c.LatencyMS-c.RTTMS))
		}
	}
	median := 0.0
	if len(proc) > 0 {
		sort.Float64s(proc)
		median = proc[len(proc)/2]
		if len(proc)%2 == 0 {
			median = (proc[len(proc)/2-1] + proc[len(proc)/2]) / 2
		}
	}
	for i := range cands {
		if !cands[i].FromHistory {
			cands[i].LatencyMS = cands[i].RTTMS + median
		}
	}
}

// EWMAAlpha is the weight of the newest job in a seller's latency history.
const EWMAAlpha = 0.3

// UpdateEWMA folds a job's duration into a history average (prev 0: none).
func UpdateEWMA(prev, sampleMS float64) float64 {
	if prev <= 0 {
		return sampleMS
	}
	return EWMAAlpha*sampleMS + (1-EWMAAlpha)*prev
}
