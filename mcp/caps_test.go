package mcp_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/swarmwage/swarmwage/controlapi"
	"github.com/swarmwage/swarmwage/escrow"
	"github.com/swarmwage/swarmwage/market"
	"github.com/swarmwage/swarmwage/mcp"
	"github.com/swarmwage/swarmwage/node"
	"github.com/swarmwage/swarmwage/node/nodetest"
)

// connect opens n client sessions to one MCP server (one spend session)
// for repoDir.
func connect(t *testing.T, repoDir string, l mcp.Limits, n int) []*sdk.ClientSession {
	t.Helper()
	srv, err := mcp.New(repoDir, mcp.WithLimits(l))
	require.NoError(t, err)
	var out []*sdk.ClientSession
	for range n {
		ct, st := sdk.NewInMemoryTransports()
		ss, err := srv.Connect(context.Background(), st)
		require.NoError(t, err)
		cs, err := sdk.NewClient(&sdk.Implementation{Name: "swarmwage-test", Version: "1"}, nil).Connect(context.Background(), ct, nil)
		require.NoError(t, err)
		t.Cleanup(func() {
			cs.Close()
			ss.Wait()
		})
		out = append(out, cs)
	}
	return out
}

// hireResult is one concurrent hire: the outcome document and the first
// text of the result.
type hireResult struct {
	server  int
	isError bool
	outcome string
	text    string
}

// localMidnight is the start of the day the per-day cap counts from.
func localMidnight() time.Time {
	now := time.Now()
	y, m, d := now.Date()
	return time.Date(y, m, d, 0, 0, 0, 0, now.Location())
}

// Regression: two MCP servers on one daemon each checked the per-day cap
// against the day's total read before their hire and then hired, so
// together they passed it (9 hires where 5 fit). The caps now travel with
// each hire and the daemon's escrow checks them inside the lock.
func TestConcurrentServersNeverPassTheCaps(t *testing.T) {
	m := newMarket(t)
	dir := m.buyer.Repo.Dir
	limits := mcp.Limits{MaxPerDay: amount(t, "0.25"), MaxPerSession: amount(t, "0.2")} // 5 and 4 hires of 0.05
	const servers, sessionsPerServer, hiresPerSession = 2, 3, 3
	var clients [servers][]*sdk.ClientSession
	for i := range servers {
		clients[i] = connect(t, dir, limits, sessionsPerServer)
	}
	before := m.buyer.Escrow
	startBal, err := before.Balance(t.Context())
	require.NoError(t, err)

	// While the hires run, the node's locked-and-not-refunded total for the
	// day never passes the cap.
	stop := make(chan struct{})
	var peak atomic.Int64
	var sampler sync.WaitGroup
	sampler.Add(1)
	go func() {
		defer sampler.Done()
		for {
			select {
			case <-stop:
				return
			case <-time.After(2 * time.Millisecond):
			}
			spent, err := m.buyer.Escrow.Spent(context.Background(), "", localMidnight())
			if assert.NoError(t, err) && spent > peak.Load() {
				peak.Store(spent)
			}
		}
	}()

	results := make(chan hireResult, servers*sessionsPerServer*hiresPerSession)
	start := make(chan struct{})
	var wg sync.WaitGroup
	for i := range servers {
		for _, cs := range clients[i] {
			for range hiresPerSession {
				wg.Add(1)
				go func() {
					defer wg.Done()
					<-start
					results <- concurrentHire(t, i, cs)
				}()
			}
		}
	}
	close(start)
	wg.Wait()
	close(stop)
	sampler.Wait()
	close(results)

	released := [servers]int{}
	refused := 0
	for r := range results {
		switch {
		case !r.isError:
			assert.Equal(t, "released", r.outcome, r.text)
			released[r.server]++
		default:
			refused++
			assert.Contains(t, r.text, "Refused", "the only failures are cap refusals")
			assert.True(t, strings.Contains(r.text, "per-day cap") || strings.Contains(r.text, "per-session cap"), r.text)
			assert.Contains(t, r.text, "--max-per-")
		}
	}
	require.Equal(t, 5, released[0]+released[1], "exactly the hires that fit in the per-day cap, %v", released)
	require.LessOrEqual(t, released[0], 4, "per-session cap of server 0")
	require.LessOrEqual(t, released[1], 4, "per-session cap of server 1")
	require.Equal(t, servers*sessionsPerServer*hiresPerSession-5, refused)
	require.LessOrEqual(t, peak.Load(), limits.MaxPerDay)

	// The ledger agrees: 0.25 locked and not refunded today, all of it paid.
	recs, err := m.buyer.Escrow.List(t.Context(), escrow.Filter{Role: escrow.RoleBuyer})
	require.NoError(t, err)
	var locked int64
	for _, r := range recs {
		if r.State != escrow.StateRefunded {
			locked += r.Amount
		}
	}
	require.Equal(t, limits.MaxPerDay, locked)
	bal, err := m.buyer.Escrow.Balance(t.Context())
	require.NoError(t, err)
	require.Equal(t, startBal.Available-limits.MaxPerDay, bal.Available)
	require.NoError(t, m.buyer.Escrow.CheckInvariant(t.Context()))

	// Every server reads the same day total back from the daemon.
	w := balance(t, clients[1][0])
	require.Equal(t, "0.25", w.Spending.SpentToday)
	require.Equal(t, "0", w.Spending.LeftToday)
}

// concurrentHire hires the honest mean seller at 0.05 from a goroutine
// (so it reports with assert, never require).
func concurrentHire(t *testing.T, server int, cs *sdk.ClientSession) hireResult {
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: mcp.ToolHire, Arguments: map[string]any{
		"capability": capMean, "input": map[string]any{"data": []float64{1, 2, 3, 4}}, "max_price": "0.05",
	}})
	if !assert.NoError(t, err) || !assert.NotEmpty(t, res.Content) {
		return hireResult{server: server, isError: true}
	}
	out := hireResult{server: server, isError: res.IsError}
	if tc, ok := res.Content[0].(*sdk.TextContent); ok {
		out.text = tc.Text
	}
	if res.StructuredContent != nil {
		data, _ := json.Marshal(res.StructuredContent)
		var doc struct {
			Outcome string `json:"outcome"`
		}
		_ = json.Unmarshal(data, &doc)
		out.outcome = doc.Outcome
	}
	return out
}

// Regression: '[market] allow_risk_tier_3 = true' in the daemon's config
// let MCP hire risk tier 3 although MCP itself did not allow it. Only the
// MCP server's own allowance counts now.
func TestRiskTier3SkillCardNeedsMCPsOwnAllowance(t *testing.T) {
	boot := startNode(t, newRepo(t))
	seller := startNode(t, newRepo(t), boot)
	cfg := node.DefaultConfig(testNetwork)
	cfg.Listen = []string{"/ip4/127.0.0.1/tcp/0"}
	cfg.API = "127.0.0.1:0"
	cfg.Market.AllowRiskTier3 = true // the daemon's owner allows it for the CLI
	repo, err := node.Init(filepath.Join(t.TempDir(), "buyer"), cfg)
	require.NoError(t, err)
	buyer := startNode(t, repo, boot)

	cardDir, err := filepath.Abs(filepath.Join("testdata", "risky-card"))
	require.NoError(t, err)
	card, err := os.ReadFile(filepath.Join(cardDir, "risky-echo.v1.0.0.json"))
	require.NoError(t, err)
	lp, err := market.SkillCardListing(card, "", cardDir, amount(t, "0.1"))
	require.NoError(t, err)
	require.Equal(t, 3, lp.RiskTier)
	_, err = seller.Market.AddListing(context.Background(), lp)
	require.NoError(t, err)
	const capID = "custom.acme.risky-echo"
	require.Equal(t, capID, lp.Capability)
	nodetest.WaitReady(t, boot, seller, buyer)
	require.NoError(t, buyer.Escrow.Deposit(context.Background(), amount(t, "10"), "test"))
	input := map[string]any{"text": "x"}

	// The daemon's config does let a plain hire through (the CLI's case).
	cl, err := controlapi.Dial(buyer.Repo.Dir)
	require.NoError(t, err)
	raw, _ := json.Marshal(input)
	info, err := cl.Hire(t.Context(), controlapi.HireRequest{Capability: capID, Input: raw, MaxPrice: "0.1"}, nil)
	require.NoError(t, err)
	require.Equal(t, controlapi.OutcomeDelivered, info.Outcome, info.Error)
	held := func() int64 {
		b, err := buyer.Escrow.Balance(t.Context())
		require.NoError(t, err)
		return b.Held
	}
	heldBefore := held()
	recsBefore, err := buyer.Escrow.List(t.Context(), escrow.Filter{Role: escrow.RoleBuyer})
	require.NoError(t, err)

	// MCP without its own allowance refuses, and locks nothing.
	cs := connect(t, buyer.Repo.Dir, mcp.Limits{}, 1)[0]
	var found struct {
		Sellers []struct {
			RiskTier     int    `json:"risk_tier"`
			WithinLimits bool   `json:"within_limits"`
			LimitNote    string `json:"limit_note"`
		} `json:"sellers"`
	}
	res := call(t, cs, mcp.ToolFind, map[string]any{"capability": capID}, &found)
	require.False(t, res.IsError, text(t, res))
	require.Len(t, found.Sellers, 1)
	require.Equal(t, 3, found.Sellers[0].RiskTier)
	require.False(t, found.Sellers[0].WithinLimits)

	var out hireDoc
	res = call(t, cs, mcp.ToolHire, map[string]any{"capability": capID, "input": input, "max_price": "0.1"}, &out)
	requireToolError(t, res, "Refused", "risk tier 3", "onchain_execute", "--allow-risk-tier-3", "mcp.toml", "Nothing was charged")
	require.NotContains(t, text(t, res), "config.toml", "the daemon's config is not the MCP server's allowance")
	require.NotContains(t, text(t, res), "--confirm")
	require.Equal(t, "needs_confirm", out.Outcome)
	require.Equal(t, heldBefore, held())
	recs, err := buyer.Escrow.List(t.Context(), escrow.Filter{Role: escrow.RoleBuyer})
	require.NoError(t, err)
	require.Len(t, recs, len(recsBefore), "nothing was locked")

	// With its own allowance it hires.
	allowed := connect(t, buyer.Repo.Dir, mcp.Limits{AllowRiskTier3: true}, 1)[0]
	res = call(t, allowed, mcp.ToolHire, map[string]any{"capability": capID, "input": input, "max_price": "0.1"}, &out)
	require.False(t, res.IsError, text(t, res))
	require.Equal(t, "delivered", out.Outcome)
	require.Equal(t, map[string]any{"args": []any{"--text", "x"}}, out.Output)
}

// Regression (issue 22): MCP's --allow-risk-tier-3 also confirmed
// [[policy]] require_confirmation holds, and the refusal of a hold talked
// about risk tier 3. A policy hold is confirmed only by a person (the CLI's
// --confirm); MCP refuses it with its own message naming the policy, with
// or without its risk allowance, and locks nothing.
func TestPolicyHoldIsNeverConfirmedThroughMCP(t *testing.T) {
	boot := startNode(t, newRepo(t))
	seller := startNode(t, newRepo(t), boot)
	cfg := node.DefaultConfig(testNetwork)
	cfg.Listen = []string{"/ip4/127.0.0.1/tcp/0"}
	cfg.API = "127.0.0.1:0"
	cfg.Policy = []node.PolicyConfig{{Capability: "compute.statistics", RequireConfirmation: true}}
	repo, err := node.Init(filepath.Join(t.TempDir(), "buyer"), cfg)
	require.NoError(t, err)
	buyer := startNode(t, repo, boot)
	_, err = seller.Market.AddListing(context.Background(), market.ListingParams{Capability: capMean, Price: amount(t, "0.05"), Handler: market.HandlerConfig{Kind: market.HandlerBuiltin}})
	require.NoError(t, err)
	nodetest.WaitReady(t, boot, seller, buyer)
	require.NoError(t, buyer.Escrow.Deposit(context.Background(), amount(t, "10"), "test"))
	input := map[string]any{"data": []float64{1, 2, 3, 4}}
	count := func() int {
		recs, err := buyer.Escrow.List(t.Context(), escrow.Filter{Role: escrow.RoleBuyer})
		require.NoError(t, err)
		return len(recs)
	}

	for _, l := range []mcp.Limits{{}, {AllowRiskTier3: true}} {
		cs := connect(t, buyer.Repo.Dir, l, 1)[0]
		var out hireDoc
		res := call(t, cs, mcp.ToolHire, map[string]any{"capability": capMean, "input": input, "max_price": "0.1"}, &out)
		requireToolError(t, res, "Refused", "[[policy]] compute.statistics", capMean, "a person", "Nothing was charged", "swarmwage hire --confirm")
		require.NotContains(t, text(t, res), "risk tier 3")
		require.NotContains(t, text(t, res), "--allow-risk-tier-3")
		require.Equal(t, "needs_confirm", out.Outcome)
		require.Zero(t, count(), "nothing was locked (allow_risk_tier_3 %v)", l.AllowRiskTier3)
	}

	// A person's confirmation (the CLI's --confirm, through the control
	// API) lifts it.
	cl, err := controlapi.Dial(buyer.Repo.Dir)
	require.NoError(t, err)
	raw, _ := json.Marshal(input)
	info, err := cl.Hire(t.Context(), controlapi.HireRequest{Capability: capMean, Input: raw, MaxPrice: "0.1", AllowRiskTier3: true, RequireConfirm: true}, nil)
	require.NoError(t, err)
	require.Equal(t, controlapi.OutcomeNeedsConfirm, info.Outcome, "the risk allowance is no confirmation")
	require.Equal(t, "compute.statistics", info.PolicyHold)
	info, err = cl.Hire(t.Context(), controlapi.HireRequest{Capability: capMean, Input: raw, MaxPrice: "0.1", Confirm: true}, nil)
	require.NoError(t, err)
	require.Equal(t, controlapi.OutcomeReleased, info.Outcome, info.Error)
	require.Empty(t, info.PolicyHold)
}
