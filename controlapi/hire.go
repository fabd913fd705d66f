package controlapi

import (
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/libp2p/go-libp2p/core/peer"

	"github.com/swarmwage/swarmwage/escrow"
	"github.com/swarmwage/swarmwage/market"
	"github.com/swarmwage/swarmwage/market/route"
	"github.com/swarmwage/swarmwage/verify"
)

// Control API documents of the wallet, escrow, hires and jobs.

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

// Market turns the API request into a market hire request.
func (req HireRequest) Market() (market.HireRequest, error) {
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
