package node

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"time"

	"github.com/libp2p/go-libp2p/core/peer"

	"github.com/swarmwage/swarmwage/dht"
	"github.com/swarmwage/swarmwage/escrow"
	"github.com/swarmwage/swarmwage/market"
	"github.com/swarmwage/swarmwage/market/route"
	"github.com/swarmwage/swarmwage/verify"
)

// Control API routes of the wallet, escrow, hires and jobs.

// maxHireTimeout caps the timeout a hire may ask for.
const maxHireTimeout = 30 * time.Minute

// ErrTestCreditsOnAmino is returned when a deposit on the public network
// does not say that it is test credits.
var ErrTestCreditsOnAmino = errors.New("deposits are test credits with no value; on the public 'amino' network say so with --test-credits")

// DepositRequest is the body of POST /v1/wallet/deposit.
type DepositRequest struct {
	Amount      string `json:"amount"`
	Memo        string `json:"memo,omitempty"`
	TestCredits bool   `json:"test_credits,omitempty"`
}

// HireRequest is the body of POST /v1/hire.
type HireRequest struct {
	Capability string          `json:"capability"`
	Input      json.RawMessage `json:"input"`
	MaxPrice   string          `json:"max_price,omitempty"`
	Seller     string          `json:"seller,omitempty"`
	Timeout    string          `json:"timeout,omitempty"`
	Confirm    bool            `json:"confirm,omitempty"`
	// QoS is P0 (fastest) .. P3 (cheapest); empty: the policy's, else P2.
	QoS string `json:"qos,omitempty"`
	// Explain returns every candidate with why it was chosen or dropped.
	Explain bool `json:"explain,omitempty"`
	// Detach answers as soon as a seller accepted the job; the hire runs on
	// in the daemon (jobs watch, jobs cancel).
	Detach bool `json:"detach,omitempty"`
	// RequireConfirm: a risk tier 3 capability is hired only with confirm
	// set, whatever the node's [market] allow_risk_tier_3 (MCP sets it, so
	// that only its own allowance counts).
	RequireConfirm bool `json:"require_confirm,omitempty"`
	// AllowRiskTier3 is the client's own allowance of risk tier 3 (MCP's
	// --allow-risk-tier-3). It is no person's confirmation: a [[policy]]
	// require_confirmation hold is lifted only by confirm.
	AllowRiskTier3 bool `json:"allow_risk_tier_3,omitempty"`
	// SpendCaps are limits the escrow lock checks atomically with the hold,
	// so concurrent clients cannot together pass them.
	SpendCaps []SpendCap `json:"spend_caps,omitempty"`
}

// maxSpendCaps caps the spend caps of one hire request.
const maxSpendCaps = 8

// SpendCap is a limit on what the node locks for hires: the locks of scope
// created since since that were not refunded, plus this hire's, come to at
// most limit (escrow.SpendCap).
type SpendCap struct {
	// Name names the cap in the refusal, e.g. "per-day".
	Name string `json:"name"`
	// Scope is empty for every hire of the node, else a name (an MCP
	// session ID) that this hire is counted under.
	Scope string `json:"scope,omitempty"`
	// Since is the start of the period (RFC 3339); absent: all time.
	Since time.Time `json:"since,omitzero"`
	// Limit is in credits; "0" only tags the hire with the scope.
	Limit string `json:"limit"`
}

// SpendCapRefusal says which spend cap refused a hire (outcome
// "spend_cap"). Amounts are credits.
type SpendCapRefusal struct {
	Name   string    `json:"name"`
	Scope  string    `json:"scope,omitempty"`
	Since  time.Time `json:"since"`
	Limit  string    `json:"limit"`
	Used   string    `json:"used"`
	Left   string    `json:"left"`
	Amount string    `json:"amount"`
}

// SpentInfo is the answer of GET /v1/wallet/spent: what the node locked
// for hires since since and did not get refunded (in scope, when given).
type SpentInfo struct {
	Scope string    `json:"scope,omitempty"`
	Since time.Time `json:"since"`
	Spent string    `json:"spent"`
}

// Hire outcomes, as the "outcome" field of a hire result names them.
const (
	OutcomeReleased           = "released"
	OutcomeDelivered          = "delivered"
	OutcomeInvalidInput       = "invalid_input"
	OutcomeNoSeller           = "no_seller"
	OutcomeJobFailed          = "job_failed"
	OutcomeVerificationFailed = "verification_failed"
	OutcomeTimedOut           = "timed_out"
	OutcomeCancelled          = "cancelled"
	OutcomeRunning            = "running"
	OutcomeNeedsConfirm       = "needs_confirm"
	OutcomeSpendCap           = "spend_cap"
	// OutcomeInsufficientFunds: the available balance (or, on evm, the
	// escrow on chain) does not cover the price; nothing was locked.
	OutcomeInsufficientFunds = "insufficient_funds"
	OutcomeError             = "error"
)

// HireInfo is the result of a hire, as 'hire --json' prints it.
type HireInfo struct {
	JobID string `json:"job_id"`
	// Rail is the settlement rail the hire used ("credits" or "evm").
	Rail         string          `json:"rail"`
	Capability   string          `json:"capability"`
	Seller       string          `json:"seller"`
	Price        string          `json:"price"`
	Output       json.RawMessage `json:"output"`
	Verification VerificationDoc `json:"verification"`
	Escrow       EscrowDoc       `json:"escrow"`
	Outcome      string          `json:"outcome"`
	Error        string          `json:"error,omitempty"`
	DurationMS   int64           `json:"duration_ms"`
	// Requested is the capability asked for when a WCP tombstone routed the
	// hire to Capability, its successor.
	Requested string `json:"requested,omitempty"`
	// QoS is the class the hire was routed with.
	QoS string `json:"qos,omitempty"`
	// Policy is the [[policy]] table that applied.
	Policy *route.Policy `json:"policy,omitempty"`
	// Candidates are every seller considered, with why (hire --explain).
	Candidates []route.Decision `json:"candidates,omitempty"`
	// SpendCap says which cap refused the hire, for outcome "spend_cap".
	SpendCap *SpendCapRefusal `json:"spend_cap,omitempty"`
	// PolicyHold names the [[policy]] (its capability) whose
	// require_confirmation held the hire, for outcome "needs_confirm"; ""
	// when risk tier 3 did.
	PolicyHold string `json:"policy_hold,omitempty"`
	// Connection is how the job reached the seller: "direct" or "relayed"
	// (through a circuit relay, the seller being behind NAT).
	Connection string `json:"connection,omitempty"`
}

// VerificationDoc is the verification part of a hire result.
type VerificationDoc struct {
	Passed bool           `json:"passed"`
	Checks []verify.Check `json:"checks"`
}

// EscrowDoc is the escrow part of a hire result.
type EscrowDoc struct {
	State  string `json:"state"`
	Reason string `json:"reason,omitempty"`
}

// HireEvent is one line of POST /v1/hire's NDJSON answer: job events while
// it runs, then one event of type "done" with the result.
type HireEvent struct {
	market.Event
	Result *HireInfo `json:"result,omitempty"`
}

// EventDone is the type of the last event of a hire stream.
const EventDone = "done"

// RateRequest is the body of POST /v1/jobs/{id}/rate.
type RateRequest struct {
	Rating int `json:"rating"`
}

// RefundRequest is the body of POST /v1/escrow/{id}/refund.
type RefundRequest struct {
	Reason string `json:"reason"`
}

// JobsInfo is the answer of GET /v1/jobs: one page of job summaries (no
// input, no output; GET /v1/jobs/{id} has those), newest first.
type JobsInfo struct {
	Jobs []market.JobRecord `json:"jobs"`
	// NextCursor, when set, asks for the next page (?cursor=).
	NextCursor string `json:"next_cursor,omitempty"`
}

// EscrowsInfo is the answer of GET /v1/escrow: one page, newest first.
type EscrowsInfo struct {
	Escrows []escrow.Record `json:"escrows"`
	// NextCursor, when set, asks for the next page (?cursor=).
	NextCursor string `json:"next_cursor,omitempty"`
}

func (a *apiServer) registerMarket(mux *http.ServeMux) {
	mux.HandleFunc("GET /v1/wallet", a.handleBalance)
	mux.HandleFunc("POST /v1/wallet/deposit", a.handleDeposit)
	mux.HandleFunc("POST /v1/wallet/withdraw", a.handleWithdraw)
	mux.HandleFunc("GET /v1/wallet/address", a.handleWalletAddress)
	mux.HandleFunc("GET /v1/wallet/spent", a.handleSpent)
	mux.HandleFunc("GET /v1/wallet/history", a.handleHistory)
	mux.HandleFunc("GET /v1/escrow", a.handleEscrowList)
	mux.HandleFunc("GET /v1/escrow/{id}", a.handleEscrowGet)
	mux.HandleFunc("POST /v1/escrow/{id}/refund", a.handleEscrowRefund)
	mux.HandleFunc("GET /v1/escrow/{id}/evidence", a.handleEscrowEvidence)
	mux.HandleFunc("POST /v1/hire", a.handleHire)
	mux.HandleFunc("GET /v1/jobs", a.handleJobs)
	mux.HandleFunc("GET /v1/jobs/{id}", a.handleJob)
	mux.HandleFunc("POST /v1/jobs/{id}/rate", a.handleRate)
	mux.HandleFunc("GET /v1/jobs/{id}/events", a.handleJobEvents)
	mux.HandleFunc("POST /v1/jobs/{id}/cancel", a.handleJobCancel)
}

func (a *apiServer) handleBalance(w http.ResponseWriter, r *http.Request) {
	b, err := Wallet(r.Context(), a.n.Escrow, a.n.Settler)
	if err != nil {
		apiError(w, http.StatusInternalServerError, err.Error())
		return
	}
	apiJSON(w, b)
}

func (a *apiServer) handleDeposit(w http.ResponseWriter, r *http.Request) {
	var req DepositRequest
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		apiError(w, http.StatusBadRequest, "decode deposit: "+err.Error())
		return
	}
	if a.n.Settler != nil {
		amount, err := escrow.ParseAmount(req.Amount)
		if err != nil || amount <= 0 {
			apiError(w, http.StatusBadRequest, fmt.Sprintf("amount %q: want a positive decimal such as 10 or 0.5", req.Amount))
			return
		}
		b, err := DepositEVM(r.Context(), a.n.Escrow, a.n.Settler, amount)
		if err != nil {
			apiError(w, walletStatus(err), err.Error())
			return
		}
		apiJSON(w, b)
		return
	}
	b, err := Deposit(r.Context(), a.n.Escrow, a.n.Config.Network, req)
	if err != nil {
		apiFail(w, err)
		return
	}
	apiJSON(w, b)
}

// Deposit adds test credits to the wallet of a node on network.
func Deposit(ctx context.Context, esc *escrow.Escrow, network string, req DepositRequest) (escrow.Balance, error) {
	amount, err := escrow.ParseAmount(req.Amount)
	if err != nil || amount == 0 {
		return escrow.Balance{}, fmt.Errorf("%w: amount %q: want a positive decimal such as 10 or 0.5", ErrBadRequest, req.Amount)
	}
	if network == dht.Amino && !req.TestCredits {
		return escrow.Balance{}, fmt.Errorf("%w: %w", ErrBadRequest, ErrTestCreditsOnAmino)
	}
	if err := esc.Deposit(ctx, amount, req.Memo); err != nil {
		return escrow.Balance{}, err
	}
	return esc.Balance(ctx)
}

func (a *apiServer) handleSpent(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	info := SpentInfo{Scope: q.Get("scope")}
	if s := q.Get("since"); s != "" {
		t, err := time.Parse(time.RFC3339Nano, s)
		if err != nil {
			apiError(w, http.StatusBadRequest, fmt.Sprintf("since %q: want an RFC 3339 time", s))
			return
		}
		info.Since = t
	}
	spent, err := a.n.Escrow.Spent(r.Context(), info.Scope, info.Since)
	if err != nil {
		apiFail(w, err)
		return
	}
	info.Spent = escrow.FormatAmount(spent)
	apiJSON(w, info)
}

// handleEscrowList answers one page: ?role=&state=&limit=&cursor=.
func (a *apiServer) handleEscrowList(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	f := escrow.Filter{Role: escrow.Role(q.Get("role")), State: escrow.State(q.Get("state"))}
	if f.Role != "" && f.Role != escrow.RoleBuyer && f.Role != escrow.RoleSeller {
		apiError(w, http.StatusBadRequest, fmt.Sprintf("role %q: want buyer or seller", f.Role))
		return
	}
	limit, after, err := listQuery(q)
	if err != nil {
		apiError(w, http.StatusBadRequest, err.Error())
		return
	}
	if after != nil {
		f.After = &escrow.Position{CreatedAt: after.CreatedAt, JobID: after.JobID, Role: escrow.Role(after.Role)}
	}
	f.Limit = limit + 1 // one more says whether there is a next page
	recs, err := a.n.Escrow.List(r.Context(), f)
	if err != nil {
		apiFail(w, err)
		return
	}
	n, more := pageCut(recs, limit, maxListBytes)
	out := EscrowsInfo{Escrows: append([]escrow.Record{}, recs[:n]...)}
	if more {
		out.NextCursor = escrowCursor(recs[n-1])
	}
	apiJSON(w, out)
}

// listQuery reads a list request's limit and cursor.
func listQuery(q url.Values) (int, *cursorPos, error) {
	limit, err := parseListLimit(q.Get("limit"))
	if err != nil {
		return 0, nil, err
	}
	c := q.Get("cursor")
	if c == "" {
		return limit, nil, nil
	}
	p, err := decodeCursor(c)
	if err != nil {
		return 0, nil, err
	}
	return limit, &p, nil
}

// pageCut is how many of recs (fetched with limit+1) make the page: at
// most limit, and no more than fit in maxBytes (at least one); more
// reports whether records are left for a next page.
func pageCut[T any](recs []T, limit, maxBytes int) (n int, more bool) {
	size := 0
	for n < len(recs) && n < limit {
		b, err := json.Marshal(recs[n])
		if err == nil && n > 0 && size+len(b) > maxBytes {
			break
		}
		size += len(b)
		n++
	}
	return n, n < len(recs)
}

func (a *apiServer) handleEscrowEvidence(w http.ResponseWriter, r *http.Request) {
	rc, err := a.n.Escrow.Evidence(r.Context(), r.PathValue("id"))
	if err != nil {
		apiFail(w, err)
		return
	}
	apiJSON(w, rc)
}

func (a *apiServer) handleEscrowGet(w http.ResponseWriter, r *http.Request) {
	rec, err := a.n.Escrow.Get(r.Context(), r.PathValue("id"))
	if err != nil {
		apiFail(w, err)
		return
	}
	apiJSON(w, rec)
}

func (a *apiServer) handleEscrowRefund(w http.ResponseWriter, r *http.Request) {
	var req RefundRequest
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil || req.Reason == "" {
		apiError(w, http.StatusBadRequest, "a refund needs a reason")
		return
	}
	rec, err := a.n.Market.RefundDelivered(r.Context(), r.PathValue("id"), req.Reason)
	if err != nil {
		apiFail(w, err)
		return
	}
	apiJSON(w, rec)
}

// handleJobs answers one page of job summaries: ?role=&limit=&cursor=.
func (a *apiServer) handleJobs(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	role := q.Get("role")
	if role != "" && role != market.RoleBuyer && role != market.RoleSeller {
		apiError(w, http.StatusBadRequest, fmt.Sprintf("role %q: want buyer or seller", role))
		return
	}
	limit, after, err := listQuery(q)
	if err != nil {
		apiError(w, http.StatusBadRequest, err.Error())
		return
	}
	mq := market.JobQuery{Role: role, Limit: limit + 1}
	if after != nil {
		mq.After = &market.JobPosition{CreatedAt: after.CreatedAt, Role: after.Role, JobID: after.JobID}
	}
	jobs, err := a.n.Market.JobsPage(r.Context(), mq)
	if err != nil {
		apiError(w, http.StatusInternalServerError, err.Error())
		return
	}
	n, more := pageCut(jobs, limit, maxListBytes)
	out := JobsInfo{Jobs: append([]market.JobRecord{}, jobs[:n]...)}
	if more {
		out.NextCursor = jobCursor(jobs[n-1])
	}
	apiJSON(w, out)
}

func (a *apiServer) handleJob(w http.ResponseWriter, r *http.Request) {
	job, err := a.n.Market.Job(r.Context(), r.PathValue("id"))
	if err != nil {
		apiFail(w, err)
		return
	}
	apiJSON(w, job)
}

func (a *apiServer) handleRate(w http.ResponseWriter, r *http.Request) {
	var req RateRequest
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		apiError(w, http.StatusBadRequest, "decode rating: "+err.Error())
		return
	}
	job, err := a.n.Market.Rate(r.Context(), r.PathValue("id"), req.Rating)
	if err != nil {
		apiFail(w, err)
		return
	}
	apiJSON(w, job)
}

// handleHire runs a hire and streams its events as NDJSON, ending with one
// "done" event that carries the result.
func (a *apiServer) handleHire(w http.ResponseWriter, r *http.Request) {
	var req HireRequest
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		apiError(w, http.StatusBadRequest, "decode hire request: "+err.Error())
		return
	}
	mreq, err := req.market()
	if err != nil {
		apiError(w, http.StatusBadRequest, err.Error())
		return
	}
	if req.Detach {
		apiJSON(w, a.n.Detach(mreq))
		return
	}
	w.Header().Set("Content-Type", "application/x-ndjson")
	w.WriteHeader(http.StatusOK)
	rc := http.NewResponseController(w)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	events := make(chan market.Event, 64)
	progress := func(ev market.Event) {
		select {
		case events <- ev:
		default: // a slow reader loses progress lines, never the result
		}
	}
	done := make(chan HireInfo, 1)
	go func() { done <- a.n.runHire(r.Context(), mreq, progress) }()
	for {
		select {
		case ev := <-events:
			_ = enc.Encode(HireEvent{Event: ev})
			_ = rc.Flush()
		case res := <-done:
			for len(events) > 0 {
				_ = enc.Encode(HireEvent{Event: <-events})
			}
			_ = enc.Encode(HireEvent{Event: market.Event{Type: EventDone, JobID: res.JobID}, Result: &res})
			_ = rc.Flush()
			return
		}
	}
}

// market turns the API request into a market hire request.
func (req HireRequest) market() (market.HireRequest, error) {
	out := market.HireRequest{Capability: req.Capability, Input: req.Input, Confirm: req.Confirm, RequireConfirm: req.RequireConfirm, AllowRisk3: req.AllowRiskTier3, Explain: req.Explain}
	if req.QoS != "" {
		q, err := route.ParseQoS(req.QoS)
		if err != nil {
			return out, fmt.Errorf("qos: %w", err)
		}
		out.QoS = q
	}
	if len(req.SpendCaps) > maxSpendCaps {
		return out, fmt.Errorf("spend_caps: %d caps, at most %d", len(req.SpendCaps), maxSpendCaps)
	}
	for _, c := range req.SpendCaps {
		if c.Name == "" {
			return out, errors.New("spend cap without a name")
		}
		limit, err := escrow.ParseAmount(c.Limit)
		if err != nil {
			return out, fmt.Errorf("spend cap %q: limit %q: %v", c.Name, c.Limit, err)
		}
		out.SpendCaps = append(out.SpendCaps, escrow.SpendCap{Name: c.Name, Scope: c.Scope, Since: c.Since, Limit: limit})
	}
	if req.MaxPrice != "" {
		p, err := escrow.ParseAmount(req.MaxPrice)
		if err != nil {
			return out, fmt.Errorf("max_price %q: %v", req.MaxPrice, err)
		}
		if p <= 0 {
			return out, fmt.Errorf("max_price %q: must be more than 0; leave it out for the node's [market] max_price", req.MaxPrice)
		}
		out.MaxPrice = p
	}
	if req.Seller != "" {
		id, err := peer.Decode(req.Seller)
		if err != nil {
			return out, fmt.Errorf("seller %q is not a peer ID: %v", req.Seller, err)
		}
		out.Seller = id
	}
	if req.Timeout != "" {
		d, err := time.ParseDuration(req.Timeout)
		if err != nil || d <= 0 || d > maxHireTimeout {
			return out, fmt.Errorf("timeout %q: want a duration up to %s", req.Timeout, maxHireTimeout)
		}
		out.Timeout = d
	}
	return out, nil
}

// Hire runs a hire through the node's one entry (RunHire) and describes
// its result, whatever the outcome.
func (n *Node) Hire(ctx context.Context, req market.HireRequest) HireInfo {
	return n.RunHire(ctx, req, nil)
}

// hireInfo describes a hire's result, whatever the outcome.
func (n *Node) hireInfo(req market.HireRequest, res market.HireResult, err error) HireInfo {
	capID := req.Capability
	if res.Capability != "" {
		capID = res.Capability // a tombstone may have routed it elsewhere
	}
	info := HireInfo{
		JobID:        res.JobID,
		Capability:   capID,
		Requested:    res.Requested,
		Price:        res.Price.String(),
		Output:       res.Output,
		Verification: VerificationDoc{Passed: res.Report.Passed, Checks: res.Report.Checks},
		Escrow:       EscrowDoc{State: string(res.State), Reason: res.Reason},
		Outcome:      outcomeOf(res, err),
		DurationMS:   res.DurationMS,
		Connection:   res.Connection,
		Rail:         n.Escrow.RailName(),
	}
	if res.Seller != "" {
		info.Seller = res.Seller.String()
	}
	if r := res.Routing; r != nil {
		info.QoS, info.Policy, info.Candidates = string(r.QoS), r.Policy, r.Candidates
	}
	if info.Verification.Checks == nil {
		info.Verification.Checks = []verify.Check{}
	}
	if info.Output == nil {
		info.Output = json.RawMessage("null")
	}
	if res.JobID == "" {
		info.Price = ""
	}
	if err != nil {
		info.Error = err.Error()
	}
	var ph *market.PolicyHoldError
	if errors.As(err, &ph) {
		info.PolicyHold = ph.Policy
	}
	var ce *escrow.SpendCapError
	if errors.As(err, &ce) {
		info.SpendCap = &SpendCapRefusal{
			Name: ce.Cap, Scope: ce.Scope, Since: ce.Since, Limit: escrow.FormatAmount(ce.Limit),
			Used: escrow.FormatAmount(ce.Used), Left: escrow.FormatAmount(ce.Left), Amount: escrow.FormatAmount(ce.Amount),
		}
	}
	return info
}

func outcomeOf(res market.HireResult, err error) string {
	switch {
	case err == nil && res.State == escrow.StateReleased:
		return OutcomeReleased
	case err == nil:
		return OutcomeDelivered
	case errors.Is(err, market.ErrInvalidInput):
		return OutcomeInvalidInput
	case errors.Is(err, market.ErrNeedsConfirm), errors.Is(err, market.ErrPolicyHold):
		return OutcomeNeedsConfirm
	case errors.Is(err, escrow.ErrSpendCap):
		return OutcomeSpendCap
	case errors.Is(err, market.ErrNoSeller):
		return OutcomeNoSeller
	case errors.Is(err, escrow.ErrInsufficientFunds), errors.Is(err, escrow.ErrNotCovered):
		return OutcomeInsufficientFunds
	case errors.Is(err, market.ErrVerificationFailed):
		return OutcomeVerificationFailed
	case errors.Is(err, market.ErrTimedOut):
		return OutcomeTimedOut
	case errors.Is(err, market.ErrCancelled):
		return OutcomeCancelled
	case errors.Is(err, market.ErrJobFailed):
		return OutcomeJobFailed
	default:
		return OutcomeError
	}
}

// handleJobEvents streams a bought job's events as NDJSON: the history so
// far, then, while the hire runs in this daemon, each new event; the last
// line is a "done" event with the result.
func (a *apiServer) handleJobEvents(w http.ResponseWriter, r *http.Request) {
	jobID := r.PathValue("id")
	var (
		past []HireEvent
		live <-chan HireEvent
		res  *HireInfo
	)
	if l := a.n.hires.get(jobID); l != nil {
		past, live, res = l.watch()
	} else {
		rec, err := a.n.Market.Job(r.Context(), jobID)
		if err != nil {
			apiFail(w, err)
			return
		}
		for _, ev := range rec.Events {
			past = append(past, HireEvent{Event: market.Event{Type: ev.Type, JobID: jobID, Message: ev.Message, ElapsedMS: ev.ElapsedMS}})
		}
	}
	w.Header().Set("Content-Type", "application/x-ndjson")
	w.WriteHeader(http.StatusOK)
	rc := http.NewResponseController(w)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	for _, ev := range past {
		_ = enc.Encode(ev)
	}
	_ = rc.Flush()
	for live != nil {
		select {
		case ev, ok := <-live:
			if !ok {
				return
			}
			_ = enc.Encode(ev)
			_ = rc.Flush()
			if ev.Type == EventDone {
				return
			}
		case <-r.Context().Done():
			return
		}
	}
	if res == nil {
		info, err := a.n.jobResult(r.Context(), jobID)
		if err != nil {
			return
		}
		res = &info
	}
	_ = enc.Encode(HireEvent{Event: market.Event{Type: EventDone, JobID: jobID}, Result: res})
}

// handleJobCancel cancels a bought job not yet delivered and refunds it.
func (a *apiServer) handleJobCancel(w http.ResponseWriter, r *http.Request) {
	rec, err := a.n.CancelJob(r.Context(), r.PathValue("id"))
	if err != nil {
		apiFail(w, err)
		return
	}
	apiJSON(w, rec)
}
