package market

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/libp2p/go-libp2p/core/peer"

	"github.com/swarmwage/swarmwage/escrow"
	"github.com/swarmwage/swarmwage/internal/failpoint"
	"github.com/swarmwage/swarmwage/market/route"
	"github.com/swarmwage/swarmwage/verify"
)

const (
	// DefaultHireTimeout bounds a whole hire when the caller gives none.
	DefaultHireTimeout = 60 * time.Second
	// maxEventLine caps one NDJSON event: a result carries the output.
	maxEventLine = maxHandlerOutput + 64<<10
	// pollInterval is how often a buyer whose job stream broke asks the
	// seller for the job's status.
	pollInterval = 500 * time.Millisecond
	// candidatesPerHire bounds how many sellers one hire asks for quotes.
	candidatesPerHire = 20
	// verifyTimeout bounds verifying and settling a delivered output.
	verifyTimeout = 60 * time.Second
)

// Outcomes of a hire that are not plain errors; the CLI maps each to its
// own exit code.
var (
	// ErrInvalidInput: the input does not match the capability's input
	// schema (checked before anything is sent).
	ErrInvalidInput = errors.New("invalid input")
	// ErrNoSeller: no seller at or under the maximum price answered.
	ErrNoSeller = errors.New("no seller")
	// ErrJobFailed: the job failed at the seller (or the seller went silent
	// past the deadline); the hold was refunded.
	ErrJobFailed = errors.New("job failed at the seller")
	// ErrVerificationFailed: the output failed local verification; the
	// hold was refunded.
	ErrVerificationFailed = errors.New("verification failed")
	// ErrCancelled: the buyer cancelled the hire (jobs cancel, Ctrl-C)
	// before its output was delivered; the hold was refunded. A caller
	// cancels a hire with context.WithCancelCause(ctx) and this cause.
	ErrCancelled = errors.New("cancelled by the buyer")
	// ErrTimedOut: no result within the hire's timeout while the seller was
	// still reachable and working; the hold was refunded.
	ErrTimedOut = errors.New("no result within the timeout")
	// ErrQuoteOffListing: a seller quoted other terms than its signed
	// listing (a price above it); the quote was refused before any lock.
	ErrQuoteOffListing = errors.New("quote does not match the seller's listing")
	// ErrNeedsConfirm: the capability is risk tier 3 and the hire was not
	// confirmed.
	ErrNeedsConfirm = errors.New("risk tier 3 capability needs confirmation")
)

// HireRequest is what a buyer asks for.
type HireRequest struct {
	Capability string
	Input      json.RawMessage
	// MaxPrice is the most the buyer pays, in micro units of the rail;
	// 0: the node's limit (the MaxPrice option, [market] max_price), or a
	// [[policy]] max_price for the capability.
	MaxPrice int64
	// Seller, when set, hires only this peer.
	Seller peer.ID
	// Timeout bounds the whole hire; it is also the job's deadline.
	// Defaults to DefaultHireTimeout.
	Timeout time.Duration
	// Confirm allows hiring a risk tier 3 capability, and a capability
	// whose [[policy]] requires confirmation.
	Confirm bool
	// QoS is the request's class (P0 fastest .. P3 cheapest); "" takes the
	// policy's, else route.DefaultQoS.
	QoS route.QoS
	// Explain keeps the reason of every candidate in the result.
	Explain bool
	// RequireConfirm makes Confirm or AllowRisk3 the only allowance for
	// risk tier 3: the node's allow_risk_tier_3 does not apply (MCP sets
	// it, so only its own allowance counts).
	RequireConfirm bool
	// AllowRisk3 is a front end's own allowance of risk tier 3 (MCP's
	// --allow-risk-tier-3). Unlike Confirm it is no person's confirmation:
	// it never lifts a [[policy]] require_confirmation hold.
	AllowRisk3 bool
	// SpendCaps are checked by the escrow lock, atomically with the hold
	// (escrow.SpendCap).
	SpendCaps []escrow.SpendCap
	// Progress, when set, is called with every event of the job.
	Progress func(Event)

	// standard is set by Hire: the capability has the taxonomy's schemas
	// and checks.
	standard bool
	// limitBy names what set MaxPrice when the caller did not ("" when it
	// did): limitByConfig or a [[policy]].
	limitBy string
	// events is the hire's event history, set by Hire.
	events *hireEvents
}

// limitByConfig names the node's own price limit (MaxPrice option).
const limitByConfig = "[market] max_price"

// HireResult is what a hire produced, also when it failed after the lock.
type HireResult struct {
	JobID      string          `json:"job_id"`
	Capability string          `json:"capability"`
	Seller     peer.ID         `json:"seller"`
	Price      Credits         `json:"price"`
	Output     json.RawMessage `json:"output"`
	Report     verify.Report   `json:"verification"`
	State      escrow.State    `json:"state"`
	Reason     string          `json:"reason,omitempty"`
	DurationMS int64           `json:"duration_ms"`
	// Requested is the capability asked for when a WCP tombstone routed
	// the hire to Capability, its successor.
	Requested string `json:"requested,omitempty"`
	// Routing is the decision that chose the seller.
	Routing *Routed `json:"routing,omitempty"`
	// Connection is the kind of libp2p connection the job ran over:
	// ConnDirect or ConnRelayed; empty if the job was never sent.
	Connection string `json:"connection,omitempty"`
	// Rail is the settlement rail of the job (escrow.RailCredits, RailEVM).
	Rail string `json:"rail,omitempty"`

	// events is the hire's event history (HireRequest.events), written with
	// the job record's last update.
	events *hireEvents
}

// WireInput is a job's input as the buyer puts it in the POST /jobs body
// (json.Marshal of a json.RawMessage: compact, with <, > and & escaped as
// \u003c, \u003e, \u0026). The lock's input_hash is the sha256 of these
// bytes, the bytes the seller reads back, so an input given with spaces or
// newlines (a script's pretty-printed JSON) hashes the same on both sides.
// in must be valid JSON; WireInput(WireInput(x)) == WireInput(x).
func WireInput(in json.RawMessage) json.RawMessage {
	b, err := json.Marshal(in)
	if err != nil {
		return in // not JSON: checkHireInput refuses it before this
	}
	return b
}

// Hire buys one job of req.Capability. It is the one entry of every hire
// a node starts, and runs the steps of a hire top to bottom:
//
//	resolveRequest  capability (WCP tombstones), policy, price limit, input
//	candidates      the sellers routing ranks (policy, QoS, reputation)
//	buy             per candidate, best first: quote, then runHire's
//	                lock, run, verifyAndSettle (verify, settle)
//	receipt         the result, with the routing decision
//
// After the lock, every path ends settled or with the escrow timers in
// charge; nothing is left half-done.
func (b *Buyer) Hire(ctx context.Context, req HireRequest) (HireResult, error) {
	if err := b.cfg.admission(ctx); err != nil {
		return HireResult{}, err // before anything is locked
	}
	start := time.Now()
	if req.Timeout <= 0 {
		req.Timeout = DefaultHireTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, req.Timeout)
	defer cancel()
	req, requested, err := b.resolveRequest(req)
	if err != nil {
		return HireResult{}, err
	}
	req.events = &hireEvents{next: req.Progress}
	req.Progress = req.events.progress
	cands, routed, err := b.candidates(ctx, req, requested)
	if err != nil {
		return b.receipt(HireResult{Capability: req.Capability}, routed, req), err
	}
	res, err := b.buy(ctx, cands, req, start)
	if res.JobID != "" && req.events.unsaved() {
		// The hire ended without a last update of its record (a timer
		// settled it first, or an error after the lock).
		b.updateJob(RoleBuyer, res.JobID, req.events.into)
	}
	if errors.Is(err, ErrInvalidInput) && res.JobID == "" {
		return HireResult{}, err // the seller's schema refused the input before any quote
	}
	return b.receipt(res, routed, req), err
}

// Price is what a hire of req would pay now, through the hire's own
// steps up to the quote (resolveRequest, candidates, quote), stopping
// before the lock: the price of the first seller, best first, that quotes.
// The quote is kept, so a hire that follows pays it without asking again.
// A door that charges before it hires (x402) prices through it.
func (b *Buyer) Price(ctx context.Context, req HireRequest) (Credits, error) {
	if req.Timeout <= 0 {
		req.Timeout = DefaultHireTimeout
	}
	req, requested, err := b.resolveRequest(req)
	if err != nil {
		return 0, err
	}
	cands, _, err := b.candidates(ctx, req, requested)
	if err != nil {
		return 0, err
	}
	var lastErr error
	for _, s := range cands {
		if err := b.checkRisk(s, req); err != nil {
			lastErr = err
			continue
		}
		q, err := b.quote(ctx, s, req)
		if errors.Is(err, ErrInvalidInput) {
			return 0, err
		}
		if err != nil {
			lastErr = err
			continue
		}
		return q.Quote.Price, nil
	}
	if lastErr != nil {
		return 0, fmt.Errorf("%w for %s: last error: %w", ErrNoSeller, req.Capability, lastErr)
	}
	return 0, fmt.Errorf("%w for %s at or under the maximum price", ErrNoSeller, req.Capability)
}

// resolveRequest is a hire's first step: the capability that serves
// req.Capability now (WCP tombstones), its [[policy]] (a confirmation
// hold, a price cap), the price limit, and the input checked against the
// capability's standard schema and put in its wire form. It returns the
// request as the next steps use it and the capability asked for.
func (b *Buyer) resolveRequest(req HireRequest) (HireRequest, string, error) {
	requested := req.Capability
	resolved, err := b.resolveCapability(req.Capability)
	if err != nil {
		return req, requested, err
	}
	req.Capability = resolved
	if pol := b.cfg.policies.For(resolved); pol != nil {
		if pol.RequireConfirmation && !req.Confirm {
			return req, requested, &PolicyHoldError{Policy: pol.Match, Capability: resolved}
		}
		if pol.MaxPrice > 0 && (req.MaxPrice == 0 || pol.MaxPrice < req.MaxPrice) {
			req.MaxPrice = pol.MaxPrice // the quote must fit the policy's cap too
			req.limitBy = "[[policy]] " + pol.Match + " max_price"
		}
	}
	if req.MaxPrice == 0 {
		req.MaxPrice, req.limitBy = b.cfg.maxPrice, limitByConfig
	}
	standard, err := checkHireInput(req)
	if err != nil {
		return req, requested, err
	}
	req.standard = standard
	req.Input = WireInput(req.Input)
	return req, requested, nil
}

// buy tries the routed sellers best first: a seller that needs a
// confirmation the hire lacks, fails to quote, or refuses the lock before
// starting costs nothing, and the next is tried; the first that takes the
// job ends the hire, whatever its outcome.
func (b *Buyer) buy(ctx context.Context, cands []Seller, req HireRequest, start time.Time) (HireResult, error) {
	var lastErr, riskErr error
	// refused is the last seller's that refused a lock sent to it (busy
	// until the deadline): if no other seller takes the job, the hire
	// still names that job, refunded, so its caller can follow it.
	var refused HireResult
	for _, c := range cands {
		if err := b.checkRisk(c, req); err != nil {
			riskErr = err // another seller of the capability may not need it
			continue
		}
		q, err := b.quote(ctx, c, req)
		if errors.Is(err, ErrInvalidInput) {
			return HireResult{}, err
		}
		if err != nil {
			// Before the lock a failing seller costs nothing: try the next.
			b.log.Debug("quote failed", "remote_peer", c.Peer.ID, "err", err)
			b.forgetFind(req.Capability)
			lastErr = err
			continue
		}
		res, err := b.runHire(ctx, c, q, req)
		res.DurationMS = time.Since(start).Milliseconds()
		if errors.Is(err, errTryNext) {
			lastErr, refused = err, res
			continue
		}
		b.log.Info("job bought", "job", res.JobID, "capability", req.Capability, "seller", c.Peer.ID, "outcome", res.State,
			"price", res.Price.String(), "duration", time.Duration(res.DurationMS)*time.Millisecond, "err", err)
		return res, err
	}
	if lastErr == nil && riskErr != nil {
		return HireResult{}, riskErr
	}
	if lastErr != nil {
		return refused, fmt.Errorf("%w for %s within the price and time given: last error: %v", ErrNoSeller, req.Capability, lastErr)
	}
	return HireResult{}, fmt.Errorf("%w for %s at or under the maximum price", ErrNoSeller, req.Capability)
}

// receipt is a hire's last step: its result with the routing decision
// that chose the seller (all of it with Explain).
func (b *Buyer) receipt(res HireResult, routed Routed, req HireRequest) HireResult {
	res.Requested, res.Routing = routed.Requested, explained(routed, req)
	return res
}

// explained is the routing decision to report: all of it with Explain,
// else only the policy and class.
func explained(r Routed, req HireRequest) *Routed {
	if r.Capability == "" {
		return nil
	}
	if !req.Explain {
		r.Candidates = nil
	}
	return &r
}

// errTryNext: the seller refused the job before starting it; the hold was
// refunded and the next seller may be tried.
var errTryNext = errors.New("seller refused the job")

// checkHireInput validates the input of a standard capability before
// anything is sent (custom ones are checked against the seller's schema
// once its listing is known).
// It reports whether the capability has the taxonomy's schemas and checks.
func checkHireInput(req HireRequest) (standard bool, err error) {
	if err := verify.CheckKnown(req.Capability); err != nil {
		return false, fmt.Errorf("%w: %w", ErrInvalidInput, err)
	}
	if !json.Valid(req.Input) {
		return false, fmt.Errorf("%w: input is not valid JSON", ErrInvalidInput)
	}
	err = verify.ValidateInput(req.Capability, req.Input)
	switch {
	case errors.Is(err, verify.ErrNoStandardSchema):
		return false, nil
	case err != nil:
		return false, fmt.Errorf("%w: %w", ErrInvalidInput, err)
	}
	return true, nil
}

// candidates finds the sellers a hire may use, best first, as routing
// ranks them (package route: policy, QoS class, price cap).
func (b *Buyer) candidates(ctx context.Context, req HireRequest, requested string) ([]Seller, Routed, error) {
	var sellers []Seller
	if req.Seller != "" {
		s, err := b.sellerByID(ctx, req.Seller, req.Capability)
		if err != nil {
			return nil, Routed{}, fmt.Errorf("%w: seller %s: %v", ErrNoSeller, req.Seller, err)
		}
		sellers = []Seller{s}
	} else {
		res, err := b.findCached(ctx, req.Capability)
		if err != nil {
			return nil, Routed{}, fmt.Errorf("%w: %v", ErrNoSeller, err)
		}
		sellers = res.Sellers
	}
	byPeer := make(map[peer.ID]Seller, len(sellers))
	var exact []Seller
	unpayable, unfit := "", ""
	for _, s := range sellers {
		if s.Listing.Listing.Capability != req.Capability {
			continue // found under a prefix
		}
		if why := b.payable(s.Listing.Listing); why != "" {
			unpayable = why // this node's money cannot pay it
			continue
		}
		if why := s.Listing.Listing.Unfit(req.Timeout); why != "" {
			// It would refuse the lock: never quote it, and on a rail
			// never allocate it money.
			unfit = fmt.Sprintf("seller %s: %s (a short escrow notice or a long window; a shorter --timeout may fit)", s.Peer.ID, why)
			continue
		}
		exact = append(exact, s)
		byPeer[s.Peer.ID] = s
	}
	if len(exact) == 0 && unpayable != "" {
		return nil, Routed{}, fmt.Errorf("%w of %s this node can pay: %s", ErrNoSeller, req.Capability, unpayable)
	}
	if len(exact) == 0 && unfit != "" {
		return nil, Routed{}, fmt.Errorf("%w of %s whose terms fit this hire: %s", ErrNoSeller, req.Capability, unfit)
	}
	routed := b.route(req.Capability, requested, req.QoS, req.MaxPrice, exact, req.Explain)
	var out []Seller
	for _, d := range routed.Candidates {
		if d.Rank > 0 {
			out = append(out, byPeer[d.Peer])
		}
	}
	if len(out) == 0 {
		return nil, routed, b.noSeller(req, exact, routed)
	}
	return out, routed, nil
}

// sellerByID fetches one named seller's listing, from the addresses this
// node knows or, failing that, the DHT.
func (b *Buyer) sellerByID(ctx context.Context, id peer.ID, capID string) (Seller, error) {
	ai := peer.AddrInfo{ID: id, Addrs: b.host.Peerstore().Addrs(id)}
	if len(ai.Addrs) == 0 && len(b.host.Network().ConnsToPeer(id)) == 0 {
		fctx, cancel := context.WithTimeout(ctx, fetchTimeout)
		found, err := b.routing.DHT().FindPeer(fctx, id)
		cancel()
		if err != nil {
			return Seller{}, fmt.Errorf("find its addresses: %w", err)
		}
		ai = found
	}
	fctx, cancel := context.WithTimeout(ctx, fetchTimeout)
	defer cancel()
	l, rtt, err := b.client.fetchListing(fctx, ai, capID)
	if err != nil {
		return Seller{}, err
	}
	return Seller{Peer: ai, Listing: l, RTT: rtt}, nil
}

func (b *Buyer) checkRisk(s Seller, req HireRequest) error {
	if s.Listing.Listing.RiskTier >= 3 && !req.Confirm && !req.AllowRisk3 && (req.RequireConfirm || !b.cfg.allowRisk3) {
		return fmt.Errorf("%w: %s is risk tier 3 (required permissions: %v); hire again with --confirm, or set allow_risk_tier_3 = true under [market] in config.toml", ErrNeedsConfirm, req.Capability, s.Listing.Listing.RequiredPermissions)
	}
	return nil
}

// quote asks seller for a signed quote and checks it.
func (b *Buyer) quote(ctx context.Context, s Seller, req HireRequest) (SignedQuote, error) {
	if !req.standard {
		// Not a taxonomy capability: the seller's schema decides.
		if err := verify.ValidateWithSchema(req.Capability, s.Listing.Listing.InputSchema, req.Input); err != nil {
			return SignedQuote{}, fmt.Errorf("%w: %w", ErrInvalidInput, err)
		}
	}
	q, ok := b.cachedQuote(s.Peer.ID, req.Capability)
	if !ok {
		body, _ := json.Marshal(QuoteRequest{Capability: req.Capability})
		qctx, cancel := context.WithTimeout(ctx, fetchTimeout)
		defer cancel()
		if _, _, err := b.client.do(qctx, s.Peer, http.MethodPost, "/quotes", bytes.NewReader(body), maxListingSize, &q); err != nil {
			return SignedQuote{}, err
		}
		if err := q.Verify(s.Peer.ID, b.host.ID(), req.Capability, b.cfg.now()); err != nil {
			return SignedQuote{}, err
		}
		if q.Untagged() {
			b.noteUntagged(TypeQuote, s.Peer.ID)
		}
		if why := offListing(q.Quote, s.Listing.Listing); why != "" {
			return SignedQuote{}, b.misquoted(ctx, s, q, why)
		}
		b.keepQuote(q)
	} else if why := offListing(q.Quote, s.Listing.Listing); why != "" {
		b.dropQuote(s.Peer.ID, req.Capability)
		return SignedQuote{}, b.misquoted(ctx, s, q, why)
	}
	if req.MaxPrice > 0 && int64(q.Quote.Price) > req.MaxPrice {
		return SignedQuote{}, fmt.Errorf("quote of %s is over the maximum price", q.Quote.Price)
	}
	return q, nil
}

// offListing says how a quote's terms differ from the signed listing the
// buyer ranked its seller by, or "" when they match: the capability and the
// price must be the listing's, and the window and max duration too when the
// listing states its terms (docs/protocol.md). A buyer ranks, and caps
// prices, by listings; a quote above its listing would make the ranking and
// the price limit a lie.
func offListing(q Quote, l Listing) string {
	switch {
	case q.Capability != l.Capability:
		return fmt.Sprintf("the quote is for %s, its signed listing for %s", q.Capability, l.Capability)
	case q.Price != l.Price:
		return fmt.Sprintf("the quote asks %s, its signed listing %s", q.Price, l.Price)
	case l.Terms != nil && (q.WindowMS != l.Terms.WindowMS || q.MaxDurationMS != l.Terms.MaxDurationMS):
		return fmt.Sprintf("the quote's window %d ms and max duration %d ms are not its signed listing's %d ms and %d ms",
			q.WindowMS, q.MaxDurationMS, l.Terms.WindowMS, l.Terms.MaxDurationMS)
	}
	return ""
}

// misquoted handles a quote whose terms are not its listing's (why): it is
// refused, and, unless the seller's current listing shows that it changed
// its price since this node ranked it (a stale find cache), counted against
// the seller in the routing history, so later hires rank it last. Nothing
// is locked either way. It returns the error the hire records.
func (b *Buyer) misquoted(ctx context.Context, s Seller, q SignedQuote, why string) error {
	b.forgetFind(s.Listing.Listing.Capability)
	fctx, cancel := context.WithTimeout(ctx, fetchTimeout)
	cur, _, err := b.client.fetchListing(fctx, s.Peer, s.Listing.Listing.Capability)
	cancel()
	if err == nil && offListing(q.Quote, cur.Listing) == "" {
		b.log.Debug("quote matches the seller's new listing, not the ranked one; refused, not counted", "remote_peer", s.Peer.ID, "why", why)
		return fmt.Errorf("%w: seller %s: %s (it changed its listing since this node ranked it)", ErrQuoteOffListing, s.Peer.ID, why)
	}
	b.log.Debug("seller quoted off its signed listing; refused", "remote_peer", s.Peer.ID, "why", why)
	if err := b.misquote.record(s.Peer.ID, why, b.cfg.now()); err != nil {
		b.log.Warn("record misquote", "err", err)
	}
	return fmt.Errorf("%w: seller %s: %s", ErrQuoteOffListing, s.Peer.ID, why)
}

// runHire takes a quoted job from the lock to its settle: lock, run,
// verifyAndSettle (verify, then settle).
func (b *Buyer) runHire(ctx context.Context, s Seller, q SignedQuote, req HireRequest) (HireResult, error) {
	held, err := b.lock(ctx, s, q, req)
	if err != nil {
		return HireResult{Rail: b.escrow.RailName()}, err
	}
	spec := verifySpec{capability: req.Capability, standard: req.standard, input: req.Input, outputSchema: s.Listing.Listing.OutputSchema}
	out, delivery, pre, res, err := b.run(ctx, s, q, held, req, spec)
	if err != nil {
		return res, err
	}
	return b.verifyAndSettle(ctx, res, spec, out, delivery, pre, held.lock.Deadline)
}

// precheck is what the buyer checked of an early delivery
// (EventDelivery) while the seller wrote it: the delivery's signature
// and, for an output of at most precheckMax bytes, its verification.
type precheck struct {
	out     json.RawMessage
	d       *escrow.Delivery
	event   Event // the delivery event, passed on as the result
	checked *escrow.CheckedDelivery
	err     error    // why the delivery's check failed
	v       *verdict // nil: not verified yet
	// decision is the decision on a verified output, its change worked
	// out while the seller writes the delivery.
	decision *escrow.Decision
}

// precheckMax is the largest output verified before its delivery is
// durable. Verification is in memory and bounded by the output's size;
// a larger output is verified after, when a slow verification has the
// delivery written meanwhile (decideGrace).
const precheckMax = 64 << 10

// prechecked checks an early delivery as verifyAndSettle would and, for
// an output that passed, makes its decision ready (escrow.Decision).
func (b *Buyer) prechecked(ctx context.Context, spec verifySpec, ev Event, d *escrow.Delivery) *precheck {
	p := &precheck{out: ev.Output, d: d, event: ev}
	p.checked, p.err = escrow.CheckDelivery(d)
	if p.err != nil || len(ev.Output) > precheckMax || d.OutputHash != escrow.HashHex(ev.Output) {
		return p
	}
	v := check(ctx, spec, ev.Output)
	p.v = &v
	// On a rail the decision signs the rail's release: that waits for
	// the delivery to be durable.
	if v.passed && b.escrow.RailName() == escrow.RailCredits {
		dec, err := b.escrow.NewDecision(ctx, d.JobID, d, ev.Output, v.escrowVerdict(p.checked))
		if err == nil {
			dec.Prepare(ctx)
			p.decision = dec
		}
	}
	return p
}

// heldLock is a lock signed and being written: its job request goes to
// the seller meanwhile, and the request's body ends only once the lock is
// durable (confirmBody), which is the seller's signal to accept it. A
// seller answers nothing before that but a refusal.
type heldLock struct {
	lock *escrow.Lock // as signed and sent
	done chan struct{}
	// Set before done is closed:
	stored *escrow.Lock
	err    error

	once     sync.Once
	finish   func() (HireResult, error)
	res      HireResult
	finalErr error
}

// wait returns once the lock is written (or failed), with the hire's
// result so far, doing the lock's bookkeeping once.
func (h *heldLock) wait() (HireResult, error) {
	<-h.done
	h.once.Do(func() { h.res, h.finalErr = h.finish() })
	return h.res, h.finalErr
}

// lock signs the lock of the quoted price and starts writing it, with the
// bought job's record; it returns once the lock is signed, to be sent.
func (b *Buyer) lock(ctx context.Context, s Seller, q SignedQuote, req HireRequest) (*heldLock, error) {
	now := b.cfg.now()
	deadline, _ := ctx.Deadline()
	if max := now.Add(time.Duration(q.Quote.MaxDurationMS) * time.Millisecond); deadline.After(max) {
		deadline = max
	}
	lp := escrow.LockParams{
		QuoteID: q.Quote.QuoteID, Capability: req.Capability, Seller: s.Peer.ID,
		Amount: int64(q.Quote.Price), Deadline: deadline, Window: q.Quote.Window(), Input: req.Input,
		SpendCaps: req.SpendCaps,
	}
	if st := s.Listing.Listing.Settlement; st != nil {
		lp.SellerAddress = st.PayTo
	}
	// The job's record is written with the lock, in its commit: a restart
	// finds both or neither (and, without a standard verifier, the
	// seller's schema to verify the output against).
	lp.JobID = escrow.NewJobID()
	rec := JobRecord{
		JobID: lp.JobID, Role: RoleBuyer, Capability: req.Capability, Seller: s.Peer.ID, Buyer: b.host.ID(),
		Price: q.Quote.Price, QuoteID: q.Quote.QuoteID, Status: StatusRunning, CreatedAt: now.UTC(), UpdatedAt: now.UTC(),
		Rail: b.escrow.RailName(),
	}
	if !req.standard {
		rec.OutputSchema = s.Listing.Listing.OutputSchema
	}
	also, recorded := b.jobs.putWith(rec)
	lp.Also = also
	// Signed here, the lock goes to the seller from this goroutine while
	// another writes it.
	signed, err := b.escrow.SignLock(ctx, lp)
	if err != nil {
		return nil, b.lockError(q, err)
	}
	h := &heldLock{lock: signed.Lock, done: make(chan struct{})}
	h.finish = func() (HireResult, error) {
		if h.err != nil {
			return HireResult{Rail: b.escrow.RailName()}, b.lockError(q, h.err)
		}
		if !h.stored.Equal(h.lock) {
			return HireResult{Rail: b.escrow.RailName()}, fmt.Errorf("lock job %s: %w: the escrow holds another lock for it", lp.JobID, escrow.ErrJobIDReused)
		}
		recorded()
		failpoint.Inject("buyer/after-lock")
		res := HireResult{JobID: h.lock.JobID, Capability: req.Capability, Seller: s.Peer.ID, Price: q.Quote.Price, State: escrow.StateLocked, Rail: b.escrow.RailName(), events: req.events}
		b.rememberCounterparty(s.Peer.ID)
		req.events.newJob()
		if req.Progress != nil {
			req.Progress(Event{Type: EventLocked, JobID: h.lock.JobID, Message: fmt.Sprintf("quote %s of %s accepted; %s held in escrow", q.Quote.QuoteID, s.Peer.ID, q.Quote.Price)})
		}
		return res, nil
	}
	go func() {
		h.stored, h.err = signed.Write(ctx)
		close(h.done)
	}()
	// The lock's commit is the longer of the two ways to the seller's
	// acceptance: it starts now, on this P, and the job request goes out
	// from the other P or once the commit waits for its sync. (Left to the
	// scheduler, the new goroutine waited for this one to block in the
	// request, 0.1 ms later, on 2 vCPUs whose wake-ups are slow.)
	runtime.Gosched()
	return h, nil
}

// lockError is the error of a lock that failed, with advice when the
// buyer lacks the funds.
func (b *Buyer) lockError(q SignedQuote, err error) error {
	unit := "credits"
	if b.cfg.settlement != nil {
		unit = "tokens on rail " + b.cfg.settlement.Rail
	}
	// The advice once: the rail's error may carry it already.
	if (errors.Is(err, escrow.ErrInsufficientFunds) || errors.Is(err, escrow.ErrNotCovered)) && !strings.Contains(err.Error(), "wallet deposit") {
		return fmt.Errorf("lock %s %s: %w; add some with 'swarmwage wallet deposit AMOUNT'", q.Quote.Price, unit, err)
	}
	return fmt.Errorf("lock %s %s: %w", q.Quote.Price, unit, err)
}

// confirmBody is a job request's body: the request, then its end once
// the lock is durable. A lock that failed ends it with an error instead,
// so the request breaks off and the seller never accepts the lock.
type confirmBody struct {
	data []byte
	held *heldLock
}

func (c *confirmBody) Read(p []byte) (int, error) {
	if len(c.data) > 0 {
		n := copy(p, c.data)
		c.data = c.data[n:]
		return n, nil
	}
	if _, err := c.held.wait(); err != nil {
		return 0, errLockNotHeld
	}
	return 0, io.EOF
}

// errLockNotHeld breaks off a job request whose lock failed.
var errLockNotHeld = errors.New("the lock was not written")

// run sends the locked job to the seller and follows it to its output and
// signed delivery. A job that ends without one is refunded here, and the
// error says how it ended (errTryNext: the seller refused the job before
// starting it, so the next seller may be tried). A lock that failed ends
// the hire with the lock's error, whatever the seller answered.
func (b *Buyer) run(ctx context.Context, s Seller, q SignedQuote, held *heldLock, req HireRequest, spec verifySpec) (json.RawMessage, *escrow.Delivery, *precheck, HireResult, error) {
	lock := held.lock
	lockJSON, _ := json.Marshal(lock)
	jobBody, err := json.Marshal(JobRequest{Quote: q, Lock: lockJSON, Input: req.Input})
	if err != nil {
		res, lerr := held.wait()
		if lerr != nil {
			return nil, nil, nil, res, lerr
		}
		res, err = b.refund(res, "encode job request", nil, err)
		return nil, nil, nil, res, err
	}
	var res HireResult
	jobStart := time.Now()
	early := func(ev Event, d *escrow.Delivery) *precheck { return b.prechecked(ctx, spec, ev, d) }
	out, delivery, pre, runErr := b.runJob(withConnRecorder(ctx, &res.Connection), s.Peer, held, jobBody, req.Progress, early)
	conn := res.Connection
	res, lerr := held.wait()
	res.Connection = conn
	if lerr != nil {
		return nil, nil, nil, res, lerr
	}
	if runErr == nil {
		b.recordLatency(s.Peer.ID, req.Capability, time.Since(jobStart))
		return out, delivery, pre, res, nil
	}
	var se *StatusError
	switch {
	case errors.As(runErr, &se):
		b.dropQuote(s.Peer.ID, req.Capability)
		// Refused before it started: refund, and let Hire try the next seller.
		r, err := b.refund(res, "seller refused the job: "+se.Error(), nil, fmt.Errorf("%w: %v", ErrJobFailed, se))
		if err == nil || errors.Is(err, ErrJobFailed) {
			return nil, nil, nil, r, fmt.Errorf("%w: %v", errTryNext, se)
		}
		return nil, nil, nil, r, err
	case errors.Is(context.Cause(ctx), ErrCancelled):
		res, err = b.refund(res, ErrCancelled.Error(), nil, ErrCancelled)
	case errors.Is(runErr, ErrTimedOut):
		res, err = b.refund(res, escrow.ReasonDeadline, nil, fmt.Errorf("%w of %s: the seller was still working; the hold was refunded; raise --timeout", ErrTimedOut, req.Timeout))
	default:
		res, err = b.refund(res, runErr.Error(), nil, fmt.Errorf("%w: %v", ErrJobFailed, runErr))
	}
	return nil, nil, nil, res, err
}

// postJob POSTs the job and returns its event stream. A seller that is
// busy (429 or 503 with Retry-After) has not accepted the lock yet, so the
// same signed lock is sent again after the wait, while ctx allows. Each
// body ends once the lock is durable (confirmBody).
func (b *Buyer) postJob(ctx context.Context, seller peer.AddrInfo, held *heldLock, body []byte) (*http.Response, error) {
	for {
		resp, err := b.client.streamBody(ctx, seller, "/jobs", &confirmBody{data: body, held: held})
		wait, busy := retryable(err)
		if !busy {
			return resp, err
		}
		b.log.Debug("seller busy; retrying the job", "remote_peer", seller.ID, "after", wait)
		select {
		case <-ctx.Done():
			return nil, err
		case <-time.After(wait):
		}
	}
}

// runJob posts the job and follows its event stream. If the stream breaks
// before a result, it asks the seller for the job's status until the lock's
// deadline; a lock that was not written leaves the seller nothing to ask.
// It returns the output and the signed delivery, or why not.
//
// An early delivery (EventDelivery) is checked by early while the seller
// writes it, and returned with that check once EventDurable says it is
// written; the hire's progress sees it as the result then.
func (b *Buyer) runJob(ctx context.Context, seller peer.AddrInfo, held *heldLock, body []byte, progress func(Event), early func(Event, *escrow.Delivery) *precheck) (json.RawMessage, *escrow.Delivery, *precheck, error) {
	lock := held.lock
	jctx, cancel := context.WithDeadline(ctx, lock.Deadline.Add(deadlineSlack))
	defer cancel()
	resp, err := b.postJob(jctx, seller, held, body)
	if err != nil {
		var se *StatusError
		if errors.As(err, &se) {
			return nil, nil, nil, err
		}
		if _, lerr := held.wait(); lerr != nil {
			return nil, nil, nil, lerr
		}
		out, d, err := b.pollJob(ctx, seller, lock, false)
		return out, d, nil, err
	}
	defer resp.Body.Close()
	// A seller answers once the body has ended, so the lock is written by
	// now; the wait orders its bookkeeping (the locked event) first.
	if _, lerr := held.wait(); lerr != nil {
		return nil, nil, nil, lerr
	}
	// A stream read does not watch the context by itself: close the body
	// when the hire is cancelled or its deadline passes.
	stopWatch := context.AfterFunc(jctx, func() { resp.Body.Close() })
	defer stopWatch()
	r := b.eventReader(resp.Body)
	defer b.putEventReader(r)
	out, d, pre, err := readJobEvents(r, lock.JobID, progress, early)
	if !errors.Is(err, errStreamBroke) {
		return out, d, pre, err
	}
	b.log.Debug("job stream broke", "job", lock.JobID, "err", err)
	if ctx.Err() != nil && errors.Is(context.Cause(ctx), ErrCancelled) {
		return nil, nil, nil, ErrCancelled
	}
	// The seller accepted the job and streamed its progress: if the
	// deadline ends it now, the seller was still working. An early
	// delivery without its durable counts for nothing.
	out, d, err = b.pollJob(ctx, seller, lock, true)
	return out, d, nil, err
}

// errStreamBroke: a job's event stream ended before its last event.
var errStreamBroke = errors.New("the job's event stream broke")

// readJobEvents reads the events of job jobID from r up to its last: the
// output and delivery of a result, or of an early delivery once durable
// (with early's check of it), or the job's error. Each event goes to
// progress, an early delivery as the result once durable. A stream that
// ends first is errStreamBroke; a line over maxEventLine bytes, one that
// is not an event of the job, or events out of order are malformed.
func readJobEvents(r *bufio.Reader, jobID string, progress func(Event), early func(Event, *escrow.Delivery) *precheck) (json.RawMessage, *escrow.Delivery, *precheck, error) {
	var pre *precheck // an early delivery, not durable yet
	for {
		line, err := readLine(r, maxEventLine)
		if err != nil {
			return nil, nil, nil, fmt.Errorf("%w: %w", errStreamBroke, err)
		}
		var ev Event
		if err := json.Unmarshal(line, &ev); err != nil || ev.JobID != jobID {
			return nil, nil, nil, fmt.Errorf("seller sent a malformed event")
		}
		switch ev.Type {
		case EventDelivery:
			d, err := firstDelivery(ev, pre, "a second delivery")
			if err != nil {
				return nil, nil, nil, err
			}
			pre = early(ev, d)
			// A kill here: the buyer has written nothing of the delivery.
			failpoint.Inject("buyer/after-early-delivery")
			continue
		case EventDurable:
			if pre == nil {
				return nil, nil, nil, fmt.Errorf("seller sent a malformed event: durable before any delivery")
			}
			if progress != nil {
				res := pre.event
				res.Type = EventResult
				progress(res)
			}
			return pre.out, pre.d, pre, nil
		case EventResult:
			if pre != nil {
				return nil, nil, nil, fmt.Errorf("seller sent a malformed event: a result after an early delivery")
			}
		}
		if progress != nil {
			progress(ev)
		}
		switch ev.Type {
		case EventResult:
			d, err := firstDelivery(ev, nil, "")
			if err != nil {
				return nil, nil, nil, err
			}
			return ev.Output, d, nil, nil
		case EventError:
			if ev.Status == http.StatusGatewayTimeout {
				return nil, nil, nil, fmt.Errorf("%w: %s", ErrTimedOut, ev.Message)
			}
			msg := ev.Message
			for _, reason := range ev.Reasons {
				msg += "; " + reason
			}
			return nil, nil, nil, errors.New(msg)
		}
	}
}

// firstDelivery decodes the delivery of ev, a job's first (pre is nil
// before an early delivery); otherwise the event is malformed, as what
// says.
func firstDelivery(ev Event, pre *precheck, what string) (*escrow.Delivery, error) {
	if pre != nil {
		return nil, fmt.Errorf("seller sent a malformed event: %s", what)
	}
	d, err := escrow.DecodeDelivery(ev.Delivery)
	if err != nil {
		return nil, fmt.Errorf("seller's delivery: %w", err)
	}
	return d, nil
}

// eventBufferSize is the buffer a job's event stream is read through:
// a result line carries the whole output, so a large buffer saves copies;
// the readers are pooled so that a hire does not allocate (and zero) one.
const eventBufferSize = 64 << 10

// eventReader returns a pooled reader of body.
func (b *Buyer) eventReader(body io.Reader) *bufio.Reader {
	if r, ok := b.eventReaders.Get().(*bufio.Reader); ok {
		r.Reset(body)
		return r
	}
	return bufio.NewReaderSize(body, eventBufferSize)
}

// putEventReader returns r to the pool; what was read through it must not
// be used after (readLine copies every line out of the buffer).
func (b *Buyer) putEventReader(r *bufio.Reader) {
	r.Reset(nil)
	b.eventReaders.Put(r)
}

// pollJob asks the seller for a job's result until the lock's deadline. A
// seller that cannot be reached is looked up again (peer routing): it may
// have restarted on other addresses.
func (b *Buyer) pollJob(ctx context.Context, seller peer.AddrInfo, lock *escrow.Lock, working bool) (json.RawMessage, *escrow.Delivery, error) {
	t := time.NewTicker(pollInterval)
	defer t.Stop()
	failures := 0
	silent := func() error {
		if working {
			return fmt.Errorf("%w: the seller was still working at the job deadline", ErrTimedOut)
		}
		return errors.New("seller silent past the job deadline")
	}
	for {
		pctx, cancel := context.WithTimeout(ctx, fetchTimeout)
		var st JobStatus
		_, _, err := b.client.do(pctx, seller, http.MethodGet, "/jobs/"+lock.JobID, nil, maxEventLine, &st)
		cancel()
		if err == nil {
			failures = 0
			switch {
			case st.Output != nil && st.Delivery != nil:
				d, err := escrow.DecodeDelivery(st.Delivery)
				if err != nil {
					return nil, nil, fmt.Errorf("seller's delivery: %w", err)
				}
				return st.Output, d, nil
			case st.Status == StatusFailed:
				return nil, nil, fmt.Errorf("seller reports the job failed: %s", st.Error)
			case st.Status == StatusTimedOut:
				return nil, nil, fmt.Errorf("%w: %s", ErrTimedOut, st.Error)
			}
			working = st.Status == StatusRunning
		} else if failures++; failures%3 == 0 {
			working = false
			seller = b.resolve(ctx, seller)
		}
		if !b.cfg.now().Before(lock.Deadline) {
			return nil, nil, silent()
		}
		select {
		case <-ctx.Done():
			return nil, nil, silent()
		case <-t.C:
		}
	}
}

// resolve looks a peer's addresses up again in the DHT, for a peer that
// stopped answering at the addresses this node knows. It returns ai
// unchanged if the lookup finds nothing new.
func (m *shared) resolve(ctx context.Context, ai peer.AddrInfo) peer.AddrInfo {
	if m.routing == nil || m.routing.DHT() == nil {
		return ai
	}
	fctx, cancel := context.WithTimeout(ctx, fetchTimeout)
	defer cancel()
	found, err := m.routing.DHT().FindPeer(fctx, ai.ID)
	if err != nil || len(found.Addrs) == 0 {
		m.log.Debug("re-resolve peer", "remote_peer", ai.ID, "err", err)
		return ai
	}
	return found
}

// addrsOf is what this node knows of a peer's addresses.
func (m *shared) addrsOf(id peer.ID) peer.AddrInfo {
	return peer.AddrInfo{ID: id, Addrs: m.host.Peerstore().Addrs(id)}
}

// verifySpec is what verifying a job's output needs; a restart rebuilds
// it from the escrow's stored input and the job record.
type verifySpec struct {
	capability   string
	standard     bool // the taxonomy's schemas and checks
	input        json.RawMessage
	outputSchema json.RawMessage // the seller's, when not standard
}

// decideGrace is how long verification may take before the delivery is
// written on its own. A verification done by then has its delivery
// written with the decision it leads to, in one commit (escrow.Decide);
// a longer one, or one that would end within twice the grace of the
// lock's deadline, has the delivery written first, so that a delivery that
// arrived in time counts (the deadline refunds only a locked job).
const decideGrace = 50 * time.Millisecond

// verifyAndSettle checks the output against the seller's signed delivery
// and the verifier, then releases, refunds or accepts it (decide).
//
// pre, if not nil, is what was checked of the delivery before it was
// durable, and is not done again.
func (b *Buyer) verifyAndSettle(ctx context.Context, res HireResult, spec verifySpec, out json.RawMessage, d *escrow.Delivery, pre *precheck, deadline time.Time) (HireResult, error) {
	// The output is here: from now on the hire's own deadline must not cut
	// verification or settlement short, or a good job would wait for the
	// window's auto-release.
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), verifyTimeout)
	defer cancel()
	if d.OutputHash != escrow.HashHex(out) || d.JobID != res.JobID {
		return b.refund(res, "the seller's signed delivery does not match the output it sent", []string{"delivery_hash"}, ErrVerificationFailed)
	}
	if deadline.Sub(b.cfg.now()) <= 2*decideGrace {
		// Too close to the deadline to wait: the delivery is written first.
		if err := b.escrow.RecordDelivery(ctx, d, out); err != nil {
			return b.deliveryRefused(ctx, res, err)
		}
		failpoint.Inject("buyer/after-record-delivery")
		return b.decide(ctx, res, pre.verdict(ctx, spec, out), out, nil)
	}
	// Verification runs here; if it outlasts the grace, the timer writes
	// the delivery meanwhile.
	recorded := make(chan error, 1)
	t := time.AfterFunc(decideGrace, func() { recorded <- b.escrow.RecordDelivery(ctx, d, out) })
	// A kill here lands before the delivery is written: the restart asks
	// the seller for it again (reconcile.go). A sleep is a slow
	// verification: the delivery is written when the grace ends.
	failpoint.Inject("buyer/after-record-delivery")
	v := pre.verdict(ctx, spec, out)
	if t.Stop() {
		// The delivery is checked here, before the decision's commit,
		// which then does not check it again.
		if pre != nil {
			v.checked, v.checkErr = pre.checked, pre.err
			if pre.d == d {
				v.decision = pre.decision
			}
		} else {
			v.checked, v.checkErr = escrow.CheckDelivery(d)
		}
		return b.decide(ctx, res, v, out, d)
	}
	if err := <-recorded; err != nil {
		return b.deliveryRefused(ctx, res, err)
	}
	return b.decide(ctx, res, v, out, nil)
}

// verdict is what verifying an output found.
type verdict struct {
	report   verify.Report
	passed   bool
	standard bool // a standard verifier's: release; else accept
	// checked is the delivery's check, if done (else Decide does it);
	// checkErr why it failed.
	checked  *escrow.CheckedDelivery
	checkErr error
	// decision is the escrow's decision on a passed output, if made
	// ready (prechecked); it records the delivery too.
	decision *escrow.Decision
}

// escrowVerdict is the escrow's verdict on an output that passed: release
// after a standard verifier, else accept (the hold waits for the window).
func (v verdict) escrowVerdict(checked *escrow.CheckedDelivery) escrow.Verdict {
	if v.standard {
		return escrow.Verdict{Decision: escrow.DecisionRelease, Checked: checked}
	}
	return escrow.Verdict{Decision: escrow.VerdictAccept, Checked: checked}
}

// verdict is the verification of out that p holds, or a new one.
func (p *precheck) verdict(ctx context.Context, spec verifySpec, out json.RawMessage) verdict {
	if p != nil && p.v != nil && bytes.Equal(p.out, out) {
		return *p.v
	}
	return check(ctx, spec, out)
}

// check verifies out against spec.
func check(ctx context.Context, spec verifySpec, out json.RawMessage) verdict {
	var (
		rep verify.Report
		err error
	)
	if spec.standard {
		rep, err = verify.Verify(ctx, spec.capability, spec.input, out)
	} else {
		rep, err = verify.VerifyWithSchema(ctx, spec.capability, spec.outputSchema, out)
	}
	if err != nil {
		rep = verify.Report{Capability: spec.capability, Checks: []verify.Check{{Name: "output_json", Detail: err.Error()}}}
	}
	return verdict{report: rep, passed: err == nil && rep.Passed, standard: spec.standard}
}

// deliveryRefused settles a hire whose delivery the escrow refused to
// record (err, from escrow.Decide).
func (b *Buyer) deliveryRefused(ctx context.Context, res HireResult, err error) (HireResult, error) {
	res.Output, res.State, res.Report = nil, escrow.StateLocked, verify.Report{}
	switch {
	case errors.Is(err, escrow.ErrAlreadySettled):
		// A timer (the deadline) settled the job first.
		return b.settledResult(ctx, res)
	case errors.Is(err, escrow.ErrPastDeadline):
		// The deadline passed before its timer refunded: the same
		// outcome, not a failed verification.
		return b.refund(res, escrow.ReasonDeadline, nil, fmt.Errorf("%w: the job's deadline passed before its output arrived (refunded)", ErrJobFailed))
	}
	return b.refund(res, "the seller's delivery is not valid: "+err.Error(), []string{"delivery_signature"}, ErrVerificationFailed)
}

// decide settles a verified delivery: refund if it failed, release if it
// passed a standard verifier, and accept (the hold waits for the window)
// if it passed a seller's schema. The delivery d is written in the
// decision's commit; nil means it was written before.
func (b *Buyer) decide(ctx context.Context, res HireResult, v verdict, out json.RawMessage, d *escrow.Delivery) (HireResult, error) {
	rep, passed := v.report, v.passed
	res.Output, res.State, res.Report = out, escrow.StateDelivered, rep
	// The verification's outcome goes into the job record in the commit
	// of the decision it leads to.
	verified := func(r *JobRecord) {
		r.Passed, r.Checks, r.UpdatedAt = &passed, rep.Checks, time.Now().UTC()
		res.events.into(r)
		r.Status = StatusVerified
		if !passed {
			r.Status = StatusVerificationFailed
		}
	}
	if !passed {
		var failed []string
		for _, c := range rep.Checks {
			if !c.Passed {
				failed = append(failed, c.Name)
			}
		}
		return b.refundDelivered(ctx, res, d, "verification failed", failed, ErrVerificationFailed, verified)
	}
	// The record's update is encoded before the decision's commit, which
	// every change of the escrow waits on.
	also, recorded := b.jobs.prepareUpdate(RoleBuyer, res.JobID, verified)
	if v.checkErr != nil {
		return b.deliveryRefused(ctx, res, fmt.Errorf("record delivery: %w", v.checkErr))
	}
	// Without a standard verifier the hold auto-releases at the end of
	// the verification window unless the buyer refunds first (accept).
	dec := v.escrowVerdict(v.checked)
	var st *escrow.Settle
	var err error
	if v.decision != nil && d != nil {
		st, err = v.decision.Commit(ctx, also)
	} else {
		st, err = b.escrow.Decide(ctx, res.JobID, d, out, dec, also)
	}
	if dec.Decision == escrow.DecisionRelease {
		failpoint.Inject("buyer/after-decision")
	}
	var refused *escrow.DeliveryError
	if errors.As(err, &refused) {
		return b.deliveryRefused(ctx, res, refused.Err)
	}
	if err != nil {
		b.updateJob(RoleBuyer, res.JobID, verified)
		return res, fmt.Errorf("%s job %s: %w", dec.Decision, res.JobID, err)
	}
	recorded()
	if dec.Decision == escrow.VerdictAccept {
		return res, nil
	}
	res.State = escrow.StateReleased
	b.settle(b.addrsOf(res.Seller), st)
	return res, nil
}

// settledResult reports a hire whose escrow a timer settled first.
func (b *Buyer) settledResult(ctx context.Context, res HireResult) (HireResult, error) {
	er, err := b.escrow.GetRole(ctx, res.JobID, escrow.RoleBuyer)
	if err != nil {
		return res, fmt.Errorf("read job %s: %w", res.JobID, err)
	}
	res.State, res.Reason = er.State, er.Reason
	if er.State == escrow.StateRefunded {
		return res, fmt.Errorf("%w: the job's deadline passed before its output arrived (refunded)", ErrJobFailed)
	}
	return res, nil
}

// refund returns the hold, tells the seller, and returns res with outcome.
func (b *Buyer) refund(res HireResult, reason string, failed []string, outcome error) (HireResult, error) {
	return b.refundDelivered(context.Background(), res, nil, reason, failed, outcome, nil)
}

// refundDelivered is refund with the delivery d, if not nil, recorded in
// the refund's commit (the evidence of what was refused), and verified, if
// not nil, applied to the job record first, in that commit.
func (b *Buyer) refundDelivered(ctx context.Context, res HireResult, d *escrow.Delivery, reason string, failed []string, outcome error, verified func(*JobRecord)) (HireResult, error) {
	ctx = context.WithoutCancel(ctx)
	also, recorded := b.jobs.updateWith(RoleBuyer, res.JobID, func(r *JobRecord) {
		if verified != nil {
			verified(r)
		}
		if r.Status == StatusRunning {
			r.Status = StatusFailed
		}
		r.Error, r.UpdatedAt = reason, time.Now().UTC()
		res.events.into(r)
	})
	v := escrow.Verdict{Decision: escrow.DecisionRefund, Reason: truncateText(reason, 400), FailedChecks: failed}
	st, err := b.escrow.Decide(ctx, res.JobID, d, res.Output, v, also)
	failpoint.Inject("buyer/after-decision")
	var refused *escrow.DeliveryError
	if errors.As(err, &refused) {
		return b.deliveryRefused(ctx, res, refused.Err)
	}
	if err != nil {
		// Nothing was written with the refund: the record still gets
		// the verification and the history.
		fix := res.events.into
		if verified != nil {
			fix = verified
		}
		b.updateJob(RoleBuyer, res.JobID, fix)
		return res, errors.Join(outcome, fmt.Errorf("refund job %s: %w", res.JobID, err))
	}
	recorded()
	res.State, res.Reason = escrow.StateRefunded, reason
	if st != nil && st.Reason != "" {
		res.Reason = st.Reason // a timer (the deadline) refunded it first
	}
	b.settle(b.addrsOf(res.Seller), st)
	return res, outcome
}

// settle is a hire's settle step: the buyer's decision, already durable
// in its escrow, goes to the seller through the outbox (sendSettle), its
// first try in the background, so the hire need not wait for the seller's
// acknowledgement.
func (b *Buyer) settle(seller peer.AddrInfo, st *escrow.Settle) {
	b.wg.Add(1)
	go func() {
		defer b.wg.Done()
		b.sendSettle(b.ctx, seller, st)
	}()
}

// settleDelivered: the seller has the settle (2xx), or has settled the job
// already (409), or will never accept it (403/404: it is forged or unknown
// there; retrying cannot help).
func settleDelivered(err error) bool {
	if err == nil {
		return true
	}
	var se *StatusError
	return errors.As(err, &se) && (se.Code == http.StatusConflict || se.Code == http.StatusForbidden || se.Code == http.StatusNotFound)
}

// readLine reads one '\n'-terminated line of at most limit bytes.
func readLine(r *bufio.Reader, limit int) ([]byte, error) {
	var line []byte
	for {
		chunk, err := r.ReadSlice('\n')
		line = append(line, chunk...)
		if len(line) > limit {
			return nil, fmt.Errorf("event line over %d bytes", limit)
		}
		if err == nil {
			return bytes.TrimSpace(line), nil
		}
		if !errors.Is(err, bufio.ErrBufferFull) {
			return nil, err
		}
	}
}

// RefundDelivered refunds a job this node bought whose output was delivered
// but not yet released: the buyer's way out of an auto-release for
// capabilities without a standard verifier.
func (b *Buyer) RefundDelivered(ctx context.Context, jobID, reason string) (escrow.Record, error) {
	rec, err := b.jobs.get(RoleBuyer, jobID)
	if err != nil {
		return escrow.Record{}, err
	}
	st, err := b.escrow.Refund(ctx, jobID, truncateText(reason, 400), nil)
	if err != nil {
		return escrow.Record{}, err
	}
	b.updateJob(RoleBuyer, jobID, func(r *JobRecord) { r.Error, r.UpdatedAt = reason, time.Now().UTC() })
	b.sendSettle(ctx, b.addrsOf(rec.Seller), st)
	return b.escrow.GetRole(ctx, jobID, escrow.RoleBuyer)
}

// updateJob changes a job record. The escrow holds the money and the
// evidence; a job record that cannot be written is logged, and the
// start-up reconciliation mends it from the escrow.
func (m *shared) updateJob(role, jobID string, fn func(*JobRecord)) {
	if err := m.jobs.update(role, jobID, fn); err != nil {
		m.log.Warn("update job record", "job", jobID, "role", role, "err", err)
	}
}

// quoteReuseMargin is how much validity a kept quote must have left to be
// used for another job. A quote is an offer valid until it expires, for
// any number of jobs; reusing it saves a round trip per hire. The margin
// covers the job request's trip to the seller.
const quoteReuseMargin = 10 * time.Second

// quoteKey is the key of a kept quote: the seller's raw ID, not its
// base58 form, which would be encoded again for every hire.
func quoteKey(seller peer.ID, capID string) string { return string(seller) + "/" + capID }

// cachedQuote returns a kept quote of seller for capID that is still valid
// for long enough.
func (b *Buyer) cachedQuote(seller peer.ID, capID string) (SignedQuote, bool) {
	b.quoteMu.Lock()
	defer b.quoteMu.Unlock()
	q, ok := b.quotes[quoteKey(seller, capID)]
	if !ok {
		return SignedQuote{}, false
	}
	exp, err := q.Quote.Expires()
	if err != nil || exp.Sub(b.cfg.now()) < quoteReuseMargin {
		delete(b.quotes, quoteKey(seller, capID))
		return SignedQuote{}, false
	}
	return q, true
}

func (b *Buyer) keepQuote(q SignedQuote) {
	b.quoteMu.Lock()
	b.quotes[quoteKey(q.Quote.Seller, q.Quote.Capability)] = q
	b.quoteMu.Unlock()
}

func (b *Buyer) dropQuote(seller peer.ID, capID string) {
	b.quoteMu.Lock()
	delete(b.quotes, quoteKey(seller, capID))
	b.quoteMu.Unlock()
}

// noSeller explains an empty candidate list and what to do about it.
func (b *Buyer) noSeller(req HireRequest, found []Seller, routed Routed) error {
	overPrice := len(found) > 0
	for _, s := range found {
		overPrice = overPrice && int64(s.Listing.Listing.Price) > req.MaxPrice
	}
	if len(found) > 0 && routed.Policy != nil && !overPrice {
		return fmt.Errorf("%w of %s passes [[policy]] %s: %d seller(s) found, all dropped; the first: %s (hire --explain shows each)",
			ErrNoSeller, req.Capability, routed.Policy.Match, len(found), routed.Candidates[0].Reason)
	}
	if len(found) == 0 {
		if b.routing.RoutingTableSize() == 0 {
			return fmt.Errorf("%w of %s: this node has no DHT peers on network %s yet; check 'swarmwage peers' and the bootstrap peers ('daemon --bootstrap')",
				ErrNoSeller, req.Capability, b.routing.Network())
		}
		return fmt.Errorf("%w of %s found on network %s; 'swarmwage find %s' searches again, and a seller must run on the same network",
			ErrNoSeller, req.Capability, b.routing.Network(), req.Capability)
	}
	cheapest := found[0].Listing.Listing.Price
	for _, s := range found {
		cheapest = min(cheapest, s.Listing.Listing.Price)
	}
	hint := "raise --max-price"
	switch {
	case req.limitBy == limitByConfig:
		hint = "[market] max_price; raise it or pass --max-price"
	case req.limitBy != "":
		hint = req.limitBy + "; raise it in config.toml"
	}
	return fmt.Errorf("%w within the price limit %s (%s) for %s: %d seller(s) found, the cheapest asks %s",
		ErrNoSeller, escrow.FormatAmount(req.MaxPrice), hint, req.Capability, len(found), cheapest)
}

// CancelJob cancels a job this node bought that no live hire of this
// process follows (it was detached, or resumed after a restart) and that
// is not delivered yet: it refunds the hold and tells the seller. A live
// hire is cancelled through its context instead (ErrCancelled). A
// delivered job fails with escrow.ErrBadState: it is being verified and
// settles by itself.
func (b *Buyer) CancelJob(ctx context.Context, jobID string) (escrow.Record, error) {
	er, err := b.escrow.GetRole(ctx, jobID, escrow.RoleBuyer)
	if err != nil {
		return escrow.Record{}, err
	}
	switch {
	case er.State == escrow.StateDelivered:
		return er, fmt.Errorf("job %s was delivered: %w; it is verified and settles by itself", jobID, escrow.ErrBadState)
	case er.State.Final():
		return er, nil
	}
	res := HireResult{JobID: jobID, Seller: er.Seller, Capability: er.Capability, Price: Credits(er.Amount)}
	if _, err := b.refund(res, ErrCancelled.Error(), nil, nil); err != nil {
		return er, err
	}
	return b.escrow.GetRole(ctx, jobID, escrow.RoleBuyer)
}
