// Package mcp is swarmwage's Model Context Protocol server: it lets an AI
// agent that speaks MCP discover, hire and verify on the market through a
// local swarmwage node, with no glue code (issue 9; the flow of a hire is
// "A hire, end to end" in ../shared/DESIGN.md, capabilities and checks are
// docs/specs/capability-taxonomy-v0.1.md).
//
// 'swarmwage mcp' runs it over stdio with the official Go SDK
// (github.com/modelcontextprotocol/go-sdk). It holds no market state of its
// own: every tool that needs the network talks to the daemon serving the
// repo, through the control API (controlapi.Client), dialled at each call, so the
// daemon may start after the MCP server does. swarmwage_capabilities and
// swarmwage_verify are local and work without a daemon.
//
// 'swarmwage mcp --http ADDR' serves the same tools over Streamable HTTP
// (HTTPHandler, the Go SDK's StreamableHTTPHandler at /mcp) to clients that
// send the bearer token of <repo>/gateway.token (package gateway); every
// client of one run is one session for the per-session cap.
//
// # Tools
//
// swarmwage_capabilities (taxonomy with schemas, free), swarmwage_find
// (sellers, price, rating, round-trip time, free), swarmwage_hire (costs
// credits: escrow, local verification, release or refund; MCP progress
// notifications while it runs when the request carries a progress token),
// swarmwage_verify (check an output locally, free), swarmwage_jobs and
// swarmwage_job (history), swarmwage_wallet (balance and caps),
// swarmwage_rate (rate a hired job). Each has an input JSON Schema and a
// structured output. Failures are tool results with isError set and a first
// text that says what to do next (start the daemon, raise max_price, which
// cap refused and how to raise it, ...), never protocol errors.
//
// # Spending guard
//
// Limits come from <repo>/mcp.toml and from the flags of 'swarmwage mcp'
// (a flag that is given wins over the file). The file is optional; every
// key is optional; amounts are credits, as a string or a number; 0 or
// absent means no cap:
//
//	max_per_hire      = "0.10"  # the most one hire may cost
//	max_per_session   = "1"     # the most one run of 'swarmwage mcp' may spend
//	max_per_day       = "5"     # the most the node may spend per local calendar day
//	allow_risk_tier_3 = false   # let agents hire risk tier 3 capabilities
//
// A hire whose max_price passes a cap is refused before anything is sent,
// with a message naming the cap. A hire without max_price is sent with the
// tightest cap left as its maximum price, so the daemon never pays more.
// Without caps, the daemon's [market] max_price limits it.
//
// allow_risk_tier_3 is this server's own allowance (controlapi.HireRequest
// AllowRiskTier3, never Confirm): it lets a risk tier 3 capability through
// but is no person's confirmation, so a [[policy]] require_confirmation
// hold of the daemon is always refused, with a message naming the policy.
//
// The per-session and per-day caps are enforced by the daemon, atomically
// with the escrow lock, so they hold across any number of concurrent
// hires and of 'swarmwage mcp' processes on one daemon: each hire request
// carries them as spend caps (controlapi.SpendCap), and the lock's own
// transaction checks that what was locked under the cap since its start
// and not refunded, plus this hire, is within the limit (escrow.SpendCap).
// Another hire that got there first makes the daemon refuse with outcome
// "spend_cap", which this server turns into the same message as its own
// check. The per-session figure is what this server's hires locked and
// were not refunded (its session is a random scope in the daemon's escrow,
// from the server's start). The per-day figure is what the node locked for
// hires since local midnight and was not refunded, read from the daemon's
// created-at index of escrow records: it survives restarts of 'swarmwage
// mcp', and it also counts hires made with the CLI (it caps the node's
// spend, not only the agent's).
//
// Risk tier 3 capabilities (skills that need dangerous permissions) are
// refused unless allow_risk_tier_3 is set here: the hire request asks the
// daemon to ignore its own [market] allow_risk_tier_3, so only this
// server's allowance counts.
package mcp
