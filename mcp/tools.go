package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/swarmwage/swarmwage/controlapi"
	"github.com/swarmwage/swarmwage/escrow"
	"github.com/swarmwage/swarmwage/market"
	"github.com/swarmwage/swarmwage/verify"
)

// Tool names.
const (
	ToolCapabilities = "swarmwage_capabilities"
	ToolFind         = "swarmwage_find"
	ToolHire         = "swarmwage_hire"
	ToolVerify       = "swarmwage_verify"
	ToolJobs         = "swarmwage_jobs"
	ToolJob          = "swarmwage_job"
	ToolWallet       = "swarmwage_wallet"
	ToolRate         = "swarmwage_rate"
)

// Defaults and bounds of tool arguments.
const (
	defaultFindLimit   = 10
	maxFindLimit       = 50
	defaultFindTimeout = 20 * time.Second
	maxFindTimeout     = 2 * time.Minute
	defaultHireTimeout = market.DefaultHireTimeout
	// maxHireTimeout matches the daemon's own bound.
	maxHireTimeout   = 30 * time.Minute
	defaultJobsLimit = 20
	maxJobsLimit     = 200
)

func (s *Server) addTools() error {
	yes, no := true, false
	readOnly := &sdk.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: &no}
	network := &sdk.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: &yes}

	capsIn, err := schemaOf[capabilitiesIn](func(p map[string]*jsonschema.Schema) {
		p["domain"].Enum = stringsAny(append(verify.Domains(), "custom"))
		p["include_schemas"].Default = json.RawMessage("true")
	})
	if err != nil {
		return err
	}
	sdk.AddTool(s.mcp, &sdk.Tool{
		Name:  ToolCapabilities,
		Title: "List capabilities",
		Description: "Free, works without the daemon. Lists the capability taxonomy: the capability IDs jobs can be hired for, " +
			"with each one's description, the checks the buyer runs on the output, and its input and output JSON Schemas. " +
			"Filter by domain or name one capability. Call this first to learn the ID and input shape for swarmwage_hire.",
		InputSchema: capsIn,
		Annotations: readOnly,
	}, s.capabilities)

	findIn, err := schemaOf[findIn](func(p map[string]*jsonschema.Schema) {
		p["capability"].MinLength = ptr(1)
		p["limit"].Minimum, p["limit"].Maximum = ptr(1.0), ptr(float64(maxFindLimit))
		p["timeout_seconds"].Minimum, p["timeout_seconds"].Maximum = ptr(1.0), ptr(maxFindTimeout.Seconds())
	})
	if err != nil {
		return err
	}
	sdk.AddTool(s.mcp, &sdk.Tool{
		Name:  ToolFind,
		Title: "Find sellers",
		Description: "Free (costs no credits). Searches the market for sellers of a capability and returns each one's price in credits, " +
			"this node's rating of it, round-trip time and risk tier, cheapest first, and whether hiring it passes this server's spending caps. " +
			"Needs the swarmwage daemon.",
		InputSchema: findIn,
		Annotations: network,
	}, s.find)

	hireIn, err := schemaOf[hireIn](func(p map[string]*jsonschema.Schema) {
		p["capability"].MinLength = ptr(1)
		p["max_price"].Types = []string{"string", "number"}
		p["timeout_seconds"].Minimum, p["timeout_seconds"].Maximum = ptr(1.0), ptr(maxHireTimeout.Seconds())
	})
	if err != nil {
		return err
	}
	sdk.AddTool(s.mcp, &sdk.Tool{
		Name:  ToolHire,
		Title: "Hire an agent (costs credits)",
		Description: "COSTS CREDITS. Hires the cheapest suitable seller for one job of a capability: the price (at most max_price) is held in escrow, " +
			"the seller runs the job, the output is verified locally against the capability's schema and checks, and then the seller is paid " +
			"(escrow released) or, if verification fails or the job fails, the hold is refunded and nothing is charged. " +
			"Returns the output, the verification checks, the escrow state and the price. Refused when it would pass a spending cap " +
			"(per hire, per session, per day) or the capability is risk tier 3 and the node's owner did not allow that. Sends progress " +
			"notifications while the job runs when the request has a progress token. Needs the swarmwage daemon.",
		InputSchema: hireIn,
		Annotations: &sdk.ToolAnnotations{DestructiveHint: &no, OpenWorldHint: &yes},
	}, s.hire)

	sdk.AddTool(s.mcp, &sdk.Tool{
		Name:  ToolVerify,
		Title: "Verify an output",
		Description: "Free, works without the daemon. Checks an output locally against a capability's output schema and verification checks " +
			"(the same checks swarmwage_hire runs), given the job's input. For custom capabilities pass the seller's output_schema instead.",
		Annotations: readOnly,
	}, s.verify)

	jobsIn, err := schemaOf[jobsIn](func(p map[string]*jsonschema.Schema) {
		p["role"].Enum = []any{market.RoleBuyer, market.RoleSeller}
		p["limit"].Minimum, p["limit"].Maximum = ptr(1.0), ptr(float64(maxJobsLimit))
	})
	if err != nil {
		return err
	}
	sdk.AddTool(s.mcp, &sdk.Tool{
		Name:        ToolJobs,
		Title:       "List jobs",
		Description: "Free. Lists the jobs this node hired (role buyer) and sold (role seller), newest first, with price, status and rating. Needs the swarmwage daemon.",
		InputSchema: jobsIn,
		Annotations: readOnly,
	}, s.jobs)

	jobIn, err := schemaOf[jobIn](func(p map[string]*jsonschema.Schema) { p["job_id"].MinLength = ptr(1) })
	if err != nil {
		return err
	}
	sdk.AddTool(s.mcp, &sdk.Tool{
		Name:        ToolJob,
		Title:       "Show a job",
		Description: "Free. Shows one job: its input, output, verification checks and escrow record. Needs the swarmwage daemon.",
		InputSchema: jobIn,
		Annotations: readOnly,
	}, s.job)

	sdk.AddTool(s.mcp, &sdk.Tool{
		Name:  ToolWallet,
		Title: "Wallet balance and spending caps",
		Description: "Free. Shows the node's credits (available, held in escrow, paid, deposited, earned) and this server's spending caps " +
			"with what has been spent this session and today. Needs the swarmwage daemon.",
		Annotations: readOnly,
	}, s.wallet)

	rateIn, err := schemaOf[rateIn](func(p map[string]*jsonschema.Schema) {
		p["job_id"].MinLength = ptr(1)
		p["rating"].Minimum, p["rating"].Maximum = ptr(1.0), ptr(5.0)
	})
	if err != nil {
		return err
	}
	sdk.AddTool(s.mcp, &sdk.Tool{
		Name:  ToolRate,
		Title: "Rate a job",
		Description: "Free. Rates a job this node hired, 1 (bad) to 5 (excellent). Ratings rank sellers in later hires and show in swarmwage_find. " +
			"Needs the swarmwage daemon.",
		InputSchema: rateIn,
		Annotations: &sdk.ToolAnnotations{IdempotentHint: true, DestructiveHint: &no, OpenWorldHint: &no},
	}, s.rate)
	return nil
}

// schemaOf infers T's schema and lets refine adjust its properties.
func schemaOf[T any](refine func(map[string]*jsonschema.Schema)) (*jsonschema.Schema, error) {
	sch, err := jsonschema.For[T](nil)
	if err != nil {
		return nil, fmt.Errorf("tool schema: %w", err)
	}
	refine(sch.Properties)
	return sch, nil
}

func ptr[T any](v T) *T { return &v }

func stringsAny(ss []string) []any {
	out := make([]any, len(ss))
	for i, s := range ss {
		out[i] = s
	}
	return out
}

// errResult is a tool error whose first text is the message for the model
// and whose structured content is out.
func errResult(msg string, out any) *sdk.CallToolResult {
	data, _ := json.Marshal(out)
	return &sdk.CallToolResult{IsError: true, Content: []sdk.Content{
		&sdk.TextContent{Text: msg},
		&sdk.TextContent{Text: string(data)},
	}}
}

func (s *Server) capabilities(_ context.Context, _ *sdk.CallToolRequest, in capabilitiesIn) (*sdk.CallToolResult, capabilitiesOut, error) {
	withSchemas := in.IncludeSchemas == nil || *in.IncludeSchemas
	var caps []verify.Capability
	if in.Capability != "" {
		c, err := verify.Lookup(in.Capability)
		if err != nil {
			return nil, capabilitiesOut{}, fmt.Errorf("%v; call swarmwage_capabilities without capability to see every ID", err)
		}
		caps = []verify.Capability{c}
	} else {
		caps = verify.List()
	}
	out := capabilitiesOut{Capabilities: []capabilityDoc{}}
	for _, c := range caps {
		if in.Domain != "" && c.Domain != in.Domain {
			continue
		}
		doc := capabilityDoc{
			ID: c.ID, Domain: c.Domain, Description: c.Description, Custom: c.Custom,
			Params: c.Params, Placeholders: c.Placeholders, Checks: []checkDoc{},
		}
		if c.Template != c.ID {
			doc.Template = c.Template
		}
		for _, name := range c.Checks {
			doc.Checks = append(doc.Checks, checkDoc{Name: name, Description: verify.DescribeCheck(name)})
		}
		if withSchemas && !c.Custom {
			var err error
			if doc.InputSchema, err = schemaDoc(verify.InputSchema(c.ID)); err != nil {
				return nil, capabilitiesOut{}, err
			}
			if doc.OutputSchema, err = schemaDoc(verify.OutputSchema(c.ID)); err != nil {
				return nil, capabilitiesOut{}, err
			}
		}
		out.Capabilities = append(out.Capabilities, doc)
	}
	out.Count = len(out.Capabilities)
	return nil, out, nil
}

func schemaDoc(raw json.RawMessage, err error) (any, error) {
	if err != nil {
		return nil, err
	}
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return nil, fmt.Errorf("decode schema: %w", err)
	}
	return v, nil
}

func (s *Server) find(ctx context.Context, _ *sdk.CallToolRequest, in findIn) (*sdk.CallToolResult, findOut, error) {
	if err := verify.CheckID(in.Capability); err != nil && verify.CheckPrefix(in.Capability) != nil {
		return nil, findOut{}, fmt.Errorf("%v; see swarmwage_capabilities for valid IDs", err)
	}
	limit := in.Limit
	if limit == 0 {
		limit = defaultFindLimit
	}
	timeout := defaultFindTimeout
	if in.TimeoutSeconds > 0 {
		timeout = time.Duration(in.TimeoutSeconds) * time.Second
	}
	cl, err := s.dial()
	if err != nil {
		return nil, findOut{}, err
	}
	info, err := cl.Find(ctx, in.Capability, limit, timeout)
	if err != nil {
		return nil, findOut{}, s.daemonErr(err)
	}
	u, err := s.guard.usage(ctx, cl)
	if err != nil {
		return nil, findOut{}, s.daemonErr(err)
	}
	out := findOut{Capability: info.Capability, Sellers: []sellerDoc{}, Rejected: info.Rejected}
	for _, sl := range info.Sellers {
		doc := sellerDoc{
			PeerID: sl.PeerID, Price: sl.Price, Ratings: sl.Ratings, RTTMS: sl.RTTMS, Handler: sl.Handler,
			RiskTier: sl.RiskTier, RequiredPermissions: sl.RequiredPermissions, SkillCardHash: sl.SkillCardHash,
			WithinLimits: true,
		}
		if sl.Ratings > 0 {
			doc.Rating = ptr(math.Round(sl.Rating*100) / 100)
		}
		price, perr := escrow.ParseAmount(sl.Price)
		switch {
		case !sl.Payable:
			doc.WithinLimits, doc.LimitNote = false, "settles on rail "+sl.Rail+", which this node does not pay on: a hire cannot use it"
		case sl.RiskTier >= 3 && !s.guard.limits.AllowRiskTier3:
			doc.WithinLimits, doc.LimitNote = false, "risk tier 3: refused unless the node's owner allows it ("+s.guard.riskHint()+")"
		case perr != nil:
			doc.WithinLimits, doc.LimitNote = false, "unreadable price"
		default:
			var ce *CapError
			if err := s.guard.allows(price, u); errors.As(err, &ce) {
				doc.WithinLimits, doc.LimitNote = false, ce.short()
			}
		}
		out.Sellers = append(out.Sellers, doc)
	}
	out.Count = len(out.Sellers)
	return nil, out, nil
}

// spending describes the caps and what counts against them; u nil means
// unknown (the daemon did not answer).
func (s *Server) spending(u *usage) spendingDoc {
	l := s.guard.limits
	doc := spendingDoc{AllowRiskTier3: l.AllowRiskTier3}
	if l.MaxPerHire > 0 {
		doc.MaxPerHire = escrow.FormatAmount(l.MaxPerHire)
	}
	if l.MaxPerSession > 0 {
		doc.MaxPerSession = escrow.FormatAmount(l.MaxPerSession)
	}
	if l.MaxPerDay > 0 {
		doc.MaxPerDay = escrow.FormatAmount(l.MaxPerDay)
	}
	if u == nil {
		return doc
	}
	doc.SpentSession = escrow.FormatAmount(u.session)
	if l.MaxPerSession > 0 {
		doc.LeftSession = escrow.FormatAmount(max(0, l.MaxPerSession-u.session))
	}
	doc.SpentToday = escrow.FormatAmount(u.day)
	if l.MaxPerDay > 0 {
		doc.LeftToday = escrow.FormatAmount(max(0, l.MaxPerDay-u.day))
	}
	return doc
}

// hireArgs are the checked arguments of a hire.
type hireArgs struct {
	input    json.RawMessage
	maxPrice int64 // 0: none given
	timeout  time.Duration
}

func checkHireArgs(in hireIn) (hireArgs, error) {
	var a hireArgs
	if err := verify.CheckID(in.Capability); err != nil {
		return a, fmt.Errorf("%v; see swarmwage_capabilities for valid IDs", err)
	}
	input, err := jsonArg("input", in.Input)
	if err != nil {
		return a, err
	}
	a.input = input
	if in.MaxPrice != nil {
		if a.maxPrice, err = priceArg(in.MaxPrice); err != nil {
			return a, err
		}
	}
	a.timeout = defaultHireTimeout
	if in.TimeoutSeconds > 0 {
		a.timeout = time.Duration(in.TimeoutSeconds) * time.Second
	}
	return a, nil
}

// jsonArg encodes a JSON argument. Models sometimes send a JSON document
// as a string; a string holding a JSON object or array is decoded.
func jsonArg(name string, v any) (json.RawMessage, error) {
	if v == nil {
		return nil, fmt.Errorf("%s is required: a JSON object matching the capability's %s schema (see swarmwage_capabilities)", name, name)
	}
	if str, ok := v.(string); ok {
		t := strings.TrimSpace(str)
		if (strings.HasPrefix(t, "{") || strings.HasPrefix(t, "[")) && json.Valid([]byte(t)) {
			return json.RawMessage(t), nil
		}
	}
	data, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("encode %s: %w", name, err)
	}
	if len(data) > verify.MaxInputSize {
		return nil, fmt.Errorf("%s is over %d bytes", name, verify.MaxInputSize)
	}
	return data, nil
}

// priceArg reads max_price given as "0.05" or 0.05.
func priceArg(v any) (int64, error) {
	var str string
	switch x := v.(type) {
	case string:
		str = strings.TrimSpace(x)
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) || x < 0 {
			return 0, fmt.Errorf("max_price %v: want a positive number of credits such as \"0.05\"", x)
		}
		str = strconv.FormatFloat(x, 'f', -1, 64)
	default:
		return 0, fmt.Errorf("max_price %v: want a number of credits such as \"0.05\"", v)
	}
	p, err := escrow.ParseAmount(str)
	if err != nil {
		return 0, fmt.Errorf("max_price %q: %v", str, err)
	}
	if p == 0 {
		return 0, errors.New("max_price must be more than 0; leave it out to be limited by the spending caps only")
	}
	return p, nil
}

func (s *Server) hire(ctx context.Context, req *sdk.CallToolRequest, in hireIn) (*sdk.CallToolResult, hireOut, error) {
	args, err := checkHireArgs(in)
	if err != nil {
		return nil, hireOut{}, err
	}
	cl, err := s.dial()
	if err != nil {
		return nil, hireOut{}, err
	}
	u, err := s.guard.usage(ctx, cl)
	if err != nil {
		return nil, hireOut{}, s.daemonErr(err)
	}
	gr, err := s.guard.plan(args.maxPrice, u)
	if err != nil {
		return nil, hireOut{}, err
	}
	// Only this server's own allowance lets a risk tier 3 hire through; it
	// is no person's confirmation, so it never lifts a [[policy]]
	// require_confirmation hold (never Confirm). The daemon's escrow
	// enforces the session and day caps atomically with the lock, whatever
	// other clients hire at the same time.
	hreq := controlapi.HireRequest{
		Capability: in.Capability, Input: args.input, Seller: in.Seller,
		Timeout: args.timeout.String(), AllowRiskTier3: s.guard.limits.AllowRiskTier3, RequireConfirm: true,
		SpendCaps: s.guard.spendCaps(),
	}
	if gr.maxPrice > 0 {
		hreq.MaxPrice = escrow.FormatAmount(gr.maxPrice)
	}
	info, err := cl.Hire(ctx, hreq, s.progress(ctx, req, in.Capability, gr.maxPrice))
	if err != nil {
		return nil, hireOut{}, s.daemonErr(err)
	}
	charged := chargedBy(info)
	out := hireResult(info, charged)
	if u, err := s.guard.usage(ctx, cl); err == nil {
		out.Spending = s.spending(&u)
	} else {
		out.Spending = s.spending(nil)
	}
	if info.Outcome == controlapi.OutcomeReleased || info.Outcome == controlapi.OutcomeDelivered {
		return nil, out, nil
	}
	if info.Outcome == controlapi.OutcomeSpendCap && info.SpendCap != nil {
		return errResult(s.guard.fromDaemon(info.SpendCap).Error()+" Nothing was charged.", out), out, nil
	}
	return errResult(s.hireFailure(info, args, gr), out), out, nil
}

// chargedBy is what a hire cost: its price unless it was refunded or no
// job was started.
func chargedBy(info controlapi.HireInfo) int64 {
	if info.JobID == "" || info.Escrow.State == string(escrow.StateRefunded) {
		return 0
	}
	p, err := escrow.ParseAmount(info.Price)
	if err != nil {
		return 0
	}
	return p
}

func hireResult(info controlapi.HireInfo, charged int64) hireOut {
	out := hireOut{
		JobID: info.JobID, Capability: info.Capability, Seller: info.Seller, Price: info.Price,
		Verification: verificationDoc{Passed: info.Verification.Passed, Checks: checkResults(info.Verification.Checks)},
		Escrow:       escrowState{State: info.Escrow.State, Reason: info.Escrow.Reason},
		Outcome:      info.Outcome, Charged: escrow.FormatAmount(charged), Error: forAgent(info.Error), DurationMS: info.DurationMS,
		Rail: info.Rail,
	}
	if len(info.Output) > 0 {
		_ = json.Unmarshal(info.Output, &out.Output)
	}
	return out
}

func checkResults(cs []verify.Check) []checkRes {
	out := make([]checkRes, 0, len(cs))
	for _, c := range cs {
		out = append(out, checkRes{Name: c.Name, Passed: c.Passed, Detail: c.Detail})
	}
	return out
}

// forAgent rewrites the daemon's advice for the CLI into the terms of
// this server's tools: an agent has no --max-price flag, it passes the
// swarmwage_hire argument max_price.
func forAgent(msg string) string {
	return strings.ReplaceAll(msg, "--max-price", "the max_price argument of swarmwage_hire")
}

// hireFailure says what went wrong in a way the model can act on.
func (s *Server) hireFailure(info controlapi.HireInfo, args hireArgs, gr grant) string {
	capID := info.Capability
	info.Error = forAgent(info.Error)
	switch info.Outcome {
	case controlapi.OutcomeInvalidInput:
		return fmt.Sprintf("The input does not match the input schema of %s: %s. Nothing was charged. Get the schema with swarmwage_capabilities (capability %q) and call again with a matching input.",
			capID, info.Error, capID)
	case controlapi.OutcomeNoSeller:
		msg := fmt.Sprintf("No seller of %s answered", capID)
		if gr.maxPrice > 0 {
			msg += " at or under " + escrow.FormatAmount(gr.maxPrice) + " credits"
		}
		msg += fmt.Sprintf(" (%s). Nothing was charged. Use swarmwage_find to see sellers and prices.", info.Error)
		switch {
		case gr.limitedBy == capPerHire:
			msg += " The price limit came from the per-hire cap; the node's owner can raise it (" + s.guard.howToRaise("--max-per-hire", KeyMaxPerHire) + ")."
		case gr.limitedBy == capPerSession:
			msg += " The price limit is what is left of the per-session cap; the node's owner can raise it (" + s.guard.howToRaise("--max-per-session", KeyMaxPerSession) + ")."
		case gr.limitedBy == capPerDay:
			msg += " The price limit is what is left of the per-day cap; the node's owner can raise it (" + s.guard.howToRaise("--max-per-day", KeyMaxPerDay) + ")."
		case args.maxPrice > 0:
			msg += " A higher max_price may find one."
		case strings.Contains(info.Error, "[market] max_price"):
			msg += " The price limit is the node's [market] max_price; a max_price above it may find one."
		default:
			msg += " Try again later, or another capability."
		}
		return msg
	case controlapi.OutcomeInsufficientFunds:
		return "The hire needs more money than this node has free: " + info.Error + ". Nothing was charged. The node's owner can deposit more ('swarmwage wallet deposit AMOUNT')."
	case controlapi.OutcomeJobFailed:
		return fmt.Sprintf("The job %s failed at the seller (%s). The escrow was refunded, so nothing was charged. You may call swarmwage_hire again (pass seller to pick another one from swarmwage_find).",
			info.JobID, info.Error)
	case controlapi.OutcomeVerificationFailed:
		var failed []string
		for _, c := range info.Verification.Checks {
			if !c.Passed {
				failed = append(failed, c.Name+": "+c.Detail)
			}
		}
		return fmt.Sprintf("The output of job %s failed local verification, so the escrow was refunded and nothing was charged. Failed checks: %s. You may hire again (pass seller to pick another one from swarmwage_find) and rate this seller low with swarmwage_rate.",
			info.JobID, strings.Join(failed, "; "))
	case controlapi.OutcomeNeedsConfirm:
		if info.PolicyHold != "" {
			return fmt.Sprintf("Refused: the node's [[policy]] %s holds every hire of %s until a person confirms it, and an agent cannot confirm it (this MCP server's allowances do not lift the hold). Nothing was charged. Ask the user to run the hire themselves with 'swarmwage hire --confirm %s', or to set require_confirmation = false in that [[policy]] of the daemon's config.toml.",
				info.PolicyHold, capID, capID)
		}
		return fmt.Sprintf("Refused: %s. This MCP server does not let agents hire risk tier 3 capabilities (they need dangerous permissions). Nothing was charged. The node's owner can allow it: %s.",
			riskReason(info.Error),
			s.guard.riskHint())
	default:
		msg := "The hire failed: " + info.Error + "."
		if info.Escrow.State == string(escrow.StateRefunded) {
			msg += " The escrow was refunded, so nothing was charged."
		}
		return msg
	}
}

// riskReason is the market's risk tier 3 refusal without its prefix and
// its advice for the CLI (--confirm, the daemon's config), which does not
// apply to an agent: only this server's allowance counts.
func riskReason(msg string) string {
	msg = strings.TrimPrefix(msg, market.ErrNeedsConfirm.Error()+": ")
	if i := strings.Index(msg, "; hire again"); i >= 0 {
		msg = msg[:i]
	}
	return msg
}

// progress turns the hire's events into MCP progress notifications when
// the client asked for them with a progress token; nil otherwise.
func (s *Server) progress(ctx context.Context, req *sdk.CallToolRequest, capID string, maxPrice int64) func(market.Event) {
	tok := req.Params.GetProgressToken()
	if tok == nil || req.Session == nil {
		return nil
	}
	var n float64
	notify := func(msg string) {
		n++
		if err := req.Session.NotifyProgress(ctx, &sdk.ProgressNotificationParams{ProgressToken: tok, Progress: n, Message: msg}); err != nil {
			s.log.Debug("progress notification failed", "err", err)
		}
	}
	first := "finding a seller of " + capID
	if maxPrice > 0 {
		first += " at or under " + escrow.FormatAmount(maxPrice) + " credits"
	}
	notify(first)
	return func(ev market.Event) {
		switch ev.Type {
		case market.EventAccepted:
			notify("job " + ev.JobID + " accepted by the seller; credits held in escrow")
		case market.EventProgress:
			notify(fmt.Sprintf("job %s running (%.1fs)", ev.JobID, float64(ev.ElapsedMS)/1000))
		case market.EventResult:
			notify("job " + ev.JobID + " delivered; verifying the output locally")
		case market.EventError:
			notify("job " + ev.JobID + " failed at the seller: " + ev.Message)
		default:
			notify(ev.Type)
		}
	}
}

func (s *Server) verify(ctx context.Context, _ *sdk.CallToolRequest, in verifyIn) (*sdk.CallToolResult, verifyOut, error) {
	c, err := verify.Parse(in.Capability)
	if err != nil {
		return nil, verifyOut{}, fmt.Errorf("%v; see swarmwage_capabilities for valid IDs", err)
	}
	output, err := jsonArg("output", in.Output)
	if err != nil {
		return nil, verifyOut{}, err
	}
	var rep verify.Report
	if c.Custom {
		if in.OutputSchema == nil {
			return nil, verifyOut{}, fmt.Errorf("%s is a custom capability with no standard schema: pass the seller's output JSON Schema as output_schema", in.Capability)
		}
		sch, err := jsonArg("output_schema", in.OutputSchema)
		if err != nil {
			return nil, verifyOut{}, err
		}
		rep, err = verify.VerifyWithSchema(ctx, in.Capability, sch, output)
		if err != nil {
			return nil, verifyOut{}, err
		}
	} else {
		input, err := jsonArg("input", in.Input)
		if err != nil {
			return nil, verifyOut{}, err
		}
		if rep, err = verify.Verify(ctx, in.Capability, input, output); err != nil {
			return nil, verifyOut{}, err
		}
	}
	return nil, verifyOut{Capability: in.Capability, Passed: rep.Passed, Checks: checkResults(rep.Checks)}, nil
}

func (s *Server) jobs(ctx context.Context, _ *sdk.CallToolRequest, in jobsIn) (*sdk.CallToolResult, jobsOut, error) {
	limit := in.Limit
	if limit == 0 {
		limit = defaultJobsLimit
	}
	cl, err := s.dial()
	if err != nil {
		return nil, jobsOut{}, err
	}
	info, err := cl.Jobs(ctx, in.Role)
	if err != nil {
		return nil, jobsOut{}, s.daemonErr(err)
	}
	out := jobsOut{Jobs: []jobDoc{}}
	for _, j := range info.Jobs {
		if in.Capability != "" && j.Capability != in.Capability {
			continue
		}
		out.Total++
		if len(out.Jobs) < limit {
			out.Jobs = append(out.Jobs, jobSummary(j))
		}
	}
	out.Count = len(out.Jobs)
	return nil, out, nil
}

func jobSummary(j market.JobRecord) jobDoc {
	return jobDoc{
		JobID: j.JobID, Role: j.Role, Capability: j.Capability, Seller: j.Seller.String(), Buyer: j.Buyer.String(),
		Price: j.Price.String(), State: j.State, Status: j.Status, Passed: j.Passed, Rating: j.Rating, Error: j.Error,
		CreatedAt: j.CreatedAt.UTC().Format(time.RFC3339), DurationMS: j.DurationMS,
	}
}

func (s *Server) job(ctx context.Context, _ *sdk.CallToolRequest, in jobIn) (*sdk.CallToolResult, jobOut, error) {
	cl, err := s.dial()
	if err != nil {
		return nil, jobOut{}, err
	}
	j, err := cl.Job(ctx, in.JobID)
	if err != nil {
		return nil, jobOut{}, jobErr(s.daemonErr(err), err, in.JobID)
	}
	out := jobOut{Job: jobSummary(j), Checks: checkResults(j.Checks)}
	if len(j.Input) > 0 {
		_ = json.Unmarshal(j.Input, &out.Input)
	}
	if len(j.Output) > 0 {
		_ = json.Unmarshal(j.Output, &out.Output)
	}
	rec, err := cl.EscrowGet(ctx, in.JobID)
	var ae *controlapi.APIError
	switch {
	case err == nil:
		out.Escrow = escrowSummary(rec)
	case errors.As(err, &ae) && ae.Status == http.StatusNotFound:
	default:
		return nil, jobOut{}, s.daemonErr(err)
	}
	return nil, out, nil
}

// jobErr names an unknown job plainly.
func jobErr(msg, err error, jobID string) error {
	var ae *controlapi.APIError
	if errors.As(err, &ae) && ae.Status == http.StatusNotFound {
		return fmt.Errorf("this node has no job %q; list its jobs with swarmwage_jobs", jobID)
	}
	return msg
}

func escrowSummary(r escrow.Record) *escrowDoc {
	d := &escrowDoc{
		State: string(r.State), Amount: escrow.FormatAmount(r.Amount), Reason: r.Reason,
		Deadline: r.Deadline.UTC().Format(time.RFC3339), WindowMS: r.Window.Milliseconds(),
		CreatedAt: r.CreatedAt.UTC().Format(time.RFC3339), FailedChecks: r.FailedChecks,
	}
	if !r.SettledAt.IsZero() {
		d.SettledAt = r.SettledAt.UTC().Format(time.RFC3339)
	}
	return d
}

func (s *Server) wallet(ctx context.Context, _ *sdk.CallToolRequest, _ walletIn) (*sdk.CallToolResult, walletOut, error) {
	cl, err := s.dial()
	if err != nil {
		return nil, walletOut{}, err
	}
	w, err := cl.Wallet(ctx)
	if err != nil {
		return nil, walletOut{}, s.daemonErr(err)
	}
	b := w.Balance
	u, err := s.guard.usage(ctx, cl)
	if err != nil {
		return nil, walletOut{}, s.daemonErr(err)
	}
	return nil, walletOut{
		Available: escrow.FormatAmount(b.Available), Held: escrow.FormatAmount(b.Held), Paid: escrow.FormatAmount(b.Paid),
		Deposited: escrow.FormatAmount(b.Deposited), Earned: escrow.FormatAmount(b.Earned),
		Spending: s.spending(&u), Rail: w.Rail,
	}, nil
}

func (s *Server) rate(ctx context.Context, _ *sdk.CallToolRequest, in rateIn) (*sdk.CallToolResult, rateOut, error) {
	cl, err := s.dial()
	if err != nil {
		return nil, rateOut{}, err
	}
	j, err := cl.Rate(ctx, in.JobID, in.Rating)
	if err != nil {
		return nil, rateOut{}, jobErr(s.daemonErr(err), err, in.JobID)
	}
	return nil, rateOut{Job: jobSummary(j)}, nil
}
