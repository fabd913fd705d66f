package mcp_test

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"

	"github.com/swarmwage/swarmwage/market"
	"github.com/swarmwage/swarmwage/mcp"
	"github.com/swarmwage/swarmwage/node"
	"github.com/swarmwage/swarmwage/node/nodetest"
)

// testNetwork is the private network of these tests: loopback only.
const testNetwork = "mcptest"

func init() { nodetest.RaiseFileLimit() }

func newRepo(t testing.TB) *node.Repo { return nodetest.NewRepo(t, testNetwork) }

func startNode(t testing.TB, repo *node.Repo, boot ...*node.Node) *node.Node {
	return nodetest.Start(t, repo, node.Options{}, boot...)
}

var (
	waitReady = nodetest.WaitReady
	amount    = nodetest.Amount
)

// Capabilities the test seller sells.
const (
	capMean   = "compute.statistics.mean"   // builtin, honest
	capMedian = "compute.statistics.median" // builtin, listed as risk tier 3
	capStddev = "compute.statistics.stddev" // exec handler that lies
)

// testMarket is a bootstrap node, a seller and a buyer with 10 credits,
// all on loopback.
type testMarket struct {
	seller, buyer *node.Node
}

func newMarket(t *testing.T) testMarket {
	t.Helper()
	boot := startNode(t, newRepo(t))
	seller := startNode(t, newRepo(t), boot)
	buyer := startNode(t, newRepo(t), boot)
	ctx := context.Background()
	for _, p := range []market.ListingParams{
		{Capability: capMean, Price: amount(t, "0.05"), Handler: market.HandlerConfig{Kind: market.HandlerBuiltin}},
		{Capability: capMedian, Price: amount(t, "0.05"), Handler: market.HandlerConfig{Kind: market.HandlerBuiltin},
			RiskTier: 3, RequiredPermissions: []string{"shell"}},
		{Capability: capStddev, Price: amount(t, "0.02"), Handler: market.HandlerConfig{Kind: market.HandlerExec,
			Command: []string{"sh", "-c", `cat >/dev/null; echo '{"result": 99}'`}}},
	} {
		_, err := seller.Market.AddListing(ctx, p)
		require.NoError(t, err)
	}
	waitReady(t, boot, seller, buyer)
	require.NoError(t, buyer.Escrow.Deposit(ctx, amount(t, "10"), "test"))
	return testMarket{seller: seller, buyer: buyer}
}

// client connects the SDK's own client to a new server for repoDir over
// the in-memory transport.
func client(t *testing.T, repoDir string, l mcp.Limits, opts *sdk.ClientOptions) *sdk.ClientSession {
	t.Helper()
	srv, err := mcp.New(repoDir, mcp.WithLimits(l))
	require.NoError(t, err)
	ct, st := sdk.NewInMemoryTransports()
	ctx := context.Background()
	ss, err := srv.Connect(ctx, st)
	require.NoError(t, err)
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "swarmwage-test", Version: "1"}, opts).Connect(ctx, ct, nil)
	require.NoError(t, err)
	t.Cleanup(func() {
		cs.Close()
		ss.Wait()
	})
	return cs
}

// call calls a tool and decodes its structured content into out (when
// not nil). It returns the result for the caller to check IsError.
func call(t *testing.T, cs *sdk.ClientSession, tool string, args map[string]any, out any) *sdk.CallToolResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: tool, Arguments: args})
	require.NoError(t, err, "a tool failure must be a result, never a protocol error")
	if out != nil && res.StructuredContent != nil {
		data, err := json.Marshal(res.StructuredContent)
		require.NoError(t, err)
		require.NoError(t, json.Unmarshal(data, out))
	}
	return res
}

// text is the first text content of a result.
func text(t *testing.T, res *sdk.CallToolResult) string {
	t.Helper()
	require.NotEmpty(t, res.Content)
	tc, ok := res.Content[0].(*sdk.TextContent)
	require.True(t, ok, "first content is %T", res.Content[0])
	return tc.Text
}

// requireToolError checks that res is an error result whose message holds
// every one of wants.
func requireToolError(t *testing.T, res *sdk.CallToolResult, wants ...string) {
	t.Helper()
	require.True(t, res.IsError, "want an error result, got %s", text(t, res))
	msg := text(t, res)
	for _, w := range wants {
		require.Contains(t, msg, w)
	}
}

// The documents the tests read back.
type (
	checkDoc struct {
		Name   string `json:"name"`
		Passed bool   `json:"passed"`
		Detail string `json:"detail"`
	}
	spendingDoc struct {
		MaxPerHire    string `json:"max_per_hire"`
		MaxPerSession string `json:"max_per_session"`
		MaxPerDay     string `json:"max_per_day"`
		SpentSession  string `json:"spent_session"`
		SpentToday    string `json:"spent_today"`
		LeftSession   string `json:"left_session"`
		LeftToday     string `json:"left_today"`
	}
	hireDoc struct {
		JobID        string `json:"job_id"`
		Seller       string `json:"seller"`
		Price        string `json:"price"`
		Output       any    `json:"output"`
		Verification struct {
			Passed bool       `json:"passed"`
			Checks []checkDoc `json:"checks"`
		} `json:"verification"`
		Escrow struct {
			State  string `json:"state"`
			Reason string `json:"reason"`
		} `json:"escrow"`
		Outcome  string      `json:"outcome"`
		Charged  string      `json:"charged"`
		Spending spendingDoc `json:"spending"`
	}
	walletDoc struct {
		Available string      `json:"available"`
		Held      string      `json:"held"`
		Spending  spendingDoc `json:"spending"`
	}
	jobSummary struct {
		JobID      string `json:"job_id"`
		Role       string `json:"role"`
		Capability string `json:"capability"`
		Price      string `json:"price"`
		Status     string `json:"status"`
		Rating     int    `json:"rating"`
	}
)

func hire(t *testing.T, cs *sdk.ClientSession, capID string, maxPrice string) (*sdk.CallToolResult, hireDoc) {
	t.Helper()
	args := map[string]any{"capability": capID, "input": map[string]any{"data": []float64{1, 2, 3, 4}}}
	if maxPrice != "" {
		args["max_price"] = maxPrice
	}
	var out hireDoc
	res := call(t, cs, mcp.ToolHire, args, &out)
	return res, out
}

func balance(t *testing.T, cs *sdk.ClientSession) walletDoc {
	t.Helper()
	var w walletDoc
	res := call(t, cs, mcp.ToolWallet, nil, &w)
	require.False(t, res.IsError, "wallet: %s", text(t, res))
	return w
}

func TestToolsAgainstDaemon(t *testing.T) {
	m := newMarket(t)
	dir := m.buyer.Repo.Dir

	t.Run("list tools", func(t *testing.T) {
		cs := client(t, dir, mcp.Limits{}, nil)
		res, err := cs.ListTools(context.Background(), nil)
		require.NoError(t, err)
		byName := map[string]*sdk.Tool{}
		for _, tool := range res.Tools {
			byName[tool.Name] = tool
		}
		require.Len(t, byName, 8)
		for _, name := range []string{mcp.ToolCapabilities, mcp.ToolFind, mcp.ToolHire, mcp.ToolVerify,
			mcp.ToolJobs, mcp.ToolJob, mcp.ToolWallet, mcp.ToolRate} {
			tool := byName[name]
			require.NotNil(t, tool, name)
			require.NotNil(t, tool.InputSchema, name)
			require.NotNil(t, tool.OutputSchema, name+" has a structured output")
			if name == mcp.ToolHire {
				require.Contains(t, tool.Description, "COSTS CREDITS")
			} else {
				require.True(t, strings.HasPrefix(tool.Description, "Free"), "%s says it is free: %s", name, tool.Description)
			}
			// Some clients (the TypeScript SDK) reject boolean sub-schemas.
			requireNoBoolSchemas(t, name, tool.InputSchema)
			requireNoBoolSchemas(t, name, tool.OutputSchema)
		}
		in, _ := json.Marshal(byName[mcp.ToolHire].InputSchema)
		require.JSONEq(t, `["capability","input"]`, gjson(t, in, "required"))
	})

	t.Run("capabilities with schemas", func(t *testing.T) {
		cs := client(t, t.TempDir(), mcp.Limits{}, nil) // no daemon needed
		var out struct {
			Capabilities []struct {
				ID          string `json:"id"`
				Domain      string `json:"domain"`
				InputSchema any    `json:"input_schema"`
			} `json:"capabilities"`
			Count int `json:"count"`
		}
		res := call(t, cs, mcp.ToolCapabilities, map[string]any{"domain": "compute"}, &out)
		require.False(t, res.IsError, text(t, res))
		require.Equal(t, len(out.Capabilities), out.Count)
		ids := []string{}
		for _, c := range out.Capabilities {
			require.Equal(t, "compute", c.Domain)
			require.NotNil(t, c.InputSchema, c.ID)
			ids = append(ids, c.ID)
		}
		require.Contains(t, ids, "compute.statistics.{op}")

		res = call(t, cs, mcp.ToolCapabilities, map[string]any{"domain": "nope"}, nil)
		require.True(t, res.IsError, "a domain outside the enum is refused")
		res = call(t, cs, mcp.ToolCapabilities, map[string]any{"capability": "compute.statistics.nope"}, nil)
		requireToolError(t, res, "compute.statistics.nope")
	})

	t.Run("find", func(t *testing.T) {
		cs := client(t, dir, mcp.Limits{MaxPerHire: amount(t, "0.03")}, nil)
		var out struct {
			Sellers []struct {
				PeerID       string  `json:"peer_id"`
				Price        string  `json:"price"`
				RTTMS        float64 `json:"rtt_ms"`
				RiskTier     int     `json:"risk_tier"`
				WithinLimits bool    `json:"within_limits"`
				LimitNote    string  `json:"limit_note"`
			} `json:"sellers"`
			Count int `json:"count"`
		}
		res := call(t, cs, mcp.ToolFind, map[string]any{"capability": capMean}, &out)
		require.False(t, res.IsError, text(t, res))
		require.Equal(t, 1, out.Count)
		s := out.Sellers[0]
		require.Equal(t, m.seller.Host.ID().String(), s.PeerID)
		require.Equal(t, "0.05", s.Price)
		require.False(t, s.WithinLimits, "0.05 is over the per-hire cap of 0.03")
		require.Contains(t, s.LimitNote, "per-hire cap")

		res = call(t, cs, mcp.ToolFind, map[string]any{"capability": capMedian}, &out)
		require.False(t, res.IsError, text(t, res))
		require.Equal(t, 3, out.Sellers[0].RiskTier)
		require.False(t, out.Sellers[0].WithinLimits)
		require.Contains(t, out.Sellers[0].LimitNote, "--allow-risk-tier-3")
	})

	t.Run("hire mean: verified output, escrow released, progress", func(t *testing.T) {
		var mu sync.Mutex
		var progress []*sdk.ProgressNotificationParams
		cs := client(t, dir, mcp.Limits{}, &sdk.ClientOptions{
			ProgressNotificationHandler: func(_ context.Context, req *sdk.ProgressNotificationClientRequest) {
				mu.Lock()
				defer mu.Unlock()
				progress = append(progress, req.Params)
			},
		})
		before := balance(t, cs)
		params := &sdk.CallToolParams{Name: mcp.ToolHire, Arguments: map[string]any{
			"capability": capMean, "input": map[string]any{"data": []float64{1, 2, 3, 4}}, "max_price": 0.1,
		}}
		params.SetProgressToken("hire-1")
		ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
		defer cancel()
		res, err := cs.CallTool(ctx, params)
		require.NoError(t, err)
		require.False(t, res.IsError, text(t, res))
		var out hireDoc
		data, _ := json.Marshal(res.StructuredContent)
		require.NoError(t, json.Unmarshal(data, &out))

		require.Equal(t, "released", out.Outcome)
		require.Equal(t, map[string]any{"result": 2.5}, out.Output)
		require.True(t, out.Verification.Passed)
		require.Contains(t, checkNames(out.Verification.Checks), "value_matches")
		require.Equal(t, "released", out.Escrow.State)
		require.Equal(t, "0.05", out.Price)
		require.Equal(t, "0.05", out.Charged)
		require.Equal(t, "0.05", out.Spending.SpentSession)
		require.Equal(t, m.seller.Host.ID().String(), out.Seller)

		after := balance(t, cs)
		require.Equal(t, amount(t, before.Available)-amount(t, "0.05"), amount(t, after.Available))

		mu.Lock()
		defer mu.Unlock()
		require.GreaterOrEqual(t, len(progress), 2, "progress notifications while the job runs")
		for i, p := range progress {
			require.Equal(t, "hire-1", p.ProgressToken)
			require.Equal(t, float64(i+1), p.Progress, "progress increases")
		}
		require.Contains(t, progress[0].Message, "finding a seller")

		// The job is in the history with its escrow record; rate it.
		var job struct {
			Job    jobSummary `json:"job"`
			Output any        `json:"output"`
			Escrow struct {
				State  string `json:"state"`
				Amount string `json:"amount"`
			} `json:"escrow"`
		}
		jres := call(t, cs, mcp.ToolJob, map[string]any{"job_id": out.JobID}, &job)
		require.False(t, jres.IsError, text(t, jres))
		require.Equal(t, "released", job.Escrow.State)
		require.Equal(t, "0.05", job.Escrow.Amount)
		require.Equal(t, map[string]any{"result": 2.5}, job.Output)

		var rated struct {
			Job jobSummary `json:"job"`
		}
		rres := call(t, cs, mcp.ToolRate, map[string]any{"job_id": out.JobID, "rating": 5}, &rated)
		require.False(t, rres.IsError, text(t, rres))
		require.Equal(t, 5, rated.Job.Rating)
		rres = call(t, cs, mcp.ToolRate, map[string]any{"job_id": out.JobID, "rating": 9}, nil)
		require.True(t, rres.IsError, "rating 9 is outside the schema")

		var jobs struct {
			Jobs  []jobSummary `json:"jobs"`
			Total int          `json:"total"`
		}
		lres := call(t, cs, mcp.ToolJobs, map[string]any{"role": "buyer", "capability": capMean}, &jobs)
		require.False(t, lres.IsError, text(t, lres))
		require.Equal(t, 1, jobs.Total)
		require.Equal(t, out.JobID, jobs.Jobs[0].JobID)

		var found struct {
			Sellers []struct {
				Rating  *float64 `json:"rating"`
				Ratings int      `json:"ratings"`
			} `json:"sellers"`
		}
		call(t, cs, mcp.ToolFind, map[string]any{"capability": capMean}, &found)
		require.Len(t, found.Sellers, 1)
		require.Equal(t, 1, found.Sellers[0].Ratings)
		require.InDelta(t, 5.0, *found.Sellers[0].Rating, 0.001)

		jres = call(t, cs, mcp.ToolJob, map[string]any{"job_id": "no-such-job"}, nil)
		requireToolError(t, jres, "swarmwage_jobs")
	})

	t.Run("verification failed is refunded", func(t *testing.T) {
		cs := client(t, dir, mcp.Limits{}, nil)
		before := balance(t, cs)
		res, out := hire(t, cs, capStddev, "0.1")
		requireToolError(t, res, "failed local verification", "refunded", "nothing was charged", "value_matches")
		require.Equal(t, "verification_failed", out.Outcome)
		require.Equal(t, "refunded", out.Escrow.State)
		require.Equal(t, "0", out.Charged)
		require.Equal(t, map[string]any{"result": 99.0}, out.Output)
		require.Equal(t, before.Available, balance(t, cs).Available)
		require.Equal(t, "0", out.Spending.SpentSession, "a refunded hire costs the session nothing")
	})

	t.Run("verify locally", func(t *testing.T) {
		cs := client(t, t.TempDir(), mcp.Limits{}, nil)
		in := map[string]any{"data": []float64{1, 2, 3, 4}}
		var out struct {
			Passed bool       `json:"passed"`
			Checks []checkDoc `json:"checks"`
		}
		res := call(t, cs, mcp.ToolVerify, map[string]any{"capability": capMean, "input": in, "output": map[string]any{"result": 2.5}}, &out)
		require.False(t, res.IsError, text(t, res))
		require.True(t, out.Passed)
		res = call(t, cs, mcp.ToolVerify, map[string]any{"capability": capMean, "input": in, "output": map[string]any{"result": 3}}, &out)
		require.False(t, res.IsError, "a failed check is an answer, not a tool error")
		require.False(t, out.Passed)
		for _, c := range out.Checks {
			if c.Name == "value_matches" {
				require.False(t, c.Passed)
			}
		}
	})

	t.Run("no seller under the price", func(t *testing.T) {
		cs := client(t, dir, mcp.Limits{}, nil)
		res, out := hire(t, cs, capMean, "0.01")
		requireToolError(t, res, "No seller of "+capMean, "at or under 0.01 credits", "Nothing was charged", "swarmwage_find")
		require.Equal(t, "no_seller", out.Outcome)
	})

	t.Run("invalid input", func(t *testing.T) {
		cs := client(t, dir, mcp.Limits{}, nil)
		res := call(t, cs, mcp.ToolHire, map[string]any{"capability": capMean, "input": map[string]any{"data": "x"}}, nil)
		requireToolError(t, res, "input schema", "swarmwage_capabilities")
	})

	t.Run("risk tier 3 refused unless allowed", func(t *testing.T) {
		cs := client(t, dir, mcp.Limits{}, nil)
		before := balance(t, cs)
		res, out := hire(t, cs, capMedian, "0.1")
		requireToolError(t, res, "Refused", "risk tier 3", "--allow-risk-tier-3", "allow_risk_tier_3 = true", "mcp.toml")
		require.Equal(t, "needs_confirm", out.Outcome)
		require.Equal(t, before.Available, balance(t, cs).Available)

		allowed := client(t, dir, mcp.Limits{AllowRiskTier3: true}, nil)
		res, out = hire(t, allowed, capMedian, "0.1")
		require.False(t, res.IsError, text(t, res))
		require.Equal(t, "released", out.Outcome)
		require.Equal(t, map[string]any{"result": 2.5}, out.Output)
	})

	t.Run("per-hire cap", func(t *testing.T) {
		cs := client(t, dir, mcp.Limits{MaxPerHire: amount(t, "0.01")}, nil)
		res, _ := hire(t, cs, capMean, "0.05")
		requireToolError(t, res, "per-hire cap of 0.01 credits", "--max-per-hire", "max_per_hire")
		// Without max_price the cap is the price limit.
		res, out := hire(t, cs, capMean, "")
		requireToolError(t, res, "at or under 0.01 credits", "per-hire cap", "--max-per-hire")
		require.Equal(t, "no_seller", out.Outcome)
	})

	t.Run("per-session cap", func(t *testing.T) {
		cs := client(t, dir, mcp.Limits{MaxPerSession: amount(t, "0.08")}, nil)
		res, out := hire(t, cs, capMean, "0.05")
		require.False(t, res.IsError, text(t, res))
		require.Equal(t, "0.05", out.Spending.SpentSession)
		require.Equal(t, "0.03", out.Spending.LeftSession)

		before := balance(t, cs)
		res, _ = hire(t, cs, capMean, "0.05")
		requireToolError(t, res, "per-session cap of 0.08 credits", "only 0.03", "--max-per-session", "max_per_session")
		res, _ = hire(t, cs, capMean, "")
		requireToolError(t, res, "at or under 0.03 credits", "per-session cap")
		require.Equal(t, before.Available, balance(t, cs).Available, "a refused hire spends nothing")

		// A new session starts from zero.
		fresh := client(t, dir, mcp.Limits{MaxPerSession: amount(t, "0.08")}, nil)
		res, _ = hire(t, fresh, capMean, "0.05")
		require.False(t, res.IsError, text(t, res))
	})

	t.Run("per-day cap survives a restart", func(t *testing.T) {
		probe := client(t, dir, mcp.Limits{MaxPerDay: amount(t, "1000")}, nil)
		today := amount(t, balance(t, probe).Spending.SpentToday)
		require.Positive(t, today, "the hires above count for today")
		dayCap := mcp.Limits{MaxPerDay: today + amount(t, "0.08")}

		first := client(t, dir, dayCap, nil)
		res, out := hire(t, first, capMean, "0.05")
		require.False(t, res.IsError, text(t, res))
		require.Equal(t, "0.03", out.Spending.LeftToday)

		// A new server (as after restarting 'swarmwage mcp') counts the
		// day from the daemon's escrow records.
		restarted := client(t, dir, dayCap, nil)
		require.Equal(t, "0.03", balance(t, restarted).Spending.LeftToday)
		res, _ = hire(t, restarted, capMean, "0.05")
		requireToolError(t, res, "per-day cap", "only 0.03", "--max-per-day", "max_per_day", "midnight")

		// Refunded hires do not count.
		res, _ = hire(t, restarted, capStddev, "0.02")
		requireToolError(t, res, "failed local verification")
		require.Equal(t, "0.03", balance(t, restarted).Spending.LeftToday)
	})
}

func TestNoDaemon(t *testing.T) {
	repo := newRepo(t) // initialised, but no daemon serves it
	cs := client(t, repo.Dir, mcp.Limits{}, nil)
	for _, tool := range []struct {
		name string
		args map[string]any
	}{
		{mcp.ToolWallet, nil},
		{mcp.ToolFind, map[string]any{"capability": capMean}},
		{mcp.ToolHire, map[string]any{"capability": capMean, "input": map[string]any{"data": []float64{1}}}},
		{mcp.ToolJobs, nil},
	} {
		res := call(t, cs, tool.name, tool.args, nil)
		requireToolError(t, res, "no swarmwage daemon is running", "swarmwage --repo "+repo.Dir+" daemon")
	}

	missing := t.TempDir() + "/none"
	cs = client(t, missing, mcp.Limits{}, nil)
	res := call(t, cs, mcp.ToolWallet, nil, nil)
	requireToolError(t, res, "no swarmwage repo at "+missing, "init", "daemon")
}

func checkNames(cs []checkDoc) []string {
	var out []string
	for _, c := range cs {
		out = append(out, c.Name)
	}
	return out
}

// gjson returns the JSON of one top-level key of doc.
func gjson(t *testing.T, doc []byte, key string) string {
	t.Helper()
	var m map[string]json.RawMessage
	require.NoError(t, json.Unmarshal(doc, &m))
	return string(m[key])
}

// requireNoBoolSchemas fails if a property schema is a bare true or false.
func requireNoBoolSchemas(t *testing.T, tool string, schema any) {
	t.Helper()
	data, err := json.Marshal(schema)
	require.NoError(t, err)
	var walk func(path string, v any)
	walk = func(path string, v any) {
		switch x := v.(type) {
		case map[string]any:
			if props, ok := x["properties"].(map[string]any); ok {
				for k, p := range props {
					_, isBool := p.(bool)
					require.False(t, isBool, "%s: property %s%s is a boolean schema", tool, path, k)
				}
			}
			for k, sub := range x {
				walk(path+k+".", sub)
			}
		case []any:
			for _, sub := range x {
				walk(path, sub)
			}
		}
	}
	var v any
	require.NoError(t, json.Unmarshal(data, &v))
	walk("", v)
}
