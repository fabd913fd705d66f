package mcp

import "github.com/swarmwage/swarmwage/verify"

// The tools' input and output documents. Their JSON Schemas are inferred
// from these types (jsonschema tags are the descriptions) and then refined
// in schemas.go. Field names are snake_case like the control API's.

type capabilitiesIn struct {
	Domain         string `json:"domain,omitempty" jsonschema:"only capabilities of this domain"`
	Capability     string `json:"capability,omitempty" jsonschema:"only this capability: a concrete ID such as text.translate.en.it.fluent, or a family such as text.translate.{src}.{tgt}.{level}"`
	IncludeSchemas *bool  `json:"include_schemas,omitempty" jsonschema:"include each capability's input and output JSON Schemas (default true; false gives a compact list)"`
}

type capabilitiesOut struct {
	Capabilities []capabilityDoc `json:"capabilities" jsonschema:"the matching capabilities, in the taxonomy's order"`
	Count        int             `json:"count" jsonschema:"number of capabilities listed"`
}

type capabilityDoc struct {
	ID           string               `json:"id" jsonschema:"capability ID, or family in placeholder form"`
	Template     string               `json:"template,omitempty" jsonschema:"the family a concrete ID belongs to"`
	Domain       string               `json:"domain"`
	Description  string               `json:"description"`
	Custom       bool                 `json:"custom" jsonschema:"true for custom and WCP capabilities: no standard schema, the seller's applies"`
	Params       map[string]string    `json:"params,omitempty" jsonschema:"placeholder values of a concrete templated ID"`
	Placeholders []verify.Placeholder `json:"placeholders,omitempty" jsonschema:"allowed values of each placeholder of a family"`
	Checks       []checkDoc           `json:"checks" jsonschema:"the checks a buyer runs on the output"`
	InputSchema  any                  `json:"input_schema,omitempty" jsonschema:"JSON Schema (2020-12) of the job input"`
	OutputSchema any                  `json:"output_schema,omitempty" jsonschema:"JSON Schema (2020-12) of the job output"`
}

type checkDoc struct {
	Name        string `json:"name"`
	Description string `json:"description"`
}

type findIn struct {
	Capability     string `json:"capability" jsonschema:"capability ID (see swarmwage_capabilities)"`
	Limit          int    `json:"limit,omitempty" jsonschema:"at most this many sellers (default 10)"`
	TimeoutSeconds int    `json:"timeout_seconds,omitempty" jsonschema:"give up searching after this many seconds (default 20)"`
}

type findOut struct {
	Capability string      `json:"capability"`
	Sellers    []sellerDoc `json:"sellers" jsonschema:"verified sellers, cheapest first"`
	Count      int         `json:"count"`
	Rejected   int         `json:"rejected" jsonschema:"sellers dropped because their signed listing did not check out"`
}

type sellerDoc struct {
	PeerID              string   `json:"peer_id" jsonschema:"the seller's peer ID; pass it as seller to swarmwage_hire to hire this one"`
	Price               string   `json:"price" jsonschema:"price of one job in credits"`
	Rating              *float64 `json:"rating,omitempty" jsonschema:"this node's average rating of the seller (1 to 5); absent when never rated"`
	Ratings             int      `json:"ratings" jsonschema:"number of this node's ratings of the seller"`
	RTTMS               float64  `json:"rtt_ms" jsonschema:"round-trip time to the seller in milliseconds"`
	Handler             string   `json:"handler"`
	RiskTier            int      `json:"risk_tier" jsonschema:"0 to 3; risk tier 3 is refused unless the node's owner allows it"`
	RequiredPermissions []string `json:"required_permissions,omitempty"`
	SkillCardHash       string   `json:"skillcard_hash,omitempty"`
	WithinLimits        bool     `json:"within_limits" jsonschema:"whether a hire of this seller passes this server's spending caps and risk policy now"`
	LimitNote           string   `json:"limit_note,omitempty" jsonschema:"why not, when within_limits is false"`
}

type hireIn struct {
	Capability     string `json:"capability" jsonschema:"capability ID to hire (see swarmwage_capabilities)"`
	Input          any    `json:"input" jsonschema:"the job input: a JSON object matching the capability's input schema"`
	MaxPrice       any    `json:"max_price,omitempty" jsonschema:"pay at most this many credits, e.g. \"0.05\" (default: the tightest spending cap, or without caps the node's [market] max_price)"`
	Seller         string `json:"seller,omitempty" jsonschema:"hire only this seller (a peer_id from swarmwage_find)"`
	TimeoutSeconds int    `json:"timeout_seconds,omitempty" jsonschema:"give up and refund after this many seconds (default 60, at most 1800)"`
}

type hireOut struct {
	JobID        string          `json:"job_id" jsonschema:"the job's ID (empty when no job was started)"`
	Capability   string          `json:"capability"`
	Seller       string          `json:"seller"`
	Price        string          `json:"price" jsonschema:"the agreed price in credits"`
	Output       any             `json:"output" jsonschema:"the seller's output (null when none)"`
	Verification verificationDoc `json:"verification"`
	Escrow       escrowState     `json:"escrow" jsonschema:"released: the seller was paid; refunded: the buyer got the hold back; delivered: paid when the verification window closes"`
	Outcome      string          `json:"outcome" jsonschema:"released, delivered, invalid_input, no_seller, insufficient_funds, job_failed, verification_failed, needs_confirm or error"`
	Charged      string          `json:"charged" jsonschema:"credits this hire spent (0 when refunded)"`
	Error        string          `json:"error,omitempty"`
	DurationMS   int64           `json:"duration_ms"`
	Spending     spendingDoc     `json:"spending"`
	Rail         string          `json:"rail" jsonschema:"the settlement rail the hire used: credits or evm"`
}

type verificationDoc struct {
	Passed bool       `json:"passed"`
	Checks []checkRes `json:"checks"`
}

type checkRes struct {
	Name   string `json:"name"`
	Passed bool   `json:"passed"`
	Detail string `json:"detail,omitempty"`
}

type escrowState struct {
	State  string `json:"state"`
	Reason string `json:"reason,omitempty"`
}

// spendingDoc shows the caps and what counts against them. Caps absent
// mean no cap.
type spendingDoc struct {
	MaxPerHire     string `json:"max_per_hire,omitempty" jsonschema:"per-hire cap in credits"`
	MaxPerSession  string `json:"max_per_session,omitempty" jsonschema:"per-session cap in credits"`
	MaxPerDay      string `json:"max_per_day,omitempty" jsonschema:"per-day cap in credits (local calendar day)"`
	AllowRiskTier3 bool   `json:"allow_risk_tier_3"`
	SpentSession   string `json:"spent_session" jsonschema:"locked by this MCP session's hires and not refunded (shown when the daemon answered)"`
	SpentToday     string `json:"spent_today,omitempty" jsonschema:"locked by the node's hires since local midnight and not refunded (shown when the daemon answered)"`
	LeftSession    string `json:"left_session,omitempty"`
	LeftToday      string `json:"left_today,omitempty"`
}

type verifyIn struct {
	Capability   string `json:"capability" jsonschema:"capability ID of the job"`
	Input        any    `json:"input,omitempty" jsonschema:"the job's input (needed for standard capabilities)"`
	Output       any    `json:"output" jsonschema:"the output to check"`
	OutputSchema any    `json:"output_schema,omitempty" jsonschema:"for custom capabilities only: the seller's output JSON Schema to check against"`
}

type verifyOut struct {
	Capability string     `json:"capability"`
	Passed     bool       `json:"passed"`
	Checks     []checkRes `json:"checks"`
}

type jobsIn struct {
	Role       string `json:"role,omitempty" jsonschema:"buyer (jobs this node hired), seller (jobs it sold); default both"`
	Capability string `json:"capability,omitempty" jsonschema:"only jobs of this capability"`
	Limit      int    `json:"limit,omitempty" jsonschema:"at most this many jobs, newest first (default 20)"`
}

type jobsOut struct {
	Jobs  []jobDoc `json:"jobs"`
	Count int      `json:"count"`
	Total int      `json:"total" jsonschema:"matching jobs before the limit"`
}

type jobDoc struct {
	JobID      string `json:"job_id"`
	Role       string `json:"role"`
	Capability string `json:"capability"`
	Seller     string `json:"seller"`
	Buyer      string `json:"buyer"`
	Price      string `json:"price"`
	State      string `json:"state" jsonschema:"where the job stands, from its escrow: running, delivered, released, refunded, disputed or failed"`
	Status     string `json:"status" jsonschema:"the job's own step, which explains the state: running, delivered, failed, verified, verification_failed or timed_out"`
	Passed     *bool  `json:"passed,omitempty" jsonschema:"whether local verification passed"`
	Rating     int    `json:"rating,omitempty"`
	Error      string `json:"error,omitempty"`
	CreatedAt  string `json:"created_at"`
	DurationMS int64  `json:"duration_ms"`
}

type jobIn struct {
	JobID string `json:"job_id" jsonschema:"the job's ID"`
}

type jobOut struct {
	Job    jobDoc     `json:"job"`
	Input  any        `json:"input" jsonschema:"the job's input"`
	Output any        `json:"output" jsonschema:"the job's output (null when none)"`
	Checks []checkRes `json:"checks" jsonschema:"the buyer's verification checks"`
	Escrow *escrowDoc `json:"escrow,omitempty"`
}

type escrowDoc struct {
	State        string   `json:"state"`
	Amount       string   `json:"amount"`
	Reason       string   `json:"reason,omitempty"`
	Deadline     string   `json:"deadline"`
	WindowMS     int64    `json:"window_ms"`
	CreatedAt    string   `json:"created_at"`
	SettledAt    string   `json:"settled_at,omitempty"`
	FailedChecks []string `json:"failed_checks,omitempty"`
}

type walletIn struct{}

type walletOut struct {
	Available string      `json:"available" jsonschema:"credits free to spend"`
	Held      string      `json:"held" jsonschema:"credits locked in escrow for open jobs"`
	Paid      string      `json:"paid"`
	Deposited string      `json:"deposited"`
	Earned    string      `json:"earned"`
	Spending  spendingDoc `json:"spending"`
	Rail      string      `json:"rail" jsonschema:"the node's settlement rail: credits or evm (amounts are then the stablecoin's)"`
}

type rateIn struct {
	JobID  string `json:"job_id" jsonschema:"a job this node hired"`
	Rating int    `json:"rating" jsonschema:"1 (bad) to 5 (excellent)"`
}

type rateOut struct {
	Job jobDoc `json:"job"`
}
